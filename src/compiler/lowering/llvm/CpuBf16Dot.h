// The CPU tile tier's product (kir IntrinsicOp::TileDot of bfloat16) in AVX512-BF16: C (float32, M
// x N)
// += A (bfloat16, M x K) . B (bfloat16, K x N), all row-major. B is first packed into k pairs
// (one 32-bit lane per column holds rows k and k + 1) and A into words with their halves swapped;
// then each block of 4 rows of C and up to 64 columns stays in 16 vector registers while
// VDPBF16PS adds a pair of products per lane and instruction. The pairs are put high half first so
// that each element still adds its products in k order (the instruction adds the high product, then
// the low one), as the software tile does; the instruction flushes subnormal inputs and results to
// zero.
#pragma once

#include <llvm/IR/IRBuilder.h>

namespace cajeta::lowering {

/// Emits the product at B's insertion point (M a multiple of 4, N of 16, K of 2; C, A and Bm
/// pointers to the first elements). The function must be compiled for a CPU with avx512bf16.
void emitCpuBf16Dot(llvm::IRBuilder<>& B, llvm::Value* C, llvm::Value* A, llvm::Value* Bm,
                    unsigned M, unsigned N, unsigned K);

} // namespace cajeta::lowering
