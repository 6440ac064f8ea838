// A group's block copies (IntrinsicOp::AsyncCopyBlock, AsyncCopy.copyBlock) as each work-item's
// share of chunk copies (IntrinsicOp::AsyncCopy): the block's rows cut into chunks of 16 bytes
// (8 or 4 where a row is not a multiple of 16), chunk c taken by the work-item whose linear
// index is c modulo the group's size, each chunk's elements past the matrix's width or below
// its height zero (the chunk's `valid` count). The copies join each work-item's current group,
// so commit and wait mean what they mean for AsyncCopy.copy, and every target's copy path (the
// CPU's plain copies, Vulkan's staged ones, cp.async) takes them from there. Runs before the
// tile lowering, whose proofs about copies beside the products in flight then see chunk copies.
#pragma once

#include "compiler/kir/Kir.h"

#include <string>

namespace cajeta::kir {

class Builder;

class AsyncBlockCopyLowering {
public:
  /// Rewrites F's block copies in place (its nodes in M). False with Error where
  /// kir::BlockCopyCheck rejects one (Sema has reported it at its line before).
  /// Block copies left for the tensor memory accelerator (AsyncCopyBlock with Dim 1, a TMA
  /// entry's: kir::TmaBlockCopies) stay.
  static bool run(Module& M, Function& F, std::string& Error);
  /// The chunk copies of block copy E (an AsyncCopyBlock of B's function), as one statement.
  static Stmt* lowerBlock(Builder& B, const Expr* E);
};

} // namespace cajeta::kir
