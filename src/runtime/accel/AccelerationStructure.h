// The runtime's acceleration structure: the software BVH of a scene built on the host and held in
// a uint32 device buffer that kernels traverse, with the implementation it was built as.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"
#include "runtime/accel/BvhBuilder.h"

#include <memory>

namespace cajeta::xpu::rt {

class BackendDevice;
class Buffer;

class AccelerationStructure {
public:
  /// Builds S on Device as Asked (CAJETA_GPU_AS_IMPL overrides it; resolveImpl). Throws
  /// RuntimeError: backend unavailable for a native build, an error for a bad description or
  /// override.
  AccelerationStructure(BackendDevice& Device, const BvhBuilder::Scene& S,
                        cajeta_xpu_as_impl Asked);
  AccelerationStructure(const AccelerationStructure&) = delete;
  AccelerationStructure& operator=(const AccelerationStructure&) = delete;

  /// The implementation a build asked for as Asked gets: CAJETA_GPU_AS_IMPL (native|software)
  /// replaces Asked; Auto and Software give Software. Native throws RuntimeError (backend
  /// unavailable): no device here offers hardware ray query. An unknown value of the variable
  /// throws naming the valid ones.
  static cajeta_xpu_as_impl resolveImpl(cajeta_xpu_as_impl Asked);

  BackendDevice& device() const { return Device; }
  const std::shared_ptr<Buffer>& buffer() const { return Words; }
  cajeta_xpu_as_impl impl() const { return Impl; }
  const BvhBuilder::Stats& stats() const { return Stats; }
  uint64_t bytes() const { return uint64_t(Stats.Words) * 4; }
  double buildMillis() const { return BuildMillis; }

private:
  BackendDevice& Device;
  cajeta_xpu_as_impl Impl = CAJETA_XPU_AS_IMPL_SOFTWARE;
  BvhBuilder::Stats Stats;
  double BuildMillis = 0;
  std::shared_ptr<Buffer> Words;
};

} // namespace cajeta::xpu::rt
