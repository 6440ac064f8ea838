// --check-bounds in the KIR -> LLVM walk. An access out of range is reported through the
// target's failure record and the kernel leaves at once; or, on a target that defers failures
// (the CPU) and outside any loop of the kernel, the access is skipped (a load gives 0), the
// site's flag and smallest failing index are kept, and the end of the loop over the group's
// work-items reports them: that loop then has no early exit and vectorizes, with the check as a
// mask on its loads and stores. On the CPU, BoundsCheckVersioning then gives each innermost loop a
// copy without the checks that a test before the loop has proved cannot fail.
#include "compiler/lowering/llvm/KernelLowering.h"

#include "compiler/lowering/llvm/IndexAddend.h"

#include "compiler/kir/Walk.h"

#include <cassert>

#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/MathExtras.h>

namespace cajeta::lowering {

using kir::Expr;
using kir::Type;

llvm::Value* KernelLowering::elementAddress(const BufferValue& Buf, const Expr* IndexExpr,
                                            Type ElemTy, llvm::Value** InRangeOut, bool ForLoad) {
  assert(IndexExpr->Ty.isInteger() && "verified KIR: integer indices");
  if (InRangeOut)
    *InRangeOut = nullptr;
  llvm::Value* Index = emitExpr(IndexExpr);
  Index = B.CreateIntCast(Index, B.getInt64Ty(), IndexExpr->Ty.isSigned());
  if (!(Opts.CheckBounds && !Buf.Private) && !Buf.HostArray)
    return elementPointer(Buf, memoryType(Ctx, ElemTy), Index);
  // A negative signed index is a huge unsigned one: out of range too.
  llvm::Value* InRange = B.CreateICmpULT(Index, Buf.Length);
  bool Defer = InRangeOut && !Buf.HostArray && Cur->DeferChecks && Cur->LoopDepth == 0 &&
               Cur->KF->IsKernel && Cur->ItemStart && Cur->ItemLatch;
  if (Defer) {
    // Each value set where the access is (often under a guard) is per work-item; the latch
    // folds it into the loop's: failedSite = min(failedSite, itemFailedSite), first = min(first,
    // candidate). Unconditional min reductions, which the vectorizer keeps in registers; the
    // smallest failing index is the one reported, as the first work-item to fail would have.
    llvm::IRBuilder<> AB(&Cur->F->getEntryBlock(), Cur->F->getEntryBlock().getFirstInsertionPt());
    llvm::IRBuilder<> Start(Cur->ItemStart, Cur->ItemStart->getFirstInsertionPt());
    llvm::IRBuilder<> Latch(Cur->ItemLatch, Cur->ItemLatch->getFirstInsertionPt());
    auto Min = [](llvm::IRBuilder<>& IB, llvm::Value* Slot, llvm::Value* V) {
      IB.CreateStore(
          IB.CreateBinaryIntrinsic(llvm::Intrinsic::umin, IB.CreateLoad(V->getType(), Slot), V),
          Slot);
    };
    if (!Cur->FailedSite) {
      Cur->FailedSite = AB.CreateAlloca(B.getInt32Ty(), nullptr, "bounds.site");
      Cur->ItemFailedSite = AB.CreateAlloca(B.getInt32Ty(), nullptr, "bounds.item.site");
      AB.CreateStore(AB.getInt32(~0u), Cur->FailedSite);
      Start.CreateStore(Start.getInt32(~0u), Cur->ItemFailedSite);
      Min(Latch, Cur->FailedSite, Latch.CreateLoad(Latch.getInt32Ty(), Cur->ItemFailedSite));
    }
    FunctionState::DeferredCheck D;
    D.FirstIndex = AB.CreateAlloca(B.getInt64Ty(), nullptr, "bounds.first");
    D.Candidate = AB.CreateAlloca(B.getInt64Ty(), nullptr, "bounds.candidate");
    AB.CreateStore(AB.getInt64(~uint64_t(0)), D.FirstIndex);
    D.ParamIndex = Buf.ParamIndex;
    D.Length = Buf.Length;
    Start.CreateStore(Start.getInt64(~uint64_t(0)), D.Candidate);
    Min(Latch, D.FirstIndex, Latch.CreateLoad(Latch.getInt64Ty(), D.Candidate));
    llvm::Value* Out = B.CreateNot(InRange);
    Min(B, Cur->ItemFailedSite,
        B.CreateSelect(Out, B.getInt32(uint32_t(Cur->Deferred.size())), B.getInt32(~0u)));
    Min(B, D.Candidate, B.CreateSelect(Out, Index, B.getInt64(~uint64_t(0))));
    Cur->Deferred.push_back(D);
    // Not inbounds: an index out of range computes an address that is never used.
    llvm::Value* Addr = B.CreateGEP(memoryType(Ctx, ElemTy), Buf.Ptr, Index);
    if (!Cur->Slopes) {
      // The fission's analysis where there is one; a kernel without barriers gets its own.
      if (!Cur->Uniformity && !Cur->SlopeUniformity)
        Cur->SlopeUniformity = std::make_unique<kir::GroupUniformity>(*Cur->KF);
      Cur->Slopes = std::make_unique<kir::WorkItemSlopes>(
          *Cur->KF, Cur->Uniformity ? *Cur->Uniformity : *Cur->SlopeUniformity);
    }
    if (ForLoad && Cur->Slopes->of(IndexExpr).isZero()) {
      if (!Cur->ZeroSlot) {
        auto* Z = AB.CreateAlloca(llvm::ArrayType::get(B.getInt64Ty(), 2), nullptr, "bounds.zero");
        Z->setAlignment(llvm::Align(16));
        AB.CreateStore(llvm::Constant::getNullValue(Z->getAllocatedType()), Z);
        Cur->ZeroSlot = Z;
      }
      return B.CreateSelect(InRange, Addr, Cur->ZeroSlot);
    }
    *InRangeOut = InRange;
    return Addr;
  }
  llvm::BasicBlock* Ok = newBlock("bounds.ok");
  llvm::BasicBlock* Bad = newBlock("bounds.bad");
  B.CreateCondBr(InRange, Ok, Bad);
  B.SetInsertPoint(Bad);
  if (Buf.HostArray) {
    emitHostIndexFailure(IndexExpr, Index, Buf.Length);
  } else {
    Target.emitBoundsFailure(B, Cur->WorkItem, Buf.ParamIndex, Index, Buf.Length);
    B.CreateBr(Cur->FailBlock);
  }
  B.SetInsertPoint(Ok);
  return elementPointer(Buf, memoryType(Ctx, ElemTy), Index);
}

llvm::Value* KernelLowering::runPointer(const BufferValue& Buf, llvm::Type* Elem,
                                        llvm::Value* First, unsigned Count) {
  assert(!Buf.HostArray && !Buf.Swizzle128 && "a run of a buffer's elements");
  if (Opts.CheckBounds && !Buf.Private) {
    llvm::Value* End = B.CreateAdd(First, B.getInt64(Count));
    llvm::BasicBlock* Ok = newBlock("bounds.ok");
    llvm::BasicBlock* Bad = newBlock("bounds.bad");
    B.CreateCondBr(B.CreateICmpULE(End, Buf.Length), Ok, Bad);
    B.SetInsertPoint(Bad);
    llvm::Value* Past = B.CreateBinaryIntrinsic(llvm::Intrinsic::umax, First, Buf.Length);
    Target.emitBoundsFailure(B, Cur->WorkItem, Buf.ParamIndex, Past, Buf.Length);
    B.CreateBr(Cur->FailBlock);
    B.SetInsertPoint(Ok);
  }
  return elementPointer(Buf, Elem, First);
}

llvm::Value* KernelLowering::elementPointer(const BufferValue& Buf, llvm::Type* Elem,
                                            llvm::Value* Index) {
  if (!Buf.Swizzle128)
    return B.CreateInBoundsGEP(Elem, Buf.Ptr, Index);
  // kir::SharedArray::Swizzle128: byte b at b ^ (((b >> 7) & 7) << 4), in 32 bits (shared
  // memory is far smaller); rows of several atoms (RowAtoms) first go atom by atom in blocks of
  // 8 rows. Both keep the bits above a block (1024 bytes per atom), so the constant addends of
  // the index in whole blocks are added after them: the copies and loads of one array at
  // constant distances share one swizzled base.
  const uint64_t Size = Cur->F->getParent()->getDataLayout().getTypeStoreSize(Elem);
  auto [Var, Addend] = IndexAddend::split(Index);
  const uint32_t AddendBytes = uint32_t(Addend * Size); // modulo 2^32, as the index
  const uint32_t Atoms = Buf.RowAtoms, BlockBytes = 1024u * Atoms;
  const uint32_t Periods = AddendBytes & ~(BlockBytes - 1);
  llvm::Value* Byte =
      B.CreateAdd(B.CreateMul(B.CreateZExtOrTrunc(Var, B.getInt32Ty()), B.getInt32(uint32_t(Size))),
                  B.getInt32(AddendBytes - Periods));
  if (Atoms > 1) {
    // Byte c + 128 (a + Atoms r) of the block (column byte c, atom a, row r < 8) goes to
    // c + 128 (r + 8 a).
    const unsigned AtomBits = unsigned(llvm::Log2_32(Atoms));
    llvm::Value* Atom = B.CreateAnd(B.CreateLShr(Byte, 7), B.getInt32(Atoms - 1));
    llvm::Value* RowOf = B.CreateAnd(B.CreateLShr(Byte, 7 + AtomBits), B.getInt32(7));
    Byte = B.CreateOr(B.CreateAnd(Byte, B.getInt32(~(BlockBytes - 1) | 127u)),
                      B.CreateOr(B.CreateShl(RowOf, 7), B.CreateShl(Atom, 10)));
  }
  llvm::Value* Row = B.CreateAnd(B.CreateLShr(Byte, 7), B.getInt32(7));
  llvm::Value* At = B.CreateAdd(B.CreateXor(Byte, B.CreateShl(Row, 4)), B.getInt32(Periods));
  return B.CreateInBoundsGEP(B.getInt8Ty(), Buf.Ptr, B.CreateZExt(At, B.getInt64Ty()));
}

bool KernelLowering::defersChecksIn(const kir::Stmt* S) const {
  if (!Opts.CheckBounds || !Target.defersBoundsFailures())
    return false;
  // A loop, an atomic or a call keeps its own check that leaves at once, so the loop over
  // work-items would not vectorize anyway: deferring the rest would only add its bookkeeping.
  bool Immediate = false;
  kir::forEachStmt(S, [&](const kir::Stmt* X) { Immediate |= X->K == kir::Stmt::Kind::Loop; });
  kir::forEachExprIn(S, [&](const Expr* E) {
    Immediate |=
        E->K == Expr::Kind::Atomic || E->K == Expr::Kind::Call || E->K == Expr::Kind::Dispatch;
  });
  return !Immediate;
}

void KernelLowering::emitDeferredChecks() {
  if (Cur->Deferred.empty())
    return;
  llvm::Value* Site = B.CreateLoad(B.getInt32Ty(), Cur->FailedSite);
  llvm::BasicBlock* Fine = newBlock("bounds.fine");
  llvm::BasicBlock* Unknown = newBlock("bounds.unknown");
  llvm::SwitchInst* Which = B.CreateSwitch(Site, Unknown, unsigned(Cur->Deferred.size()));
  Which->addCase(B.getInt32(~0u), Fine);
  for (size_t I = 0; I < Cur->Deferred.size(); ++I) {
    const FunctionState::DeferredCheck& D = Cur->Deferred[I];
    llvm::BasicBlock* Report = newBlock("bounds.report");
    Which->addCase(B.getInt32(uint32_t(I)), Report);
    B.SetInsertPoint(Report);
    Target.emitBoundsFailure(B, Cur->Group.Values.empty() ? Cur->WorkItem : Cur->Group,
                             D.ParamIndex, B.CreateLoad(B.getInt64Ty(), D.FirstIndex), D.Length);
    B.CreateBr(Cur->FailBlock);
  }
  B.SetInsertPoint(Unknown); // not reached: the site is one of the cases
  B.CreateBr(Cur->FailBlock);
  B.SetInsertPoint(Fine);
  Cur->Deferred.clear();
  Cur->FailedSite = Cur->ItemFailedSite = nullptr;
}

} // namespace cajeta::lowering
