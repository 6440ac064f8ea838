// The compiler driver.
#include "compiler/driver/Compiler.h"

#include "bundle/PayloadAbiCheck.h"
#include "compiler/kir/transforms/TileLowering.h"

#include "compiler/Diagnostics.h"
#include "compiler/driver/HostEntryPoint.h"
#include "compiler/driver/LargeStack.h"
#include "compiler/driver/TargetCompiler.h"
#include "compiler/frontend/Lexer.h"
#include "compiler/frontend/Parser.h"
#include "compiler/frontend/Sema.h"
#include "compiler/kir/AccessAnalysis.h"
#include "compiler/kir/ManifestParams.h"
#include "compiler/kir/SchedulingAnalysis.h"
#include "compiler/kir/Verifier.h"
#include "compiler/kir/transforms/RayQueryLowering.h"
#include "compiler/kir/transforms/TierSelection.h"
#include "compiler/lowering/llvm/HostPayloadBuilder.h"

#include <map>
#include <optional>

namespace cajeta::driver {

const char* Compiler::version() {
  return "cajeta-compiler 0.34.0 (kir 15, wave 4, tile 7, cpu-abi 3, gpu-abi 1, vulkan-abi 2, "
         "spirv-emitter 13, sched 1, host-payload 1, llvm 19)";
}

FrontendResult Compiler::runFrontend(const std::string& FileName, const std::string& Source) {
  FrontendResult R;
  runOnLargeStack([&] { R = runFrontendHere(FileName, Source); });
  return R;
}

CompileResult Compiler::compile(const std::string& FileName, const std::string& Source,
                                const CompileOptions& Options) {
  CompileResult R;
  runOnLargeStack([&] { R = compileHere(FileName, Source, Options); });
  return R;
}

FrontendResult Compiler::runFrontendHere(const std::string& FileName, const std::string& Source) {
  FrontendResult R;
  R.File = std::make_unique<frontend::SourceFile>(FileName, Source);
  R.Sink = std::make_unique<Diagnostics>(*R.File);
  Diagnostics& Diags = *R.Sink;
  frontend::AstContext Ctx;
  frontend::Lexer Lex(*R.File, Diags);
  frontend::Parser P(Lex.lexAll(), Ctx, Diags);
  frontend::CompilationUnit Unit = P.parseUnit();
  frontend::Sema S(Unit, Diags);
  R.Kir = S.run();
  R.HostKir = S.takeHostModule();
  std::string Invalid; // the frontend must never produce invalid KIR
  if (!Diags.hasErrors() && !kir::verify(*R.Kir, Invalid))
    Diags.error({0, 0}, "internal compiler error: the frontend produced invalid KIR:\n" + Invalid);
  if (!Diags.hasErrors() && !kir::verify(*R.HostKir, Invalid))
    Diags.error({0, 0},
                "internal compiler error: the frontend produced invalid host KIR:\n" + Invalid);
  if (!Diags.hasErrors()) {
    kir::analyzeAccess(*R.Kir);
    bool AnyKernel = false;
    for (const auto& F : R.Kir->Functions)
      AnyKernel |= F->IsKernel;
    if (!AnyKernel && R.HostKir->Functions.empty())
      Diags.warning({0, 0}, "no @Kernel methods in this file; the bundle will be empty");
  }
  R.Ok = !Diags.hasErrors();
  R.Diagnostics = Diags.render();
  return R;
}

/// The host part as the bundle's "host" payload: the shared object, plus what a runner needs to
/// pick and start an entry point without the KIR (cajeta_host_run_program): "entry" (the default
/// entry point's symbol by findEntry's rules; empty when there is none or several), "methods"
/// (every runnable method, "Class.method=symbol" comma-separated), "returns_int" (those of them
/// that return int32, by name), "static_init" (the static initialiser's symbol, when there is
/// one) and "source_file" (the name failures print). False with the failure reported.
static bool addHostPayload(const std::string& FileName, const kir::Module& Host,
                           const CompileOptions& Options, Diagnostics& Diags, bundle::Program& P) {
  lowering::HostPayloadResult H = lowering::HostPayloadBuilder::build(Host, Options.Cpu);
  if (!H.Ok) {
    TargetCompiler::reportFailure(Diags, Stage::Llvm, "host code generation failed: ", H.Error);
    return false;
  }
  std::string Methods, ReturnsInt, Unused;
  for (const kir::Function* F : runnableMethods(Host)) {
    Methods += (Methods.empty() ? "" : ",") + F->Name + "=" + F->Symbol;
    if (!F->ReturnType.isVoid())
      ReturnsInt += (ReturnsInt.empty() ? "" : ",") + F->Name;
  }
  const kir::Function* Entry = findEntry(Host, "", Unused);
  std::map<std::string, std::string>& A = H.Payload.Attributes;
  A["entry"] = Entry ? Entry->Symbol : "";
  A["methods"] = Methods;
  A["returns_int"] = ReturnsInt;
  if (const kir::Function* Init = staticInitializer(Host))
    A["static_init"] = Init->Symbol;
  A["source_file"] = FileName;
  P.Payloads.push_back(std::move(H.Payload));
  return true;
}

CompileResult Compiler::compileHere(const std::string& FileName, const std::string& Source,
                                    const CompileOptions& Options) {
  CompileResult R;
  FrontendResult F = runFrontendHere(FileName, Source);
  R.Diagnostics = F.Diagnostics;
  if (!F.Ok)
    return R;
  R.HostKir = std::move(F.HostKir);
  Diagnostics& Diags = *F.Sink; // the later stages report after the frontend
  auto Finish = [&](bool Ok) {
    R.Diagnostics = Diags.render();
    R.Ok = Ok;
    return std::move(R);
  };
  std::vector<std::string> Skipped; // architectures asked for that LLVM has no PTX for
  std::vector<std::unique_ptr<TargetCompiler>> Targets =
      TargetCompiler::forBundle(Options.GpuArchs, Skipped);
  // Wave ops are tiered: the backend's best, or CAJETA_GPU_WAVE_IMPL; one note per backend.
  bool UsesWave = false;
  for (const auto& Fn : F.Kir->Functions)
    UsesWave = UsesWave || Fn->UsesWave;
  std::optional<kir::ImplTier> WaveOverride;
  if (UsesWave) {
    std::string Warning;
    WaveOverride = kir::TierSelection::overrideFor(kir::Feature::WaveOps, Warning);
    if (!Warning.empty())
      Diags.report(Severity::Warning, Stage::Driver, Warning);
  }
  std::map<std::string, kir::ImplTier> WaveTiers; // by backend
  for (const auto& T : Targets) {
    if (WaveTiers.count(T->backend()))
      continue;
    kir::TierChoice C = kir::TierSelection::choose(
        kir::Feature::WaveOps, T->backend(), T->bestWaveTier(), WaveOverride, T->nativeWaveOps(),
        "exchanges through workgroup-shared memory and barriers");
    if (UsesWave)
      Diags.report(Severity::Note, Stage::Driver, C.Note);
    WaveTiers[T->backend()] = C.Tier;
  }
  // Tiles are tiered per target (mma.sync needs sm_80): one note per target.
  std::optional<kir::ImplTier> TileOverride;
  const bool UsesTiles = kir::TileLowering::usesTiles(*F.Kir);
  {
    std::string Warning;
    TileOverride = kir::TierSelection::overrideFor(kir::Feature::CooperativeMatrix, Warning);
    if (!Warning.empty() && UsesTiles)
      Diags.report(Severity::Warning, Stage::Driver, Warning);
  }
  for (const std::string& Note : Skipped)
    Diags.report(Severity::Note, Stage::Llvm, Note);
  // Ray queries have one tier on every target today: the software walk follows the software
  // BVH, the one implementation an AccelerationStructure is built as here.
  bool UsesRayQuery = false;
  for (const auto& Fn : F.Kir->Functions)
    UsesRayQuery |= kir::RayQueryLowering::uses(*Fn);
  if (UsesRayQuery)
    Diags.report(Severity::Note, Stage::Driver,
                 "[rayquery-tiering] every backend: portable (a stackless walk over the software "
                 "BVH); no device offers hardware ray query here, so acceleration structures "
                 "are built as the software BVH");
  std::vector<TargetOutput> Outputs;
  for (const auto& T : Targets) {
    TargetOptions TO;
    TO.CheckBounds = Options.CheckBounds;
    TO.Cpu = Options.Cpu;
    TO.GpuFootprint = Options.GpuFootprint;
    TO.WaveTier = WaveTiers[T->backend()];
    // Every program gets a tile tier: Device.supports(Capability.CooperativeMatrix) folds to it.
    kir::TierChoice Tile = T->chooseTileTier(*F.Kir, TileOverride, TO);
    if (!T->buildsFor(*F.Kir, Tile.Tier))
      continue;
    if (UsesTiles)
      Diags.report(Severity::Note, Stage::Driver, Tile.Note);
    TO.TileTier = Tile.Tier;
    Outputs.push_back(T->build(*F.Kir, TO, Diags));
    if (!Outputs.back().Ok)
      return Finish(false);
  }
  bundle::Program& P = R.Program;
  P.CompilerVersion = version();
  // The scheduling section is target-independent: one analysis of Sema's KIR per kernel,
  // copied into each of its targets' manifests.
  kir::SchedulingAnalysis Scheduling(*F.Kir);
  for (const auto& Fn : F.Kir->Functions) {
    if (!Fn->IsKernel)
      continue;
    bundle::KernelInfo K;
    K.Name = Fn->Name;
    K.SourceFile = FileName;
    K.SourceLine = Fn->Loc.Line;
    for (size_t I = 0; I < Fn->Params.size(); ++I)
      K.Params.push_back(kir::manifestParam(*F.Kir, *Fn, I));
    for (const kir::SharedArray& S : Fn->SharedArrays) {
      K.SharedArrays.push_back(S.Name);
      K.DynamicShared |= S.Count == 0;
    }
    K.Backends = Fn->Backends;
    K.UsesWave = Fn->UsesWave;
    for (const TargetOutput& Out : Outputs)
      if (auto It = Out.Manifests.find(Fn->Name); It != Out.Manifests.end())
        for (const auto& [Target, Manifest] : It->second)
          K.Targets[Target] = Manifest;
    if (!K.Targets.empty()) {
      bundle::SchedulingManifest Sched = Scheduling.analyze(*Fn);
      for (auto& [Target, Manifest] : K.Targets)
        Manifest.Scheduling = Sched;
    }
    P.Kernels.push_back(std::move(K));
  }
  for (TargetOutput& Out : Outputs)
    for (bundle::Payload& Payload : Out.Payloads)
      P.Payloads.push_back(std::move(Payload));
  // The loader holds every manifest against its code (PayloadAbiCheck); the compiler holds its
  // own output to the same check, so a bundle it writes always passes it.
  if (std::string Problem = bundle::PayloadAbiCheck::checkProgram(P); !Problem.empty()) {
    TargetCompiler::reportFailure(Diags, Stage::Driver, "",
                                  "internal error: the manifests disagree with the code: " +
                                      Problem);
    return Finish(false);
  }
  if (Options.HostPayload && R.HostKir && !R.HostKir->Functions.empty() &&
      !addHostPayload(FileName, *R.HostKir, Options, Diags, P))
    return Finish(false);
  return Finish(true);
}

} // namespace cajeta::driver
