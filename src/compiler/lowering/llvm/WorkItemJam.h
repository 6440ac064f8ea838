// Unroll-and-jam of a loop over work-items around a row walk, on the CPU. A GPU kernel whose
// work-items each walk a row (`for (j < cols) sum += a[i * cols + j] * x[j]` with i the global x)
// keeps that loop inside the work-item (the cost model of kir::ImplicitLoopBarriers: across the
// work-items its loads would be gathers), so each work-item's sum is one chain of dependent adds,
// as long as the row, that the loop waits on at every element. Run by Factor work-items at once
// with their row loops fused ("jammed"), the loop carries Factor independent chains and the
// shared loads (x[j]) once: each work-item still adds its own products in its own order, so the
// results are bit for bit those of one work-item at a time.
//
// Legal because the target marked the loop parallel (llvm.loop.parallel_accesses, every memory
// access in its access group): its iterations may run in any order and interleave, which is
// what the jam does. Taken where the loop over work-items holds exactly one loop, innermost, that
// runs as many times for every work-item (SCEV), carries a floating-point value from one
// iteration to the next (the chain the jam overlaps), and is not too large to copy Factor times;
// the work-items past a multiple of Factor run in a remainder loop as before.
//
// Two phases. Before the vectorizers (KeepRowsWhole) such row loops are marked so the unroller
// leaves them one loop (its runtime unroll would add a second loop, the remainder, inside the
// loop over work-items). After them (Jam) the nest is jammed and the jammed row loop unrolled by
// RowUnroll. The jam runs last because the SLP vectorizer would turn the Factor chains into one
// vector chain fed by gathers from Factor rows, slower than the chains. Where the row loop's loads
// step one float32 at a time (RowTranspose::fits), the jam takes as many work-items as a vector has
// float32 lanes instead and RowTranspose runs them as vectors, their rows loaded in blocks and
// transposed.
#pragma once

#include "compiler/lowering/llvm/RowTranspose.h"

#include <llvm/IR/PassManager.h>

namespace cajeta::lowering {

class WorkItemJam : public llvm::PassInfoMixin<WorkItemJam> {
public:
  enum class Phase { KeepRowsWhole, Jam };
  static constexpr unsigned Factor = 4;
  static constexpr unsigned RowUnroll = 4;
  /// At most this many instructions in the row loop's body (copied Factor * RowUnroll times).
  static constexpr unsigned MaxRowInstructions = 40;

  /// Transpose: let RowTranspose take the row walks that fit it (false: jam them all by Factor),
  /// with Rows' additions.
  explicit WorkItemJam(Phase P, bool Transpose = true, RowTranspose::Options Rows = {})
      : P(P), Transpose(Transpose), Rows(Rows) {}
  llvm::PreservedAnalyses run(llvm::Function& F, llvm::FunctionAnalysisManager& AM);

private:
  Phase P;
  bool Transpose;
  RowTranspose::Options Rows;
};

} // namespace cajeta::lowering
