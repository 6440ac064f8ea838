// The kernel parameter array of a launch on the cuda backend (GpuKernelAbi.h): one entry per PTX
// parameter, a buffer taking two (pointer, length), then the launch's status record, then a TMA
// entry's tensor maps (bundle::TargetManifest::TensorMaps).
#pragma once

#include "runtime/Backend.h"
#include "runtime/backends/cuda/CudaDriverApi.h"

#include <cstring>
#include <vector>

namespace cajeta::xpu::rt::cuda {

/// The most kernel parameters the cuda backend passes.
constexpr size_t MaxKernelParams = 64;
/// The most tensor maps a TMA entry's launch passes (a kernel with more runs its plain entry).
constexpr size_t MaxTensorMaps = 16;
/// The entries of the largest kernel parameter array.
constexpr size_t MaxParamSlots = 2 * MaxKernelParams + 1 + MaxTensorMaps;

/// Fills Params (room for MaxParamSlots entries) with pointers into Args, Status and the MapCount
/// tensor maps at Maps, which must outlive the driver call that reads them; returns the count.
inline size_t packKernelParams(const bundle::KernelInfo& Info, const MarshalledArg* Args,
                               CUdeviceptr* Status, void** Params,
                               const CUtensorMap* Maps = nullptr, size_t MapCount = 0) {
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
  for (size_t I = 0; I != MapCount; ++I)
    Params[N++] = const_cast<CUtensorMap*>(&Maps[I]); // its 128 bytes, copied at the call
  return N;
}

/// The argument values a launch passes, tensor maps included, as bytes: equal bytes, equal
/// launch.
inline void argumentBytes(const bundle::KernelInfo& Info, const MarshalledArg* Args,
                          std::vector<uint8_t>& Out, const CUtensorMap* Maps = nullptr,
                          size_t MapCount = 0) {
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
  if (MapCount)
    Append(Maps, MapCount * sizeof(CUtensorMap));
}

} // namespace cajeta::xpu::rt::cuda
