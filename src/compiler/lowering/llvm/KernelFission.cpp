// KernelLowering's work-item loop fission for targets without a native barrier (the CPU): the
// body of a HasBarrier kernel (already inlined by KirInliner) is split at barriers into regions,
// each one loop over the workgroup's work-items; locals live in per-work-item arrays; an if or
// loop holding a barrier runs once per workgroup with its condition evaluated by the first
// running work-item; a wave step (kir::WaveSteps) runs between two regions, once per wave;
// `return`, and `break`/`continue` to a loop holding a barrier, park the
// work-item (per-work-item state array) until the point where it runs again. Values uniform
// across the group (kir::GroupUniformity) stay scalars: their statements run once per group,
// between regions, and locals computed from the work-item's coordinates alone are recomputed
// where they are read, so a region's loop over work-items sees them as functions of its
// induction variables and vectorizes.
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/WaveSteps.h"
#include "compiler/lowering/llvm/KernelLowering.h"

#include <algorithm>
#include <cassert>
#include <functional>

namespace cajeta::lowering {

using kir::Expr;
using kir::Stmt;

bool KernelLowering::markBarriers(const Stmt* S, std::set<const Stmt*>& Out) {
  if (!S)
    return false;
  bool Has = S->K == Stmt::Kind::Barrier || kir::WaveSteps::isStep(S) ||
             (Cur->Uniformity && Cur->Uniformity->isUniformStatement(S));
  for (const Stmt* C : S->Body)
    Has |= markBarriers(C, Out);
  for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
    Has |= markBarriers(C, Out);
  if (Has)
    Out.insert(S);
  return Has;
}

bool KernelLowering::isJumpTarget(const Stmt* Loop, Stmt::Kind Jump) const {
  bool Found = false;
  kir::forEachStmt(Loop->LoopBody,
                   [&](const Stmt* S) { Found |= S->K == Jump && S->LoopId == Loop->LoopId; });
  return Found;
}

bool KernelLowering::needsParking(const Stmt* S) const {
  if (!S)
    return false;
  if (S->K == Stmt::Kind::Return)
    return true;
  if (S->K == Stmt::Kind::Break || S->K == Stmt::Kind::Continue) {
    for (const Stmt* L : Cur->BarrierStmts)
      if (L->K == Stmt::Kind::Loop && L->LoopId == S->LoopId)
        return true;
  }
  for (const Stmt* C : S->Body)
    if (needsParking(C))
      return true;
  for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
    if (needsParking(C))
      return true;
  return false;
}

void KernelLowering::emitFissionBody(FunctionState& FS) {
  // Per-work-item storage, allocated once per kernel call in the entry block (where the target
  // defined GroupSize); the runtime gives its pool threads big stacks.
  llvm::BasicBlock& Entry = FS.F->getEntryBlock();
  llvm::IRBuilder<> AB(Entry.getTerminator());
  FS.Uniformity = std::make_unique<kir::GroupUniformity>(*FS.KF);
  FS.PerItem.clear();
  FS.RefCount.assign(FS.KF->Locals.size(), 0);
  kir::forEachExprIn(FS.KF->Body, [&](const Expr* E) {
    if ((E->K == Expr::Kind::Local || E->K == Expr::Kind::Assign) && E->Index < FS.RefCount.size())
      ++FS.RefCount[E->Index];
  });
  for (uint32_t I = 0; I < FS.KF->Locals.size(); ++I) {
    const kir::Local& L = FS.KF->Locals[I];
    assert(L.Ty.isScalar() && "verified KIR: locals are scalars");
    bool PerItem = !FS.Uniformity->isUniformLocal(I);
    FS.PerItem.push_back(PerItem);
    if (FS.Uniformity->rematerialization(I)) {
      FS.Locals.push_back(nullptr);
      continue;
    }
    // A work-item's bool is a byte of its own (memoryType): LLVM's vectorizers leave loops
    // that load or store an i1 array alone.
    llvm::AllocaInst* A = AB.CreateAlloca(PerItem ? memoryType(Ctx, L.Ty) : valueType(Ctx, L.Ty),
                                          PerItem ? FS.GroupSize : nullptr, L.Name);
    A->setAlignment(llvm::Align(PerItem ? 64 : 8));
    FS.Locals.push_back(A);
  }
  markBarriers(FS.KF->Body, FS.BarrierStmts);
  if (needsParking(FS.KF->Body)) {
    auto* P = AB.CreateAlloca(B.getInt32Ty(), FS.GroupSize, "park");
    P->setAlignment(llvm::Align(64));
    FS.Park = P;
    // Every work-item of a new workgroup runs.
    B.CreateMemSet(FS.Park, B.getInt8(0), B.CreateMul(FS.GroupSize, B.getInt64(4)),
                   llvm::MaybeAlign(64));
    FS.AnyParked = AB.CreateAlloca(B.getInt1Ty(), nullptr, "any.parked");
    B.CreateStore(B.getFalse(), FS.AnyParked);
    FS.Leader = AB.CreateAlloca(B.getInt64Ty(), nullptr, "leader");
    B.CreateStore(B.getInt64(0), FS.Leader);
  }
  emitBody(FS);
}

llvm::Value* KernelLowering::loadLocal(uint32_t Index) {
  kir::Type T = Cur->KF->Locals[Index].Ty;
  llvm::Value* Slot = localAddress(Index);
  auto* A = llvm::dyn_cast<llvm::AllocaInst>(Cur->Locals[Index]);
  if (T.isBool() && A && A->getAllocatedType()->isIntegerTy(8))
    return B.CreateTrunc(B.CreateLoad(B.getInt8Ty(), Slot), B.getInt1Ty());
  return B.CreateLoad(valueType(Ctx, T), Slot);
}

void KernelLowering::storeLocal(uint32_t Index, llvm::Value* V) {
  llvm::Value* Slot = localAddress(Index);
  auto* A = llvm::dyn_cast<llvm::AllocaInst>(Cur->Locals[Index]);
  if (V->getType()->isIntegerTy(1) && A && A->getAllocatedType()->isIntegerTy(8))
    V = B.CreateZExt(V, B.getInt8Ty());
  B.CreateStore(V, Slot);
}

llvm::Value* KernelLowering::localAddress(uint32_t Index) {
  llvm::Value* Slot = Cur->Locals[Index];
  assert(Slot && "a rematerialized local is never stored");
  if (!Cur->Fission || !Cur->PerItem[Index])
    return Slot;
  llvm::Value* Item = Cur->Item ? Cur->Item : B.getInt64(0);
  return B.CreateInBoundsGEP(valueType(Ctx, Cur->KF->Locals[Index].Ty), Slot, Item);
}

void KernelLowering::park(uint32_t State) {
  B.CreateStore(B.getInt32(State), B.CreateInBoundsGEP(B.getInt32Ty(), Cur->Park, Cur->Item));
}

void KernelLowering::unpark(uint32_t State) {
  // for (i = 0; i < N; ++i) park[i] = park[i] == State ? 0 : park[i];   (N > 0)
  llvm::BasicBlock* Pre = B.GetInsertBlock();
  llvm::BasicBlock* Loop = newBlock("unpark");
  llvm::BasicBlock* Done = newBlock("unpark.done");
  B.CreateBr(Loop);
  B.SetInsertPoint(Loop);
  llvm::PHINode* I = B.CreatePHI(B.getInt64Ty(), 2, "i");
  I->addIncoming(B.getInt64(0), Pre);
  llvm::Value* Addr = B.CreateInBoundsGEP(B.getInt32Ty(), Cur->Park, I);
  llvm::Value* P = B.CreateLoad(B.getInt32Ty(), Addr);
  B.CreateStore(B.CreateSelect(B.CreateICmpEQ(P, B.getInt32(State)), B.getInt32(0), P), Addr);
  llvm::Value* Next = B.CreateAdd(I, B.getInt64(1), "", /*HasNUW=*/true);
  I->addIncoming(Next, Loop);
  B.CreateCondBr(B.CreateICmpULT(Next, Cur->GroupSize), Loop, Done);
  B.SetInsertPoint(Done);
  updateAnyParked();
}

std::pair<llvm::Value*, llvm::Value*> KernelLowering::findLeader() {
  if (!Cur->Park)
    return {B.getTrue(), B.getInt64(0)};
  llvm::Value* Leader = B.CreateLoad(B.getInt64Ty(), Cur->Leader, "leader.i");
  return {B.CreateICmpULT(Leader, Cur->GroupSize, "leader.found"), Leader};
}

llvm::Value* KernelLowering::leaderCondition(const Expr* E) {
  assert((!E || E->Ty.isBool()) && "verified KIR: bool conditions");
  auto [Found, Leader] = findLeader();
  if (!E)
    return Found;
  llvm::BasicBlock* Pre = B.GetInsertBlock();
  llvm::BasicBlock* Eval = newBlock("leader.eval");
  llvm::BasicBlock* Merge = newBlock("leader.cond");
  B.CreateCondBr(Found, Eval, Merge);
  B.SetInsertPoint(Eval);
  Cur->WorkItem = Cur->Park ? Target.workItemAt(B, Cur->Group, Leader) : Cur->Group;
  Cur->Item = Leader;
  llvm::Value* C = emitExpr(E);
  Cur->WorkItem = Cur->Group;
  Cur->Item = nullptr;
  llvm::BasicBlock* EvalEnd = B.GetInsertBlock();
  B.CreateBr(Merge);
  B.SetInsertPoint(Merge);
  llvm::PHINode* Phi = B.CreatePHI(B.getInt1Ty(), 2);
  Phi->addIncoming(B.getFalse(), Pre);
  Phi->addIncoming(C, EvalEnd);
  return Phi;
}

namespace {

/// Calls F on each local an expression tree reads or assigns.
template <class Fn> void forEachLocalRef(const Expr* E, Fn&& F) {
  kir::forEachExpr(E, [&](const Expr* X) {
    if (X->K == Expr::Kind::Local || X->K == Expr::Kind::Assign)
      F(X->Index);
  });
}

/// Whether each run of S writes local L before reading it: the first reference to L in S is an
/// Eval assigning it (from a value that does not read it), reached through blocks only, or
/// through blocks inside a loop body that holds every reference to L.
bool writtenFirst(const Stmt* S, uint32_t L) {
  const Stmt* First = nullptr;
  bool Found = false;
  std::vector<const Stmt*> Path, FirstPath;
  std::function<void(const Stmt*)> Walk = [&](const Stmt* X) {
    if (!X || Found)
      return;
    Path.push_back(X);
    bool Refers = false;
    forEachLocalRef(X->E, [&](uint32_t I) { Refers |= I == L; });
    if (Refers) {
      Found = true;
      First = X;
      FirstPath = Path;
    }
    for (const Stmt* C : X->Body)
      Walk(C);
    for (const Stmt* C : {X->Then, X->Else, X->LoopBody, X->Step})
      Walk(C);
    Path.pop_back();
  };
  Walk(S);
  if (!First || First->K != Stmt::Kind::Eval || First->E->K != Expr::Kind::Assign ||
      First->E->Index != L)
    return false;
  bool ReadsItself = false;
  forEachLocalRef(First->E->Ops.empty() ? nullptr : First->E->Ops[0],
                  [&](uint32_t I) { ReadsItself |= I == L; });
  if (ReadsItself)
    return false;
  // The statements between S and the assignment: blocks, or a loop whose body holds it and
  // every other reference (each iteration then writes first).
  for (size_t I = 0; I + 1 < FirstPath.size(); ++I) {
    const Stmt* X = FirstPath[I];
    if (X->K == Stmt::Kind::Block)
      continue;
    if (X->K != Stmt::Kind::Loop || FirstPath[I + 1] != X->LoopBody)
      return false;
    bool Outside = false;
    forEachLocalRef(X->E, [&](uint32_t R) { Outside |= R == L; });
    kir::forEachExprIn(X->Step, [&](const Expr* E) {
      Outside |= (E->K == Expr::Kind::Local || E->K == Expr::Kind::Assign) && E->Index == L;
    });
    if (Outside)
      return false;
  }
  return true;
}

} // namespace

std::vector<uint32_t> KernelLowering::regionPrivateLocals(const std::vector<const Stmt*>& Stmts) {
  std::map<uint32_t, unsigned> Refs;
  for (const Stmt* S : Stmts)
    kir::forEachExprIn(S, [&](const Expr* E) {
      if (E->K == Expr::Kind::Local || E->K == Expr::Kind::Assign)
        ++Refs[E->Index];
    });
  std::vector<uint32_t> Out;
  for (auto [L, N] : Refs) {
    if (L >= Cur->PerItem.size() || !Cur->PerItem[L] || !Cur->Locals[L] || N != Cur->RefCount[L])
      continue;
    // The first statement of the region that refers to L must write it first.
    for (const Stmt* S : Stmts) {
      bool Refers = false;
      kir::forEachExprIn(S, [&](const Expr* E) {
        Refers |= (E->K == Expr::Kind::Local || E->K == Expr::Kind::Assign) && E->Index == L;
      });
      if (!Refers)
        continue;
      if (writtenFirst(S, L))
        Out.push_back(L);
      break;
    }
  }
  return Out;
}

void KernelLowering::emitRegion(const std::vector<const Stmt*>& Stmts) {
  if (Stmts.empty() || !Error.empty())
    return;
  // Locals that live only while the region runs for one work-item: a scalar each (registers
  // after mem2reg) instead of a slot per work-item.
  std::vector<std::pair<uint32_t, llvm::Value*>> Saved;
  for (uint32_t L : regionPrivateLocals(Stmts)) {
    llvm::IRBuilder<> AB(Cur->F->getEntryBlock().getTerminator());
    Saved.push_back({L, Cur->Locals[L]});
    Cur->Locals[L] =
        AB.CreateAlloca(valueType(Ctx, Cur->KF->Locals[L].Ty), nullptr, Cur->KF->Locals[L].Name);
    Cur->PerItem[L] = false;
  }
  emitRegionBoth(Stmts);
  for (auto [L, Slot] : Saved) {
    Cur->Locals[L] = Slot;
    Cur->PerItem[L] = true;
  }
}

void KernelLowering::emitRegionBoth(const std::vector<const Stmt*>& Stmts) {
  if (!Cur->Park)
    return emitRegionLoop(Stmts, /*SkipParked=*/false);
  // While no work-item is parked, the region runs without testing each one, so its loop over
  // work-items needs no mask (a load at a uniform address stays one scalar load).
  llvm::BasicBlock* Every = newBlock("region.every");
  llvm::BasicBlock* Some = newBlock("region.some");
  llvm::BasicBlock* Done = newBlock("region.done");
  B.CreateCondBr(B.CreateLoad(B.getInt1Ty(), Cur->AnyParked), Some, Every);
  B.SetInsertPoint(Every);
  emitRegionLoop(Stmts, false);
  branchTo(Done);
  B.SetInsertPoint(Some);
  emitRegionLoop(Stmts, true);
  branchTo(Done);
  B.SetInsertPoint(Done);
  bool Parks = false;
  for (const Stmt* S : Stmts)
    Parks |= needsParking(S);
  if (Parks)
    updateAnyParked();
}

void KernelLowering::updateAnyParked() {
  // AnyParked = park[0] | ... | park[N-1] != 0; Leader = min(park[i] == 0 ? i : N)   (N > 0)
  llvm::BasicBlock* Pre = B.GetInsertBlock();
  llvm::BasicBlock* Loop = newBlock("parked.scan");
  llvm::BasicBlock* Done = newBlock("parked.done");
  B.CreateBr(Loop);
  B.SetInsertPoint(Loop);
  llvm::PHINode* I = B.CreatePHI(B.getInt64Ty(), 2, "i");
  llvm::PHINode* Acc = B.CreatePHI(B.getInt32Ty(), 2, "acc");
  llvm::PHINode* Lead = B.CreatePHI(B.getInt64Ty(), 2, "lead");
  I->addIncoming(B.getInt64(0), Pre);
  Acc->addIncoming(B.getInt32(0), Pre);
  Lead->addIncoming(Cur->GroupSize, Pre);
  llvm::Value* P = B.CreateLoad(B.getInt32Ty(), B.CreateInBoundsGEP(B.getInt32Ty(), Cur->Park, I));
  llvm::Value* Or = B.CreateOr(Acc, P);
  llvm::Value* Runs = B.CreateSelect(B.CreateICmpEQ(P, B.getInt32(0)), I, Cur->GroupSize);
  llvm::Value* Min = B.CreateBinaryIntrinsic(llvm::Intrinsic::umin, Lead, Runs);
  llvm::Value* Next = B.CreateAdd(I, B.getInt64(1), "", /*HasNUW=*/true);
  I->addIncoming(Next, Loop);
  Acc->addIncoming(Or, Loop);
  Lead->addIncoming(Min, Loop);
  B.CreateCondBr(B.CreateICmpULT(Next, Cur->GroupSize), Loop, Done);
  B.SetInsertPoint(Done);
  B.CreateStore(B.CreateICmpNE(Or, B.getInt32(0)), Cur->AnyParked);
  B.CreateStore(Min, Cur->Leader);
}

void KernelLowering::emitRegionLoop(const std::vector<const Stmt*>& Stmts, bool SkipParked) {
  // A kernel whose waves are vectors of this loop (kir::WaveSteps) runs it as waves of lanes
  // where it can, so that accesses indexed by the lane are contiguous. The target emits the
  // region twice then, and a deferred bounds check's per-loop state is set up once only, so its
  // checks stay where the accesses are.
  unsigned LaneWidth = 0;
  if (Cur->KF->UsesWave && !portableWaves())
    if (auto* W = llvm::dyn_cast_or_null<llvm::ConstantInt>(Target.waveWidth(B, Cur->Group)))
      LaneWidth = unsigned(W->getZExtValue());
  Cur->DeferChecks = !LaneWidth && std::all_of(Stmts.begin(), Stmts.end(),
                                               [&](const Stmt* S) { return defersChecksIn(S); });
  Target.emitWorkItemLoop(
      B, Cur->Group,
      [&](llvm::IRBuilder<>& RB, const WorkItemContext& W, llvm::Value* Item, llvm::Value* Lane,
          llvm::BasicBlock* Next) {
        if (&RB != &B)
          B.SetInsertPoint(RB.GetInsertBlock(), RB.GetInsertPoint());
        Cur->WorkItem = W;
        Cur->Item = Item;
        Cur->Lane = Lane;
        Cur->NextItem = Next;
        Cur->ItemStart = B.GetInsertBlock();
        Cur->ItemLatch = Next;
        if (SkipParked) { // a returned or parked work-item skips the region
          llvm::Value* P =
              B.CreateLoad(B.getInt32Ty(), B.CreateInBoundsGEP(B.getInt32Ty(), Cur->Park, Item));
          llvm::BasicBlock* Run = newBlock("region.run");
          B.CreateCondBr(B.CreateICmpEQ(P, B.getInt32(0)), Run, Next);
          B.SetInsertPoint(Run);
        }
        for (const Stmt* S : Stmts)
          emitStmt(S);
        branchTo(Next);
        if (&RB != &B)
          RB.SetInsertPoint(B.GetInsertBlock());
      },
      LaneWidth);
  Cur->Lane = nullptr;
  Cur->DeferChecks = false;
  Cur->ItemStart = Cur->ItemLatch = nullptr;
  emitDeferredChecks();
  Cur->WorkItem = Cur->Group;
  Cur->Item = nullptr;
  Cur->NextItem = nullptr;
}

void KernelLowering::emitGroupStmt(const Stmt* S) {
  if (!S || !Error.empty())
    return;
  if (!Cur->BarrierStmts.count(S))
    return emitRegion({S});
  switch (S->K) {
  case Stmt::Kind::Block: {
    std::vector<const Stmt*> Run; // consecutive statements without a barrier: one region
    for (const Stmt* C : S->Body) {
      if (!C)
        continue;
      if (!Cur->BarrierStmts.count(C)) {
        Run.push_back(C);
        continue;
      }
      emitRegion(Run);
      Run.clear();
      emitGroupStmt(C);
    }
    emitRegion(Run);
    return;
  }
  case Stmt::Kind::Barrier:
    return; // the boundary between the regions before and after it
  case Stmt::Kind::Eval: {
    if (kir::WaveSteps::isStep(S))
      return emitWaveStep(S);
    // A uniform statement (`k = 0`, `k++` of a uniform loop): once for the group, if a
    // work-item gets here (they may all have left by break, continue or return).
    if (!Cur->Park) {
      emitExpr(S->E);
      return;
    }
    llvm::BasicBlock* Run = newBlock("uniform.run");
    llvm::BasicBlock* Done = newBlock("uniform.done");
    B.CreateCondBr(findLeader().first, Run, Done);
    B.SetInsertPoint(Run);
    emitExpr(S->E);
    branchTo(Done);
    B.SetInsertPoint(Done);
    return;
  }
  case Stmt::Kind::If: {
    assert(S->E && S->Then && "verified KIR: if (bool) then [else]");
    llvm::Value* C = leaderCondition(S->E);
    llvm::BasicBlock* Then = newBlock("gif.then");
    llvm::BasicBlock* Else = S->Else ? newBlock("gif.else") : nullptr;
    llvm::BasicBlock* Merge = newBlock("gif.end");
    B.CreateCondBr(C, Then, Else ? Else : Merge);
    B.SetInsertPoint(Then);
    emitGroupStmt(S->Then);
    branchTo(Merge);
    if (Else) {
      B.SetInsertPoint(Else);
      emitGroupStmt(S->Else);
      branchTo(Merge);
    }
    B.SetInsertPoint(Merge);
    return;
  }
  case Stmt::Kind::Loop:
    return emitGroupLoop(S);
  default:
    // markBarriers marks only blocks, ifs and loops as holding a barrier.
    assert(false && "a barrier inside a statement that cannot hold one");
    return;
  }
}

void KernelLowering::emitGroupLoop(const Stmt* S) {
  assert(!Cur->GroupLoops.count(S->LoopId) && !Cur->Loops.count(S->LoopId) &&
         "verified KIR: unique loop ids");
  unsigned Depth = unsigned(Cur->GroupLoops.size()) + 1;
  Cur->GroupLoops[S->LoopId] = Depth;
  llvm::BasicBlock* Body = newBlock("gloop.body");
  llvm::BasicBlock* Step = newBlock("gloop.step");
  llvm::BasicBlock* Test = newBlock("gloop.test");
  llvm::BasicBlock* Exit = newBlock("gloop.exit");
  B.CreateBr(S->TestAtEnd ? Body : Test);
  B.SetInsertPoint(Body);
  emitGroupStmt(S->LoopBody);
  branchTo(Step);
  B.SetInsertPoint(Step);
  if (Cur->Park && isJumpTarget(S, Stmt::Kind::Continue))
    unpark(2 * Depth + 1); // work-items that continued run the step
  emitGroupStmt(S->Step);
  branchTo(Test);
  B.SetInsertPoint(Test);
  // Go on while a work-item is still in the loop and (if any) the condition holds for the first.
  B.CreateCondBr(leaderCondition(S->E), Body, Exit);
  B.SetInsertPoint(Exit);
  if (Cur->Park && isJumpTarget(S, Stmt::Kind::Break))
    unpark(2 * Depth); // work-items that broke out run after the loop
  Cur->GroupLoops.erase(S->LoopId);
}

} // namespace cajeta::lowering
