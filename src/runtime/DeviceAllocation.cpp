// Device memory blocks with accounting of the bytes each device has allocated.
#include "runtime/DeviceAllocation.h"

#include "runtime/RuntimeError.h"

#include <fmt/format.h>

namespace cajeta::xpu::rt {

std::shared_ptr<DeviceAllocation> DeviceAllocation::create(BackendDevice& Device, size_t Bytes) {
  void* Ptr = Device.allocate(Bytes);
  if (!Ptr)
    fail(CAJETA_XPU_OUT_OF_DEVICE_MEMORY,
         fmt::format("out of device memory: cannot allocate {} bytes on {} device '{}'", Bytes,
                     Device.backendName(), Device.name()));
  Device.noteAllocated(static_cast<int64_t>(Bytes));
  return std::shared_ptr<DeviceAllocation>(new DeviceAllocation(Device, Ptr, Bytes));
}

DeviceAllocation::~DeviceAllocation() {
  Device.release(Ptr, Bytes);
  Device.noteAllocated(-static_cast<int64_t>(Bytes));
}

} // namespace cajeta::xpu::rt
