// Devices of the backends present, and the one the dispatcher picks.
#pragma once

#include "cajeta/xpu/Errors.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::xpu {

class Device {
public:
  explicit Device(cajeta_xpu_device* Handle) : H(Handle) {}

  std::string name() const { return cajeta_xpu_device_name(H); }
  std::string backend() const { return cajeta_xpu_device_backend(H); } // "cpu"
  unsigned computeUnits() const { return cajeta_xpu_device_compute_units(H); }
  unsigned maxWorkgroupSize() const { return cajeta_xpu_device_max_workgroup_size(H); }
  /// Bytes of buffer memory allocated on the device now.
  uint64_t allocatedBytes() const { return cajeta_xpu_device_allocated_bytes(H); }
  cajeta_xpu_device* handle() const { return H; }

  friend bool operator==(const Device& A, const Device& B) { return A.H == B.H; }

private:
  cajeta_xpu_device* H;
};

/// Every device of every backend present.
inline std::vector<Device> devices() {
  std::vector<Device> All;
  for (size_t I = 0, N = cajeta_xpu_device_count(); I != N; ++I)
    All.emplace_back(cajeta_xpu_device_get(I));
  return All;
}

/// What the dispatcher picks (CAJETA_XPU_BACKEND=cpu|cuda|hip|vulkan forces one); throws
/// BackendUnavailable when the forced backend is unknown or absent.
inline Device defaultDevice() {
  cajeta_xpu_device* D = nullptr;
  detail::check(cajeta_xpu_device_default(&D));
  return Device(D);
}

} // namespace cajeta::xpu
