// KIR -> LLVM module (KernelLowering + CpuTarget) -> verified -> O3 with the real CPU's TTI ->
// object -> lld shared object, plus per-kernel manifests. Each build has its own LLVMContext and
// TargetMachine, so builds may run concurrently (only the lld step is serialised).
#include "compiler/lowering/llvm/CpuPayloadBuilder.h"

#include "bundle/Hash.h"
#include "compiler/lowering/llvm/BoundsCheckVersioning.h"
#include "compiler/lowering/llvm/CpuMachine.h"
#include "compiler/lowering/llvm/CpuTarget.h"
#include "compiler/lowering/llvm/GuardRangeSplit.h"
#include "compiler/lowering/llvm/KernelAbiRecords.h"
#include "compiler/lowering/llvm/KernelLowering.h"
#include "compiler/lowering/llvm/LldElfLinker.h"
#include "compiler/lowering/llvm/UniformGatherRewrite.h"
#include "compiler/lowering/llvm/WorkItemJam.h"

#include <cstdlib>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <memory>

#include "compiler/lowering/llvm/LlvmPipeline.h"

namespace cajeta::lowering {
namespace {

/// Whether the environment variable Name is "0" (a switch for A/B runs).
bool switchedOff(const char* Name) {
  const char* V = std::getenv(Name);
  return V && std::string(V) == "0";
}

/// CAJETA_CPU_JAM=0 runs work-items' row walks one work-item at a time (for A/B runs).
bool jamRowWalks() {
  const char* Jam = std::getenv("CAJETA_CPU_JAM");
  return !(Jam && std::string(Jam) == "0");
}

/// The CPU's passes before the loop vectorizer: the work-item loops versioned on their bounds
/// checks, so the rows that cannot fail vectorize without them.
void addVectorizerStartPasses(llvm::FunctionPassManager& FPM) {
  FPM.addPass(BoundsCheckVersioning());
  // CAJETA_CPU_GUARD_SPLIT=0 leaves the guards in every iteration; CAJETA_CPU_RERUN_LAST_VECTOR=0
  // leaves the split loops' remainders scalar (both for A/B runs).
  if (!switchedOff("CAJETA_CPU_GUARD_SPLIT"))
    FPM.addPass(GuardRangeSplit(!switchedOff("CAJETA_CPU_RERUN_LAST_VECTOR")));
  if (jamRowWalks())
    FPM.addPass(WorkItemJam(WorkItemJam::Phase::KeepRowsWhole));
}

/// The CPU's passes after the vectorizers: gathers of one address as a load and a broadcast.
void addOptimizerLastPasses(llvm::FunctionPassManager& FPM) {
  // CAJETA_CPU_ROW_TRANSPOSE=0 jams every row walk by four, scalar; CAJETA_CPU_COLUMN_CACHE=0
  // transposes every row of a group's rows again; CAJETA_CPU_ROW_PREFETCH=0 leaves the walked
  // rows to the hardware prefetchers (all for A/B runs).
  RowTranspose::Options Rows;
  Rows.KeepColumns = !switchedOff("CAJETA_CPU_COLUMN_CACHE");
  Rows.Prefetch = !switchedOff("CAJETA_CPU_ROW_PREFETCH");
  if (jamRowWalks())
    FPM.addPass(
        WorkItemJam(WorkItemJam::Phase::Jam, !switchedOff("CAJETA_CPU_ROW_TRANSPOSE"), Rows));
  FPM.addPass(UniformGatherRewrite());
}

constexpr const char* PayloadTarget = "cpu-x86_64";
constexpr const char* PayloadFormat = "elf-shared-object";

/// Lowers KM into a fresh module of Ctx and verifies it. Null (Error set) on failure.
/// Manifests receives each kernel's shared bytes and wave tier (KernelLowering::kernelManifests).
std::unique_ptr<llvm::Module>
emitToLlvm(const kir::Module& KM, const CpuBuildOptions& O, const CpuMachine& Mach,
           llvm::LLVMContext& Ctx, std::string& Error,
           std::map<std::string, bundle::TargetManifest>* Manifests = nullptr) {
  auto M = std::make_unique<llvm::Module>(KM.SourceFile.empty() ? "cajeta" : KM.SourceFile, Ctx);
  M->setTargetTriple(CpuTriple);
  M->setDataLayout(Mach.TM->createDataLayout());
  // CAJETA_CPU_SPANS=0 runs a 2D or 3D launch's workgroups one loop nest each (for A/B runs).
  const char* Spans = std::getenv("CAJETA_CPU_SPANS");
  std::unique_ptr<LoweringTarget> Target =
      createCpuTarget(*Mach.TM, {O.CheckBounds, waveWidthFor(Mach.EnabledFeatures),
                                 !(Spans && std::string(Spans) == "0")});
  LoweringOptions LO;
  LO.CheckBounds = O.CheckBounds;
  LO.TileTier = O.TileTier;
  LO.WaveTier = O.WaveTier;
  LO.Backend = "cpu"; // @Backend: only what exists on the CPU
  // CAJETA_CPU_GRID_STRIDE=0 keeps each work-item's grid-stride loop whole (for A/B runs).
  const char* GridStride = std::getenv("CAJETA_CPU_GRID_STRIDE");
  LO.InterchangeGridStride = !(GridStride && std::string(GridStride) == "0");
  // CAJETA_CPU_LOOP_BARRIERS=0 keeps every loop inside its work-item (for A/B runs); =all runs
  // every uniform loop once per group, whatever the cost model says (a test mode).
  const char* LoopBarriers = std::getenv("CAJETA_CPU_LOOP_BARRIERS");
  std::string LoopMode = LoopBarriers ? LoopBarriers : "";
  if (LoopMode == "0")
    LO.ImplicitLoopBarriers = kir::LoopBarriers::None;
  else if (LoopMode == "all")
    LO.ImplicitLoopBarriers = kir::LoopBarriers::All;
  // CAJETA_CPU_LOOP_JAM=0 leaves work-items' loop nests unjammed (for A/B runs).
  LO.LoopJam = !switchedOff("CAJETA_CPU_LOOP_JAM");
  kir::PipelineConfig PC = KernelLowering::pipelineConfig(*Target, LO);
  // CAJETA_KIR_LEGALIZE=vulkan gives the CPU the SPIR-V target's legalizations (a test mode: the
  // conformance suite then checks, on every run, the KIR rules the SPIR-V emitter relies on).
  const char* Legalize = std::getenv("CAJETA_KIR_LEGALIZE");
  if (Legalize && *Legalize && !kir::PolyfillConfig::byName(Legalize, PC.Polyfill)) {
    Error = std::string("CAJETA_KIR_LEGALIZE: unknown value '") + Legalize +
            "' (expected llvm or vulkan)";
    return nullptr;
  }
  std::unique_ptr<kir::Module> Prepared = kir::runPipeline(KM, PC, Error, O.Trace);
  if (!Prepared)
    return nullptr;
  KernelLowering KL(*Prepared, *M, *Target, LO);
  if (!KL.emitModule(Error))
    return nullptr;
  if (Manifests)
    *Manifests = KL.kernelManifests();
  for (llvm::Function& F : *M) {
    if (F.isDeclaration())
      continue;
    F.addFnAttr("target-cpu", Mach.Cpu);
    if (!Mach.TmFeatures.empty())
      F.addFnAttr("target-features", Mach.TmFeatures);
    // LLVM's tuning for recent Intel cores prefers 256-bit vectors; g++ -march=native (our
    // benchmark peer) uses the full 512 bits on AVX-512 machines, and the work-item loops of
    // memory-bound kernels do better with them too.
    if (Mach.EnabledFeatures.find("+avx512f") != std::string::npos)
      F.addFnAttr("prefer-vector-width", "512");
  }
  std::string Problems;
  llvm::raw_string_ostream OS(Problems);
  if (llvm::verifyModule(*M, &OS)) {
    OS.flush();
    Error = "internal error: the lowering produced invalid LLVM IR: " + Problems;
    return nullptr;
  }
  return M;
}

std::string printModule(const llvm::Module& M) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  M.print(OS, nullptr);
  OS.flush();
  return Text;
}

} // namespace

