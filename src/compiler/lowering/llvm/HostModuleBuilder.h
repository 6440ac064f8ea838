// A program's host part (a host KIR module) as an optimised LLVM module for one TargetMachine.
// The JIT (`cajeta run`, HostJit) and the native executable writer (`cajeta build --exe`,
// HostExecutableBuilder) share it, so both run the same code: they differ only in where the
// module goes next.
#pragma once

#include "compiler/kir/Kir.h"

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace cajeta::lowering {

class HostModuleBuilder {
public:
  /// TM is the machine the code will run on; it must outlive the builder.
  explicit HostModuleBuilder(llvm::TargetMachine& TM) : TM(TM) {}

  /// Runs the host KIR pipeline on KM (kir::Module::IsHost), lowers it into a new module of Ctx
  /// (TM's triple and data layout), verifies it and runs the O3 pipeline with TM's TTI. Each host
  /// method is an external function named by its kir::Function::Symbol; the host support ABI
  /// (cajeta/xpu/cajeta_host.h) and libm are left undefined. Null with Error set on failure.
  std::unique_ptr<llvm::Module> build(const kir::Module& KM, llvm::LLVMContext& Ctx,
                                      std::string& Error);

private:
  llvm::TargetMachine& TM;
};

} // namespace cajeta::lowering
