// Host references for the tile tests: float16 and bfloat16 test data, and a float64 dot product
// with the sum of its terms' magnitudes (the scale an accumulation's rounding error is measured
// against).
#pragma once

#include "ConformanceSupport.h"

#include <cmath>

namespace conformance {

/// N float16 values uniform in [-1, 1), none zero.
inline std::vector<xpu::float16> halfData(size_t N, uint64_t Seed) {
  std::vector<xpu::float16> H;
  for (float X : uniformData<float>(N, Seed, -1, 1))
    H.push_back(xpu::float16(X == 0 ? 0.5f : X));
  return H;
}

/// N bfloat16 values uniform in [-1, 1), none zero.
inline std::vector<xpu::bfloat16> bfloat16Data(size_t N, uint64_t Seed) {
  std::vector<xpu::bfloat16> H;
  for (float X : uniformData<float>(N, Seed, -1, 1))
    H.push_back(xpu::bfloat16(X == 0 ? 0.5f : X));
  return H;
}

struct DotRef {
  double Sum = 0;
  double Scale = 0; // sum of |a_k b_k|
};

/// The float64 dot product of A(k) and B(k) for k < K (each a float64 of an element).
template <class FA, class FB> DotRef dot(uint32_t K, FA A, FB B) {
  DotRef R;
  for (uint32_t L = 0; L < K; ++L) {
    double P = double(A(L)) * double(B(L));
    R.Sum += P;
    R.Scale += std::fabs(P);
  }
  return R;
}

} // namespace conformance
