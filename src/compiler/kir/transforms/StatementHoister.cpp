// The walk of the statement-hoisting passes (StatementHoister.h).
#include "compiler/kir/transforms/StatementHoister.h"

namespace cajeta::kir {

Expr* StatementHoister::rewriteExpr(Expr* E, std::vector<Stmt*>& Pre, bool Hoist) {
  if (!E || !Error.empty())
    return E;
  for (size_t I = 0; I < E->Ops.size(); ++I) {
    bool Conditional = (E->K == Expr::Kind::Select && I > 0) ||
                       (E->K == Expr::Kind::Binary && I > 0 &&
                        (E->BOp == BinaryOp::LogicalAnd || E->BOp == BinaryOp::LogicalOr));
    E->Ops[I] = rewriteExpr(E->Ops[I], Pre, Hoist && !Conditional);
  }
  if (!Error.empty())
    return E;
  return rewriteNode(E, Pre, Hoist);
}

Stmt* StatementHoister::withPre(std::vector<Stmt*>& Pre, Stmt* S) {
  if (Pre.empty())
    return S;
  Pre.push_back(S);
  Stmt* Block = M.newStmt(Stmt::Kind::Block, S->Loc);
  Block->Body = std::move(Pre);
  return Block;
}

Stmt* StatementHoister::rewriteStmt(Stmt* S) {
  if (!S || !Error.empty())
    return S;
  std::vector<Stmt*> Pre;
  switch (S->K) {
  case Stmt::Kind::Block:
    for (Stmt*& C : S->Body)
      C = rewriteStmt(C);
    return S;
  case Stmt::Kind::Loop:
    // The condition and the step run at every iteration: nothing of them may move out.
    S->E = rewriteExpr(S->E, Pre, false);
    S->LoopBody = rewriteStmt(S->LoopBody);
    S->Step = rewriteStmt(S->Step);
    return S;
  case Stmt::Kind::If:
    S->E = rewriteExpr(S->E, Pre, true);
    S->Then = rewriteStmt(S->Then);
    S->Else = rewriteStmt(S->Else);
    return withPre(Pre, S);
  default:
    S->E = rewriteExpr(S->E, Pre, true);
    return withPre(Pre, S);
  }
}

} // namespace cajeta::kir
