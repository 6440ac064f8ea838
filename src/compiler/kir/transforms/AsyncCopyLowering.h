// Asynchronous copies (IntrinsicOp::AsyncCopy, AsyncCommit, AsyncWait) as plain KIR, for targets
// without an asynchronous copy engine (the CPU, Vulkan, NVIDIA before sm_80): each copy becomes
// its element loads and stores, done at once, and commit and wait disappear. The language's
// rules hold: a work-item sees its own copies after the wait (here: at once), the group after a
// barrier. A target that loads wide vectors keeps the whole, aligned copies as leaves.
#pragma once

#include "compiler/kir/Kir.h"

namespace cajeta::kir {

class AsyncCopyLowering {
public:
  /// Whether F (or a helper it calls: helpers are rewritten too) has an async-copy op.
  static bool uses(const Function& F);
  /// Rewrites F (its nodes in M) in place. With WholeCopies, a copy whose `valid` is its count
  /// and whose source index is a multiple of it stays an AsyncCopy (valid = count) for the
  /// target to move in one wide load (Vulkan: a 4, 8 or 16-byte vector); the rest are plain.
  static void run(Module& M, Function& F, bool WholeCopies = false);
};

} // namespace cajeta::kir
