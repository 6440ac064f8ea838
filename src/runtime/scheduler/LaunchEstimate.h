// A launch's arithmetic class and its seconds alone on the whole device, for co-running
// admission (CoRunAdmission): from the roofline of the device's measurements (the manifest's
// bytes and operations over the copy bandwidth or the float32 FMA rate, the class by the ridge),
// or, where the kernel has a record of its own (`cajeta calibrate <program>`), from the rates it
// achieved alone on this device: the class is the unit it kept busier (its achieved bandwidth
// against the copy bandwidth, its achieved operations against the FMA rate) and the seconds this
// launch's costs over that achieved rate. Pure arithmetic, so it is tested without a device.
#pragma once

#include <optional>

namespace cajeta::xpu::rt {

/// The device's measured roofline (its calibration record).
struct DeviceRates {
  double Ridge = 0;         // FLOP per byte where the roofline turns
  double CopyBandwidth = 0; // bytes per second
  double Flops = 0;         // float32 FMA operations per second
};

/// What a kernel achieved alone on the device (its record's medians); absent where its
/// manifest could not bound the costs of its recorded launches.
struct KernelRates {
  std::optional<double> Bandwidth; // bytes per second
  std::optional<double> Flops;     // operations per second
};

struct LaunchEstimate {
  bool Classified = false; // false: costs unknown, the launch is not admitted to co-run
  bool MemoryBound = false;
  double SoloSeconds = 0; // alone on the whole device
  bool FromKernelRecord = false;
};

/// Bytes and Operations: this launch's costs from its manifest (negative: unbounded). Kernel:
/// the kernel's own record, or null.
LaunchEstimate estimateLaunch(double Bytes, double Operations, const DeviceRates& Device,
                              const KernelRates* Kernel);

} // namespace cajeta::xpu::rt
