// The walk of the statement-hoisting passes (StatementHoister.h).
#include "compiler/kir/transforms/StatementHoister.h"

namespace cajeta::kir {

Expr* StatementHoister::rewriteExpr(Expr* E, std::vector<Stmt*>& Pre, bool Hoist) {
  if (!E || !Error.empty())
    return E;
  std::vector<std::vector<Stmt*>> Inner(E->Ops.size());
  bool AnyInner = false;
  for (size_t I = 0; I < E->Ops.size(); ++I) {
    bool Conditional = (E->K == Expr::Kind::Select && I > 0) ||
                       (E->K == Expr::Kind::Binary && I > 0 &&
                        (E->BOp == BinaryOp::LogicalAnd || E->BOp == BinaryOp::LogicalOr));
    if (Conditional && Hoist && hoistsConditionalOperands()) {
      E->Ops[I] = rewriteExpr(E->Ops[I], Inner[I], true);
      AnyInner |= !Inner[I].empty();
    } else {
      E->Ops[I] = rewriteExpr(E->Ops[I], Pre, Hoist && !Conditional);
    }
  }
  if (!Error.empty())
    return E;
  if (AnyInner)
    return branchOver(E, Inner, Pre);
  return rewriteNode(E, Pre, Hoist);
}

Expr* StatementHoister::branchOver(Expr* E, std::vector<std::vector<Stmt*>>& Inner,
                                   std::vector<Stmt*>& Pre) {
  uint32_t T = newLocal("hoist.value", E->Ty);
  auto Read = [&] {
    Expr* R = M.newExpr(Expr::Kind::Local, E->Ty, E->Loc);
    R->Index = T;
    return R;
  };
  auto Set = [&](Expr* V) {
    Expr* A = M.newExpr(Expr::Kind::Assign, E->Ty, E->Loc);
    A->Index = T;
    A->Ops = {V};
    Stmt* S = M.newStmt(Stmt::Kind::Eval, E->Loc);
    S->E = A;
    return S;
  };
  auto Arm = [&](size_t I) { // operand I's statements, then the temporary takes its value
    Stmt* Block = M.newStmt(Stmt::Kind::Block, E->Loc);
    Block->Body = std::move(Inner[I]);
    Block->Body.push_back(Set(E->Ops[I]));
    return Block;
  };
  Stmt* If = M.newStmt(Stmt::Kind::If, E->Loc);
  if (E->K == Expr::Kind::Select) { // c ? x : y
    If->E = E->Ops[0];
    If->Then = Arm(1);
    If->Else = Arm(2);
  } else { // t = a; then b where a && needs it (true) or a || needs it (false)
    Pre.push_back(Set(E->Ops[0]));
    Expr* Test = Read();
    if (E->BOp == BinaryOp::LogicalOr) {
      Expr* Not = M.newExpr(Expr::Kind::Unary, E->Ty, E->Loc);
      Not->UOp = UnaryOp::Not;
      Not->Ops = {Test};
      Test = Not;
    }
    If->E = Test;
    If->Then = Arm(1);
  }
  Pre.push_back(If);
  return Read();
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
