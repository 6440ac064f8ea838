// The tensor maps of a TMA entry (bundle::TargetManifest::TmaSymbol) for one launch: each
// recipe's cuTensorMapEncodeTiled arguments from the launch's marshalled arguments, the checks
// that keep the tensor memory accelerator inside the buffer, and the choice between the TMA entry
// and the plain one, which computes the same. Pure but for the encode call, which comes through a
// CudaDriverApi (a test's stand-in where there is no driver).
#pragma once

#include "runtime/Backend.h"
#include "runtime/backends/cuda/CudaEntry.h"
#include "runtime/backends/cuda/CudaTensorMapEncoding.h"

#include <string>
#include <vector>

namespace cajeta::xpu::rt::cuda {

/// What one launch of an entry runs.
struct CudaLaunchChoice {
  CUfunction Fn = nullptr;
  std::vector<CUtensorMap> Maps; // passed after the status pointer, in order
  /// The chosen code's static shared bytes, for the opt-in above 48 KiB.
  uint32_t StaticSharedBytes = 0;
  /// For a TMA entry that runs its plain entry: why; "" otherwise.
  std::string Fallback;
  bool tma() const { return !Maps.empty(); }
};

class CudaTensorMaps {
public:
  /// Recipe R's encode arguments for a launch of a kernel with Info's parameters and these
  /// arguments: "" with Out filled, or why the tensor memory accelerator may not read it (a
  /// base or row stride not 16-byte aligned, a matrix that is empty, wider than its stride or
  /// not inside its buffer, a box the unit does not take).
  static std::string plan(const bundle::KernelInfo& Info, const bundle::TensorMapRecipe& R,
                          const MarshalledArg* Args, TensorMapEncoding& Out);
  /// Encodes E through Api: "" with Out filled, or why not.
  static std::string encode(const CudaDriverApi& Api, const TensorMapEncoding& E, CUtensorMap& Out);
  /// What a launch of Entry with these arguments and geometry runs: a plain entry's function;
  /// for a TMA entry, its own function with every map encoded where each plans and encodes and
  /// its code takes the geometry, else the plain entry's function with the reason. A map whose
  /// plan is the entry's last one is not encoded again (CudaEntry::Encoded).
  static CudaLaunchChoice choose(const CudaDriverApi& Api, const CudaEntry& Entry,
                                 const bundle::KernelInfo& Info, const MarshalledArg* Args,
                                 const LaunchGeometry& Geometry);
};

} // namespace cajeta::xpu::rt::cuda
