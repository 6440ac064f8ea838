// Asynchronous copies (IntrinsicOp::AsyncCopy, AsyncCommit, AsyncWait) as plain KIR, for targets
// without an asynchronous copy engine (the CPU, Vulkan, NVIDIA before sm_80): each copy becomes
// its element loads and stores, done at once, and commit and wait disappear. The language's
// rules hold: a work-item sees its own copies after the wait (here: at once), the group after a
// barrier. A target that loads wide vectors stages the whole, aligned copies in registers.
#pragma once

#include "compiler/kir/Kir.h"

namespace cajeta::kir {

class AsyncCopyLowering {
public:
  /// Whether F (or a helper it calls: helpers are rewritten too) has an async-copy op.
  static bool uses(const Function& F);
  /// Rewrites F (its nodes in M) in place. With Staged (a kernel whose helpers have no async
  /// ops), a copy whose `valid` is its count and whose source index is a multiple of it is
  /// loaded at once into registers as 1, 2 or 4 words (IntrinsicOp::LoadWord) and stored to
  /// shared memory (IntrinsicOp::StoreWords) only when the program must see it: at the wait
  /// that covers its group, or before the same copy statement runs again. The load's latency is
  /// then hidden behind whatever the program does until then (a pipelined K-loop's compute), as
  /// cp.async hides it in hardware. Other copies stay plain (stored at once).
  static void run(Module& M, Function& F, bool Staged = false);
};

} // namespace cajeta::kir
