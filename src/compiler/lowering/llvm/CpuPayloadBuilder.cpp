// KIR -> LLVM module (KernelLowering + CpuTarget) -> verified -> O3 with the real CPU's TTI ->
// object -> lld shared object, plus per-kernel manifests. Each build has its own LLVMContext and
// TargetMachine, so builds may run concurrently (only the lld step is serialised).
#include "compiler/lowering/llvm/CpuPayloadBuilder.h"

#include "bundle/Hash.h"
#include "compiler/lowering/llvm/CpuTarget.h"
#include "compiler/lowering/llvm/KernelLowering.h"
#include "compiler/lowering/llvm/LldElfLinker.h"

#include <cstdlib>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>

#include <algorithm>
#include <memory>
#include <mutex>

#include "compiler/lowering/llvm/LlvmPipeline.h"

namespace cajeta::lowering {
namespace {

constexpr const char* TripleName = "x86_64-unknown-linux-gnu";
constexpr const char* PayloadTarget = "cpu-x86_64";
constexpr const char* PayloadFormat = "elf-shared-object";

void initializeX86Once() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    LLVMInitializeX86AsmParser();
  });
}

/// The machine code is generated for: its TargetMachine, CPU name and features.
struct CpuMachine {
  std::unique_ptr<llvm::TargetMachine> TM;
  std::string Cpu;
  std::string TmFeatures;      // what the TargetMachine was given ("+a,-b,...")
  std::string EnabledFeatures; // the payload attribute: only the enabled ones, sorted
};

std::string join(const std::vector<std::string>& Parts) {
  std::string S;
  for (const std::string& P : Parts)
    S += (S.empty() ? "" : ",") + P;
  return S;
}

bool createMachine(const CpuBuildOptions& O, CpuMachine& Mach, std::string& Error) {
  initializeX86Once();
  std::string LookupError;
  const llvm::Target* T = llvm::TargetRegistry::lookupTarget(TripleName, LookupError);
  if (!T) {
    Error = "no LLVM target for " + std::string(TripleName) + ": " + LookupError;
    return false;
  }
  std::vector<std::string> Enabled;
  Mach.Cpu = O.Cpu;
  if (Mach.Cpu.empty() || Mach.Cpu == "native") {
    Mach.Cpu = llvm::sys::getHostCPUName().str();
    std::vector<std::string> All;
    for (const auto& KV : llvm::sys::getHostCPUFeatures()) {
      All.push_back((KV.second ? "+" : "-") + KV.first().str());
      if (KV.second)
        Enabled.push_back("+" + KV.first().str());
    }
    std::sort(All.begin(), All.end());
    Mach.TmFeatures = join(All);
  }
  std::unique_ptr<llvm::MCSubtargetInfo> Probe(T->createMCSubtargetInfo(TripleName, "", ""));
  if (!Probe || !Probe->isCPUStringValid(Mach.Cpu)) {
    Error = "unknown CPU '" + Mach.Cpu + "' for x86-64 (see `llc -mcpu=help`)";
    return false;
  }
  llvm::TargetOptions TO;
  TO.AllowFPOpFusion = llvm::FPOpFusion::Strict; // no contraction unless @FastMath says so
  Mach.TM.reset(T->createTargetMachine(TripleName, Mach.Cpu, Mach.TmFeatures, TO, llvm::Reloc::PIC_,
                                       std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!Mach.TM) {
    Error = "cannot create an x86-64 target machine for CPU '" + Mach.Cpu + "'";
    return false;
  }
  if (Enabled.empty()) { // a named CPU: its features as LLVM knows them
    const llvm::MCSubtargetInfo* STI = Mach.TM->getMCSubtargetInfo();
    for (const llvm::SubtargetFeatureKV& KV : STI->getAllProcessorFeatures())
      if (STI->getFeatureBits().test(KV.Value))
        Enabled.push_back(std::string("+") + KV.Key);
  }
  std::sort(Enabled.begin(), Enabled.end());
  Mach.EnabledFeatures = join(Enabled);
  return true;
}

/// Lowers KM into a fresh module of Ctx and verifies it. Null (Error set) on failure.
/// Manifests receives each kernel's shared bytes and wave tier (KernelLowering::kernelManifests).
std::unique_ptr<llvm::Module>
emitToLlvm(const kir::Module& KM, const CpuBuildOptions& O, const CpuMachine& Mach,
           llvm::LLVMContext& Ctx, std::string& Error,
           std::map<std::string, bundle::TargetManifest>* Manifests = nullptr) {
  auto M = std::make_unique<llvm::Module>(KM.SourceFile.empty() ? "cajeta" : KM.SourceFile, Ctx);
  M->setTargetTriple(TripleName);
  M->setDataLayout(Mach.TM->createDataLayout());
  std::unique_ptr<LoweringTarget> Target =
      createCpuTarget(*Mach.TM, {O.CheckBounds, waveWidthFor(Mach.EnabledFeatures)});
  LoweringOptions LO;
  LO.CheckBounds = O.CheckBounds;
  LO.Backend = "cpu"; // @Backend: only what exists on the CPU
  // CAJETA_CPU_GRID_STRIDE=0 keeps each work-item's grid-stride loop whole (for A/B runs).
  const char* GridStride = std::getenv("CAJETA_CPU_GRID_STRIDE");
  LO.InterchangeGridStride = !(GridStride && std::string(GridStride) == "0");
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
  if (!createMachine(O, Mach, R.Error))
    return R;
  llvm::LLVMContext Ctx;
  std::string LlvmErrors;
  Ctx.setDiagnosticHandler(LlvmPipeline::quietDiagnostics(LlvmErrors));
  std::map<std::string, bundle::TargetManifest> Lowered;
  std::unique_ptr<llvm::Module> M = emitToLlvm(KM, O, Mach, Ctx, R.Error, &Lowered);
  if (!M)
    return R;
  LlvmPipeline::optimize(*M, *Mach.TM, /*Vectorize=*/true, /*LibraryCalls=*/true);

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
  R.Payload.Attributes = {{"triple", TripleName},
                          {"cpu", Mach.Cpu},
                          {"features", Mach.EnabledFeatures},
                          {"wave_width", std::to_string(waveWidthFor(Mach.EnabledFeatures))}};
  R.Ok = true;
  return R;
}

bool CpuPayloadBuilder::emitLlvmIr(const kir::Module& KM, const CpuBuildOptions& O, bool Optimized,
                                   std::string& Ir, std::string& Error) {
  CpuMachine Mach;
  if (!createMachine(O, Mach, Error))
    return false;
  llvm::LLVMContext Ctx;
  std::string LlvmErrors;
  Ctx.setDiagnosticHandler(LlvmPipeline::quietDiagnostics(LlvmErrors));
  std::unique_ptr<llvm::Module> M = emitToLlvm(KM, O, Mach, Ctx, Error);
  if (!M)
    return false;
  if (Optimized)
    LlvmPipeline::optimize(*M, *Mach.TM, /*Vectorize=*/true, /*LibraryCalls=*/true);
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
