// KernelLowering's atomics: atomicrmw / cmpxchg / atomic load and store on buffer and shared
// array elements, with the KIR memory order; float min/max follow Math.min/max (cmpxchg loop).
#include "compiler/lowering/llvm/KernelLowering.h"

#include <llvm/IR/Intrinsics.h>
#include <llvm/Support/ErrorHandling.h>

#include <cassert>

namespace cajeta::lowering {

using kir::AtomicOp;
using kir::Expr;
using kir::MemoryOrder;
using kir::Type;

namespace {

llvm::AtomicOrdering ordering(MemoryOrder O) {
  switch (O) {
  case MemoryOrder::Relaxed:
    return llvm::AtomicOrdering::Monotonic;
  case MemoryOrder::Acquire:
    return llvm::AtomicOrdering::Acquire;
  case MemoryOrder::Release:
    return llvm::AtomicOrdering::Release;
  case MemoryOrder::AcqRel:
    return llvm::AtomicOrdering::AcquireRelease;
  case MemoryOrder::SeqCst:
    return llvm::AtomicOrdering::SequentiallyConsistent;
  }
  return llvm::AtomicOrdering::SequentiallyConsistent;
}

/// The strongest ordering a load (or a failed cmpxchg) may have that is implied by O.
llvm::AtomicOrdering loadOrdering(llvm::AtomicOrdering O) {
  if (O == llvm::AtomicOrdering::Release)
    return llvm::AtomicOrdering::Monotonic;
  if (O == llvm::AtomicOrdering::AcquireRelease)
    return llvm::AtomicOrdering::Acquire;
  return O;
}

/// The strongest ordering a store may have that is implied by O.
llvm::AtomicOrdering storeOrdering(llvm::AtomicOrdering O) {
  if (O == llvm::AtomicOrdering::Acquire)
    return llvm::AtomicOrdering::Monotonic;
  if (O == llvm::AtomicOrdering::AcquireRelease)
    return llvm::AtomicOrdering::Release;
  return O;
}

} // namespace

llvm::Value* KernelLowering::emitAtomic(const Expr* E) {
  // Verified KIR: the operand count of the op, operands of the element type, and integers or
  // float32/float64 with an op that exists for floats.
  assert(E->Ops.size() == kir::atomicOperandCount(E->AOp) && "verified KIR: atomic operands");
  const BufferValue* Buf = bufferOf(E->Ops[0]);
  Type Elem = Type::scalar(E->Ops[0]->Ty.Elem);
  assert(E->Ty == Elem && "verified KIR: atomic typing");
  bool IsFloat = Elem.isFloat(); // float32/float64: the verifier admits no float16 atomics
  // Left to right: the index (bounds-checked), then the operands.
  llvm::Value* Addr = elementAddress(*Buf, E->Ops[1], Elem);
  std::vector<llvm::Value*> Vals;
  for (size_t I = 2; I < E->Ops.size(); ++I)
    Vals.push_back(emitExpr(E->Ops[I]));
  if (!Error.empty())
    return poisonOf(E->Ty);
  llvm::Type* T = valueType(Ctx, Elem);
  llvm::Align Al(bundle::scalarTypeSize(Elem.Elem));
  if (E->Ops[0]->K == Expr::Kind::SharedRef && Target.workgroupRunsOnOneThread())
    return sharedAtomicOnOneThread(E, Addr, Vals, T, Al);
  llvm::AtomicOrdering Order = ordering(E->Order);
  auto Rmw = [&](llvm::AtomicRMWInst::BinOp Op) {
    return B.CreateAtomicRMW(Op, Addr, Vals[0], Al, Order);
  };
  bool Signed = Elem.isSigned();
  switch (E->AOp) {
  case AtomicOp::Add:
    return Rmw(IsFloat ? llvm::AtomicRMWInst::FAdd : llvm::AtomicRMWInst::Add);
  case AtomicOp::Sub:
    return Rmw(llvm::AtomicRMWInst::Sub);
  case AtomicOp::And:
    return Rmw(llvm::AtomicRMWInst::And);
  case AtomicOp::Or:
    return Rmw(llvm::AtomicRMWInst::Or);
  case AtomicOp::Xor:
    return Rmw(llvm::AtomicRMWInst::Xor);
  case AtomicOp::Exchange:
    return Rmw(llvm::AtomicRMWInst::Xchg);
  case AtomicOp::Min:
    if (IsFloat)
      return atomicFloatMinMax(E, Addr, Vals[0], Order);
    return Rmw(Signed ? llvm::AtomicRMWInst::Min : llvm::AtomicRMWInst::UMin);
  case AtomicOp::Max:
    if (IsFloat)
      return atomicFloatMinMax(E, Addr, Vals[0], Order);
    return Rmw(Signed ? llvm::AtomicRMWInst::Max : llvm::AtomicRMWInst::UMax);
  case AtomicOp::CompareExchange: {
    // Floats compare bitwise: cmpxchg on the integer bits.
    llvm::Type* IT = llvm::Type::getIntNTy(Ctx, Elem.bits());
    llvm::Value* Expected = IsFloat ? B.CreateBitCast(Vals[0], IT) : Vals[0];
    llvm::Value* Desired = IsFloat ? B.CreateBitCast(Vals[1], IT) : Vals[1];
    llvm::Value* Pair =
        B.CreateAtomicCmpXchg(Addr, Expected, Desired, Al, Order, loadOrdering(Order));
    llvm::Value* Old = B.CreateExtractValue(Pair, 0);
    return IsFloat ? B.CreateBitCast(Old, T) : Old;
  }
  case AtomicOp::Load: {
    llvm::LoadInst* L = B.CreateLoad(T, Addr);
    L->setAtomic(loadOrdering(Order));
    L->setAlignment(Al);
    return L;
  }
  case AtomicOp::Store: {
    llvm::StoreInst* St = B.CreateStore(Vals[0], Addr);
    St->setAtomic(storeOrdering(Order));
    St->setAlignment(Al);
    return Vals[0];
  }
  }
  llvm_unreachable("verified KIR: unknown atomic op");
}

llvm::Value* KernelLowering::sharedAtomicOnOneThread(const Expr* E, llvm::Value* Addr,
                                                     const std::vector<llvm::Value*>& Vals,
                                                     llvm::Type* T, llvm::Align Al) {
  // The workgroup's work-items run one after another on this thread, so nobody else can see the
  // shared array between the read and the write. Volatile keeps the work-item loop from being
  // vectorised across the read-modify-write (two work-items may hit the same element), as the
  // atomic did, without a locked instruction.
  Type Elem = E->Ty;
  bool IsFloat = Elem.isFloat();
  llvm::LoadInst* Old = B.CreateAlignedLoad(T, Addr, Al, /*isVolatile=*/true);
  if (E->AOp == AtomicOp::Load)
    return Old;
  llvm::Value* New = nullptr;
  switch (E->AOp) {
  case AtomicOp::Add:
    New = IsFloat ? B.CreateFAdd(Old, Vals[0]) : B.CreateAdd(Old, Vals[0]);
    break;
  case AtomicOp::Sub:
    New = B.CreateSub(Old, Vals[0]);
    break;
  case AtomicOp::And:
    New = B.CreateAnd(Old, Vals[0]);
    break;
  case AtomicOp::Or:
    New = B.CreateOr(Old, Vals[0]);
    break;
  case AtomicOp::Xor:
    New = B.CreateXor(Old, Vals[0]);
    break;
  case AtomicOp::Exchange:
  case AtomicOp::Store:
    New = Vals[0];
    break;
  case AtomicOp::Min:
    New = B.CreateBinaryIntrinsic(IsFloat           ? llvm::Intrinsic::minimum
                                  : Elem.isSigned() ? llvm::Intrinsic::smin
                                                    : llvm::Intrinsic::umin,
                                  Old, Vals[0]);
    break;
  case AtomicOp::Max:
    New = B.CreateBinaryIntrinsic(IsFloat           ? llvm::Intrinsic::maximum
                                  : Elem.isSigned() ? llvm::Intrinsic::smax
                                                    : llvm::Intrinsic::umax,
                                  Old, Vals[0]);
    break;
  case AtomicOp::CompareExchange: {
    // Bitwise compare, as the atomic form.
    llvm::Type* IT = llvm::Type::getIntNTy(Ctx, Elem.bits());
    llvm::Value* Same = B.CreateICmpEQ(IsFloat ? B.CreateBitCast(Old, IT) : Old,
                                       IsFloat ? B.CreateBitCast(Vals[0], IT) : Vals[0]);
    New = B.CreateSelect(Same, Vals[1], Old);
    break;
  }
  case AtomicOp::Load:
    break;
  }
  B.CreateAlignedStore(New, Addr, Al, /*isVolatile=*/true);
  return E->AOp == AtomicOp::Store ? Vals[0] : static_cast<llvm::Value*>(Old);
}

llvm::Value* KernelLowering::atomicFloatMinMax(const Expr* E, llvm::Value* Addr, llvm::Value* V,
                                               llvm::AtomicOrdering Order) {
  // atomicrmw fmin/fmax are minnum/maxnum (a NaN operand loses); Math.min/max wants NaN to win
  // and -0 < +0, i.e. llvm.minimum/maximum, so: load, compute, compare-exchange until it sticks.
  llvm::Type* T = V->getType();
  llvm::Type* IT = llvm::Type::getIntNTy(Ctx, T->getPrimitiveSizeInBits());
  llvm::Align Al(T->getPrimitiveSizeInBits() / 8);
  llvm::LoadInst* First = B.CreateLoad(IT, Addr);
  First->setAtomic(llvm::AtomicOrdering::Monotonic);
  First->setAlignment(Al);
  llvm::BasicBlock* Pre = B.GetInsertBlock();
  llvm::BasicBlock* Loop = newBlock("atomic.minmax");
  llvm::BasicBlock* Done = newBlock("atomic.minmax.done");
  B.CreateBr(Loop);
  B.SetInsertPoint(Loop);
  llvm::PHINode* OldBits = B.CreatePHI(IT, 2);
  OldBits->addIncoming(First, Pre);
  llvm::Value* Old = B.CreateBitCast(OldBits, T);
  auto Id = E->AOp == kir::AtomicOp::Min ? llvm::Intrinsic::minimum : llvm::Intrinsic::maximum;
  llvm::Value* New = B.CreateBitCast(B.CreateBinaryIntrinsic(Id, Old, V), IT);
  llvm::Value* Pair = B.CreateAtomicCmpXchg(Addr, OldBits, New, Al, Order, loadOrdering(Order));
  llvm::Value* Seen = B.CreateExtractValue(Pair, 0);
  OldBits->addIncoming(Seen, B.GetInsertBlock());
  B.CreateCondBr(B.CreateExtractValue(Pair, 1), Done, Loop);
  B.SetInsertPoint(Done);
  return Old;
}

} // namespace cajeta::lowering