CpuBuildResult CpuPayloadBuilder::build(const kir::Module& KM, const CpuBuildOptions& O) {
  CpuBuildResult R;
  CpuMachine Mach;
  if (!createCpuMachine(O.Cpu, Mach, R.Error))
    return R;
  llvm::LLVMContext Ctx;
  std::string LlvmErrors;
  Ctx.setDiagnosticHandler(LlvmPipeline::quietDiagnostics(LlvmErrors));
  std::map<std::string, bundle::TargetManifest> Lowered;
  std::unique_ptr<llvm::Module> M = emitToLlvm(KM, O, Mach, Ctx, R.Error, &Lowered);
  if (!M)
    return R;
  addKernelAbiRecords(KM, *M, /*AddressSpace=*/0);
  LlvmPipeline::optimize(*M, *Mach.TM, /*Vectorize=*/true, /*LibraryCalls=*/true, {},
                         addVectorizerStartPasses, addOptimizerLastPasses);

  for (const auto& KF : KM.Functions) {
    if (!KF->IsKernel || !kir::availableOn(*KF, "cpu"))
      continue;
    llvm::Function* F = M->getFunction(KF->Symbol);
    if (!F) {
      R.Error = "internal error: kernel '" + KF->Name + "' vanished during optimisation";
      return R;
    }
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    F->print(OS);
    OS.flush();
    bundle::TargetManifest TMan = Lowered[KF->Name]; // shared bytes, wave tier
    TMan.Symbol = KF->Symbol;
    TMan.CodeHash = bundle::hash64(Text.data(), Text.size());
    R.Manifests[KF->Name] = TMan;
  }

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
  R.Payload.Target = PayloadTarget;
  R.Payload.Format = PayloadFormat;
  R.Payload.Attributes = {{"triple", CpuTriple},
                          {"cpu", Mach.Cpu},
                          {"features", Mach.EnabledFeatures},
                          {"wave_width", std::to_string(waveWidthFor(Mach.EnabledFeatures))}};
  R.Ok = true;
  return R;
}

