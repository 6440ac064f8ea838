// Splits a loop over work-items at the edges of its guard on the CPU: a kernel written for a GPU
// guards its body with compares of its global x against bounds (`if (j > 0 && j + 1 < nj)`), so
// the vectorized loop over x masks every load and store and evaluates the compares for every
// vector. Where such compares hold (or fail) for a whole range of x, the loop runs in three
// parts: the x before that range, the range itself in a copy whose compares are constants (plain
// vector loads and stores), and the x after it. The parts run the same iterations in the same
// order as the one loop did.
//
// A loop qualifies when the target marked it parallel (llvm.loop.parallel_accesses), it is
// innermost or holds one innermost loop (a row each work-item walks), it counts an
// i64 induction variable up by one to a bound it tests at its latch, it passes no value out, and
// some compare in it is of the variable's low 32 bits plus a constant against a value the loop
// does not change, unsigned, or plus such a value below such a bound (the grid-stride step's
// `i < n`, i = start + t * stride). Each compare names the range of x where its value is constant
// (within the x for which the constant addition does not wrap); the middle part is where all of
// them are.
//
// Where running an iteration twice changes nothing (it loads only buffers the kernel never
// writes, stores plainly and carries no value), the middle part of an innermost loop runs whole
// vectors and then the last vector's width of iterations again, ending where the part ends,
// instead of leaving up to a vector's width less one to the scalar remainder.
#pragma once

#include <llvm/IR/PassManager.h>

namespace cajeta::lowering {

class GuardRangeSplit : public llvm::PassInfoMixin<GuardRangeSplit> {
public:
  /// RerunLastVector: end the middle parts that allow it with their last vector run again.
  explicit GuardRangeSplit(bool RerunLastVector = true) : RerunLastVector(RerunLastVector) {}
  llvm::PreservedAnalyses run(llvm::Function& F, llvm::FunctionAnalysisManager& AM);

private:
  bool RerunLastVector;
};

} // namespace cajeta::lowering
