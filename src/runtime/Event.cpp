// Stream events: a flag with a condition variable, or a device event of a queue-backed stream.
#include "runtime/Event.h"

namespace cajeta::xpu::rt {

void Event::signal() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Done = true;
  }
  Cv.notify_all();
}

void Event::wait() const {
  if (Native) {
    Native->synchronize();
    return;
  }
  std::unique_lock<std::mutex> Lock(Mutex);
  Cv.wait(Lock, [&] { return Done; });
}

bool Event::done() const {
  if (Native)
    return Native->done();
  std::lock_guard<std::mutex> Lock(Mutex);
  return Done;
}

} // namespace cajeta::xpu::rt