bool CpuPayloadBuilder::emitLlvmIr(const kir::Module& KM, const CpuBuildOptions& O, bool Optimized,
                                   std::string& Ir, std::string& Error) {
  CpuMachine Mach;
  if (!createCpuMachine(O.Cpu, Mach, Error))
    return false;
  llvm::LLVMContext Ctx;
  std::string LlvmErrors;
  Ctx.setDiagnosticHandler(LlvmPipeline::quietDiagnostics(LlvmErrors));
  std::unique_ptr<llvm::Module> M = emitToLlvm(KM, O, Mach, Ctx, Error);
  if (!M)
    return false;
  if (Optimized)
    LlvmPipeline::optimize(*M, *Mach.TM, /*Vectorize=*/true, /*LibraryCalls=*/true, {},
                           addVectorizerStartPasses, addOptimizerLastPasses);
  if (!LlvmErrors.empty()) {
    Error = "LLVM: " + LlvmErrors;
    return false;
  }
  Ir = printModule(*M);
  return true;
}

std::string CpuPayloadBuilder::emitLlvmIr(const kir::Module& KM, const CpuBuildOptions& O,
                                          bool Optimized) {
  std::string Ir, Error;
  if (!emitLlvmIr(KM, O, Optimized, Ir, Error))
    return "; error: " + Error + "\n";
  return Ir;
}

} // namespace cajeta::lowering
