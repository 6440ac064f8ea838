// Picks the backend and device: CUDA -> HIP -> Vulkan -> CPU, or the one CAJETA_XPU_BACKEND forces.
// A device that only emulates a GPU on the host (BackendDevice::preferredByDefault() false, e.g.
// lavapipe) is passed over unless its backend is forced.
#pragma once

#include "runtime/Backend.h"

#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class Dispatcher {
public:
  /// Backend names in order of preference.
  static const std::vector<std::string>& order();

  /// The device to use when no program constrains the choice. Throws RuntimeError (backend
  /// unavailable) if CAJETA_XPU_BACKEND names an unknown or absent backend, or none has a device.
  static BackendDevice& defaultDevice();

  struct Choice {
    BackendDevice* Device;
    const bundle::Payload* Payload;
  };
  /// The first backend in order (or the forced one) with a device and a payload in Desc.
  static Choice choose(const bundle::Program& Desc, const std::string& Origin);
  /// Device D and its backend's payload in Desc; an error naming both when there is none.
  static Choice chooseOn(const bundle::Program& Desc, BackendDevice& D, const std::string& Origin);

private:
  /// The backends to consider, in order; validates CAJETA_XPU_BACKEND.
  static std::vector<std::string> candidates();
};

} // namespace cajeta::xpu::rt
