// Host KIR -> verified, optimised LLVM module (HostModuleBuilder.h).
#include "compiler/lowering/llvm/HostModuleBuilder.h"

#include "compiler/kir/transforms/Pipeline.h"
#include "compiler/lowering/llvm/HostTarget.h"
#include "compiler/lowering/llvm/KernelLowering.h"
#include "compiler/lowering/llvm/LlvmPipeline.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

namespace cajeta::lowering {

std::unique_ptr<llvm::Module> HostModuleBuilder::build(const kir::Module& KM,
                                                       llvm::LLVMContext& Ctx, std::string& Error) {
  auto M = std::make_unique<llvm::Module>(KM.SourceFile.empty() ? "host" : KM.SourceFile, Ctx);
  M->setTargetTriple(TM.getTargetTriple().str());
  M->setDataLayout(TM.createDataLayout());
  std::unique_ptr<LoweringTarget> Target = createHostTarget(TM);
  LoweringOptions LO;
  kir::PipelineConfig PC = KernelLowering::pipelineConfig(*Target, LO);
  PC.Backend = "host";
  std::unique_ptr<kir::Module> Prepared = kir::runPipeline(KM, PC, Error);
  if (!Prepared)
    return nullptr;
  KernelLowering KL(*Prepared, *M, *Target, LO);
  if (!KL.emitModule(Error))
    return nullptr;
  std::string Problems;
  llvm::raw_string_ostream OS(Problems);
  if (llvm::verifyModule(*M, &OS)) {
    Error = "internal error: the host lowering produced invalid LLVM IR: " + OS.str();
    return nullptr;
  }
  LlvmPipeline::optimize(*M, TM, /*Vectorize=*/true, /*LibraryCalls=*/true);
  return M;
}

} // namespace cajeta::lowering
