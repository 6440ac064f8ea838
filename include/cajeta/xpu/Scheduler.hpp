// The runtime's scheduling switches.
#pragma once

#include "cajeta/xpu/Calibration.hpp"
#include "cajeta/xpu/Program.hpp"

namespace cajeta::xpu {

class Scheduler {
public:
  /// Streams that share a buffer are ordered by what their launches and copies do to it; true
  /// turns that off (the raw launch path, for A/B measurement, as CAJETA_XPU_SCHEDULER=bypass
  /// does at start). Returns the previous setting.
  static bool bypass(bool On) { return cajeta_xpu_scheduler_set_bypass(On ? 1 : 0) != 0; }
  static bool bypassed() { return cajeta_xpu_scheduler_bypassed() != 0; }
  /// Latency and frameBudget submissions run on compute units reserved for them
  /// (Device::reserve), the others on the rest; false turns that off (as
  /// CAJETA_XPU_RESERVATION=off does at start): latency-class submissions then only start ahead
  /// of waiting work. Returns the previous setting.
  static bool reservation(bool On) { return cajeta_xpu_scheduler_set_reservation(On ? 1 : 0) != 0; }
  static bool reserving() { return cajeta_xpu_scheduler_reserving() != 0; }
  /// How a memory-bound and a compute-bound stream with work queued side by side are admitted
  /// to co-run on a slice of the device and its complement (CUDA): Auto where the device's
  /// calibration predicts a gain, Always for every such pair, Off never (as CAJETA_XPU_CORUN
  /// does at start). Returns the previous mode.
  enum class CoRunning : int {
    Off = CAJETA_XPU_CORUN_OFF,
    Auto = CAJETA_XPU_CORUN_AUTO,
    Always = CAJETA_XPU_CORUN_ALWAYS
  };
  static CoRunning coRunning(CoRunning Mode) {
    return CoRunning(cajeta_xpu_scheduler_set_co_running(int(Mode)));
  }
  static CoRunning coRunning() { return CoRunning(cajeta_xpu_scheduler_co_running()); }
  /// The explicit form of kernel.launch(sub, grid, block)(args): submit(k, sub, grid,
  /// block)(args) fills the read, write and accumulate sets from the manifest, bound to the
  /// buffers passed, enqueues the launch and returns the kernel's resource descriptor.
  static Submitter submit(const Kernel& K, const KernelSubmission& Sub, Dim3 Grid, Dim3 Block,
                          uint32_t DynamicSharedBytes = 0) {
    return K.launch(Sub, Grid, Block, DynamicSharedBytes);
  }
  /// Replaces where calibration records are kept between processes (nullptr: nowhere, they stay
  /// in memory). Only before the first record is read; afterwards it throws Error and the store
  /// in use stays. A store that throws is reported once and disabled for the process.
  static void calibrationStore(std::shared_ptr<CalibrationStore> Store) {
    if (!Store) {
      detail::check(cajeta_xpu_scheduler_set_calibration_store(nullptr));
      return;
    }
    cajeta_xpu_calibration_store C = detail::CalibrationStoreAdapter::make(std::move(Store));
    detail::check(cajeta_xpu_scheduler_set_calibration_store(&C));
  }
  /// Whether the store in use can keep records.
  static bool calibrationStoreWritable() { return cajeta_xpu_calibration_store_writable() != 0; }
};

} // namespace cajeta::xpu
