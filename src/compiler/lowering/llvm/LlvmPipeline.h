// What every LLVM payload builder does the same way: the O3 pipeline over a target's
// TargetMachine, and a diagnostic handler that keeps LLVM's remarks off the user's terminal.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <llvm/IR/PassManager.h>

namespace llvm {
class DiagnosticHandler;
class Module;
class TargetMachine;
} // namespace llvm

namespace cajeta::lowering {

class LlvmPipeline {
public:
  /// The new pass manager's O3 pipeline with TM's TTI (so vectorisation is costed for the real
  /// target). Vectorize turns on loop and SLP vectorisation and interleaving (the CPU);
  /// LibraryCalls = false forbids turning code into library calls (GPUs have no libm).
  /// Peephole adds a target's own function passes wherever the pipeline runs its peephole
  /// passes (after each InstCombine), so the simplifications after them see their folds.
  /// VectorizerStart adds passes that run just before the loop vectorizer, OptimizerLast passes
  /// that run at the end of the pipeline (after the vectorizers and their cleanup).
  static void optimize(llvm::Module& M, llvm::TargetMachine& TM, bool Vectorize, bool LibraryCalls,
                       const std::function<void(llvm::FunctionPassManager&)>& Peephole = {},
                       const std::function<void(llvm::FunctionPassManager&)>& VectorizerStart = {},
                       const std::function<void(llvm::FunctionPassManager&)>& OptimizerLast = {});

  /// A handler that drops warnings and remarks (such as "loop not vectorized") and appends the
  /// text of errors to Errors, for the build's message.
  static std::unique_ptr<llvm::DiagnosticHandler> quietDiagnostics(std::string& Errors);

  /// TM's code for M into Out: an object file (Assembly false) or assembly text (PTX). False
  /// with Error set when the target cannot emit that kind of file.
  static bool emit(llvm::Module& M, llvm::TargetMachine& TM, bool Assembly, std::string& Out,
                   std::string& Error);
};

} // namespace cajeta::lowering
