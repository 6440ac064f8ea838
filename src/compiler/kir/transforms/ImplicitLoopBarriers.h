// pocl's implicit loop barriers, for targets that run a workgroup's work-items one after another
// (the CPU): a loop that every running work-item of the group runs the same number of times
// (kir::GroupUniformity) gets a barrier at the end of its body, so that the work-item loop
// fission runs it once per group with the loop over work-items inside each iteration. A
// work-item's `for (k < n) sum += a[i * n + k] * b[k * m + j]` then runs as one vectorizable
// loop over the group's work-items per k: b's row is one contiguous load across them, a's
// element one broadcast.
//
// The usual GPU guard `if (i < rows && j < cols) { ...loop... }` is divergent, so a loop inside
// it would stay per work-item. Such an if becomes `do { if (!(guard)) break; ... } while
// (false)`: the work-items that fail the guard are parked until the do's end (fission's
// `break`), and the loop inside is uniform among those still running. The rewrite is kept only
// where it makes an inner loop uniform.
#pragma once

#include "compiler/kir/Kir.h"

namespace cajeta::kir {

class ImplicitLoopBarriers {
public:
  /// Rewrites kernel F of M (in place; new nodes in M). A kernel with private arrays (which
  /// fission cannot keep per work-item) is left as it is. IgnoreCost: every uniform loop, not
  /// only those the cost model picks (a test mode for the fission's correctness). A plain counted
  /// loop is unrolled by eight before it gets its barrier (UniformLoopUnroll).
  static void run(Module& M, Function& F, bool IgnoreCost = false);
};

} // namespace cajeta::kir
