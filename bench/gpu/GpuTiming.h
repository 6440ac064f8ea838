// Timing helpers of the GPU bench: host clock, medians, and reproducible input data.
#pragma once

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <vector>

namespace cajeta::gpubench {

inline double nowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

inline double median(std::vector<double> V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t M = V.size() / 2;
  return V.size() % 2 ? V[M] : (V[M - 1] + V[M]) / 2;
}

/// 64 well-mixed bits from (Seed, Index): the bench's data, the same on every run and for both
/// sides.
inline uint64_t dataHash(uint32_t Seed, size_t Index) {
  uint64_t H = (uint64_t(Seed) << 32 | uint64_t(Index)) * 0x9E3779B97F4A7C15ull;
  H ^= H >> 29;
  H *= 0xBF58476D1CE4E5B9ull;
  return H ^ (H >> 32);
}

/// N floats in [0, 1) from a hash of (Seed, index): the same on every run and for both sides.
inline std::vector<float> makeData(size_t N, uint32_t Seed) {
  std::vector<float> V(N);
  for (size_t I = 0; I < N; ++I)
    V[I] = float(dataHash(Seed, I) >> 40) * (1.0f / 16777216.0f); // 24 bits: exact in float32
  return V;
}

/// Number of elements where A and B differ in their bits (and the first such index in First).
inline size_t countBitDifferences(const std::vector<float>& A, const std::vector<float>& B,
                                  size_t& First) {
  size_t Diff = 0;
  First = A.size();
  for (size_t I = 0; I < A.size() && I < B.size(); ++I) {
    if (std::bit_cast<uint32_t>(A[I]) == std::bit_cast<uint32_t>(B[I]))
      continue;
    if (!Diff)
      First = I;
    ++Diff;
  }
  return Diff + (A.size() > B.size() ? A.size() - B.size() : B.size() - A.size());
}

} // namespace cajeta::gpubench
