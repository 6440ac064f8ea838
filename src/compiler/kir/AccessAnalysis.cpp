// Access modes of buffer parameters: a Load reads, a Store writes, an atomic reads and writes
// (an atomic load only reads, an atomic store only writes), a helper call — direct or through a
// function value, which may reach any function of its table — contributes the helper's mode for
// the parameter it binds. Recursion is rejected by Sema, so a memoised walk
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
      if (E->K == Expr::Kind::Tile && (E->TOp == TileOp::Load || E->TOp == TileOp::Store) &&
          bufferParam(E->Ops[0]) >= 0)
        F.ParamAccess[E->Ops[0]->Index] = merge(
            F.ParamAccess[E->Ops[0]->Index], E->TOp == TileOp::Load ? Access::Read : Access::Write);
      if (E->K == Expr::Kind::RayQuery && E->RQOp == RayQueryOp::Initialize &&
          bufferParam(E->Ops[0]) >= 0)
        F.ParamAccess[E->Ops[0]->Index] = merge(F.ParamAccess[E->Ops[0]->Index], Access::Read);
      if (E->K == Expr::Kind::Intrinsic &&
          (E->IOp == IntrinsicOp::AsyncCopy || E->IOp == IntrinsicOp::AsyncCopyBlock) &&
          bufferParam(E->Ops[2]) >= 0)
        F.ParamAccess[E->Ops[2]->Index] = merge(F.ParamAccess[E->Ops[2]->Index], Access::Read);
      if (E->K == Expr::Kind::Intrinsic &&
          (E->IOp == IntrinsicOp::LoadWord || E->IOp == IntrinsicOp::StoreWords) &&
          bufferParam(E->Ops[0]) >= 0)
        F.ParamAccess[E->Ops[0]->Index] =
            merge(F.ParamAccess[E->Ops[0]->Index],
                  E->IOp == IntrinsicOp::LoadWord ? Access::Read : Access::Write);
      if (E->K == Expr::Kind::Atomic && bufferParam(E->Ops[0]) >= 0) {
        Access A = E->AOp == AtomicOp::Load    ? Access::Read
                   : E->AOp == AtomicOp::Store ? Access::Write
                                               : Access::ReadWrite;
        F.ParamAccess[E->Ops[0]->Index] = merge(F.ParamAccess[E->Ops[0]->Index], A);
      }
      // A call binds its arguments to the callee's parameters; a function-value call
      // (Dispatch: Ops[0] is the tag) may reach any function of its table.
      auto Bind = [&](uint32_t Callee, size_t FirstArg) {
        if (Callee >= M.Functions.size())
          return;
        if (State[Callee] == 0)
          Visit(Callee);
        const Function& C = *M.Functions[Callee];
        for (size_t I = FirstArg; I < E->Ops.size() && I - FirstArg < C.Params.size(); ++I) {
          int P = bufferParam(E->Ops[I]);
          if (P < 0 || !C.Params[I - FirstArg].Ty.isBuffer())
            continue;
          Access A = State[Callee] == 2 ? C.ParamAccess[I - FirstArg] : Access::ReadWrite;
          F.ParamAccess[P] = merge(F.ParamAccess[P], A);
        }
      };
      if (E->K == Expr::Kind::Call)
        Bind(E->Index, 0);
      if (E->K == Expr::Kind::Dispatch)
        for (uint32_t T : E->Targets)
          Bind(T, 1);
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
