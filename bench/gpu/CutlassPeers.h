// CUTLASS's Ampere GEMMs (CUTLASS 2.x's sm80 kernels: mma.sync, ldmatrix and multistage cp.async,
// which run on sm_90 too) as the hand-written peer of our mma.sync tier, behind a CUDA-free API.
// Built where CUTLASS's headers were found (scripts/fetch-cutlass.sh); elsewhere there are none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::gpubench {

/// The kernels built, one name each ("128x256x32, warps 64x64, 3 stages"); empty where CUTLASS
/// was not found at build time.
const std::vector<std::string>& cutlassSm80Kernels();

/// "CUTLASS 4.2.0" (empty where not built).
std::string cutlassVersion();

/// Enqueues C (float32, row-major M x N) = A * B (float16, or bfloat16 where BFloat16; row-major
/// M x K and K x N) with kernel Kernel of cutlassSm80Kernels() on Stream (a cudaStream_t). Throws
/// std::runtime_error naming what CUTLASS or CUDA reported (a size it cannot run, a bad launch).
void cutlassSm80Gemm(size_t Kernel, bool BFloat16, float* C, const void* A, const void* B,
                     uint32_t M, uint32_t N, uint32_t K, void* Stream);

} // namespace cajeta::gpubench
