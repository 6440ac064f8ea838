// The tensor maps of a TMA entry (bundle::TargetManifest::TmaSymbol) for one launch: each
// recipe's cuTensorMapEncodeTiled arguments from the launch's marshalled arguments, the checks
// that keep the tensor memory accelerator inside the buffer, and the choice between the TMA entry
// and the plain one, which computes the same. Pure but for the encode call, which comes through a
// CudaDriverApi (a test's stand-in where there is no driver).
#pragma once

#include "runtime/Backend.h"
#include "runtime/backends/cuda/CudaEntry.h"

#include <string>
#include <vector>

namespace cajeta::xpu::rt::cuda {

/// The arguments of one cuTensorMapEncodeTiled call: rank 2, or 4 for a recipe's Blocks forms.
struct TensorMapEncoding {
  int DataType = CU_TENSOR_MAP_DATA_TYPE_UINT16;
  uint32_t Rank = 2;
  uint64_t GlobalAddress = 0;
  uint64_t GlobalDim[4] = {};     // rank 2: {width, height} in elements
  uint64_t GlobalStrides[3] = {}; // bytes between steps of dimensions 1 .. rank - 1
  uint32_t BoxDim[4] = {};        // rank 2: {columns, rows}
  uint32_t ElementStrides[4] = {1, 1, 1, 1};
  int Interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  int Swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  int L2Promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  int OobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};

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
  /// its code takes the geometry, else the plain entry's function with the reason.
  static CudaLaunchChoice choose(const CudaDriverApi& Api, const CudaEntry& Entry,
                                 const bundle::KernelInfo& Info, const MarshalledArg* Args,
                                 const LaunchGeometry& Geometry);
};

} // namespace cajeta::xpu::rt::cuda
