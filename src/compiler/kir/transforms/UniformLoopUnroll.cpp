// Unrolling a uniform loop by UniformLoopUnroll::Factor (UniformLoopUnroll.h).
#include "compiler/kir/transforms/UniformLoopUnroll.h"

#include "compiler/kir/Clone.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/CounterForm.h"

namespace cajeta::kir {

namespace {

bool assigns(const Stmt* S, uint32_t Local) {
  bool Found = false;
  forEachExprIn(S,
                [&](const Expr* E) { Found |= E->K == Expr::Kind::Assign && E->Index == Local; });
  return Found;
}

/// Whether S holds a loop, or a break or continue out of loop Id.
bool blocksUnroll(const Stmt* S, uint32_t Id) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt* X) {
    Found |= X->K == Stmt::Kind::Loop ||
             ((X->K == Stmt::Kind::Break || X->K == Stmt::Kind::Continue) && X->LoopId == Id);
  });
  return Found;
}

/// Whether E is arithmetic on constants, parameters and locals that loop L does not assign
/// (`(int32) n`, `n - 1`): no load, call or assignment.
bool invariantIn(const Expr* E, const Stmt* L) {
  if (!E)
    return false;
  switch (E->K) {
  case Expr::Kind::Const:
  case Expr::Kind::Param:
    return true;
  case Expr::Kind::Local:
    return !assigns(L->LoopBody, E->Index) && !assigns(L->Step, E->Index);
  case Expr::Kind::Cast:
  case Expr::Kind::Unary:
  case Expr::Kind::Binary:
    for (const Expr* O : E->Ops)
      if (!invariantIn(O, L))
        return false;
    return true;
  default:
    return false;
  }
}

class Rewriter {
public:
  Rewriter(Module& M, SourceLoc Loc) : M(M), Loc(Loc) {}

  Expr* local(uint32_t I, Type T) {
    Expr* E = M.newExpr(Expr::Kind::Local, T, Loc);
    E->Index = I;
    return E;
  }
  Expr* constant(Type T, uint64_t V) {
    Expr* E = M.newExpr(Expr::Kind::Const, T, Loc);
    E->IntValue = V;
    return E;
  }
  Expr* cast(Type T, Expr* A) {
    Expr* E = M.newExpr(Expr::Kind::Cast, T, Loc);
    E->Ops = {A};
    return E;
  }
  Expr* binary(BinaryOp Op, Type T, Expr* A, Expr* B) {
    Expr* E = M.newExpr(Expr::Kind::Binary, T, Loc);
    E->BOp = Op;
    E->Ops = {A, B};
    return E;
  }

  /// Every read of local V in S (a fresh clone) becomes V + Offset.
  void shift(Stmt* S, uint32_t V, Type T, uint64_t Offset) {
    if (!S)
      return;
    shiftIn(S->E, V, T, Offset);
    for (Stmt* C : S->Body)
      shift(C, V, T, Offset);
    for (Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
      shift(C, V, T, Offset);
  }

private:
  void shiftIn(Expr*& E, uint32_t V, Type T, uint64_t Offset) {
    if (!E)
      return;
    if (E->K == Expr::Kind::Local && E->Index == V) {
      E = binary(BinaryOp::Add, T, E, constant(T, Offset));
      return;
    }
    for (Expr*& O : E->Ops)
      shiftIn(O, V, T, Offset);
  }

  Module& M;
  SourceLoc Loc;
};

} // namespace

bool UniformLoopUnroll::run(Module& M, Function& F, Stmt* L, Stmt*& Main, Stmt*& Rest) {
  if (!L || L->K != Stmt::Kind::Loop || L->TestAtEnd || L->GridStride || !L->E || !L->LoopBody)
    return false;
  uint32_t V = 0;
  const Expr* Amount = nullptr;
  if (!CounterForm::stepOf(L->Step, V, Amount) || V >= F.Locals.size() ||
      Amount->K != Expr::Kind::Const || Amount->IntValue != 1)
    return false;
  const Type T = F.Locals[V].Ty;
  const bool Signed = T == Type::scalar(ScalarType::I32) || T == Type::scalar(ScalarType::I64);
  if (!Signed && T != Type::scalar(ScalarType::U32) && T != Type::scalar(ScalarType::U64))
    return false;
  // n - v in the unsigned type of T's width: exact wherever v < n, signed or not.
  const Type UT = T == Type::scalar(ScalarType::I32)   ? Type::scalar(ScalarType::U32)
                  : T == Type::scalar(ScalarType::I64) ? Type::scalar(ScalarType::U64)
                                                       : T;
  // v < n, n computed from values the loop does not change.
  const Expr* C = L->E;
  if (C->K != Expr::Kind::Binary || C->BOp != BinaryOp::Lt || C->Ops.size() != 2 ||
      C->Ops[0]->K != Expr::Kind::Local || C->Ops[0]->Index != V || C->Ops[1]->Ty != T)
    return false;
  const Expr* Bound = C->Ops[1];
  if (!invariantIn(Bound, L))
    return false;
  if (assigns(L->LoopBody, V) || blocksUnroll(L->LoopBody, L->LoopId))
    return false;

  Rewriter R(M, L->Loc);
  uint32_t NextId = 0;
  forEachStmt(F.Body, [&](const Stmt* S) {
    if (S->K == Stmt::Kind::Loop && S->LoopId >= NextId)
      NextId = S->LoopId + 1;
  });
  // The remainder: the loop as it was, under a new id.
  Rest = M.newStmt(Stmt::Kind::Loop, L->Loc);
  Rest->LoopId = NextId;
  Rest->E = cloneExpr(L->E, M);
  Rest->LoopBody = cloneStmt(L->LoopBody, M);
  Rest->Step = cloneStmt(L->Step, M);
  // The unrolled loop: v < n && n - v > Factor - 1 (no wrap: n - v only where v < n, in the
  // unsigned type so that a signed counter's distance fits too).
  auto AsUnsigned = [&](Expr* E) { return Signed ? R.cast(UT, E) : E; };
  Expr* Left =
      R.binary(BinaryOp::Sub, UT, AsUnsigned(cloneExpr(Bound, M)), AsUnsigned(R.local(V, T)));
  Expr* Room =
      R.binary(BinaryOp::Gt, Type::scalar(ScalarType::Bool), Left, R.constant(UT, Factor - 1));
  L->E = R.binary(BinaryOp::LogicalAnd, Type::scalar(ScalarType::Bool), L->E, Room);
  Stmt* Body = M.newStmt(Stmt::Kind::Block, L->Loc);
  Body->Body.push_back(L->LoopBody);
  for (unsigned I = 1; I < Factor; ++I) {
    Stmt* Copy = cloneStmt(L->LoopBody, M);
    R.shift(Copy, V, T, I);
    Body->Body.push_back(Copy);
  }
  L->LoopBody = Body;
  Stmt* Step = M.newStmt(Stmt::Kind::Eval, L->Loc);
  Expr* Set = M.newExpr(Expr::Kind::Assign, T, L->Loc);
  Set->Index = V;
  Set->Ops = {R.binary(BinaryOp::Add, T, R.local(V, T), R.constant(T, Factor))};
  Step->E = Set;
  L->Step = Step;
  // L's node becomes the block, so that whatever holds it now holds both loops.
  Main = M.newStmt(Stmt::Kind::Loop, L->Loc);
  *Main = *L;
  Stmt* Both = M.newStmt(Stmt::Kind::Block, L->Loc);
  Both->Body = {Main, Rest};
  *L = *Both;
  return true;
}

} // namespace cajeta::kir
