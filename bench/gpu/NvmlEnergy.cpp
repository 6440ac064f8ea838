// The GPU's energy counter through NVML (NvmlEnergy.h).
#include "NvmlEnergy.h"

#include <dlfcn.h>

namespace cajeta::gpubench {

NvmlEnergy::NvmlEnergy(unsigned Index) {
  Library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Library) {
    Why = "no libnvidia-ml.so.1";
    return;
  }
  auto init = reinterpret_cast<int (*)()>(dlsym(Library, "nvmlInit_v2"));
  auto byIndex =
      reinterpret_cast<int (*)(unsigned, void**)>(dlsym(Library, "nvmlDeviceGetHandleByIndex_v2"));
  GetEnergy = reinterpret_cast<int (*)(void*, unsigned long long*)>(
      dlsym(Library, "nvmlDeviceGetTotalEnergyConsumption"));
  if (!init || !byIndex || !GetEnergy) {
    Why = "NVML lacks the energy counter's entry points";
    GetEnergy = nullptr;
    return;
  }
  if (int R = init(); R != 0) {
    Why = "nvmlInit_v2 returned " + std::to_string(R);
    GetEnergy = nullptr;
    return;
  }
  if (int R = byIndex(Index, &Device); R != 0) {
    Why = "nvmlDeviceGetHandleByIndex_v2 returned " + std::to_string(R);
    GetEnergy = nullptr;
    return;
  }
  if (!millijoules())
    GetEnergy = nullptr; // Why says what the counter answered
}

NvmlEnergy::~NvmlEnergy() {
  if (!Library)
    return;
  if (Device)
    if (auto shutdown = reinterpret_cast<int (*)()>(dlsym(Library, "nvmlShutdown")))
      shutdown();
  dlclose(Library);
}

std::optional<uint64_t> NvmlEnergy::millijoules() const {
  if (!GetEnergy)
    return std::nullopt;
  unsigned long long Mj = 0;
  if (int R = GetEnergy(Device, &Mj); R != 0) {
    Why = "nvmlDeviceGetTotalEnergyConsumption returned " + std::to_string(R);
    return std::nullopt;
  }
  return Mj;
}

} // namespace cajeta::gpubench
