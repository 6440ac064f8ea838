// Holding windowed submissions on the host (DispatchGate.h).
#include "runtime/scheduler/DispatchGate.h"

#include "runtime/RuntimeError.h"
#include "runtime/scheduler/Submission.h"

#include <chrono>
#include <fmt/format.h>
#include <thread>

namespace cajeta::xpu::rt {

namespace {
// Below this the gate spins rather than sleeps: a sleep overshoots by tens of microseconds.
constexpr uint64_t SpinNs = 100'000;
} // namespace

std::string DispatchGate::missedMessage(const std::string& Kernel, uint64_t MissedByNs,
                                        const char* When) {
  return fmt::format("{}: deadline missed {}: the submission's window closed {:.3f} ms earlier; "
                     "the kernel was not run",
                     Kernel, When, double(MissedByNs) / 1e6);
}

void DispatchGate::refuseIfClosed(const char* When) const {
  if (!Window.LatestNs)
    return;
  uint64_t Now = monotonicNowNs();
  if (Now > Window.LatestNs)
    fail(CAJETA_XPU_DEADLINE_MISSED, missedMessage(Kernel, Now - Window.LatestNs, When));
}

void DispatchGate::waitFor(const std::vector<std::shared_ptr<BackendEvent>>& Events) const {
  for (const std::shared_ptr<BackendEvent>& E : Events) {
    if (!Window.LatestNs) {
      E->synchronize();
      continue;
    }
    unsigned Polls = 0;
    while (!E->done()) {
      refuseIfClosed("at dispatch, waiting for the work it follows");
      if (++Polls > 64)
        std::this_thread::sleep_for(std::chrono::microseconds(20));
      else
        std::this_thread::yield();
    }
  }
  refuseIfClosed("at dispatch");
}

void DispatchGate::waitForOpening() const {
  for (;;) {
    uint64_t Now = monotonicNowNs();
    if (Now >= Window.EarliestNs)
      break;
    if (Window.EarliestNs - Now > SpinNs)
      std::this_thread::sleep_for(std::chrono::nanoseconds(Window.EarliestNs - Now - SpinNs));
    else
      std::this_thread::yield();
  }
  refuseIfClosed("at dispatch");
}

} // namespace cajeta::xpu::rt
