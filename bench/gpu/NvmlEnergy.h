// The GPU's energy counter through NVML (nvmlDeviceGetTotalEnergyConsumption: millijoules since
// the driver loaded, Volta and later), opened at run time so the bench needs no NVML to build or
// start. Read-only: the bench never changes the card's clocks or limits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cajeta::gpubench {

class NvmlEnergy {
public:
  /// Opens NVML's device Index (the CUDA device of the same index on a one-GPU machine).
  explicit NvmlEnergy(unsigned Index = 0);
  ~NvmlEnergy();
  NvmlEnergy(const NvmlEnergy&) = delete;
  NvmlEnergy& operator=(const NvmlEnergy&) = delete;

  /// Millijoules the GPU has used since the driver loaded; nullopt where NVML cannot say.
  std::optional<uint64_t> millijoules() const;
  /// Why millijoules() has no value ("" when it has).
  const std::string& why() const { return Why; }

private:
  void* Library = nullptr;
  void* Device = nullptr;
  int (*GetEnergy)(void*, unsigned long long*) = nullptr;
  mutable std::string Why; // set by a failed read too
};

} // namespace cajeta::gpubench
