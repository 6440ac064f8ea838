// SpirvPayloadBuilder: emit each Vulkan kernel and package it as a bundle payload.
#include "compiler/lowering/spirv/SpirvPayloadBuilder.h"

#include "cajeta/xpu/cajeta_xpu.h"

#include "bundle/Hash.h"
#include "bundle/VulkanKernelAbi.h"
#include "compiler/kir/Clone.h"
#include "compiler/kir/transforms/WorkItemQuads.h"
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

/// Kernel F's module K as the payload Target, with the attributes VulkanKernelAbi.h describes.
bundle::Payload payloadOf(const kir::Function& F, const SpirvKernel& K, const std::string& Target,
                          const SpirvEmitOptions& Options) {
  bundle::Payload P;
  P.Target = Target;
  P.Format = "spirv";
  P.Bytes.resize(K.Module.size() * 4);
  std::memcpy(P.Bytes.data(), K.Module.data(), P.Bytes.size());
  std::vector<std::string> Slots;
  for (const ParamSlot& S : K.Slots)
    Slots.push_back(std::to_string(S.Param) + ":" + std::to_string(S.Offset) + ":" +
                    std::to_string(S.Size));
  P.Attributes = {
      {"kernel", F.Name},
      {"entry", K.EntryPoint},
      {"vulkan_abi", std::to_string(CAJETA_VULKAN_KERNEL_ABI_VERSION)},
      {"spirv_version", K.Version == 0x00010400 ? "1.4" : "1.3"},
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
      {"grid_count", K.ReadsGridCount ? "read" : "unread"},
  };
  return P;
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
  // Tiles: the portable tile, or SPV_KHR_cooperative_matrix fragments (the variant built for
  // devices that list the shapes); either's scratch sized for the launch's waves by
  // specialisation constants (the group size and the subgroup size); a launch whose scratch
  // exceeds the device's workgroup memory is refused by name.
  C.Tiles.ScratchSizedAtLaunch = true;
  if (Options.CoopMatrixTiles)
    C.Tiles.F = kir::TileLoweringConfig::Form::CoopMatrix;
  C.NativeRayQuery = Options.NativeRayQuery;
  // Vulkan is for GPUs: their stack walk (lavapipe runs it too, correctly if not at its best).
  C.RayChildrenAtParent = true;
  // Whole, aligned AsyncCopy chunks are staged in registers: one 4, 8 or 16-byte vector load
  // at the copy, the stores at the wait (checked builds keep the element loads, each checked).
  C.StagedAsyncCopies = !Options.CheckBounds;
  C.RayWordViews = !Options.CheckBounds; // checked reads go word by word
  // Device.supports: what every Vulkan device of ours answers alike is folded; the rest (wave
  // ops, float16/64, 64-bit and float atomics, denormals, cooperative matrices) is asked through
  // specialisation constants (VulkanKernelAbi.h).
  C.Capabilities.assign(CAJETA_XPU_CAP_COUNT, -1);
  C.Capabilities[CAJETA_XPU_CAP_SHARED_MEMORY] = 1;
  C.Capabilities[CAJETA_XPU_CAP_DYNAMIC_SHARED_MEMORY] = 1;
  // Cooperative matrices: true in their own variant; elsewhere the device's answer (a device
  // that has them may still run a kernel's portable variant: a product it does not list, or the
  // override).
  C.Capabilities[CAJETA_XPU_CAP_COOPERATIVE_MATRIX] = Options.CoopMatrixTiles ? 1 : -1;
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
  SpirvEmitOptions Portable = Options;
  Portable.CoopMatrixTiles = false;
  Portable.SharedPool = Options.SharedPoolEverywhere;
  std::vector<std::string> Imprecise; // kernels using Math.fma or transcendentals
  bool Fma = false, Transcendental = false;
  if (!buildVariant(Source, Portable, R, &Imprecise, Fma, Transcendental))
    return R;
  // Tile kernels again with cooperative matrices, for the devices that list their shapes.
  if (Options.CoopMatrixTiles && kir::TileLowering::usesTiles(Source)) {
    bool F2 = false, T2 = false;
    buildVariant(Source, Options, R, nullptr, F2, T2);
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

bool SpirvPayloadBuilder::buildVariant(const kir::Module& Source, const SpirvEmitOptions& Options,
                                       SpirvBuildResult& R, std::vector<std::string>* Imprecise,
                                       bool& Fma, bool& Transcendental) {
  const bool Matrices = Options.CoopMatrixTiles;
  const std::string What = Matrices ? "cooperative-matrix Vulkan code for " : "";
  std::string PipelineError;
  std::vector<std::string> Dropped;
  std::unique_ptr<kir::Module> Prepared =
      kir::runPipeline(Source, pipelineConfig(Options), PipelineError, Options.Trace, &Dropped);
  if (!Prepared) {
    R.Errors.push_back(What + PipelineError);
    return false;
  }
  for (const std::string& D : Dropped)
    if (Matrices) // the kernel runs its portable variant on every device
      R.Notes.push_back("[mma-tiering] vulkan: " + D);
    else
      R.Errors.push_back(D);
  const kir::Module& M = *Prepared;
  for (const auto& F : M.Functions) {
    if (!F->IsKernel || !kir::availableOn(*F, "vulkan") || (Matrices && !F->UsesTiles))
      continue;
    SpirvKernel K = SpirvEmitter::emitKernel(M, *F, Options);
    if (!K.Ok) {
      R.Errors.push_back(What + "kernel '" + F->Name + "': " + K.Error);
      continue;
    }
    if (Imprecise && (K.UsesImpreciseFma || K.UsesImpreciseTranscendentals))
      Imprecise->push_back(F->Name);
    Fma |= K.UsesImpreciseFma;
    Transcendental |= K.UsesImpreciseTranscendentals;
    bundle::Payload P = payloadOf(
        *F, K, Matrices ? coopMatrixPayloadTarget(F->Name) : payloadTarget(F->Name), Options);
    if (Matrices)
      P.Attributes["cooperative_matrix"] = join(K.CooperativeMatrixShapes);
    bundle::TargetManifest TM;
    TM.Symbol = K.EntryPoint;
    TM.CodeHash = bundle::hash64(P.Bytes.data(), P.Bytes.size());
    TM.StaticSharedBytes = K.StaticSharedBytes;
    if (F->UsesWave)
      TM.WaveTier = Options.PortableWaveOps ? "portable" : "native";
    if (F->UsesTiles) {
      TM.TileTier = Matrices ? "native" : "portable";
      TM.TileWaves = F->TileWaves;
    }
    R.Payloads.push_back(std::move(P));
    if (!Matrices && !Options.CheckBounds)
      addQuads(M, *F, Options, TM, R);
    (Matrices ? R.CoopMatrixManifests : R.Manifests)[F->Name] = TM;
  }
  return true;
}

void SpirvPayloadBuilder::addQuads(const kir::Module& M, const kir::Function& F,
                                   const SpirvEmitOptions& Options, bundle::TargetManifest& TM,
                                   SpirvBuildResult& R) {
  int Count = kir::WorkItemQuads::countParam(F);
  if (Count < 0)
    return;
  kir::Module Scratch;
  std::unique_ptr<kir::Function> Quads = kir::cloneFunction(F, Scratch);
  Quads->Symbol += "_quads";
  if (!kir::WorkItemQuads::rewrite(*Quads, Scratch, /*WholeChunks=*/true))
    return;
  SpirvKernel K = SpirvEmitter::emitKernel(M, *Quads, Options);
  if (!K.Ok) {
    R.Errors.push_back("kernel '" + F.Name + "' (four work-items to a work-item): " + K.Error);
    return;
  }
  R.Payloads.push_back(payloadOf(F, K, quadsPayloadTarget(F.Name), Options));
  TM.QuadSymbol = K.EntryPoint;
  TM.QuadCountParam = Count;
  TM.QuadAnyGrid = kir::WorkItemQuads::anyGrid(F);
}

bool SpirvPayloadBuilder::emitText(const kir::Module& Source, const SpirvEmitOptions& Options,
                                   std::string& Out, std::string& Error) {
  // With cooperative matrices, a tile kernel that has no such form shows its portable one (the
  // one every device runs).
  std::vector<std::string> Dropped;
  std::unique_ptr<kir::Module> Prepared =
      kir::runPipeline(Source, pipelineConfig(Options), Error, Options.Trace,
                       Options.CoopMatrixTiles ? &Dropped : nullptr);
  if (!Prepared)
    return false;
  SpirvEmitOptions PortableOptions = Options;
  PortableOptions.CoopMatrixTiles = false;
  PortableOptions.SharedPool = Options.SharedPoolEverywhere;
  const SpirvEmitOptions& NativeOptions = Options.CoopMatrixTiles ? Options : PortableOptions;
  std::unique_ptr<kir::Module> Portable;
  if (!Dropped.empty() &&
      !(Portable = kir::runPipeline(Source, pipelineConfig(PortableOptions), Error, Options.Trace)))
    return false;
  std::vector<std::pair<std::string, SpirvKernel>> Kernels;
  for (size_t I = 0; I < Prepared->Functions.size(); ++I) {
    bool Native = kir::availableOn(*Prepared->Functions[I], "vulkan");
    const kir::Module& M = Native || !Portable ? *Prepared : *Portable;
    const kir::Function* F = M.Functions[I].get();
    if (!F->IsKernel || !kir::availableOn(*F, "vulkan"))
      continue;
    SpirvKernel K = SpirvEmitter::emitKernel(M, *F, Native ? NativeOptions : PortableOptions);
    if (!K.Ok) {
      Error = "kernel '" + F->Name + "': " + K.Error;
      return false;
    }
    Kernels.emplace_back(F->Name, std::move(K));
    // Its quad entry's module, as the bundle carries it.
    SpirvBuildResult Quads;
    bundle::TargetManifest Unused;
    if (!Options.CheckBounds && !F->UsesTiles)
      addQuads(M, *F, Options, Unused, Quads);
    if (!Quads.Errors.empty()) {
      Error = Quads.Errors.front();
      return false;
    }
    if (!Quads.Payloads.empty()) {
      const bundle::Payload& P = Quads.Payloads.front();
      Words Module(P.Bytes.size() / 4);
      std::memcpy(Module.data(), P.Bytes.data(), P.Bytes.size());
      SpirvKernel Q;
      Q.Module = std::move(Module);
      Kernels.emplace_back(F->Name + " (four work-items to a work-item)", std::move(Q));
    }
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
