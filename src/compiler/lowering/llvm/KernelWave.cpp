// KernelLowering's wave (subgroup) operations, native tier: the primitives kir::WaveExpand leaves
// (kir::WavePrimitives; the composites are KIR by then), each one call of the target's wave
// leaves (width, lane id, 32-bit shuffle, ballot, vote, native reduction) on GPUs; on targets
// whose waves are vectors of the work-item loop (the CPU), each one vector operation per wave
// between two regions of the fission (emitWaveStep).
#include "compiler/lowering/llvm/KernelLowering.h"

#include <llvm/IR/Constants.h>

namespace cajeta::lowering {

using kir::Expr;
using kir::Type;
using kir::WaveOp;

llvm::Value* KernelLowering::emitWave(const Expr* E) {
  WaveOp Op = E->WOp;
  if (Op > WaveOp::ShuffleWord)
    return fail(E, "unknown wave op " + std::to_string(unsigned(Op)));
  std::string Name = std::string("Wave.") + kir::waveOpName(Op);
  unsigned Arity = kir::waveOperandCount(Op);
  if (!checkOps(E, Arity))
    return poisonOf(E->Ty);
  Type Operand = Arity ? E->Ops[0]->Ty : Type::voidTy();
  if (Arity && !kir::waveOperandAllowed(Op, Operand))
    return fail(E, "'" + Name + "' on " + Operand.str());
  if (Arity == 2 && E->Ops[1]->Ty != Type::scalar(kir::ScalarType::U32))
    return fail(E, "the lane or distance of '" + Name + "' must be uint32");
  if (E->Ty != kir::waveResultType(Op, Operand))
    return fail(E, "'" + Name + "' has the wrong result type " + E->Ty.str());

  const WorkItemContext& W = Cur->WorkItem;
  // Without a native width there are no native waves at all: report before emitting anything.
  llvm::Value* Width = Target.waveWidth(B, W);
  if (!Width) {
    if (Error.empty())
      Error = "function '" + Cur->KF->Name + "' at " + std::to_string(E->Loc.Line) + ":" +
              std::to_string(E->Loc.Col) + ": '" + Name +
              "': wave operations need the portable tier on this backend" +
              (Opts.Backend.empty() ? std::string() : " (" + Opts.Backend + ")");
    return poisonOf(E->Ty);
  }
  std::vector<llvm::Value*> Vals;
  for (const Expr* A : E->Ops)
    Vals.push_back(emitExpr(A));
  if (!Error.empty())
    return poisonOf(E->Ty);

  llvm::Value* R = nullptr;
  switch (Op) {
  case WaveOp::Width:
    R = Width;
    break;
  case WaveOp::LaneId:
    // Waves as vectors of the fission's work-item loop (kir::WaveSteps): the lane loop's index,
    // or the item's index modulo the width.
    if (!Target.hasNativeBarrier() && Cur->Lane)
      R = Cur->Lane; // the loop runs waves of lanes
    else if (!Target.hasNativeBarrier() && Cur->Fission && Cur->Item)
      R = B.CreateAnd(B.CreateTrunc(Cur->Item, B.getInt32Ty()), B.CreateSub(Width, B.getInt32(1)));
    else
      R = Target.waveLaneId(B, W);
    break;
  case WaveOp::ShuffleWord:
    R = Target.waveShuffle(B, W, Vals[0], Vals[1]);
    break;
  case WaveOp::Ballot:
    R = Target.waveBallot(B, W, Vals[0]);
    break;
  case WaveOp::All:
  case WaveOp::Any:
    R = Target.waveVote(B, W, Op == WaveOp::All, Vals[0]);
    break;
  case WaveOp::ReduceSum:
  case WaveOp::ReduceMin:
  case WaveOp::ReduceMax:
  case WaveOp::ReduceAnd:
  case WaveOp::ReduceOr:
  case WaveOp::ReduceXor:
    R = Target.waveReduceNative(B, W, Op, Operand, Vals[0]);
    break;
  default: // a composite: kir::WaveExpand (the KIR pipeline) rewrites it before the walk
    break;
  }
  if (!R)
    return fail(E, "'" + Name + "' on " + (Arity ? Operand.str() : std::string("nothing")) +
                       " is not a wave primitive of this target (the KIR pipeline's "
                       "wave-expand pass has not run)");
  return R;
}

void KernelLowering::emitWaveStep(const kir::Stmt* S) {
  const Expr* E = S->E->Ops[0];
  const uint32_t Result = S->E->Index;
  WaveOp Op = E->WOp;
  Type Operand = E->Ops.empty() ? Type::voidTy() : E->Ops[0]->Ty;
  if (Op > WaveOp::ShuffleWord || E->Ops.size() != kir::waveOperandCount(Op) ||
      (!E->Ops.empty() && !kir::waveOperandAllowed(Op, Operand)) ||
      E->Ty != kir::waveResultType(Op, Operand) || Cur->KF->Locals[Result].Ty != E->Ty ||
      !Cur->Locals[Result]) {
    fail(E, std::string("malformed wave step 'Wave.") + kir::waveOpName(Op) + "'");
    return;
  }
  auto* WidthValue = llvm::dyn_cast_or_null<llvm::ConstantInt>(Target.waveWidth(B, Cur->Group));
  if (!WidthValue) {
    fail(E, "wave steps need a target whose wave width is a constant");
    return;
  }
  const unsigned Width = unsigned(WidthValue->getZExtValue());
  // for (Base = 0; Base < GroupSize; Base += Width): the launch holds whole waves only.
  llvm::BasicBlock* Pre = B.GetInsertBlock();
  llvm::BasicBlock* Loop = newBlock("wave.step");
  llvm::BasicBlock* Done = newBlock("wave.step.done");
  B.CreateBr(Loop);
  B.SetInsertPoint(Loop);
  llvm::PHINode* Base = B.CreatePHI(B.getInt64Ty(), 2, "wave.base");
  Base->addIncoming(B.getInt64(0), Pre);
  std::vector<llvm::Value*> Ops;
  for (const Expr* O : E->Ops)
    Ops.push_back(waveLanes(O, Base, Width));
  llvm::Value* R = waveStepValue(Op, Operand, Ops, Width);
  if (!R) {
    fail(E, std::string("'Wave.") + kir::waveOpName(Op) + "' on " + Operand.str() +
                " is not a wave step of this target");
    return;
  }
  if (Cur->PerItem[Result]) {
    // Slots of one wave are consecutive: one vector store (a bool's slot is a byte, 0 or 1).
    if (E->Ty.isBool())
      R = B.CreateZExt(R, llvm::FixedVectorType::get(B.getInt8Ty(), Width));
    llvm::Type* Elem = llvm::cast<llvm::VectorType>(R->getType())->getElementType();
    unsigned Bytes = Width * unsigned(Elem->getPrimitiveSizeInBits() / 8);
    B.CreateAlignedStore(R, B.CreateInBoundsGEP(Elem, Cur->Locals[Result], Base),
                         llvm::Align(std::min(64u, Bytes)));
  } else {
    for (unsigned L = 0; L < Width; ++L) {
      Cur->Item = B.CreateAdd(Base, B.getInt64(L));
      storeLocal(Result, B.CreateExtractElement(R, uint64_t(L)));
    }
    Cur->Item = nullptr;
  }
  llvm::Value* Next = B.CreateAdd(Base, B.getInt64(Width), "", /*HasNUW=*/true);
  Base->addIncoming(Next, B.GetInsertBlock());
  B.CreateCondBr(B.CreateICmpULT(Next, Cur->GroupSize), Loop, Done);
  B.SetInsertPoint(Done);
}

llvm::Value* KernelLowering::waveLanes(const Expr* Operand, llvm::Value* Base, unsigned Width) {
  const uint32_t L = Operand->Index;
  Type T = Cur->KF->Locals[L].Ty;
  llvm::Type* Elem = valueType(Ctx, T);
  auto* VT = llvm::FixedVectorType::get(Elem, Width);
  if (Cur->PerItem[L] && Cur->Locals[L]) {
    // A bool's slot is a byte whose bit 0 is the value.
    llvm::Type* Slot = T.isBool() ? B.getInt8Ty() : Elem;
    unsigned Bytes = Width * unsigned(Slot->getPrimitiveSizeInBits() / 8);
    llvm::Value* V = B.CreateAlignedLoad(llvm::FixedVectorType::get(Slot, Width),
                                         B.CreateInBoundsGEP(Slot, Cur->Locals[L], Base),
                                         llvm::Align(std::min(64u, Bytes)));
    if (!T.isBool())
      return V;
    return B.CreateICmpNE(B.CreateAnd(V, llvm::ConstantInt::get(V->getType(), 1)),
                          llvm::Constant::getNullValue(V->getType()));
  }
  // A uniform local or one recomputed from the coordinates: lane by lane.
  llvm::Value* V = llvm::PoisonValue::get(VT);
  for (unsigned Lane = 0; Lane < Width; ++Lane) {
    llvm::Value* Item = B.CreateAdd(Base, B.getInt64(Lane));
    Cur->WorkItem = Target.workItemAt(B, Cur->Group, Item);
    Cur->Item = Item;
    V = B.CreateInsertElement(V, emitExpr(Operand), uint64_t(Lane));
  }
  Cur->WorkItem = Cur->Group;
  Cur->Item = nullptr;
  return V;
}

llvm::Value* KernelLowering::waveStepValue(WaveOp Op, Type Ty, llvm::ArrayRef<llvm::Value*> Ops,
                                           unsigned Width) {
  auto Splat = [&](llvm::Value* X) { return B.CreateVectorSplat(Width, X); };
  switch (Op) {
  case WaveOp::ShuffleWord: { // lane L takes word Ops[1][L] (in range) of Ops[0]
    llvm::Value* Index = B.CreateAnd(Ops[1], Splat(B.getInt32(Width - 1)));
    if (llvm::Value* P = Target.permuteLanes(B, Ops[0], Index))
      return P;
    llvm::Value* R = llvm::PoisonValue::get(Ops[0]->getType());
    for (unsigned L = 0; L < Width; ++L) {
      llvm::Value* Src = B.CreateExtractElement(Index, uint64_t(L));
      R = B.CreateInsertElement(R, B.CreateExtractElement(Ops[0], Src), uint64_t(L));
    }
    return R;
  }
  case WaveOp::BroadcastFirst:
    return B.CreateShuffleVector(Ops[0], llvm::SmallVector<int>(Width, 0));
  case WaveOp::Ballot: // bit L of a uint64 from lane L
    return Splat(B.CreateZExt(B.CreateBitCast(Ops[0], B.getIntNTy(Width)), B.getInt64Ty()));
  case WaveOp::All:
    return Splat(B.CreateAndReduce(Ops[0]));
  case WaveOp::Any:
    return Splat(B.CreateOrReduce(Ops[0]));
  case WaveOp::InclusiveSum:
  case WaveOp::ExclusiveSum: {
    // Integers only (kir::WaveSteps::primitives): exact in any order, so log2(width) shifted
    // adds; the exclusive sum is the inclusive one less the lane's own value.
    llvm::Value* Sum = Ops[0];
    llvm::Value* Zero = llvm::Constant::getNullValue(Sum->getType());
    for (unsigned D = 1; D < Width; D <<= 1) {
      llvm::SmallVector<int> Mask;
      for (unsigned L = 0; L < Width; ++L)
        Mask.push_back(L >= D ? int(L - D) : int(Width)); // lane L - D, or zero
      Sum = B.CreateAdd(Sum, B.CreateShuffleVector(Sum, Zero, Mask));
    }
    return Op == WaveOp::ExclusiveSum ? B.CreateSub(Sum, Ops[0]) : Sum;
  }
  case WaveOp::ReduceSum:
    return Ty.isInteger() ? Splat(B.CreateAddReduce(Ops[0])) : nullptr;
  case WaveOp::ReduceMin:
    return Ty.isInteger() ? Splat(B.CreateIntMinReduce(Ops[0], Ty.isSigned())) : nullptr;
  case WaveOp::ReduceMax:
    return Ty.isInteger() ? Splat(B.CreateIntMaxReduce(Ops[0], Ty.isSigned())) : nullptr;
  case WaveOp::ReduceAnd:
    return Ty.isInteger() ? Splat(B.CreateAndReduce(Ops[0])) : nullptr;
  case WaveOp::ReduceOr:
    return Ty.isInteger() ? Splat(B.CreateOrReduce(Ops[0])) : nullptr;
  case WaveOp::ReduceXor:
    return Ty.isInteger() ? Splat(B.CreateXorReduce(Ops[0])) : nullptr;
  default:
    return nullptr;
  }
}

} // namespace cajeta::lowering
