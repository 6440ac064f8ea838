// A launch's class and seconds alone (LaunchEstimate.h).
#include "runtime/scheduler/LaunchEstimate.h"

namespace cajeta::xpu::rt {

LaunchEstimate estimateLaunch(double Bytes, double Operations, const DeviceRates& Device,
                              const KernelRates* Kernel) {
  LaunchEstimate E;
  if (Bytes < 0 || Operations < 0 || Device.CopyBandwidth <= 0 || Device.Flops <= 0)
    return E;
  E.Classified = true;
  if (Kernel && Kernel->Bandwidth && *Kernel->Bandwidth > 0 && Kernel->Flops &&
      *Kernel->Flops >= 0 && Bytes > 0) {
    // The unit the kernel kept busier alone, as measured, and this launch's costs at the rate
    // it achieved there (its launch overhead included, as the solo runs timed it).
    double MemoryShare = *Kernel->Bandwidth / Device.CopyBandwidth;
    double ComputeShare = *Kernel->Flops / Device.Flops;
    E.MemoryBound = MemoryShare >= ComputeShare;
    E.SoloSeconds = E.MemoryBound ? Bytes / *Kernel->Bandwidth : Operations / *Kernel->Flops;
    E.FromKernelRecord = true;
    return E;
  }
  E.MemoryBound = Bytes > 0 && Operations / Bytes <= Device.Ridge;
  E.SoloSeconds = E.MemoryBound ? Bytes / Device.CopyBandwidth : Operations / Device.Flops;
  return E;
}

} // namespace cajeta::xpu::rt
