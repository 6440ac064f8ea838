// Launch arguments for kernels the runtime launches itself (runtime/BuiltinKernels): scalars,
// and a device buffer with the handle an argument names it by.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"
#include "runtime/Buffer.h"
#include "runtime/Handles.h"

#include <cstring>
#include <memory>

namespace cajeta::xpu::rt {

inline cajeta_xpu_arg scalarArg(cajeta_xpu_scalar_type Type, uint64_t Bits) {
  cajeta_xpu_arg A{};
  A.kind = CAJETA_XPU_ARG_SCALAR;
  A.type = Type;
  A.value.bits = Bits;
  return A;
}

inline cajeta_xpu_arg f32Arg(float V) {
  uint32_t Bits;
  std::memcpy(&Bits, &V, 4);
  return scalarArg(CAJETA_XPU_FLOAT32, Bits);
}

inline cajeta_xpu_arg u32Arg(uint64_t V) {
  return scalarArg(CAJETA_XPU_UINT32, uint32_t(V));
}

/// A device buffer and the handle a launch argument names it by.
struct ArgBuffer {
  cajeta_xpu_buffer Handle;
  ArgBuffer(BackendDevice& D, bundle::ScalarType T, size_t Count)
      : Handle{std::make_shared<Buffer>(D, T, Count)} {}
  cajeta_xpu_arg arg() {
    cajeta_xpu_arg A{};
    A.kind = CAJETA_XPU_ARG_BUFFER;
    A.value.buffer = &Handle;
    return A;
  }
  const std::shared_ptr<Buffer>& buffer() const { return Handle.Impl; }
  size_t count() const { return Handle.Impl->count(); }
};

} // namespace cajeta::xpu::rt
