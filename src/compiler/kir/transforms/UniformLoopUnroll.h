// Unrolling a uniform loop before the CPU's fission runs it once per group: `for (; v < n; v++)
// body` becomes
//
//   for (; v < n && n - v > 7; v += 8) { body[v]; body[v + 1]; ...; body[v + 7] }
//   for (; v < n; v++) body
//
// so that each pass of the loop over work-items does eight iterations of every work-item, and a
// value the work-item carries from one iteration to the next (a sum) stays in a register across
// them instead of going through its per-work-item slot each time. Eight rather than four: a pass
// over a narrow group (32 work-items, two vectors) also pays the loop's set-up, and eight
// iterations a pass ran the GEMM-shaped loops 15 % and the triangular sums 5-10 % faster than
// four, where sixteen gained nothing more (docs/benchmarks.md). Each work-item still runs the
// same statements in the same order. Only the plain shape is taken: a 32- or 64-bit counter
// stepped by one, compared with `<` against a value the loop does not change, a body without
// loops and without a break or continue of this loop (a `return` stays correct: it parks the
// work-item, which then skips the rest of the pass).
#pragma once

#include "compiler/kir/Kir.h"

namespace cajeta::kir {

class UniformLoopUnroll {
public:
  static constexpr unsigned Factor = 8;
  /// Rewrites loop L (a statement of F, nodes in M) as above: L becomes a block of the
  /// unrolled loop (Main, L's id) and the remainder (Rest, a new id). False, with L unchanged,
  /// when L is not of that shape.
  static bool run(Module& M, Function& F, Stmt* L, Stmt*& Main, Stmt*& Rest);
};

} // namespace cajeta::kir
