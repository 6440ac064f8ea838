// The CPU target over CpuPayloadBuilder.
#include "compiler/driver/CpuTargetCompiler.h"

#include "compiler/kir/transforms/TileLowering.h"
#include "compiler/lowering/llvm/CpuMachine.h"

#include "compiler/lowering/llvm/CpuPayloadBuilder.h"
#include <llvm/Target/TargetMachine.h>

namespace cajeta::driver {

namespace {

lowering::CpuBuildOptions cpuOptions(const TargetOptions& O) {
  lowering::CpuBuildOptions C;
  C.Cpu = O.Cpu;
  C.CheckBounds = O.CheckBounds;
  C.TileTier = O.TileTier;
  C.Trace = O.Trace;
  return C;
}

} // namespace

std::string CpuTargetCompiler::nativeTiles(const TargetOptions& O) const {
  lowering::CpuMachine Mach;
  std::string Error;
  if (!lowering::createCpuMachine(O.Cpu, Mach, Error) ||
      Mach.EnabledFeatures.find("+avx512bf16") == std::string::npos)
    return "";
  return "AVX512-BF16 dot products, bfloat16 into float32";
}

bool CpuTargetCompiler::nativeTilesFit(const kir::Module& M, const TargetOptions&,
                                       std::string& Why) const {
  return kir::TileLowering::fitsCpuBf16Dot(M, Why);
}

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
