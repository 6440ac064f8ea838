// Folds a warp vote of a value the optimizer has proved constant: `vote.all.sync(mask, true)`
// is true and `vote.any.sync(mask, false)` false on every lane. kir::TileLowering decides its
// ldmatrix and whole-fragment paths once per wave with such a vote; where InstCombine proves the
// tile's offsets aligned, the fold lets SimplifyCFG drop the element path, so the loop around a
// tile load stays one basic block that ptxas can schedule matrix loads and products across.
#pragma once

#include <llvm/IR/PassManager.h>

namespace cajeta::lowering {

class NvptxVoteFolding : public llvm::PassInfoMixin<NvptxVoteFolding> {
public:
  llvm::PreservedAnalyses run(llvm::Function& F, llvm::FunctionAnalysisManager& AM);
};

} // namespace cajeta::lowering
