// A counted loop in the form a loop over work-items vectorizes across. `for (v = start; cond;
// v += step) body` (the initialisation just before the loop in its block, v assigned nowhere
// else in the loop, step a constant or a value the loop does not change) becomes
//
//   $start = start; $t = 0;
//   loop { v = $start + $t * step; if (!cond) break; body } step { $t = $t + 1 }
//
// Each iteration's v is then the work-item's start plus an offset every work-item shares, which
// the CPU's fission sees as contiguous across work-items when start is (a v stored and reloaded
// from one step to the next would be a gather), and the condition becomes a break, so that
// work-items whose loop ends early are parked while the others go on. The same values in the
// same order on one work-item: wrapping arithmetic makes start + t * step what t additions of
// step give.
#pragma once

#include "compiler/kir/Kir.h"

namespace cajeta::kir {

class CounterForm {
public:
  /// What rewrite() changed, enough to put the loop back as it was.
  struct Undo {
    Stmt* Block = nullptr;
    Stmt* Loop = nullptr;
    Stmt* Init = nullptr;
    uint32_t Counter = 0;
    Expr* Cond = nullptr;
    Stmt* Body = nullptr;
    Stmt* Step = nullptr;
    size_t Locals = 0;
  };

  /// Whether Step is `v = v + x` or Sema's `v++` (Block of one Eval allowed): Var and Amount.
  static bool stepOf(const Stmt* Step, uint32_t& Var, const Expr*& Amount);
  /// Whether Block->Body[At] is a loop of that shape.
  static bool matches(const Function& F, const Stmt* Block, size_t At);
  /// Rewrites Block->Body[At] (new nodes in M, new locals in F); the loop's new body is a Block
  /// that callers may append to (the grid-stride interchange's barrier). The loop moves to
  /// Block->Body[At + 1].
  static Undo rewrite(Module& M, Function& F, Stmt* Block, size_t At);
  static void undo(Function& F, const Undo& U);
};

} // namespace cajeta::kir
