// The OpenMP C++ peers: the same algorithms as bench/kernels/*.cj, written as a C++ programmer
// would with `#pragma omp parallel for`, built with g++ -O3 -march=native -fopenmp.
#pragma once

#include <cstdint>

namespace cajeta::bench {

void saxpyPeer(float* Y, const float* X, float A, uint32_t N);

/// Out[y*W+x] = C0*In[c] + C1*(In[c-W] + In[c+W] + In[c+1] + In[c-1]) on the interior.
void stencilPeer(float* Out, const float* In, uint32_t W, uint32_t H, float C0, float C1);

/// Partials[g] = X[g] + X[g+G] + X[g+2G] + ... (in that order) for g < G: one partial per
/// OpenMP iteration, the shape of the kernel (one work-item per partial).
void partialSumsPeer(float* Partials, const float* X, uint32_t N, uint32_t G);
/// partialSumsPeer, then each run of Width partials reduced in the wave butterfly order (for
/// m = 1, 2, ..., Width/2: v[l] = v[l] + v[l ^ m]): WaveSums gets G / Width sums; Scratch holds G.
void waveSumsPeer(float* WaveSums, float* Scratch, const float* X, uint32_t N, uint32_t G,
                  uint32_t Width);

/// The same partials, each summed in the same order, with the loops interchanged so that the
/// inner loop runs across a tile of Tile partials and vectorizes (what tuned CPU code does).
void partialSumsPeerInterchanged(float* Partials, const float* X, uint32_t N, uint32_t G,
                                 uint32_t Tile);

/// C = A * B for n x n row-major float32, tiled like bench/kernels/matmul.cj: one OpenMP
/// iteration per 16x16 tile of C, 16x16 tiles of A and B copied into local arrays (zero-padded
/// past n), every element summed over k = 0, 1, ... in the kernel's order (so bit-identical).
void matmulTiledPeer(float* C, const float* A, const float* B, uint32_t N);

/// 256-bin histogram of N bytes: per-thread private histograms, merged at the end.
void histogramPeer(uint32_t* Bins, const uint8_t* Data, uint32_t N);

/// Out[i] = the wrapping inclusive prefix sum of X over i's block of Block values (Block divides
/// N).
void blockScanPeer(uint32_t* Out, const uint32_t* X, uint32_t N, uint32_t Block);
/// Out[i] = the sum of X[j] * X[j] over i's run of Width values, in the wave butterfly order (for
/// m = 1, 2, ..., Width/2: v[l] = v[l] + v[l ^ m]; every lane ends with the same sum).
void waveSumsOfSquaresPeer(float* Out, const float* X, uint32_t N, uint32_t Width);
/// Out[i] = the mask of the lanes L of i's run of Width values with X[L] > T, bit 63 set when
/// one of them has X[L] < -T.
void waveVotesPeer(uint64_t* Out, const float* X, uint32_t N, uint32_t Width, float T);

/// Sum of the partials in index order (used for both sides, so that the totals compare exactly).
float sumPartials(const float* Partials, uint32_t G);

} // namespace cajeta::bench
