// Grid-stride loop interchange for the CPU (GridStrideInterchange.h).
#include "compiler/kir/transforms/GridStrideInterchange.h"

#include "compiler/kir/Clone.h"
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

/// After CounterForm::rewrite of Sema's grid-stride loop L (`$start = global_id x; $t = 0; loop {
/// i = $start + $t * stride; if (!(i < n)) break; body } step $t++`): bounds the loop by a count
/// the whole group shares, `$steps = first < n ? (n - first - 1) / stride + 1 : 0` with first the
/// group's first global id in x, and guards the body with `if (i < n)` instead of the break. The
/// loop is then uniform: no work-item is parked, and each step is one masked pass over the
/// group's work-items. A work-item's i is monotonic over the group's steps as long as it cannot
/// pass the top of its type, which the runtime checks before it takes this entry (count + the
/// grid's size in x within the type). False, changing nothing, where L is not that shape.
bool boundSteps(Module& M, Function& F, Stmt* Block, Stmt* L, const CounterForm::Undo& U) {
  const Expr* Start = U.Init->E->Ops[0];
  while (Start->K == Expr::Kind::Cast && !Start->Ops.empty())
    Start = Start->Ops[0];
  const Expr* Cond = U.Cond;
  Type Ty = F.Locals[U.Counter].Ty;
  // Counts of 32 or 64 bits only: the runtime checks the precondition for those (a narrower
  // count keeps the exact break form, whatever the grid).
  ScalarType E = Ty.Elem;
  if (!Ty.isScalar() || (E != ScalarType::I32 && E != ScalarType::U32 && E != ScalarType::I64 &&
                         E != ScalarType::U64))
    return false;
  if (Start->K != Expr::Kind::Intrinsic || Start->IOp != IntrinsicOp::GlobalId || Start->Dim != 0 ||
      Cond->K != Expr::Kind::Binary || Cond->BOp != BinaryOp::Lt || Cond->Ops.size() != 2 ||
      Cond->Ops[0]->K != Expr::Kind::Local || Cond->Ops[0]->Index != U.Counter ||
      Cond->Ops[1]->Ty != Ty)
    return false;
  // The count: a parameter or a local the loop does not assign.
  const Expr* Count = Cond->Ops[1];
  bool Fixed = Count->K == Expr::Kind::Param || Count->K == Expr::Kind::Const;
  if (Count->K == Expr::Kind::Local) {
    Fixed = true;
    forEachExprIn(U.Body, [&](const Expr* E) {
      Fixed &= !(E->K == Expr::Kind::Assign && E->Index == Count->Index);
    });
  }
  // i after the loop would hold the last step's index, not the first one past the count: the
  // counter must not be read outside the loop (Sema's loop variable is scoped to it).
  size_t Reads = 0, ReadsInLoop = 0;
  forEachExprIn(
      F.Body, [&](const Expr* E) { Reads += E->K == Expr::Kind::Local && E->Index == U.Counter; });
  forEachExprIn(
      L, [&](const Expr* E) { ReadsInLoop += E->K == Expr::Kind::Local && E->Index == U.Counter; });
  if (Reads != ReadsInLoop)
    return false;
  // The rewritten body: {i = $start + $t * stride; if (!cond) break; body}.
  Stmt* Body = L->LoopBody;
  if (!Fixed || Body->K != Stmt::Kind::Block || Body->Body.size() != 3)
    return false;
  const Expr* Value = Body->Body[0]->E->Ops[0];
  const Expr* Stride = Value->Ops[1]->Ops[1];
  SourceLoc Loc = L->Loc;
  auto Binary = [&](BinaryOp Op, Expr* A, Expr* B) {
    Expr* E = M.newExpr(Expr::Kind::Binary,
                        Op == BinaryOp::Lt ? Type::scalar(ScalarType::Bool) : A->Ty, Loc);
    E->BOp = Op;
    E->Ops = {A, B};
    return E;
  };
  // The rewrite runs after the polyfill: an integer quotient is DivTrunc (the divisor, the
  // grid's size, is never 0; the dividend is never negative).
  auto Quotient = [&](Expr* A, Expr* B) {
    Expr* Q = M.newExpr(Expr::Kind::Intrinsic, A->Ty, Loc);
    Q->IOp = IntrinsicOp::DivTrunc;
    Q->Ops = {A, B};
    return Q;
  };
  auto Constant = [&](int64_t V) {
    Expr* C = M.newExpr(Expr::Kind::Const, Ty, Loc);
    C->IntValue = V;
    return C;
  };
  auto Geometry = [&](IntrinsicOp Op) {
    Expr* G = M.newExpr(Expr::Kind::Intrinsic, Type::scalar(ScalarType::U32), Loc);
    G->IOp = Op;
    G->Dim = 0;
    return G;
  };
  auto First = [&] {
    Expr* G =
        Binary(BinaryOp::Mul, Geometry(IntrinsicOp::GroupId), Geometry(IntrinsicOp::GroupDim));
    if (Ty == G->Ty)
      return G;
    Expr* C = M.newExpr(Expr::Kind::Cast, Ty, Loc);
    C->Ops = {G};
    return C;
  };
  Expr* Steps = M.newExpr(Expr::Kind::Select, Ty, Loc);
  Steps->Ops = {
      Binary(BinaryOp::Lt, First(), cloneExpr(Count, M)),
      Binary(BinaryOp::Add,
             Quotient(Binary(BinaryOp::Sub, Binary(BinaryOp::Sub, cloneExpr(Count, M), First()),
                             Constant(1)),
                      cloneExpr(Stride, M)),
             Constant(1)),
      Constant(0)};
  uint32_t StepsLocal = uint32_t(F.Locals.size());
  F.Locals.push_back({"$steps" + std::to_string(StepsLocal), Ty, Loc});
  auto Local = [&](uint32_t I) {
    Expr* R = M.newExpr(Expr::Kind::Local, F.Locals[I].Ty, Loc);
    R->Index = I;
    return R;
  };
  Expr* SetSteps = M.newExpr(Expr::Kind::Assign, Ty, Loc);
  SetSteps->Index = StepsLocal;
  SetSteps->Ops = {Steps};
  Stmt* SetStmt = M.newStmt(Stmt::Kind::Eval, Loc);
  SetStmt->E = SetSteps;
  for (size_t I = 0; I < Block->Body.size(); ++I)
    if (Block->Body[I] == L) {
      Block->Body.insert(Block->Body.begin() + I, SetStmt);
      break;
    }
  Stmt* Guarded = M.newStmt(Stmt::Kind::If, Loc);
  Guarded->E = cloneExpr(Cond, M);
  Guarded->Then = Body->Body[2];
  Body->Body.pop_back();
  Body->Body.back() = Guarded;            // replaces the break
  uint32_t Step = uint32_t(U.Locals) + 1; // CounterForm's $t, after its $start
  L->E = Binary(BinaryOp::Lt, Local(Step), Local(StepsLocal));
  // A step's elements are contiguous across the group, but the next step's start a grid
  // further on, where the hardware prefetcher has not gone (a group of 256 one-byte elements is
  // four cache lines): each buffer the step reads or writes at i gets the next step's elements
  // prefetched at the top of the step, once for the group (a uniform statement).
  std::map<uint32_t, std::pair<const Expr*, bool>> Buffers; // parameter -> (it, written)
  forEachExprIn(Guarded->Then, [&](const Expr* E) {
    if ((E->K != Expr::Kind::Load && E->K != Expr::Kind::Store) || E->Ops.size() < 2 ||
        E->Ops[0]->K != Expr::Kind::Param)
      return;
    const Expr* Index = E->Ops[1];
    while (Index->K == Expr::Kind::Cast && !Index->Ops.empty())
      Index = Index->Ops[0];
    if (Index->K != Expr::Kind::Local || Index->Index != U.Counter)
      return;
    auto& [Buffer, Written] =
        Buffers.emplace(E->Ops[0]->Index, std::make_pair(E->Ops[0], false)).first->second;
    Written |= E->K == Expr::Kind::Store;
  });
  std::vector<Stmt*> Prefetches;
  for (const auto& [Param, Use] : Buffers) {
    Expr* Next = Binary(BinaryOp::Add, First(),
                        Binary(BinaryOp::Mul, Binary(BinaryOp::Add, Local(Step), Constant(1)),
                               cloneExpr(Stride, M)));
    Expr* P = M.newExpr(Expr::Kind::Intrinsic, Type::voidTy(), Loc);
    P->IOp = IntrinsicOp::Prefetch;
    P->Dim = Use.second ? 1 : 0;
    P->Ops = {cloneExpr(Use.first, M), Next, Geometry(IntrinsicOp::GroupDim)};
    Stmt* S = M.newStmt(Stmt::Kind::Eval, Loc);
    S->E = P;
    Prefetches.push_back(S);
  }
  Body->Body.insert(Body->Body.begin(), Prefetches.begin(), Prefetches.end());
  return true;
}

} // namespace

