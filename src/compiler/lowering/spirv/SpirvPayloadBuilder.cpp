// SpirvPayloadBuilder: emit each Vulkan kernel and package it as a bundle payload.
#include "compiler/lowering/spirv/SpirvPayloadBuilder.h"

#include "cajeta/xpu/cajeta_xpu.h"

#include "bundle/Hash.h"
#include "bundle/VulkanKernelAbi.h"
#include "compiler/lowering/spirv/SpirvTools.h"

#include <cstring>

namespace cajeta::lowering::spirv {

namespace {

std::string join(const std::vector<std::string>& Parts) {
  std::string Out;
  for (const std::string& P : Parts)
    Out += (Out.empty() ? "" : ",") + P;
  return Out;
}

} // namespace

kir::PipelineConfig SpirvPayloadBuilder::pipelineConfig(const SpirvEmitOptions& Options) {
  kir::PipelineConfig C;
  C.Backend = "vulkan";
  C.WaveTier = Options.PortableWaveOps ? kir::ImplTier::Portable : kir::ImplTier::Native;
  C.Polyfill = kir::PolyfillConfig::spirv();
  // The subgroup size is known only at run time: WaveExpand's steps are KIR loops.
  C.Wave.Available = true;
  C.Wave.ReduceInt32 = true; // GroupNonUniformArithmetic: the order cannot change the result
  C.Wave.ScanInt32 = true;
  C.Wave.BroadcastFirstWord = true; // OpGroupNonUniformBroadcastFirst
  // Tiles: the portable tile (VK_KHR_cooperative_matrix is not emitted yet), its scratch sized
  // for the launch's waves by specialisation constants (the group size and the subgroup size);
  // a launch whose scratch exceeds the device's workgroup memory is refused by name.
  C.Tiles.ScratchSizedAtLaunch = true;
  C.NativeRayQuery = Options.NativeRayQuery;
  // Device.supports: what every Vulkan device of ours answers alike is folded; the rest (wave
  // ops, float16/64, 64-bit and float atomics, denormals) is asked through specialisation
  // constants (VulkanKernelAbi.h).
  C.Capabilities.assign(CAJETA_XPU_CAP_COUNT, -1);
  C.Capabilities[CAJETA_XPU_CAP_SHARED_MEMORY] = 1;
  C.Capabilities[CAJETA_XPU_CAP_DYNAMIC_SHARED_MEMORY] = 1;
  C.Capabilities[CAJETA_XPU_CAP_COOPERATIVE_MATRIX] = 0;
  C.Capabilities[CAJETA_XPU_CAP_TEXTURES] = 0;
  C.Capabilities[CAJETA_XPU_CAP_RAY_QUERY] = 0;
  C.Capabilities[CAJETA_XPU_CAP_CORRECTLY_ROUNDED_FMA] = 0;
  C.Capabilities[CAJETA_XPU_CAP_PRECISE_TRANSCENDENTALS] = 0;
  return C;
}

SpirvKernel SpirvPayloadBuilder::emitKernel(const kir::Module& M, const kir::Function& K,
                                            const SpirvEmitOptions& Options) {
  SpirvKernel Out;
  std::unique_ptr<kir::Module> Prepared =
      kir::runPipeline(M, pipelineConfig(Options), Out.Error, Options.Trace);
  if (!Prepared)
    return Out;
  for (size_t I = 0; I < M.Functions.size(); ++I)
    if (M.Functions[I].get() == &K)
      return SpirvEmitter::emitKernel(*Prepared, *Prepared->Functions[I], Options);
  Out.Error = "'" + K.Name + "' is not a function of the module";
  return Out;
}

SpirvBuildResult SpirvPayloadBuilder::build(const kir::Module& Source,
                                            const SpirvEmitOptions& Options) {
  SpirvBuildResult R;
  std::string PipelineError;
  std::vector<std::string> Dropped;
  std::unique_ptr<kir::Module> Prepared =
      kir::runPipeline(Source, pipelineConfig(Options), PipelineError, Options.Trace, &Dropped);
  if (!Prepared) {
    R.Errors.push_back(PipelineError);
    return R;
  }
  R.Errors.insert(R.Errors.end(), Dropped.begin(), Dropped.end());
  const kir::Module& M = *Prepared;
  std::vector<std::string> Imprecise; // kernels using Math.fma or transcendentals
  bool Fma = false, Transcendental = false;
  for (const auto& F : M.Functions) {
    if (!F->IsKernel || !kir::availableOn(*F, "vulkan"))
      continue;
    SpirvKernel K = SpirvEmitter::emitKernel(M, *F, Options);
    if (!K.Ok) {
      R.Errors.push_back("kernel '" + F->Name + "': " + K.Error);
      continue;
    }
    if (K.UsesImpreciseFma || K.UsesImpreciseTranscendentals)
      Imprecise.push_back(F->Name);
    Fma |= K.UsesImpreciseFma;
    Transcendental |= K.UsesImpreciseTranscendentals;
    bundle::Payload P;
    P.Target = payloadTarget(F->Name);
    P.Format = "spirv";
    P.Bytes.resize(K.Module.size() * 4);
    std::memcpy(P.Bytes.data(), K.Module.data(), P.Bytes.size());
    std::vector<std::string> Slots;
    for (const ParamSlot& S : K.Slots)
      Slots.push_back(std::to_string(S.Param) + ":" + std::to_string(S.Offset) + ":" +
                      std::to_string(S.Size));
    P.Attributes = {
        {"kernel", F->Name},
        {"entry", K.EntryPoint},
        {"vulkan_abi", std::to_string(CAJETA_VULKAN_KERNEL_ABI_VERSION)},
        {"spirv_version", "1.3"},
        {"capabilities", join(K.Capabilities)},
        {"extensions", join(K.Extensions)},
        {"float_atomic_add", K.UsesNativeFloatAtomicAdd ? "native" : "cas"},
        {"param_block", K.ParamBlockBytes == 0  ? "none"
                        : K.ParamBlockIsUniform ? "uniform"
                                                : "push-constant"},
        {"param_block_bytes", std::to_string(K.ParamBlockBytes)},
        {"param_slots", join(Slots)},
        {"check_bounds", Options.CheckBounds ? "1" : "0"},
        {"dynamic_shared_element_bytes", std::to_string(K.DynamicSharedElementBytes)},
        {"per_wave_shared_bytes", std::to_string(K.PerWaveSharedBytes)},
    };
    bundle::TargetManifest TM;
    TM.Symbol = K.EntryPoint;
    TM.CodeHash = bundle::hash64(P.Bytes.data(), P.Bytes.size());
    TM.StaticSharedBytes = K.StaticSharedBytes;
    if (F->UsesWave)
      TM.WaveTier = Options.PortableWaveOps ? "portable" : "native";
    if (F->UsesTiles) {
      TM.TileTier = "portable";
      TM.TileWaves = F->TileWaves;
    }
    R.Manifests[F->Name] = TM;
    R.Payloads.push_back(std::move(P));
  }
  if (!Imprecise.empty()) {
    std::string What = Fma && Transcendental ? "Math.fma and transcendentals (exp, log, pow, sin, "
                                               "cos, tanh)"
                       : Fma                 ? "Math.fma"
                                             : "transcendentals (exp, log, pow, sin, cos, tanh)";
    R.Notes.push_back("[vulkan-precision] " + What + " in " + join(Imprecise) +
                      ": on Vulkan, fma may round twice and transcendentals are only as precise "
                      "as the driver's (float64 ones computed in float32); devices report "
                      "capabilities correctly-rounded-fma / precise-transcendentals");
  }
  return R;
}

bool SpirvPayloadBuilder::emitText(const kir::Module& Source, const SpirvEmitOptions& Options,
                                   std::string& Out, std::string& Error) {
  std::unique_ptr<kir::Module> Prepared =
      kir::runPipeline(Source, pipelineConfig(Options), Error, Options.Trace);
  if (!Prepared)
    return false;
  const kir::Module& M = *Prepared;
  std::vector<std::pair<std::string, SpirvKernel>> Kernels;
  for (const auto& F : M.Functions) {
    if (!F->IsKernel || !kir::availableOn(*F, "vulkan"))
      continue;
    SpirvKernel K = SpirvEmitter::emitKernel(M, *F, Options);
    if (!K.Ok) {
      Error = "kernel '" + F->Name + "': " + K.Error;
      return false;
    }
    Kernels.emplace_back(F->Name, std::move(K));
  }
  if (!SpirvTools::available()) {
    if (Kernels.size() != 1) {
      Error = "this build has no SPIRV-Tools to disassemble; a binary module can be written only "
              "for a program with exactly one Vulkan kernel (it has " +
              std::to_string(Kernels.size()) + ")";
      return false;
    }
    const Words& W = Kernels[0].second.Module;
    Out.assign(reinterpret_cast<const char*>(W.data()), W.size() * 4);
    return true;
  }
  Out.clear();
  for (const auto& [Name, K] : Kernels) {
    std::string Text, Message;
    if (!SpirvTools::disassemble(K.Module, Text, Message)) {
      Error = "kernel '" + Name + "': disassembly failed: " + Message;
      return false;
    }
    Out += "; kernel " + Name + "\n" + Text;
  }
  return true;
}

} // namespace cajeta::lowering::spirv
