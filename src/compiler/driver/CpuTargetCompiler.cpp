// The CPU target over CpuPayloadBuilder.
#include "compiler/driver/CpuTargetCompiler.h"

#include "compiler/kir/transforms/TileLowering.h"
#include "compiler/lowering/llvm/CpuAmxDot.h"
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
  C.WaveTier = O.WaveTier;
  C.Trace = O.Trace;
  return C;
}

/// The dot products the CPU of O has for the native tile tier.
struct CpuDots {
  bool Bf16 = false, Int8 = false;
  bool AmxBf16 = false, AmxInt8 = false; // AMX's tiles take the shapes they fit
};
CpuDots cpuDots(const TargetOptions& O) {
  lowering::CpuMachine Mach;
  std::string Error;
  CpuDots D;
  if (!lowering::createCpuMachine(O.Cpu, Mach, Error))
    return D;
  D.Bf16 = Mach.EnabledFeatures.find("+avx512bf16") != std::string::npos;
  D.Int8 = Mach.EnabledFeatures.find("+avx512vnni") != std::string::npos;
  auto Has = [&](const char* F) { return Mach.EnabledFeatures.find(F) != std::string::npos; };
  const bool Amx = lowering::cpuAmxAllowed() && Has("+amx-tile");
  D.AmxBf16 = Amx && D.Bf16 && Has("+amx-bf16");
  D.AmxInt8 = Amx && D.Int8 && Has("+amx-int8");
  return D;
}

} // namespace

std::string CpuTargetCompiler::nativeTiles(const TargetOptions& O) const {
  CpuDots D = cpuDots(O);
  // AMX's tiles where they fit (16-row tiles, 64 bytes of depth a step), the AVX-512 dot
  // products elsewhere.
  const std::string Avx = D.Bf16 && D.Int8 ? "AVX512-BF16 and AVX512-VNNI"
                          : D.Bf16         ? "AVX512-BF16"
                                           : "AVX512-VNNI";
  if (D.AmxBf16 && D.AmxInt8)
    return "AMX tiles and " + Avx +
           " dot products, bfloat16 into float32 and int8 or uint8 into int32";
  if (D.AmxBf16 || D.AmxInt8)
    return std::string("AMX tiles for ") +
           (D.AmxBf16 ? "bfloat16 into float32" : "int8 or uint8 into int32") + ", " + Avx +
           (D.Bf16 && D.Int8 ? " dot products, bfloat16 into float32 and int8 or uint8 into int32"
            : D.Bf16         ? " dot products, bfloat16 into float32"
                             : " dot products, int8 or uint8 into int32");
  if (D.Bf16 && D.Int8)
    return "AVX512-BF16 and AVX512-VNNI dot products, bfloat16 into float32 and int8 or uint8 "
           "into int32";
  if (D.Bf16)
    return "AVX512-BF16 dot products, bfloat16 into float32";
  if (D.Int8)
    return "AVX512-VNNI dot products, int8 or uint8 into int32";
  return "";
}

bool CpuTargetCompiler::nativeTilesFit(const kir::Module& M, const TargetOptions& O,
                                       std::string& Why) const {
  CpuDots D = cpuDots(O);
  return kir::TileLowering::fitsCpuDot(M, D.Bf16, D.Int8, Why);
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
