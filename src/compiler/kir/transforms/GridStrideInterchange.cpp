// Grid-stride loop interchange for the CPU (GridStrideInterchange.h).
#include "compiler/kir/transforms/GridStrideInterchange.h"

#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/CounterForm.h"
#include "compiler/kir/transforms/LoopExit.h"

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

bool GridStrideInterchange::rewriteOnce(kir::Function& F, kir::Module& Scratch) {
  std::vector<Stmt*> Loops;
  forEachTopLevel(F.Body, [&](Stmt* L) { Loops.push_back(L); });
  if (Loops.size() != 1)
    return false;
  Stmt* L = Loops.front();
  // Sema's shape: E = (i < count). A count narrower than 32 bits could see the stride (the grid's
  // size, converted) wrap to something smaller than the count.
  if (L->E->K != Expr::Kind::Binary || L->E->Ops.size() != 2)
    return false;
  ScalarType Count = L->E->Ops[1]->Ty.Elem;
  if (Count != ScalarType::I32 && Count != ScalarType::U32 && Count != ScalarType::I64 &&
      Count != ScalarType::U64)
    return false;
  SourceLoc Loc = L->Loc;
  Stmt* Body = Scratch.newStmt(Stmt::Kind::Block, Loc);
  Body->Body = {breakIf(Scratch, negate(Scratch, L->E), L->LoopId, Loc), L->LoopBody};
  Expr* False = Scratch.newExpr(Expr::Kind::Const, Type::scalar(ScalarType::Bool), Loc);
  False->IntValue = 0;
  L->LoopBody = Body;
  L->E = False;
  L->TestAtEnd = true;
  L->GridStride = false; // one step: no longer a loop over the grid
  return true;
}

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
  // Back to front, so that the positions of earlier sites stay valid as statements are added.
  for (auto It = Sites.rbegin(); It != Sites.rend(); ++It) {
    Stmt* Block = It->first;
    Stmt* L = Block->Body[It->second];
    SourceLoc Loc = L->Loc;
    F.HasBarrier = true;
    // The counter form where the loop is Sema's (i = start + t * stride at the top of step t:
    // contiguous across the work-items of a step); else the condition as a break at the top.
    if (CounterForm::matches(F, Block, It->second)) {
      CounterForm::rewrite(Scratch, F, Block, It->second);
      L->LoopBody->Body.push_back(Scratch.newStmt(Stmt::Kind::Barrier, Loc));
      continue;
    }
    Stmt* Exit = breakIf(Scratch, negate(Scratch, L->E), L->LoopId, Loc);
    Stmt* Body = Scratch.newStmt(Stmt::Kind::Block, Loc);
    Body->Body = {Exit, L->LoopBody, Scratch.newStmt(Stmt::Kind::Barrier, Loc)};
    L->LoopBody = Body;
    L->E = nullptr;
  }
}

} // namespace cajeta::kir
