// A CPU rewrite of GPU-shaped kernels: a grid-stride loop (`for (i, v : buf.range(n))`) at the
// top level of a kernel runs one step for every work-item of the group before the next step,
// instead of each work-item running its whole loop in turn. The work-items of one step touch
// neighbouring elements, so their loads share cache lines and vectorise; one work-item's whole
// loop strides through memory by the grid size.
#pragma once

#include "compiler/kir/Kir.h"

namespace cajeta::kir {

class GridStrideInterchange {
public:
  /// Whether K's body has a grid-stride loop at its top level (inside blocks only).
  static bool applies(const kir::Function& K);
  /// Rewrites each such loop of F (a copy the caller owns; new nodes in Scratch) into
  /// `loop { if (!(i < n)) break; body; barrier } step i += stride`, which the CPU's work-item
  /// loop fission runs a step at a time for the whole group (a work-item that breaks is parked
  /// until the loop ends). Where F has one such loop in Sema's shape (i from the global id in x,
  /// the count a parameter), the loop is bounded instead by a count the group shares and its
  /// body guarded, `for ($t < $steps) { i = start + $t * stride; if (i < n) body; barrier }`,
  /// so no work-item is parked and each step is one masked pass over the group (exact when the
  /// count plus the grid's size in x fits the count's type, which the runtime checks before it
  /// takes this entry). Sets F.HasBarrier.
  static void rewrite(kir::Function& F, kir::Module& Scratch);
  /// Rewrites F's top-level grid-stride loop, where it has exactly one and its count is at least
  /// 32 bits wide, to run at most once per work-item: `do { if (!(i < n)) break; body } while
  /// (false)` (a continue still ends the one step). The CPU's entry for launches whose count is
  /// at most the grid's size in x (each work-item then has one step or none), where it
  /// vectorizes across work-items as the `if (i < n)` form does. False where it does not apply.
  static bool rewriteOnce(kir::Function& F, kir::Module& Scratch);
  /// Whether K's steps may run on any grid: K is its one top-level grid-stride loop (with the
  /// local copies Sema makes before it) and each step depends on its index alone. The loop reads
  /// no coordinate but its own start and stride, carries no local from one step to the next, has
  /// no return or break out of it, and K has no barrier, shared or private array, wave, tile,
  /// ray query or call (whose coordinates would not be seen). Then the work-items of a launch
  /// with more steps than work-items can be as many as the count, each running one step: the
  /// CPU's once entry on a grid widened in x, whose steps are contiguous across the work-items
  /// as the grid-stride walk's are not.
  static bool stepsIndependent(const kir::Function& K);
  /// The scalar parameter that is the count of K's first top-level grid-stride loop
  /// (`buf.range(n)` with n a parameter), or -1: the runtime compares it with the launch's
  /// work-items to choose between the plain and the rewritten entry.
  static int countParam(const kir::Function& K);
};

} // namespace cajeta::kir
