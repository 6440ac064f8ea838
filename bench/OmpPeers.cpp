// The OpenMP peers of the three workloads (see OmpPeers.h).
#include "OmpPeers.h"

#include <algorithm>
#include <omp.h>

namespace cajeta::bench {

void saxpyPeer(float* __restrict Y, const float* __restrict X, float A, uint32_t N) {
#pragma omp parallel for schedule(static)
  for (int64_t I = 0; I < int64_t(N); ++I)
    Y[I] = A * X[I] + Y[I];
}

void stencilPeer(float* __restrict Out, const float* __restrict In, uint32_t W, uint32_t H,
                 float C0, float C1) {
  if (W < 3 || H < 3)
    return;
  const int64_t Stride = W;
#pragma omp parallel for schedule(static)
  for (int64_t Y = 1; Y < int64_t(H) - 1; ++Y) {
    const float* __restrict Row = In + Y * Stride;
    float* __restrict OutRow = Out + Y * Stride;
    for (int64_t X = 1; X < int64_t(W) - 1; ++X)
      OutRow[X] = C0 * Row[X] + C1 * (Row[X - Stride] + Row[X + Stride] + Row[X + 1] + Row[X - 1]);
  }
}

void partialSumsPeer(float* __restrict Partials, const float* __restrict X, uint32_t N,
                     uint32_t G) {
#pragma omp parallel for schedule(static)
  for (int64_t P = 0; P < int64_t(G); ++P) {
    float S = 0.0f;
    for (int64_t I = P; I < int64_t(N); I += G)
      S += X[I];
    Partials[P] = S;
  }
}

void partialSumsPeerInterchanged(float* __restrict Partials, const float* __restrict X, uint32_t N,
                                 uint32_t G, uint32_t Tile) {
  // Tiles of partials small enough to stay in L1 while every row of X streams past them.
  const int64_t Tiles = (int64_t(G) + Tile - 1) / Tile;
#pragma omp parallel for schedule(static)
  for (int64_t T = 0; T < Tiles; ++T) {
    const int64_t Begin = T * Tile, End = std::min<int64_t>(G, Begin + Tile);
    float* __restrict Acc = Partials + Begin;
    for (int64_t P = 0; P < End - Begin; ++P)
      Acc[P] = 0.0f;
    for (int64_t Base = 0; Base + Begin < int64_t(N); Base += G) {
      const int64_t Limit = std::min<int64_t>(End, int64_t(N) - Base) - Begin;
      const float* __restrict Row = X + Base + Begin;
      for (int64_t P = 0; P < Limit; ++P)
        Acc[P] += Row[P];
    }
  }
}

float sumPartials(const float* Partials, uint32_t G) {
  float S = 0.0f;
  for (uint32_t P = 0; P < G; ++P)
    S += Partials[P];
  return S;
}

} // namespace cajeta::bench
