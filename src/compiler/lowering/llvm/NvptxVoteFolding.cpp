// Warp votes of constants folded to the constant (NvptxVoteFolding.h).
#include "compiler/lowering/llvm/NvptxVoteFolding.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

namespace cajeta::lowering {

llvm::PreservedAnalyses NvptxVoteFolding::run(llvm::Function& F, llvm::FunctionAnalysisManager&) {
  llvm::SmallVector<llvm::IntrinsicInst*, 8> Folded;
  for (llvm::Instruction& I : llvm::instructions(F)) {
    auto* Call = llvm::dyn_cast<llvm::IntrinsicInst>(&I);
    if (!Call)
      continue;
    llvm::Intrinsic::ID Id = Call->getIntrinsicID();
    if (Id != llvm::Intrinsic::nvvm_vote_all_sync && Id != llvm::Intrinsic::nvvm_vote_any_sync)
      continue;
    // Every lane in the mask votes the same constant, so all and any both answer it. (The
    // lowering's masks always hold the voting lane, so no vote is over an empty set.)
    if (llvm::isa<llvm::ConstantInt>(Call->getArgOperand(1)))
      Folded.push_back(Call);
  }
  for (llvm::IntrinsicInst* Call : Folded) {
    Call->replaceAllUsesWith(Call->getArgOperand(1));
    Call->eraseFromParent();
  }
  if (Folded.empty())
    return llvm::PreservedAnalyses::all();
  llvm::PreservedAnalyses PA;
  PA.preserveSet<llvm::CFGAnalyses>();
  return PA;
}

} // namespace cajeta::lowering
