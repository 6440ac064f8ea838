// The counter form of a counted loop (CounterForm.h).
#include "compiler/kir/transforms/CounterForm.h"

#include "compiler/kir/Clone.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/LoopExit.h"

namespace cajeta::kir {

namespace {

struct StepShape {
  uint32_t Var = 0;
  const Expr* Amount = nullptr;
};

/// `v = v + x`, or Sema's `v++`: (seq (set t v) (set v (add t x)) t).
bool stepShape(const Stmt* St, StepShape& Out) {
  if (St && St->K == Stmt::Kind::Block && St->Body.size() == 1)
    St = St->Body[0];
  if (!St || St->K != Stmt::Kind::Eval || !St->E)
    return false;
  const Expr* E = St->E;
  auto AddOf = [](const Expr* A, uint32_t Of, const Expr*& X) {
    if (!A || A->K != Expr::Kind::Binary || A->BOp != BinaryOp::Add || A->Ops.size() != 2 ||
        !A->Ops[0] || A->Ops[0]->K != Expr::Kind::Local || A->Ops[0]->Index != Of)
      return false;
    X = A->Ops[1];
    return true;
  };
  if (E->K == Expr::Kind::Assign && E->Ops.size() == 1)
    return AddOf(E->Ops[0], E->Index, Out.Amount) && (Out.Var = E->Index, true);
  if (E->K != Expr::Kind::Seq || E->Ops.size() != 3)
    return false;
  const Expr* Copy = E->Ops[0];
  const Expr* Set = E->Ops[1];
  if (!Copy || Copy->K != Expr::Kind::Assign || Copy->Ops.size() != 1 ||
      Copy->Ops[0]->K != Expr::Kind::Local || !Set || Set->K != Expr::Kind::Assign ||
      Set->Ops.size() != 1 || Set->Index != Copy->Ops[0]->Index ||
      !AddOf(Set->Ops[0], Copy->Index, Out.Amount))
    return false;
  Out.Var = Set->Index;
  return true;
}

bool assignsIn(const Stmt* S, uint32_t Local) {
  bool Found = false;
  forEachExprIn(S,
                [&](const Expr* E) { Found |= E->K == Expr::Kind::Assign && E->Index == Local; });
  return Found;
}

} // namespace

bool CounterForm::stepOf(const Stmt* Step, uint32_t& Var, const Expr*& Amount) {
  StepShape S;
  if (!stepShape(Step, S))
    return false;
  Var = S.Var;
  Amount = S.Amount;
  return true;
}

bool CounterForm::matches(const Function& F, const Stmt* Block, size_t At) {
  if (!Block || Block->K != Stmt::Kind::Block || At == 0 || At >= Block->Body.size())
    return false;
  const Stmt* L = Block->Body[At];
  StepShape S;
  if (!L || L->K != Stmt::Kind::Loop || !L->E || L->TestAtEnd || !stepShape(L->Step, S) ||
      S.Var >= F.Locals.size() || !F.Locals[S.Var].Ty.isInteger() ||
      S.Amount->Ty != F.Locals[S.Var].Ty)
    return false;
  const Stmt* Init = Block->Body[At - 1];
  if (!Init || Init->K != Stmt::Kind::Eval || !Init->E || Init->E->K != Expr::Kind::Assign ||
      Init->E->Index != S.Var || Init->E->Ops.size() != 1)
    return false;
  if (assignsIn(L->LoopBody, S.Var))
    return false;
  // The step amount: a constant, a parameter, or a local the loop never assigns.
  const Expr* X = S.Amount;
  if (X->K == Expr::Kind::Local)
    return !assignsIn(L->LoopBody, X->Index) && !assignsIn(L->Step, X->Index);
  return X->K == Expr::Kind::Const || X->K == Expr::Kind::Param;
}

CounterForm::Undo CounterForm::rewrite(Module& M, Function& F, Stmt* Block, size_t At) {
  Stmt* L = Block->Body[At];
  Stmt* Init = Block->Body[At - 1];
  StepShape S;
  stepShape(L->Step, S);
  Undo U{Block, L, Init, S.Var, L->E, L->LoopBody, L->Step, F.Locals.size()};
  SourceLoc Loc = L->Loc;
  Type Ty = F.Locals[S.Var].Ty;
  auto Local = [&](uint32_t I) {
    Expr* R = M.newExpr(Expr::Kind::Local, F.Locals[I].Ty, Loc);
    R->Index = I;
    return R;
  };
  auto Assign = [&](uint32_t I, Expr* V) {
    Expr* A = M.newExpr(Expr::Kind::Assign, F.Locals[I].Ty, Loc);
    A->Index = I;
    A->Ops = {V};
    Stmt* St = M.newStmt(Stmt::Kind::Eval, Loc);
    St->E = A;
    return St;
  };
  auto Binary = [&](BinaryOp Op, Expr* A, Expr* B) {
    Expr* E = M.newExpr(Expr::Kind::Binary, A->Ty, Loc);
    E->BOp = Op;
    E->Ops = {A, B};
    return E;
  };
  uint32_t Start = uint32_t(F.Locals.size());
  F.Locals.push_back({"$start" + std::to_string(Start), Ty, Loc});
  uint32_t Count = uint32_t(F.Locals.size());
  F.Locals.push_back({"$step" + std::to_string(Count), Ty, Loc});
  Init->E->Index = Start; // the start goes to $start; v is set at the top of each step
  Expr* Zero = M.newExpr(Expr::Kind::Const, Ty, Loc);
  Expr* One = M.newExpr(Expr::Kind::Const, Ty, Loc);
  One->IntValue = 1;
  Expr* Value = Binary(BinaryOp::Add, Local(Start),
                       Binary(BinaryOp::Mul, Local(Count), cloneExpr(S.Amount, M)));
  Stmt* Exit = breakIf(M, negate(M, L->E), L->LoopId, Loc);
  Stmt* Body = M.newStmt(Stmt::Kind::Block, Loc);
  Body->Body = {Assign(S.Var, Value), Exit, L->LoopBody};
  L->LoopBody = Body;
  L->E = nullptr;
  L->Step = Assign(Count, Binary(BinaryOp::Add, Local(Count), One));
  Block->Body.insert(Block->Body.begin() + At, Assign(Count, Zero));
  return U;
}

void CounterForm::undo(Function& F, const Undo& U) {
  for (size_t I = 0; I < U.Block->Body.size(); ++I)
    if (U.Block->Body[I] == U.Loop && I > 0) {
      U.Block->Body.erase(U.Block->Body.begin() + I - 1); // $t = 0
      break;
    }
  U.Init->E->Index = U.Counter;
  U.Loop->E = U.Cond;
  U.Loop->LoopBody = U.Body;
  U.Loop->Step = U.Step;
  F.Locals.resize(U.Locals);
}

} // namespace cajeta::kir
