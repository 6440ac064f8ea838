// The OpenMP peers of the workloads (see OmpPeers.h).
#include "OmpPeers.h"

#include <algorithm>
#include <omp.h>
#include <utility>

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

void waveSumsPeer(float* __restrict WaveSums, float* __restrict Scratch, const float* __restrict X,
                  uint32_t N, uint32_t G, uint32_t Width) {
#pragma omp parallel for schedule(static)
  for (int64_t Wave = 0; Wave < int64_t(G / Width); ++Wave) {
    float* V = Scratch + Wave * Width;
    for (int64_t L = 0; L < int64_t(Width); ++L) {
      float S = 0.0f;
      for (int64_t I = Wave * Width + L; I < int64_t(N); I += G)
        S += X[I];
      V[L] = S;
    }
    float Next[64];
    for (uint32_t M = 1; M < Width; M <<= 1) {
      for (uint32_t L = 0; L < Width; ++L)
        Next[L] = V[L] + V[L ^ M];
      std::copy(Next, Next + Width, V);
    }
    WaveSums[Wave] = V[0];
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

void matmulTiledPeer(float* __restrict C, const float* __restrict A, const float* __restrict B,
                     uint32_t N) {
  constexpr int64_t T = 16;
  const int64_t Size = N, Tiles = (Size + T - 1) / T;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t TI = 0; TI < Tiles; ++TI) {
    for (int64_t TJ = 0; TJ < Tiles; ++TJ) {
      alignas(64) float Acc[T][T] = {};
      alignas(64) float TA[T][T];
      alignas(64) float TB[T][T];
      for (int64_t TK = 0; TK < Tiles; ++TK) {
        for (int64_t I = 0; I < T; ++I) {
          const int64_t Row = TI * T + I, BK = TK * T + I;
          for (int64_t J = 0; J < T; ++J) {
            const int64_t AK = TK * T + J, Col = TJ * T + J;
            TA[I][J] = Row < Size && AK < Size ? A[Row * Size + AK] : 0.0f;
            TB[I][J] = BK < Size && Col < Size ? B[BK * Size + Col] : 0.0f;
          }
        }
        // k outside j: each Acc[i][j] still adds its products in k order; j vectorizes.
        for (int64_t I = 0; I < T; ++I)
          for (int64_t K = 0; K < T; ++K) {
            const float AV = TA[I][K];
            for (int64_t J = 0; J < T; ++J)
              Acc[I][J] += AV * TB[K][J];
          }
      }
      for (int64_t I = 0; I < T && TI * T + I < Size; ++I)
        for (int64_t J = 0; J < T && TJ * T + J < Size; ++J)
          C[(TI * T + I) * Size + TJ * T + J] = Acc[I][J];
    }
  }
}

void histogramPeer(uint32_t* __restrict Bins, const uint8_t* __restrict Data, uint32_t N) {
  for (int B = 0; B < 256; ++B)
    Bins[B] = 0;
#pragma omp parallel
  {
    uint32_t Local[256] = {};
#pragma omp for schedule(static)
    for (int64_t I = 0; I < int64_t(N); ++I)
      ++Local[Data[I]];
    for (int B = 0; B < 256; ++B) {
      if (!Local[B])
        continue;
#pragma omp atomic
      Bins[B] += Local[B];
    }
  }
}

float sumPartials(const float* Partials, uint32_t G) {
  float S = 0.0f;
  for (uint32_t P = 0; P < G; ++P)
    S += Partials[P];
  return S;
}

void blockScanPeer(uint32_t* __restrict Out, const uint32_t* __restrict X, uint32_t N,
                   uint32_t Block) {
#pragma omp parallel for schedule(static)
  for (int64_t B = 0; B < int64_t(N / Block); ++B) {
    uint32_t S = 0;
    for (int64_t I = B * Block; I < (B + 1) * Block; ++I)
      Out[I] = S += X[I];
  }
}

void waveSumsOfSquaresPeer(float* __restrict Out, const float* __restrict X, uint32_t N,
                           uint32_t Width) {
#pragma omp parallel for schedule(static)
  for (int64_t W = 0; W < int64_t(N / Width); ++W) {
    float A[64], B[64];
    float *V = A, *Next = B;
    for (uint32_t L = 0; L < Width; ++L)
      V[L] = X[W * Width + L] * X[W * Width + L];
    for (uint32_t M = 1; M < Width; M <<= 1) {
      for (uint32_t L = 0; L < Width; ++L)
        Next[L] = V[L] + V[L ^ M];
      std::swap(V, Next);
    }
    for (uint32_t L = 0; L < Width; ++L)
      Out[W * Width + L] = V[L];
  }
}

void waveVotesPeer(uint64_t* __restrict Out, const float* __restrict X, uint32_t N, uint32_t Width,
                   float T) {
#pragma omp parallel for schedule(static)
  for (int64_t W = 0; W < int64_t(N / Width); ++W) {
    uint64_t Mask = 0;
    bool Any = false;
    for (uint32_t L = 0; L < Width; ++L) {
      Mask |= uint64_t(X[W * Width + L] > T) << L;
      Any |= X[W * Width + L] < -T;
    }
    for (uint32_t L = 0; L < Width; ++L)
      Out[W * Width + L] = Any ? Mask | (uint64_t(1) << 63) : Mask;
  }
}

} // namespace cajeta::bench
