// HostArray: a 64-byte aligned float array for the peers (the CPU backend aligns buffers alike).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace cajeta::bench {

class HostArray {
public:
  explicit HostArray(size_t N) : N(N), P(allocate(N)) {}
  float* data() { return P.get(); }
  const float* data() const { return P.get(); }
  size_t size() const { return N; }
  float& operator[](size_t I) { return P.get()[I]; }
  float operator[](size_t I) const { return P.get()[I]; }
  float* begin() { return data(); }
  float* end() { return data() + N; }

private:
  struct Free {
    void operator()(float* F) const { std::free(F); }
  };
  static float* allocate(size_t N) {
    size_t Bytes = (N * sizeof(float) + 63) / 64 * 64;
    void* Raw = std::aligned_alloc(64, Bytes ? Bytes : 64);
    if (!Raw)
      throw std::bad_alloc();
    return static_cast<float*>(Raw);
  }
  size_t N;
  std::unique_ptr<float, Free> P;
};

/// Deterministic values in [-1, 1): the same contents for our buffers and the peer's.
inline void fillPattern(HostArray& A, unsigned Seed) {
  unsigned long long S = 0x9E3779B97F4A7C15ull * (Seed + 1);
  for (float& V : A) {
    S ^= S << 13;
    S ^= S >> 7;
    S ^= S << 17;
    V = float(int32_t(S >> 40) & 0xFFFFFF) / float(1 << 23) - 1.0f;
  }
}

} // namespace cajeta::bench
