// A masked gather of one address as a scalar load and a broadcast (UniformGatherRewrite.h).
#include "compiler/lowering/llvm/UniformGatherRewrite.h"

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>

#include <algorithm>

namespace cajeta::lowering {

namespace {

/// The stack slot an all-inactive gather of type Ty loads from instead: one per element type.
llvm::AllocaInst* fallbackSlot(llvm::Function& F, llvm::Type* Ty,
                               llvm::DenseMap<llvm::Type*, llvm::AllocaInst*>& Slots) {
  llvm::AllocaInst*& Slot = Slots[Ty];
  if (!Slot) {
    llvm::IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
    Slot = B.CreateAlloca(Ty, nullptr, "gather.fallback");
    B.SetInsertPoint(Slot->getNextNode());
    B.CreateStore(llvm::Constant::getNullValue(Ty), Slot);
  }
  return Slot;
}

} // namespace

llvm::PreservedAnalyses UniformGatherRewrite::run(llvm::Function& F,
                                                  llvm::FunctionAnalysisManager&) {
  llvm::SmallVector<llvm::IntrinsicInst*, 8> Gathers;
  for (llvm::Instruction& I : llvm::instructions(F))
    if (auto* II = llvm::dyn_cast<llvm::IntrinsicInst>(&I);
        II && II->getIntrinsicID() == llvm::Intrinsic::masked_gather &&
        llvm::getSplatValue(II->getArgOperand(0)))
      Gathers.push_back(II);
  if (Gathers.empty())
    return llvm::PreservedAnalyses::all();

  llvm::DenseMap<llvm::Type*, llvm::AllocaInst*> Slots;
  for (llvm::IntrinsicInst* G : Gathers) {
    auto* VecTy = llvm::cast<llvm::VectorType>(G->getType());
    llvm::Type* ElemTy = VecTy->getElementType();
    llvm::Value* Address = llvm::getSplatValue(G->getArgOperand(0));
    llvm::Value* Mask = G->getArgOperand(2);
    llvm::Value* PassThru = G->getArgOperand(3);
    uint64_t AlignBytes = llvm::cast<llvm::ConstantInt>(G->getArgOperand(1))->getZExtValue();
    llvm::Align Alignment(std::max<uint64_t>(1, AlignBytes));
    llvm::AllocaInst* Slot = fallbackSlot(F, ElemTy, Slots);

    llvm::IRBuilder<> B(G);
    llvm::Value* Any = B.CreateOrReduce(Mask);
    llvm::Value* From = B.CreateSelect(Any, Address, Slot, "gather.addr");
    llvm::Value* Scalar =
        B.CreateAlignedLoad(ElemTy, From, std::min(Alignment, Slot->getAlign()), "gather.scalar");
    llvm::Value* Splat = B.CreateVectorSplat(VecTy->getElementCount(), Scalar, "gather.splat");
    llvm::Value* Result = llvm::isa<llvm::UndefValue>(PassThru) // poison included
                              ? Splat
                              : B.CreateSelect(Mask, Splat, PassThru);
    G->replaceAllUsesWith(Result);
    G->eraseFromParent();
  }
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace cajeta::lowering
