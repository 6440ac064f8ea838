// Asynchronous copies (IntrinsicOp::AsyncCopy, AsyncCommit, AsyncWait) as plain KIR, for targets
// without an asynchronous copy engine (the CPU, Vulkan, NVIDIA before sm_80): each copy becomes
// its element loads and stores, done at once, and commit and wait disappear. The language's
// rules hold: a work-item sees its own copies after the wait (here: at once), the group after a
// barrier.
#pragma once

#include "compiler/kir/Kir.h"

namespace cajeta::kir {

class AsyncCopyLowering {
public:
  /// Whether F (or a helper it calls: helpers are rewritten too) has an async-copy op.
  static bool uses(const Function& F);
  /// Rewrites F (its nodes in M) in place.
  static void run(Module& M, Function& F);
};

} // namespace cajeta::kir
