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
  // Every buffer is a whole device allocation (cuMemAlloc: at least 256-byte aligned): the
  // global pointers of the kernel ABI (bundle/GpuKernelAbi.h: each buffer's base before its
  // length; the status record, last, is left alone), so four neighbouring float32 elements from
  // a multiple of four move as one 128-bit access. Only quad entries are told: on the kernels'
  // own entries the vectorizer then merged row walks' loads into vectors (PolyBench/GPU's atax,
  // bicg and mvt 8 % slower on the H200).
  for (unsigned I = 0; I + 1 < F.arg_size(); ++I) {
    llvm::Argument* A = F.getArg(I);
    if (A->getType()->isPointerTy() && A->getType()->getPointerAddressSpace() == 1 &&
        A->getParamAlign().valueOrOne() < llvm::Align(16))
      F.addParamAttr(I, llvm::Attribute::getWithAlignment(F.getContext(), llvm::Align(16)));
  }
  llvm::FunctionPassManager FPM;
  FPM.addPass(llvm::SeparateConstOffsetFromGEPPass());
  FPM.addPass(llvm::EarlyCSEPass());
  FPM.addPass(llvm::InferAlignmentPass());
  FPM.addPass(llvm::LoadStoreVectorizerPass());
  return FPM.run(F, AM);
}

} // namespace cajeta::lowering
