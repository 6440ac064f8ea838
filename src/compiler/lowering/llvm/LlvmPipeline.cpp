// The shared LLVM pipeline of the payload builders.
#include "compiler/lowering/llvm/LlvmPipeline.h"

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>

namespace cajeta::lowering {

namespace {

struct QuietDiagnostics : llvm::DiagnosticHandler {
  explicit QuietDiagnostics(std::string& Errors) : Errors(Errors) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo& DI) override {
    if (DI.getSeverity() != llvm::DS_Error)
      return true;
    llvm::raw_string_ostream OS(Errors);
    llvm::DiagnosticPrinterRawOStream DP(OS);
    DI.print(DP);
    OS << "\n";
    return true;
  }
  std::string& Errors;
};

} // namespace

std::unique_ptr<llvm::DiagnosticHandler> LlvmPipeline::quietDiagnostics(std::string& Errors) {
  return std::make_unique<QuietDiagnostics>(Errors);
}

bool LlvmPipeline::emit(llvm::Module& M, llvm::TargetMachine& TM, bool Assembly, std::string& Out,
                        std::string& Error) {
  llvm::SmallVector<char, 0> Buffer;
  llvm::raw_svector_ostream OS(Buffer);
  llvm::legacy::PassManager PM;
  llvm::CodeGenFileType Kind =
      Assembly ? llvm::CodeGenFileType::AssemblyFile : llvm::CodeGenFileType::ObjectFile;
  if (TM.addPassesToEmitFile(PM, OS, nullptr, Kind)) {
    Error = "the " + TM.getTargetTriple().str() + " target cannot emit " +
            (Assembly ? "assembly" : "an object file");
    return false;
  }
  PM.run(M);
  Out.assign(Buffer.begin(), Buffer.end());
  return true;
}

void LlvmPipeline::optimize(llvm::Module& M, llvm::TargetMachine& TM, bool Vectorize,
                            bool LibraryCalls,
                            const std::function<void(llvm::FunctionPassManager&)>& Peephole,
                            const std::function<void(llvm::FunctionPassManager&)>& VectorizerStart,
                            const std::function<void(llvm::FunctionPassManager&)>& OptimizerLast) {
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PipelineTuningOptions PTO;
  if (Vectorize) {
    PTO.LoopVectorization = true;
    PTO.SLPVectorization = true;
    PTO.LoopInterleaving = true;
  }
  PTO.LoopUnrolling = true;
  llvm::PassBuilder PB(&TM, PTO);
  if (Peephole) {
    PB.registerPeepholeEPCallback(
        [&](llvm::FunctionPassManager& FPM, llvm::OptimizationLevel) { Peephole(FPM); });
    // Once more at the end, where the last InstCombine may have proved what the earlier runs
    // could not, with a CFG cleanup after it.
    PB.registerOptimizerLastEPCallback([&](llvm::ModulePassManager& MPM, llvm::OptimizationLevel) {
      llvm::FunctionPassManager FPM;
      FPM.addPass(llvm::InstCombinePass());
      Peephole(FPM);
      FPM.addPass(llvm::SimplifyCFGPass());
      MPM.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(FPM)));
    });
  }
  if (VectorizerStart)
    PB.registerVectorizerStartEPCallback(
        [&](llvm::FunctionPassManager& FPM, llvm::OptimizationLevel) { VectorizerStart(FPM); });
  if (OptimizerLast)
    PB.registerOptimizerLastEPCallback([&](llvm::ModulePassManager& MPM, llvm::OptimizationLevel) {
      llvm::FunctionPassManager FPM;
      OptimizerLast(FPM);
      MPM.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(FPM)));
    });
  FAM.registerPass([&] { return TM.getTargetIRAnalysis(); });
  llvm::TargetLibraryInfoImpl TLII{llvm::Triple(M.getTargetTriple())};
  if (!LibraryCalls)
    TLII.disableAllFunctions();
  FAM.registerPass([&] { return llvm::TargetLibraryAnalysis(TLII); });
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  llvm::ModulePassManager MPM = PB.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  MPM.run(M, MAM);
}

} // namespace cajeta::lowering
