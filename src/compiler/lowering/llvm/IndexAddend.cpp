#include "compiler/lowering/llvm/IndexAddend.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Instruction.h>

namespace cajeta::lowering {

std::pair<llvm::Value*, uint64_t> IndexAddend::split(llvm::Value* Index) {
  llvm::Value* Var = Index;
  if (auto* Ext = llvm::dyn_cast<llvm::CastInst>(Var);
      Ext && Ext->getSrcTy()->isIntegerTy(32) &&
      (Ext->getOpcode() == llvm::Instruction::ZExt || Ext->getOpcode() == llvm::Instruction::SExt))
    Var = Ext->getOperand(0);
  else if (!Var->getType()->isIntegerTy(32) && !Var->getType()->isIntegerTy(64))
    return {Index, 0};
  uint64_t Addend = 0;
  while (auto* Add = llvm::dyn_cast<llvm::BinaryOperator>(Var)) {
    auto* C = Add->getOpcode() == llvm::Instruction::Add
                  ? llvm::dyn_cast<llvm::ConstantInt>(Add->getOperand(1))
                  : nullptr;
    if (!C)
      break;
    Addend += C->getZExtValue();
    Var = Add->getOperand(0);
  }
  return {Var, Addend};
}

} // namespace cajeta::lowering
