// The compiler driver.
#include "compiler/driver/Compiler.h"

#include "cajeta/compiler.h"

#include "compiler/frontend/Diagnostics.h"
#include "compiler/frontend/Lexer.h"
#include "compiler/frontend/Parser.h"
#include "compiler/frontend/Sema.h"
#include "compiler/kir/AccessAnalysis.h"
#include "compiler/kir/transforms/TierSelection.h"
#include "compiler/lowering/llvm/CpuPayloadBuilder.h"
#include "compiler/lowering/llvm/NvptxPayloadBuilder.h"
#include "compiler/lowering/spirv/SpirvPayloadBuilder.h"

#include <algorithm>
#include <sstream>

namespace cajeta::driver {

const char* Compiler::version() {
  return "cajeta-compiler 0.3.5 (kir 4, wave 2, cpu-abi 2, gpu-abi 1, vulkan-abi 1, spirv-emitter "
         "5, llvm "
         "19)";
}

FrontendResult Compiler::runFrontend(const std::string& FileName, const std::string& Source) {
  FrontendResult R;
  R.File = std::make_unique<frontend::SourceFile>(FileName, Source);
  frontend::Diagnostics Diags(*R.File);
  frontend::AstContext Ctx;
  frontend::Lexer Lex(*R.File, Diags);
  frontend::Parser P(Lex.lexAll(), Ctx, Diags);
  frontend::CompilationUnit Unit = P.parseUnit();
  frontend::Sema S(Unit, Diags);
  R.Kir = S.run();
  if (!Diags.hasErrors()) {
    kir::analyzeAccess(*R.Kir);
    bool AnyKernel = false;
    for (const auto& F : R.Kir->Functions)
      AnyKernel |= F->IsKernel;
    if (!AnyKernel)
      Diags.warning({0, 0}, "no @Kernel methods in this file; the bundle will be empty");
  }
  R.Ok = !Diags.hasErrors();
  R.Diagnostics = Diags.render();
  return R;
}

/// How the host marshals parameter I of kernel Fn (DESIGN.md §4: the manifest drives launch).
static bundle::ParamInfo paramInfo(const kir::Module& M, const kir::Function& Fn, size_t I) {
  const kir::Param& Par = Fn.Params[I];
  bundle::ParamInfo PI;
  PI.Name = Par.Name;
  PI.Type = Par.Ty.Elem;
  if (Par.Ty.isBuffer()) {
    PI.Kind = bundle::ParamKind::Buffer;
    PI.Mode = Fn.ParamAccess[I];
  } else if (Par.Ty.isPod()) {
    const kir::PodType& Pod = M.Pods[Par.Ty.PodIndex];
    PI.Kind = bundle::ParamKind::Pod;
    PI.PodName = Pod.Name;
    PI.PodSize = Pod.Size;
    PI.PodAlign = Pod.Align;
    for (const kir::PodField& F : Pod.Fields)
      PI.Fields.push_back({F.Name, F.Type, F.Offset});
  } else if (Par.IsFunction) {
    PI.Kind = bundle::ParamKind::Function;
    for (uint32_t T : Par.FunctionTable)
      PI.FunctionTable.push_back(M.Functions[T]->Name);
  } else {
    PI.Kind = bundle::ParamKind::Scalar;
  }
  return PI;
}

CompileResult Compiler::compile(const std::string& FileName, const std::string& Source,
                                const CompileOptions& Options) {
  CompileResult R;
  FrontendResult F = runFrontend(FileName, Source);
  R.Diagnostics = F.Diagnostics;
  if (!F.Ok)
    return R;
  // Wave ops are tiered: the backend's best, or CAJETA_GPU_WAVE_IMPL; one note per backend.
  bool UsesWave = false;
  for (const auto& Fn : F.Kir->Functions)
    UsesWave = UsesWave || Fn->UsesWave;
  std::optional<kir::ImplTier> WaveOverride;
  auto WaveTier = [&](const char* Backend, kir::ImplTier Best, const char* NativeHow) {
    kir::TierChoice C =
        kir::TierSelection::choose(kir::Feature::WaveOps, Backend, Best, WaveOverride, NativeHow,
                                   "exchanges through workgroup-shared memory and barriers");
    if (UsesWave)
      R.Diagnostics += FileName + ": note: " + C.Note + "\n";
    return C.Tier;
  };
  if (UsesWave) {
    std::string Warning;
    WaveOverride = kir::TierSelection::overrideFor(kir::Feature::WaveOps, Warning);
    if (!Warning.empty())
      R.Diagnostics += FileName + ": warning: " + Warning + "\n";
  }
  WaveTier("cpu", kir::ImplTier::Portable, "");
  kir::ImplTier NvptxWaveTier =
      WaveTier("cuda", kir::ImplTier::Native, "shfl.sync, vote.sync, redux.sync on sm_80+");
  kir::ImplTier SpirvWaveTier =
      WaveTier("vulkan", kir::ImplTier::Native, "GroupNonUniform operations");
  lowering::CpuBuildOptions CpuOpts;
  CpuOpts.Cpu = Options.Cpu;
  CpuOpts.CheckBounds = Options.CheckBounds;
  lowering::CpuBuildResult Cpu = lowering::CpuPayloadBuilder::build(*F.Kir, CpuOpts);
  if (!Cpu.Ok) {
    R.Diagnostics += FileName + ": error: CPU code generation failed: " + Cpu.Error + "\n";
    return R;
  }
  // --- NVPTX payloads (issue 4, NvptxPayloadBuilder): a baseline, sm_90, and the architectures
  // asked for (the JIT's devices), PTX each; the runtime loads the highest <= the device. ---
  std::vector<std::string> Sms;
  for (std::stringstream In(CAJETA_COMPILER_BUILTIN_GPU_ARCHS); In.good();) {
    std::string Sm;
    std::getline(In, Sm, ',');
    Sms.push_back(Sm);
  }
  for (const std::string& Sm : Options.GpuArchs) {
    if (std::find(Sms.begin(), Sms.end(), Sm) != Sms.end())
      continue;
    std::string Why;
    if (!lowering::NvptxPayloadBuilder::knowsArch(Sm, Why)) {
      R.Diagnostics += FileName + ": note: no PTX for " + Sm + " (" + Why +
                       "); its device JIT-compiles the nearest lower architecture's PTX\n";
      continue;
    }
    Sms.push_back(Sm);
  }
  std::vector<lowering::NvptxBuildResult> Gpu;
  for (const std::string& Sm : Sms) {
    lowering::NvptxBuildOptions GpuOpts;
    GpuOpts.Sm = Sm;
    GpuOpts.CheckBounds = Options.CheckBounds;
    GpuOpts.ReadFootprint = Options.GpuFootprint;
    GpuOpts.WaveTier = NvptxWaveTier;
    Gpu.push_back(lowering::NvptxPayloadBuilder::build(*F.Kir, GpuOpts));
    if (!Gpu.back().Ok) {
      R.Diagnostics += FileName + ": error: NVPTX code generation for " + Sm +
                       " failed: " + Gpu.back().Error + "\n";
      return R;
    }
  }
  for (const std::string& Note : Gpu.front().Notes) // the same for every architecture
    R.Diagnostics += FileName + ": note: " + Note + "\n";
  // --- end NVPTX ---
  // --- SPIR-V payloads (issue 5, SpirvPayloadBuilder): one module per Vulkan kernel. Float
  // atomic adds are compare-exchange loops (any device); a kernel the emitter cannot express
  // gets a warning and no Vulkan payload instead of failing the whole build. ---
  spirv::SpirvEmitOptions SpvOpts;
  SpvOpts.CheckBounds = Options.CheckBounds;
  SpvOpts.PortableWaveOps = SpirvWaveTier == kir::ImplTier::Portable;
  spirv::SpirvBuildResult Spv = spirv::SpirvPayloadBuilder::build(*F.Kir, SpvOpts);
  for (const std::string& E : Spv.Errors)
    R.Diagnostics += FileName + ": warning: no Vulkan code for " + E + "\n";
  for (const std::string& Note : Spv.Notes)
    R.Diagnostics += FileName + ": note: " + Note + "\n";
  // --- end SPIR-V ---
  bundle::Program& P = R.Program;
  P.CompilerVersion = version();
  for (const auto& Fn : F.Kir->Functions) {
    if (!Fn->IsKernel)
      continue;
    bundle::KernelInfo K;
    K.Name = Fn->Name;
    K.SourceFile = FileName;
    K.SourceLine = Fn->Loc.Line;
    for (size_t I = 0; I < Fn->Params.size(); ++I)
      K.Params.push_back(paramInfo(*F.Kir, *Fn, I));
    for (const kir::SharedArray& S : Fn->SharedArrays) {
      K.SharedArrays.push_back(S.Name);
      K.DynamicShared |= S.Count == 0;
    }
    K.Backends = Fn->Backends;
    K.UsesWave = Fn->UsesWave;
    auto It = Cpu.Manifests.find(Fn->Name);
    if (It != Cpu.Manifests.end())
      K.Targets[Cpu.Payload.Target] = It->second;
    for (const lowering::NvptxBuildResult& G : Gpu) // NVPTX (issue 4)
      if (auto GIt = G.Manifests.find(Fn->Name); GIt != G.Manifests.end())
        K.Targets[G.Payload.Target] = GIt->second;
    if (auto SIt = Spv.Manifests.find(Fn->Name); SIt != Spv.Manifests.end()) // SPIR-V (issue 5)
      K.Targets[spirv::SpirvPayloadBuilder::ManifestTarget] = SIt->second;
    P.Kernels.push_back(std::move(K));
  }
  P.Payloads.push_back(std::move(Cpu.Payload));
  for (lowering::NvptxBuildResult& G : Gpu) // NVPTX (issue 4)
    P.Payloads.push_back(std::move(G.Payload));
  for (bundle::Payload& SP : Spv.Payloads) // SPIR-V (issue 5)
    P.Payloads.push_back(std::move(SP));
  R.Ok = true;
  return R;
}

} // namespace cajeta::driver
