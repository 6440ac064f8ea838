// The float32 tile product on the CPU (kir IntrinsicOp::TileDot of float32, which the software
// tile's Group.mac becomes where its shape is in blocks): C (M x N) += A (M x K) . B (K x N), all
// row-major float32, as RegisterBlockedDot's blocks of 4 rows by up to 64 columns held in vector
// registers over the whole depth, each step a broadcast of a and a vector of b's row. Each
// element adds its products in k order, c = c + a * b, as the software tile's row loops do (one
// fma where the kernel is @FastMath, which the builder's flags carry), so the bits are theirs.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace cajeta::lowering {

/// Whether CAJETA_CPU_TILE_F32_DOT leaves float32 products to the register-blocked loop
/// (anything but "0"; "0" keeps the software tile's row loops, for comparison).
bool cpuF32DotAllowed();

/// Emits the product at B's insertion point (M a multiple of 4, N of 16, K > 0; C, A and Bm
/// pointers to the first elements). The function must be compiled for a CPU with avx512f.
void emitCpuF32Dot(llvm::IRBuilder<>& B, llvm::Value* C, llvm::Value* A, llvm::Value* Bm,
                   unsigned M, unsigned N, unsigned K);

} // namespace cajeta::lowering
