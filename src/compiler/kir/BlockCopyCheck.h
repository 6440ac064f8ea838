// The language's rules for AsyncCopy.copyBlock (IntrinsicOp::AsyncCopyBlock) that need the whole
// kernel: the copy is the group's, so it sits in a kernel's own body (not in a helper, whose
// callers' groups it cannot see) and its operands are the same in every work-item of the group
// (kir::GroupUniformity: constants, parameters, workgroup coordinates and what is computed from
// them). Sema reports the problems at their lines; kir::AsyncBlockCopyLowering relies on them.
#pragma once

#include "compiler/kir/Kir.h"
#include "compiler/kir/UniformityAnalysis.h"

#include <vector>

namespace cajeta::kir {

class BlockCopyCheck {
public:
  /// Whether S is a block copy statement.
  static bool isBlockCopy(const Stmt* S);
  /// The block copies of F (of module M, whose helpers' calls it sees through), or of every
  /// function of M, that break the rules above.
  static std::vector<UniformityProblem> problems(const Module& M, const Function& F);
  static std::vector<UniformityProblem> problems(const Module& M);
};

} // namespace cajeta::kir
