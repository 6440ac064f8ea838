// The runtime's scheduling switches. Today the scheduler is the access-set ordering of streams
// (BufferAccesses, StreamClock); bypass turns it off so the raw launch path can be measured
// beside it (CAJETA_XPU_SCHEDULER=bypass at start, or cajeta_xpu_scheduler_set_bypass).
#pragma once

#include <atomic>

namespace cajeta::xpu::rt {

class Scheduler {
public:
  static bool bypassed() { return Bypass.load(std::memory_order_relaxed); }
  /// Returns the previous setting.
  static bool setBypass(bool On) { return Bypass.exchange(On, std::memory_order_relaxed); }

private:
  static std::atomic<bool> Bypass; // initialised from CAJETA_XPU_SCHEDULER
};

} // namespace cajeta::xpu::rt
