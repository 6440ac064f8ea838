// The register-blocked loop of the CPU tile tier's products (CpuBf16Dot, CpuInt8Dot): C (M x N,
// row-major) in blocks of 4 rows by up to 4 vectors of 16 lanes, each block's accumulators held
// in vector registers over the whole depth while one dot-product instruction per row and vector
// adds a depth step (a pair of bfloat16, a quad of bytes) from a broadcast a operand and a packed
// b vector. The instruction and the operands' layout are the caller's; the loop nest is here.
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <functional>

namespace cajeta::lowering {

struct RegisterBlockedDot {
  static constexpr unsigned Lanes = 16; // 32-bit lanes of a 512-bit vector
  static constexpr unsigned RowBlock = 4;
  const char* Name = "dot"; // the loops' label prefix
  unsigned M = 0, N = 0;    // M a multiple of RowBlock, N of Lanes
  unsigned Steps = 0;       // depth steps (> 0)
  /// The accumulator of row Row, columns Col .. Col + Lanes - 1 before the depth loop (C's
  /// vector there, corrected as the product needs).
  std::function<llvm::Value*(llvm::Value* Row, llvm::Value* Col)> Start;
  /// The a operand of row Row at step Step, broadcast to every lane.
  std::function<llvm::Value*(llvm::Value* Row, llvm::Value* Step)> AOperand;
  /// The b operand of columns Col .. Col + Lanes - 1 at step Step.
  std::function<llvm::Value*(llvm::Value* Col, llvm::Value* Step)> BOperand;
  /// Acc plus one step's products.
  std::function<llvm::Value*(llvm::Value* Acc, llvm::Value* A, llvm::Value* B)> Dot;
  /// Stores the finished accumulator of row Row, columns from Col.
  std::function<void(llvm::Value* Acc, llvm::Value* Row, llvm::Value* Col)> Finish;

  /// Emits the loop nest at B's insertion point (int64 row, column and step values).
  void emit(llvm::IRBuilder<>& B) const;
};

} // namespace cajeta::lowering
