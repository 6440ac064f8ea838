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

/// The same partials, each summed in the same order, with the loops interchanged so that the
/// inner loop runs across a tile of Tile partials and vectorizes (what tuned CPU code does).
void partialSumsPeerInterchanged(float* Partials, const float* X, uint32_t N, uint32_t G,
                                 uint32_t Tile);

/// Sum of the partials in index order (used for both sides, so that the totals compare exactly).
float sumPartials(const float* Partials, uint32_t G);

} // namespace cajeta::bench
