// Equality of encode arguments (CudaTensorMapEncoding.h).
#include "runtime/backends/cuda/CudaTensorMapEncoding.h"

#include <algorithm>

namespace cajeta::xpu::rt::cuda {

bool TensorMapEncoding::operator==(const TensorMapEncoding& O) const {
  auto Same = [](const auto& A, const auto& B) {
    return std::equal(std::begin(A), std::end(A), B);
  };
  return DataType == O.DataType && Rank == O.Rank && GlobalAddress == O.GlobalAddress &&
         Same(GlobalDim, O.GlobalDim) && Same(GlobalStrides, O.GlobalStrides) &&
         Same(BoxDim, O.BoxDim) && Same(ElementStrides, O.ElementStrides) &&
         Interleave == O.Interleave && Swizzle == O.Swizzle && L2Promotion == O.L2Promotion &&
         OobFill == O.OobFill;
}

} // namespace cajeta::xpu::rt::cuda
