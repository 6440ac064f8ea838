// A stream's position as other streams see it (StreamClock.h).
#include "runtime/scheduler/StreamClock.h"

#include "runtime/Stream.h"

namespace cajeta::xpu::rt {

std::shared_ptr<BackendEvent> StreamClock::eventAfter(uint64_t Seq) {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Owner ? Owner->eventAfter(Seq) : nullptr;
}

void StreamClock::detach() {
  std::lock_guard<std::mutex> Lock(Mutex);
  Owner = nullptr;
}

} // namespace cajeta::xpu::rt
