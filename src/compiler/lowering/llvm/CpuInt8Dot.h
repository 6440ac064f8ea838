// The CPU tile tier's 8-bit product (kir IntrinsicOp::TileDot of int8 or uint8) in AVX512-VNNI:
// C (int32, M x N) += A (M x K) . B (K x N), all row-major, every sum wrapping as int32. VPDPBUSD
// multiplies unsigned bytes by signed ones, four to a 32-bit lane, so one side is moved by 128
// and the product corrected once per element: for int8, A + 128 (a byte's top bit flipped)
// against B, less 128 times B's column sum; for uint8, A against B - 128, plus 128 times A's
// row sum. B is first packed into k quads (one 32-bit lane per column holds rows 4q .. 4q + 3);
// A's quads are contiguous already and each is broadcast straight from memory. Each block of 4
// rows of C and up to 64 columns stays in 16 vector registers over the whole depth. The sums
// are exact modulo 2^32, as the other tiers' are, so every tier gives the same bits.
#pragma once

#include "compiler/kir/Kir.h"

#include <llvm/IR/IRBuilder.h>

namespace cajeta::lowering {

/// Emits the product at B's insertion point (In int8 or uint8; M a multiple of 4, N of 16, K of
/// 4; C, A and Bm pointers to the first elements). The function must be compiled for a CPU with
/// avx512vnni.
void emitCpuInt8Dot(llvm::IRBuilder<>& B, llvm::Value* C, llvm::Value* A, llvm::Value* Bm,
                    unsigned M, unsigned N, unsigned K, kir::MmaInput In);

} // namespace cajeta::lowering
