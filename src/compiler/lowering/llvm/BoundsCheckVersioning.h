// Loop versioning for --check-bounds on the CPU: an innermost loop whose bounds checks compare an
// index affine in the loop (or invariant in it) against a buffer's length gets a second copy
// without those checks, entered when one test before the loop proves every iteration's index in
// range. A row of a 2D kernel's work-items then runs the unchecked vector loop, and only the rows
// whose indices may leave the buffer (an edge, a failing access) run the checked one, which
// records and reports failures exactly as before.
//
// The checks are found through their lengths: the CPU target marks each buffer length it loads
// with LengthMetadata, and a compare of such a length against an index is a bounds check (a
// user's own compare against a length is versioned the same way, which is as correct: the
// versioned copy only runs where the compare is proved to hold on every iteration). An equality
// with a length counts too (LLVM makes a counter's check its loop's exit, `j == length`); a
// check hoisted out of the loop is its own proof; an index that moves in no affine way is bounded
// by the range of its values where SCEV knows one (a byte). The innermost loops of a versioned
// nest are versioned again inside its checked copy, so an iteration of the nest that fails the
// nest's test (an edge row) still runs its inner loops unchecked where their own test holds.
// A function it versioned is unswitched once more: the copies, small again, leave a branch on a
// value their loop does not change as the unchecked kernel's loops left it.
#pragma once

#include <llvm/IR/PassManager.h>

namespace llvm {
class Instruction;
}

namespace cajeta::lowering {

class BoundsCheckVersioning : public llvm::PassInfoMixin<BoundsCheckVersioning> {
public:
  /// The metadata kind the CPU target puts on a buffer length's load.
  static constexpr const char* LengthMetadata = "cajeta.buffer.length";
  /// Marks Length (the load of a buffer's element count) as one.
  static void markLength(llvm::Instruction& Length);

  llvm::PreservedAnalyses run(llvm::Function& F, llvm::FunctionAnalysisManager& AM);
};

} // namespace cajeta::lowering
