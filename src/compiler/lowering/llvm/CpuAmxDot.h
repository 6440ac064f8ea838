// The CPU tile tier's product (kir IntrinsicOp::TileDot) on Intel's AMX tile registers: C (M x N)
// += A (M x K) . B (K x N), all row-major, bfloat16 into float32 (TDPBF16PS) or int8 / uint8
// into int32 (TDPBSSD / TDPBUUD: both sides of one signedness, exact modulo 2^32). B is first
// packed into k pairs (bfloat16) or quads (bytes), one 32-bit word per column, the layout AMX
// reads its second operand in. Then C goes through in blocks of up to 2 x 2 tiles of 16 rows x
// 16 columns (four accumulator tiles, two of A, two of B: all eight registers), each block's
// accumulators loaded once, multiplied over the whole depth in steps of 64 bytes of A's rows,
// and stored once. The tile configuration is loaded at the leaf's start (other code on the thread
// may have changed it) and the tiles released at its end. bfloat16 products flush subnormal
// inputs and results to zero and add each pair's products before the sum, as VDPBF16PS does.
#pragma once

#include "compiler/kir/Kir.h"

#include <llvm/IR/IRBuilder.h>

namespace cajeta::lowering {

/// Whether CAJETA_CPU_AMX leaves AMX's tiles to the products where the CPU has them (anything
/// but "0"; "0" keeps the AVX-512 dot products, for comparison).
bool cpuAmxAllowed();

/// Whether the AMX leaf takes the shape (In BF16, S8 or U8; M a multiple of 4, N of 16, K of the
/// depth step): tiles of at most 16 rows cover M whole, and K is at most one 64-byte step of A's
/// rows or a whole number of them.
bool cpuAmxDotFits(unsigned M, unsigned N, unsigned K, kir::MmaInput In);

/// Emits the product at B's insertion point (the shape one cpuAmxDotFits takes; C, A and Bm
/// pointers to the first elements). The function must be compiled for a CPU with amx-tile and
/// amx-bf16 or amx-int8, and the process must hold the OS's permission for the tile data
/// (Linux: arch_prctl ARCH_REQ_XCOMP_PERM, which the runtime asks for).
void emitCpuAmxDot(llvm::IRBuilder<>& B, llvm::Value* C, llvm::Value* A, llvm::Value* Bm,
                   unsigned M, unsigned N, unsigned K, kir::MmaInput In);

} // namespace cajeta::lowering
