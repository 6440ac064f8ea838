// The runtime's scheduling switches. The scheduler is the access-set ordering of streams
// (BufferAccesses, StreamClock), the policies' launch priority and the reservation of compute
// units for latency-class submissions (BackendDevice::reserve); bypass turns all of it off so
// the raw launch path can be measured beside it (CAJETA_XPU_SCHEDULER=bypass at start, or
// cajeta_xpu_scheduler_set_bypass). reserving() alone turns off the reservation
// (CAJETA_XPU_RESERVATION=off), keeping the rest; coRunning() chooses how co-running pairs are
// admitted (CAJETA_XPU_CORUN).
#pragma once

#include <atomic>

namespace cajeta::xpu::rt {

class Scheduler {
public:
  static bool bypassed() { return Bypass.load(std::memory_order_relaxed); }
  /// Returns the previous setting.
  static bool setBypass(bool On) { return Bypass.exchange(On, std::memory_order_relaxed); }
  /// Whether latency-class submissions reserve compute units (and the others keep off them).
  static bool reserving() { return Reserving.load(std::memory_order_relaxed); }
  /// Returns the previous setting.
  static bool setReserving(bool On) { return Reserving.exchange(On, std::memory_order_relaxed); }
  /// Co-running admission (CoRunAdmission): a cajeta_xpu_co_running mode (off, auto, always).
  static int coRunning() { return CoRunning.load(std::memory_order_relaxed); }
  /// Returns the previous mode.
  static int setCoRunning(int Mode) { return CoRunning.exchange(Mode, std::memory_order_relaxed); }

private:
  static std::atomic<bool> Bypass;    // initialised from CAJETA_XPU_SCHEDULER
  static std::atomic<bool> Reserving; // initialised from CAJETA_XPU_RESERVATION
  static std::atomic<int> CoRunning;  // initialised from CAJETA_XPU_CORUN
};

} // namespace cajeta::xpu::rt
