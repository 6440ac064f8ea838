// The arguments of one cuTensorMapEncodeTiled call (CudaTensorMaps::plan makes them from a
// launch's arguments; CudaEntry keeps the last ones with the map they encoded).
#pragma once

#include "runtime/backends/cuda/CudaDriverApi.h"

#include <cstdint>

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

  bool operator==(const TensorMapEncoding& O) const;
};

} // namespace cajeta::xpu::rt::cuda
