// The quad entries' early load/store vectorization (NvptxQuadVectorizer.h).
#include "compiler/lowering/llvm/NvptxQuadVectorizer.h"

#include "compiler/lowering/llvm/KernelLowering.h"

#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/InferAlignment.h>
#include <llvm/Transforms/Scalar/SeparateConstOffsetFromGEP.h>
#include <llvm/Transforms/Vectorize/LoadStoreVectorizer.h>

namespace cajeta::lowering {

llvm::PreservedAnalyses NvptxQuadVectorizer::run(llvm::Function& F,
                                                 llvm::FunctionAnalysisManager& AM) {
  if (!F.hasFnAttribute(KernelLowering::QuadEntryAttribute))
    return llvm::PreservedAnalyses::all();
  llvm::FunctionPassManager FPM;
  FPM.addPass(llvm::SeparateConstOffsetFromGEPPass());
  FPM.addPass(llvm::EarlyCSEPass());
  FPM.addPass(llvm::InferAlignmentPass());
  FPM.addPass(llvm::LoadStoreVectorizerPass());
  return FPM.run(F, AM);
}

} // namespace cajeta::lowering
