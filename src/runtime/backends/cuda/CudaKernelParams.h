// The kernel parameter array of a launch on the cuda backend (GpuKernelAbi.h): one entry per PTX
// parameter, a buffer taking two (pointer, length), then the launch's status record.
#pragma once

#include "runtime/Backend.h"
#include "runtime/backends/cuda/CudaDriverApi.h"

#include <cstring>
#include <vector>

namespace cajeta::xpu::rt::cuda {

/// The most kernel parameters the cuda backend passes.
constexpr size_t MaxKernelParams = 64;

/// Fills Params (room for 2 * MaxKernelParams + 1 entries) with pointers into Args and Status,
/// which must outlive the driver call that reads them; returns the count.
inline size_t packKernelParams(const bundle::KernelInfo& Info, const MarshalledArg* Args,
                               CUdeviceptr* Status, void** Params) {
  size_t N = 0;
  for (size_t I = 0, E = Info.Params.size(); I != E; ++I) {
    auto& A = const_cast<MarshalledArg&>(Args[I]);
    switch (Info.Params[I].Kind) {
    case bundle::ParamKind::Buffer:
      Params[N++] = &A.Ptr; // a CUdeviceptr is the pointer's bits
      Params[N++] = &A.Length;
      break;
    case bundle::ParamKind::Scalar:
    case bundle::ParamKind::Function:
      Params[N++] = &A.Bits; // little-endian: the param's size in the low bytes
      break;
    case bundle::ParamKind::Pod:
      Params[N++] = A.Ptr; // the POD's bytes, copied by the driver at the call
      break;
    }
  }
  Params[N++] = Status;
  return N;
}

/// The argument values a launch passes, as bytes: equal bytes, equal launch.
inline void argumentBytes(const bundle::KernelInfo& Info, const MarshalledArg* Args,
                          std::vector<uint8_t>& Out) {
  Out.clear();
  auto Append = [&](const void* P, size_t Bytes) {
    const auto* B = static_cast<const uint8_t*>(P);
    Out.insert(Out.end(), B, B + Bytes);
  };
  for (size_t I = 0, E = Info.Params.size(); I != E; ++I) {
    if (Info.Params[I].Kind == bundle::ParamKind::Pod)
      Append(Args[I].Ptr, Args[I].Length);
    else
      Append(&Args[I], sizeof(MarshalledArg));
  }
}

} // namespace cajeta::xpu::rt::cuda
