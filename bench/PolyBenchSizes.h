// The problem sizes of the PolyBench/GPU suite (PolyBench's own sizes scaled to the machine).
#pragma once

#include <cstdint>

namespace cajeta::polybench {

struct Sizes {
  uint32_t Mat = 256;     // 2mm, 3mm, gemm, syrk, syr2k, corr, covar, gramschm: n x n matrices
  uint32_t Vec = 2048;    // atax, bicg, gesummv, mvt: an n x n matrix and n-vectors
  uint32_t Conv2d = 2048; // 2dconv: an n x n grid
  uint32_t Conv3d = 128;  // 3dconv: an n^3 grid
  uint32_t Grid = 512;    // fdtd2d, jacobi2d: an n x n grid ...
  uint32_t Steps = 20;    // ... for this many time steps
};

} // namespace cajeta::polybench
