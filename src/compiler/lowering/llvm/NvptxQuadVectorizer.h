// Vectorizes the loads and stores of a quad entry (kir::WorkItemQuads) early, among the
// simplification pipeline's peephole passes. The NVPTX code generator's own load/store
// vectorizer runs only after the optimizer, by which time the CFG simplification has sunk the
// fast path's last store into the block it shares with the slow path (both end with a store to
// the same buffer), splitting the run of four stores a 128-bit store needs. Here the constant
// offsets are split out of the copies' addresses (`zext(4t | s)`), the buffers' parameters are
// marked 16-byte aligned (whole allocations) and that alignment put on each access, and LLVM's
// load/store vectorizer merges each buffer's four. Only functions marked with
// KernelLowering::QuadEntryAttribute are touched.
#pragma once

#include <llvm/IR/PassManager.h>

namespace cajeta::lowering {

class NvptxQuadVectorizer : public llvm::PassInfoMixin<NvptxQuadVectorizer> {
public:
  llvm::PreservedAnalyses run(llvm::Function& F, llvm::FunctionAnalysisManager& AM);
};

} // namespace cajeta::lowering
