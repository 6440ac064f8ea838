// Host KIR -> optimised LLVM module -> object -> shared object payload (HostPayloadBuilder.h).
#include "compiler/lowering/llvm/HostPayloadBuilder.h"

#include "compiler/lowering/llvm/CpuMachine.h"
#include "compiler/lowering/llvm/HostModuleBuilder.h"
#include "compiler/lowering/llvm/LldElfLinker.h"
#include "compiler/lowering/llvm/LlvmPipeline.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace cajeta::lowering {

HostPayloadResult HostPayloadBuilder::build(const kir::Module& Host, const std::string& Cpu) {
  HostPayloadResult R;
  CpuMachine Mach;
  if (!createCpuMachine(Cpu, Mach, R.Error))
    return R;
  llvm::LLVMContext Ctx;
  std::string LlvmErrors;
  Ctx.setDiagnosticHandler(LlvmPipeline::quietDiagnostics(LlvmErrors));
  std::unique_ptr<llvm::Module> M = HostModuleBuilder(*Mach.TM).build(Host, Ctx, R.Error);
  if (!M)
    return R;
  std::string ObjectText;
  if (!LlvmPipeline::emit(*M, *Mach.TM, /*Assembly=*/false, ObjectText, R.Error))
    return R;
  if (!LlvmErrors.empty()) {
    R.Error = "LLVM: " + LlvmErrors;
    return R;
  }
  std::vector<uint8_t> Object(ObjectText.begin(), ObjectText.end());
  if (!LldElfLinker::linkSharedObject(Object, R.Payload.Bytes, R.Error))
    return R;
  R.Payload.Target = Target;
  R.Payload.Format = "elf-shared-object";
  R.Payload.Attributes = {
      {"triple", CpuTriple}, {"cpu", Mach.Cpu}, {"features", Mach.EnabledFeatures}};
  R.Ok = true;
  return R;
}

} // namespace cajeta::lowering