bool GridStrideInterchange::applies(const kir::Function& K) {
  bool Found = false;
  forEachTopLevel(K.Body, [&](Stmt*) { Found = true; });
  return Found;
}

bool GridStrideInterchange::stepsIndependent(const kir::Function& K) {
  if (K.HasBarrier || !K.SharedArrays.empty() || !K.PrivateArrays.empty() || !K.Body)
    return false;
  std::vector<Stmt*> Loops;
  forEachTopLevel(K.Body, [&](Stmt* L) { Loops.push_back(L); });
  if (Loops.size() != 1)
    return false;
  const Stmt* L = Loops.front();
  // The top level: the local copies before the loop, the loop, nothing after it.
  std::vector<const Stmt*> Top;
  std::function<void(const Stmt*)> Flatten = [&](const Stmt* S) {
    if (S && S->K == Stmt::Kind::Block)
      for (const Stmt* C : S->Body)
        Flatten(C);
    else if (S)
      Top.push_back(S);
  };
  Flatten(K.Body);
  bool SeenLoop = false;
  for (const Stmt* S : Top) {
    if (S == L) {
      SeenLoop = true;
      continue;
    }
    if (SeenLoop || S->K != Stmt::Kind::Eval || !S->E || S->E->K != Expr::Kind::Assign)
      return false;
    bool Pure = true;
    forEachExpr(S->E, [&](const Expr* E) {
      Pure &= E->K != Expr::Kind::Store && E->K != Expr::Kind::Atomic;
    });
    if (!Pure)
      return false;
  }
  // Nothing the one step cannot see: no other coordinate, no group-wide state, no callee.
  unsigned Starts = 0, Strides = 0;
  bool Plain = true;
  forEachExprIn(K.Body, [&](const Expr* E) {
    switch (E->K) {
    case Expr::Kind::Intrinsic:
      if (E->IOp == IntrinsicOp::GlobalId && E->Dim == 0)
        ++Starts;
      else if (E->IOp == IntrinsicOp::GlobalSize && E->Dim == 0)
        ++Strides;
      else // math and the legalized primitives only (Sqrt to MaxNum in the enumeration)
        Plain &= E->IOp >= IntrinsicOp::Sqrt && E->IOp <= IntrinsicOp::MaxNum;
      break;
    case Expr::Kind::Call:
    case Expr::Kind::Dispatch:
    case Expr::Kind::Wave:
    case Expr::Kind::Tile:
    case Expr::Kind::RayQuery:
    case Expr::Kind::SharedRef:
    case Expr::Kind::PrivateRef:
      Plain = false;
      break;
    default:
      break;
    }
  });
  if (!Plain || Starts != 1 || Strides != 1)
    return false;
  // No return, and no break of the loop itself (either would end the work-item's later steps).
  bool Leaves = false;
  forEachStmt(L->LoopBody, [&](const Stmt* S) {
    Leaves |= S->K == Stmt::Kind::Return || (S->K == Stmt::Kind::Break && S->LoopId == L->LoopId);
  });
  if (Leaves)
    return false;
  // No local carried from one step to the next: each local the loop assigns is one it alone
  // uses (the body's own, declared in it), but for its index, which only the loop reads.
  std::map<uint32_t, unsigned> Inside, Everywhere, AssignedInside;
  auto Count = [](std::map<uint32_t, unsigned>& Uses, std::map<uint32_t, unsigned>* Assigns) {
    return [&Uses, Assigns](const Expr* E) {
      if (E->K == Expr::Kind::Local || E->K == Expr::Kind::Assign)
        ++Uses[E->Index];
      if (Assigns && E->K == Expr::Kind::Assign)
        ++(*Assigns)[E->Index];
    };
  };
  forEachExprIn(L->LoopBody, Count(Inside, &AssignedInside));
  forEachExprIn(L->Step, Count(Inside, &AssignedInside));
  forEachExpr(L->E, Count(Inside, nullptr));
  forEachExprIn(K.Body, Count(Everywhere, nullptr));
  const Expr* Test = L->E;
  uint32_t Index = Test && Test->K == Expr::Kind::Binary && !Test->Ops.empty() &&
                           Test->Ops[0]->K == Expr::Kind::Local
                       ? Test->Ops[0]->Index
                       : ~0u;
  for (auto [Local, N] : AssignedInside) {
    unsigned Outside = Everywhere[Local] - Inside[Local];
    if (Local == Index ? Outside != 1 : Outside != 0) // the index: its start before the loop
      return false;
  }
  return Index != ~0u;
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
  int Counted = countParam(F); // before the rewrite changes the loop's test
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
      CounterForm::Undo U = CounterForm::rewrite(Scratch, F, Block, It->second);
      // One loop: the runtime's check of its count covers the bounded form's precondition.
      if (Sites.size() == 1 && Counted >= 0)
        boundSteps(Scratch, F, Block, L, U);
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
