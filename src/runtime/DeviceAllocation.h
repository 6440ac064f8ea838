// One block of device memory, freed when the last holder (buffer or in-flight command) drops it.
#pragma once

#include "runtime/Backend.h"

#include <cstddef>
#include <memory>

namespace cajeta::xpu::rt {

class DeviceAllocation {
public:
  /// Throws RuntimeError (out of device memory) naming the size when the device refuses.
  static std::shared_ptr<DeviceAllocation> create(BackendDevice& Device, size_t Bytes);
  ~DeviceAllocation();
  DeviceAllocation(const DeviceAllocation&) = delete;
  DeviceAllocation& operator=(const DeviceAllocation&) = delete;

  void* data() const { return Ptr; }
  size_t bytes() const { return Bytes; }

private:
  DeviceAllocation(BackendDevice& Device, void* Ptr, size_t Bytes)
      : Device(Device), Ptr(Ptr), Bytes(Bytes) {}

  BackendDevice& Device;
  void* Ptr;
  size_t Bytes;
};

} // namespace cajeta::xpu::rt
