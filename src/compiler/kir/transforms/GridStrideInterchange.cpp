// Grid-stride loop interchange for the CPU (GridStrideInterchange.h).
#include "compiler/kir/transforms/GridStrideInterchange.h"

#include "compiler/kir/Walk.h"

#include <functional>
#include <map>
#include <vector>

namespace cajeta::kir {

using kir::Expr;
using kir::Stmt;

namespace {

/// Calls F on each grid-stride loop at the top level of S (through blocks only: a loop under an
/// if or in another loop is left alone, since fission evaluates such conditions once per group).
void forEachTopLevel(Stmt* S, const std::function<void(Stmt*)>& F) {
  if (!S)
    return;
  if (S->K == Stmt::Kind::Block) {
    for (Stmt* C : S->Body)
      forEachTopLevel(C, F);
    return;
  }
  if (S->K == Stmt::Kind::Loop && S->GridStride && S->E && !S->TestAtEnd)
    F(S);
}

} // namespace

bool GridStrideInterchange::applies(const kir::Function& K) {
  bool Found = false;
  forEachTopLevel(K.Body, [&](Stmt*) { Found = true; });
  return Found;
}

int GridStrideInterchange::countParam(const kir::Function& K) {
  Stmt* Body = K.Body;
  const Stmt* First = nullptr;
  forEachTopLevel(Body, [&](Stmt* L) {
    if (!First)
      First = L;
  });
  // Sema's shape: E = (i < count), count a local copied from the parameter's local.
  if (!First || First->E->K != Expr::Kind::Binary || First->E->Ops.size() != 2 ||
      First->E->Ops[1]->K != Expr::Kind::Local)
    return -1;
  // Every assignment of every local; a local assigned once holds that value everywhere after.
  std::map<uint32_t, std::vector<const Expr*>> Assigned;
  std::function<void(const Expr*)> Walk = [&](const Expr* E) {
    if (!E)
      return;
    if (E->K == Expr::Kind::Assign && !E->Ops.empty())
      Assigned[E->Index].push_back(E->Ops[0]);
    for (const Expr* O : E->Ops)
      Walk(O);
  };
  std::function<void(const Stmt*)> WalkStmt = [&](const Stmt* S) {
    if (!S)
      return;
    Walk(S->E);
    for (const Stmt* C : S->Body)
      WalkStmt(C);
    for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
      WalkStmt(C);
  };
  WalkStmt(K.Body);
  const Expr* V = First->E->Ops[1];
  for (int Hops = 0; Hops < 8; ++Hops) {
    while (V->K == Expr::Kind::Cast && !V->Ops.empty())
      V = V->Ops[0];
    if (V->K == Expr::Kind::Param)
      return V->Index < K.Params.size() && K.Params[V->Index].Ty.isInteger() ? int(V->Index) : -1;
    if (V->K != Expr::Kind::Local)
      return -1;
    auto It = Assigned.find(V->Index);
    if (It == Assigned.end() || It->second.size() != 1)
      return -1;
    V = It->second.front();
  }
  return -1;
}

namespace {

/// Sema's range loop: `i = start` just before the loop in its block, and the step
/// `i = i + stride`, with i assigned nowhere in the body. Returns i's index (or -1) and the
/// statement that sets the start.
int rangeCounter(const Stmt* Block, size_t At, const Stmt* L, const Expr*& Stride, Stmt*& Start) {
  const Stmt* St = L->Step;
  if (St && St->K == Stmt::Kind::Block && St->Body.size() == 1)
    St = St->Body[0];
  if (!St || St->K != Stmt::Kind::Eval || !St->E || St->E->K != Expr::Kind::Assign)
    return -1;
  const Expr* Add = St->E->Ops.empty() ? nullptr : St->E->Ops[0];
  uint32_t I = St->E->Index;
  if (!Add || Add->K != Expr::Kind::Binary || Add->BOp != BinaryOp::Add || Add->Ops.size() != 2 ||
      Add->Ops[0]->K != Expr::Kind::Local || Add->Ops[0]->Index != I ||
      Add->Ops[1]->K != Expr::Kind::Local || At == 0)
    return -1;
  Stmt* Before = Block->Body[At - 1];
  if (!Before || Before->K != Stmt::Kind::Eval || !Before->E ||
      Before->E->K != Expr::Kind::Assign || Before->E->Index != I)
    return -1;
  bool AssignedInBody = false;
  forEachExprIn(L->LoopBody, [&](const Expr* E) {
    AssignedInBody |= E->K == Expr::Kind::Assign && E->Index == I;
  });
  if (AssignedInBody)
    return -1;
  Stride = Add->Ops[1];
  Start = Before;
  return int(I);
}

} // namespace

void GridStrideInterchange::rewrite(kir::Function& F, kir::Module& Scratch) {
  // The top-level grid-stride loops with the block that holds each.
  std::vector<std::pair<Stmt*, size_t>> Sites;
  std::function<void(Stmt*)> Find = [&](Stmt* S) {
    if (!S || S->K != Stmt::Kind::Block)
      return;
    for (size_t I = 0; I < S->Body.size(); ++I) {
      Stmt* C = S->Body[I];
      if (C && C->K == Stmt::Kind::Loop && C->GridStride && C->E && !C->TestAtEnd)
        Sites.push_back({S, I});
      else
        Find(C);
    }
  };
  Find(F.Body);
  auto Local = [&](uint32_t L, SourceLoc Loc) {
    Expr* R = Scratch.newExpr(Expr::Kind::Local, F.Locals[L].Ty, Loc);
    R->Index = L;
    return R;
  };
  auto Assign = [&](uint32_t L, Expr* V, SourceLoc Loc) {
    Expr* A = Scratch.newExpr(Expr::Kind::Assign, F.Locals[L].Ty, Loc);
    A->Index = L;
    A->Ops = {V};
    Stmt* S = Scratch.newStmt(Stmt::Kind::Eval, Loc);
    S->E = A;
    return S;
  };
  auto Binary = [&](BinaryOp Op, Expr* A, Expr* B) {
    Expr* E = Scratch.newExpr(Expr::Kind::Binary, A->Ty, A->Loc);
    E->BOp = Op;
    E->Ops = {A, B};
    return E;
  };
  // Back to front, so that the positions of earlier sites stay valid as statements are added.
  for (auto It = Sites.rbegin(); It != Sites.rend(); ++It) {
    Stmt* Block = It->first;
    Stmt* L = Block->Body[It->second];
    SourceLoc Loc = L->Loc;
    Expr* Not =
        Scratch.newExpr(Expr::Kind::Unary, kir::Type::scalar(bundle::ScalarType::Bool), Loc);
    Not->UOp = kir::UnaryOp::Not;
    Not->Ops = {L->E};
    Stmt* Break = Scratch.newStmt(Stmt::Kind::Break, Loc);
    Break->LoopId = L->LoopId;
    Stmt* Exit = Scratch.newStmt(Stmt::Kind::If, Loc);
    Exit->E = Not;
    Exit->Then = Break;
    Stmt* Body = Scratch.newStmt(Stmt::Kind::Block, Loc);
    Body->Body = {Exit, L->LoopBody, Scratch.newStmt(Stmt::Kind::Barrier, Loc)};
    L->LoopBody = Body;
    L->E = nullptr;
    F.HasBarrier = true;
    // The counter form: i = start + t * stride at the top of step t, with t a counter that
    // every work-item shares. Each step's index is then the work-item's start plus the same
    // offset, which the fission's loop over work-items sees as contiguous (a stored and
    // reloaded i would be a gather).
    const Expr* Stride = nullptr;
    Stmt* Start = nullptr;
    int I = rangeCounter(Block, It->second, L, Stride, Start);
    if (I < 0)
      continue;
    kir::Type Ty = F.Locals[I].Ty;
    uint32_t Base = uint32_t(F.Locals.size());
    F.Locals.push_back({"$start" + std::to_string(Base), Ty, Loc});
    uint32_t Step = uint32_t(F.Locals.size());
    F.Locals.push_back({"$step" + std::to_string(Step), Ty, Loc});
    Expr* Zero = Scratch.newExpr(Expr::Kind::Const, Ty, Loc);
    Expr* One = Scratch.newExpr(Expr::Kind::Const, Ty, Loc);
    One->IntValue = 1;
    Expr* Index = Binary(BinaryOp::Add, Local(Base, Loc),
                         Binary(BinaryOp::Mul, Local(Step, Loc), Local(Stride->Index, Loc)));
    Body->Body.insert(Body->Body.begin(), Assign(uint32_t(I), Index, Loc));
    L->Step = Assign(Step, Binary(BinaryOp::Add, Local(Step, Loc), One), Loc);
    // The start goes to $start (i itself is set only at the top of each step now).
    Start->E->Index = Base;
    Block->Body.insert(Block->Body.begin() + It->second, Assign(Step, Zero, Loc));
  }
}

} // namespace cajeta::kir
