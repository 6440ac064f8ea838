// The language's rules for a group's block copies (BlockCopyCheck.h).
#include "compiler/kir/BlockCopyCheck.h"

#include "compiler/kir/GroupUniformity.h"
#include "compiler/kir/Walk.h"

namespace cajeta::kir {

bool BlockCopyCheck::isBlockCopy(const Stmt* S) {
  return S && S->K == Stmt::Kind::Eval && S->E && S->E->K == Expr::Kind::Intrinsic &&
         S->E->IOp == IntrinsicOp::AsyncCopyBlock;
}

std::vector<UniformityProblem> BlockCopyCheck::problems(const Module& M, const Function& F) {
  std::vector<UniformityProblem> Out;
  bool Any = false;
  forEachStmt(F.Body, [&](const Stmt* S) { Any |= isBlockCopy(S); });
  if (!Any)
    return Out;
  if (!F.IsKernel) {
    forEachStmt(F.Body, [&](const Stmt* S) {
      if (isBlockCopy(S))
        Out.push_back({S->E->Loc, 19,
                       "'AsyncCopy.copyBlock' is a copy of the whole group: call it in a "
                       "kernel's own body, not in a function it calls"});
    });
    return Out;
  }
  // Every work-item deals the same block: operands that may differ between them would deal
  // different blocks' chunks, a copy of neither.
  GroupUniformity U(F, &M);
  forEachStmt(F.Body, [&](const Stmt* S) {
    if (!isBlockCopy(S))
      return;
    for (size_t I : {1, 3, 4, 5, 6, 7})
      if (!U.isUniform(S->E->Ops[I])) {
        Out.push_back({S->E->Ops[I]->Loc, 1,
                       "argument " + std::to_string(I + 1) +
                           " of 'AsyncCopy.copyBlock' may differ between the work-items of a "
                           "group; the group copies one block, so each argument is the same in "
                           "all of them (constants, parameters, workgroup coordinates and what "
                           "is computed from them)"});
        return;
      }
  });
  return Out;
}

std::vector<UniformityProblem> BlockCopyCheck::problems(const Module& M) {
  std::vector<UniformityProblem> Out;
  for (const auto& F : M.Functions) {
    std::vector<UniformityProblem> P = problems(M, *F);
    Out.insert(Out.end(), P.begin(), P.end());
  }
  return Out;
}

} // namespace cajeta::kir
