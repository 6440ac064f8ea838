// frem -> __nv_fmod[f] (see the header for why).
#include "compiler/lowering/llvm/NvptxFremRewriter.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include <vector>

namespace cajeta::lowering {

unsigned NvptxFremRewriter::run(llvm::Module& M) {
  std::vector<llvm::BinaryOperator*> Frems;
  for (llvm::Function& F : M)
    for (llvm::BasicBlock& BB : F)
      for (llvm::Instruction& I : BB)
        if (auto* B = llvm::dyn_cast<llvm::BinaryOperator>(&I))
          if (B->getOpcode() == llvm::Instruction::FRem && !B->getType()->isVectorTy())
            Frems.push_back(B);
  llvm::LLVMContext& Ctx = M.getContext();
  llvm::Type* F32 = llvm::Type::getFloatTy(Ctx);
  llvm::Type* F64 = llvm::Type::getDoubleTy(Ctx);
  for (llvm::BinaryOperator* B : Frems) {
    llvm::IRBuilder<> IRB(B);
    llvm::Type* Ty = B->getType();
    bool IsDouble = Ty->isDoubleTy();
    llvm::Type* Work = IsDouble ? F64 : F32;
    llvm::FunctionCallee Fmod =
        M.getOrInsertFunction(IsDouble ? "__nv_fmod" : "__nv_fmodf", Work, Work, Work);
    llvm::Value* X = IRB.CreateFPExt(B->getOperand(0), Work);
    llvm::Value* Y = IRB.CreateFPExt(B->getOperand(1), Work);
    llvm::Value* R = IRB.CreateCall(Fmod, {X, Y});
    if (Ty != Work)
      R = IRB.CreateFPTrunc(R, Ty);
    B->replaceAllUsesWith(R);
    B->eraseFromParent();
  }
  return static_cast<unsigned>(Frems.size());
}

} // namespace cajeta::lowering
