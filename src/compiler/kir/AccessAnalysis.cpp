// Access modes of buffer parameters: a Load reads, a Store writes, a helper call contributes the
// helper's mode for the parameter it binds. Recursion is rejected by Sema, so a memoised walk
// over the call graph terminates; a cycle (only in erroneous input) is cut conservatively.
#include "compiler/kir/AccessAnalysis.h"

#include <functional>

namespace cajeta::kir {

using bundle::Access;

static Access merge(Access A, Access B) {
  if (A == Access::None)
    return B;
  if (B == Access::None || A == B)
    return A;
  return Access::ReadWrite;
}

void analyzeAccess(Module& M) {
  std::vector<int> State(M.Functions.size(), 0); // 0 new, 1 visiting, 2 done
  std::function<void(uint32_t)> Visit = [&](uint32_t FI) {
    Function& F = *M.Functions[FI];
    State[FI] = 1;
    F.ParamAccess.assign(F.Params.size(), Access::None);
    std::function<void(const Expr*)> Walk = [&](const Expr* E) {
      if (!E)
        return;
      for (const Expr* O : E->Ops)
        Walk(O);
      auto bufferParam = [](const Expr* B) -> int {
        return B && B->K == Expr::Kind::Param ? static_cast<int>(B->Index) : -1;
      };
      if (E->K == Expr::Kind::Load && bufferParam(E->Ops[0]) >= 0)
        F.ParamAccess[E->Ops[0]->Index] = merge(F.ParamAccess[E->Ops[0]->Index], Access::Read);
      if (E->K == Expr::Kind::Store && bufferParam(E->Ops[0]) >= 0)
        F.ParamAccess[E->Ops[0]->Index] = merge(F.ParamAccess[E->Ops[0]->Index], Access::Write);
      if (E->K == Expr::Kind::Call && E->Index < M.Functions.size()) {
        if (State[E->Index] == 0)
          Visit(E->Index);
        const Function& Callee = *M.Functions[E->Index];
        for (size_t I = 0; I < E->Ops.size() && I < Callee.Params.size(); ++I) {
          int P = bufferParam(E->Ops[I]);
          if (P < 0 || !Callee.Params[I].Ty.isBuffer())
            continue;
          Access A = State[E->Index] == 2 ? Callee.ParamAccess[I] : Access::ReadWrite;
          F.ParamAccess[P] = merge(F.ParamAccess[P], A);
        }
      }
    };
    std::function<void(const Stmt*)> WalkStmt = [&](const Stmt* S) {
      if (!S)
        return;
      Walk(S->E);
      for (const Stmt* C : S->Body)
        WalkStmt(C);
      WalkStmt(S->Then);
      WalkStmt(S->Else);
      WalkStmt(S->LoopBody);
      WalkStmt(S->Step);
    };
    WalkStmt(F.Body);
    State[FI] = 2;
  };
  for (uint32_t I = 0; I < M.Functions.size(); ++I)
    if (State[I] == 0)
      Visit(I);
}

} // namespace cajeta::kir
