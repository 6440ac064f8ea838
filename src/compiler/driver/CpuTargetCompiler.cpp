// The CPU target over CpuPayloadBuilder.
#include "compiler/driver/CpuTargetCompiler.h"

#include "compiler/lowering/llvm/CpuPayloadBuilder.h"

namespace cajeta::driver {

namespace {

lowering::CpuBuildOptions cpuOptions(const TargetOptions& O) {
  lowering::CpuBuildOptions C;
  C.Cpu = O.Cpu;
  C.CheckBounds = O.CheckBounds;
  C.Trace = O.Trace;
  return C;
}

} // namespace

TargetOutput CpuTargetCompiler::build(const kir::Module& M, const TargetOptions& O,
                                      Diagnostics& Diags) const {
  TargetOutput Out;
  lowering::CpuBuildResult R = lowering::CpuPayloadBuilder::build(M, cpuOptions(O));
  if (!R.Ok) {
    reportFailure(Diags, Stage::Llvm, "CPU code generation failed: ", R.Error);
    return Out;
  }
  for (const auto& [Kernel, Manifest] : R.Manifests)
    Out.Manifests[Kernel][R.Payload.Target] = Manifest;
  Out.Payloads.push_back(std::move(R.Payload));
  Out.Ok = true;
  return Out;
}

bool CpuTargetCompiler::emit(const kir::Module& M, const TargetOptions& O, bool Optimized,
                             std::string& Text, std::string& Error) const {
  return lowering::CpuPayloadBuilder::emitLlvmIr(M, cpuOptions(O), Optimized, Text, Error);
}

} // namespace cajeta::driver
