// KIR -> LLVM module (KernelLowering + NvptxTarget) -> verified -> atomics legalised -> libdevice
// linked -> O3 with the NVPTX TargetMachine -> PTX text, plus per-kernel manifests. Each build has
// its own LLVMContext and TargetMachine, so builds may run concurrently.
#include "compiler/lowering/llvm/NvptxPayloadBuilder.h"

#include "bundle/GpuKernelAbi.h"
#include "bundle/Hash.h"
#include "compiler/lowering/llvm/KernelAbiRecords.h"
#include "compiler/lowering/llvm/KernelLowering.h"
#include "compiler/lowering/llvm/NvptxAtomicLegalizer.h"
#include "compiler/lowering/llvm/NvptxFremRewriter.h"
#include "compiler/lowering/llvm/NvptxLibdevice.h"
#include "compiler/lowering/llvm/NvptxPtxas.h"
#include "compiler/lowering/llvm/NvptxQuadVectorizer.h"

#include "compiler/lowering/llvm/NvptxTarget.h"
#include "compiler/lowering/llvm/NvptxVoteFolding.h"
#include "compiler/lowering/llvm/NvptxWgmmaFenceElision.h"

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

#include <cstdlib>
#include <memory>
#include <mutex>

#include "compiler/lowering/llvm/LlvmPipeline.h"

namespace cajeta::lowering {
namespace {

constexpr const char* TripleName = "nvptx64-nvidia-cuda";

void initializeNvptxOnce() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

/// "sm_90" -> 90, and "sm_90a" (the architecture-specific target) -> 90; 0 when Sm is not of
/// that form.
unsigned smVersion(const std::string& Sm) {
  if (Sm.size() < 5 || Sm.rfind("sm_", 0) != 0)
    return 0;
  unsigned V = 0;
  const size_t End = Sm.back() == 'a' ? Sm.size() - 1 : Sm.size();
  for (size_t I = 3; I < End; ++I) {
    if (Sm[I] < '0' || Sm[I] > '9' || V > 10000)
      return 0;
    V = V * 10 + unsigned(Sm[I] - '0');
  }
  return V;
}

std::unique_ptr<llvm::TargetMachine> createMachine(const std::string& Sm, std::string& Error) {
  initializeNvptxOnce();
  if (!smVersion(Sm)) {
    Error = "'" + Sm + "' is not a GPU architecture of the form sm_NN";
    return nullptr;
  }
  std::string LookupError;
  const llvm::Target* T = llvm::TargetRegistry::lookupTarget(TripleName, LookupError);
  if (!T) {
    Error = "no LLVM target for " + std::string(TripleName) + ": " + LookupError;
    return nullptr;
  }
  std::unique_ptr<llvm::MCSubtargetInfo> Probe(T->createMCSubtargetInfo(TripleName, "", ""));
  if (!Probe || !Probe->isCPUStringValid(Sm)) {
    Error = "LLVM's NVPTX back end does not know the architecture '" + Sm + "'";
    return nullptr;
  }
  llvm::TargetOptions TO;
  TO.AllowFPOpFusion = llvm::FPOpFusion::Strict; // no contraction unless @FastMath says so
  std::unique_ptr<llvm::TargetMachine> TM(T->createTargetMachine(
      TripleName, Sm, "", TO, std::nullopt, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!TM)
    Error = "cannot create an NVPTX target machine for '" + Sm + "'";
  return TM;
}

/// What a lowering produced besides the module.
struct Lowered {
  std::unique_ptr<llvm::Module> M;
  std::vector<std::string> Notes;
  std::vector<std::string> Dropped; // kernels left out of this architecture, and why
  bool Libdevice = false;
  std::map<std::string, bundle::TargetManifest> Kernels; // KernelLowering::kernelManifests
};

/// KM -> a verified NVPTX module of Ctx with atomics legalised and libdevice linked.
bool emitToLlvm(const kir::Module& KM, const NvptxBuildOptions& O, llvm::TargetMachine& TM,
                llvm::LLVMContext& Ctx, Lowered& L, std::string& Error) {
  std::string LibdevicePath = O.Libdevice == "auto" ? NvptxLibdevice::findPath() : O.Libdevice;
  L.Libdevice = !LibdevicePath.empty();
  L.M = std::make_unique<llvm::Module>(KM.SourceFile.empty() ? "cajeta" : KM.SourceFile, Ctx);
  llvm::Module& M = *L.M;
  M.setTargetTriple(TripleName);
  M.setDataLayout(TM.createDataLayout());
  NvptxTargetOptions TO;
  TO.Module = &KM;
  TO.CheckBounds = O.CheckBounds;
  TO.Libdevice = L.Libdevice;
  TO.Notes = &L.Notes;
  std::unique_ptr<LoweringTarget> Target = createNvptxTarget(TM, TO);
  LoweringOptions LO;
  LO.CheckBounds = O.CheckBounds;
  LO.Backend = "cuda"; // only what exists on CUDA (@Backend)
  LO.WaveTier = O.WaveTier;
  LO.TileTier = O.TileTier;
  LO.QuadWorkItems = true;
  std::unique_ptr<kir::Module> Prepared =
      kir::runPipeline(KM, KernelLowering::pipelineConfig(*Target, LO), Error, O.Trace, &L.Dropped);
  if (!Prepared)
    return false;
  KernelLowering KL(*Prepared, M, *Target, LO);
  if (!KL.emitModule(Error))
    return false;
  L.Kernels = KL.kernelManifests();
  std::string Problems;
  llvm::raw_string_ostream OS(Problems);
  if (llvm::verifyModule(M, &OS)) {
    OS.flush();
    Error = "internal error: the NVPTX lowering produced invalid LLVM IR: " + Problems;
    return false;
  }
  NvptxAtomicLegalizer::run(M);
  if (L.Libdevice)
    NvptxFremRewriter::run(M); // without libdevice frem keeps LLVM's expansion (see the note)
  if (L.Libdevice && NvptxLibdevice::isNeeded(M) &&
      !NvptxLibdevice::link(M, LibdevicePath, smVersion(O.Sm), Error))
    return false;
  return true;
}

/// "7.8" from the PTX's `.version 7.8` line; empty if absent.
std::string ptxVersion(const std::string& Ptx) {
  size_t At = Ptx.find(".version ");
  if (At == std::string::npos)
    return {};
  At += 9;
  size_t End = Ptx.find_first_of(" \t\r\n", At);
  return Ptx.substr(At, End == std::string::npos ? std::string::npos : End - At);
}

/// The O3 pipeline with NVPTX's own folds among its peephole passes, then the wgmma fences
/// that order nothing new dropped.
void optimizeForNvptx(llvm::Module& M, llvm::TargetMachine& TM) {
  LlvmPipeline::optimize(M, TM, /*Vectorize=*/false, /*LibraryCalls=*/false,
                         [](llvm::FunctionPassManager& FPM) {
                           FPM.addPass(NvptxVoteFolding());
                           FPM.addPass(NvptxQuadVectorizer());
                         });
  // Last, on the blocks as they will be emitted.
  for (llvm::Function& F : M)
    NvptxWgmmaFenceElision::run(F);
}

/// Everything up to PTX text. Notes/Libdevice/Manifests are filled when given.
bool buildPtx(const kir::Module& KM, const NvptxBuildOptions& O, std::string& Ptx,
              std::string& Error, NvptxBuildResult* R) {
  std::unique_ptr<llvm::TargetMachine> TM = createMachine(O.Sm, Error);
  if (!TM)
    return false;
  llvm::LLVMContext Ctx;
  std::string LlvmErrors;
  Ctx.setDiagnosticHandler(LlvmPipeline::quietDiagnostics(LlvmErrors));
  Lowered L;
  if (!emitToLlvm(KM, O, *TM, Ctx, L, Error))
    return false;
  addKernelAbiRecords(KM, *L.M, /*AddressSpace=*/1); // a .global beside each .entry
  optimizeForNvptx(*L.M, *TM);
  if (R) {
    R->Notes = L.Notes;
    R->Dropped = L.Dropped;
    R->Payload.Attributes["math"] = L.Libdevice ? "libdevice" : "approximate";
    for (const auto& KF : KM.Functions) {
      if (!KF->IsKernel || !kir::availableOn(*KF, "cuda") || !L.Kernels.count(KF->Name))
        continue; // not for CUDA, or left out of this architecture (L.Dropped)
      llvm::Function* F = L.M->getFunction(KF->Symbol);
      if (!F) {
        Error = "internal error: kernel '" + KF->Name + "' vanished during optimisation";
        return false;
      }
      std::string Text;
      llvm::raw_string_ostream OS(Text);
      F->print(OS);
      OS.flush();
      bundle::TargetManifest TMan = L.Kernels[KF->Name]; // shared bytes, wave tier
      TMan.Symbol = KF->Symbol;
      Text += O.Sm; // the same IR makes different code per architecture
      TMan.CodeHash = bundle::hash64(Text.data(), Text.size());
      R->Manifests[KF->Name] = TMan;
    }
  }
  if (!LlvmPipeline::emit(*L.M, *TM, /*Assembly=*/true, Ptx, Error))
    return false;
  if (!LlvmErrors.empty()) {
    Error = "LLVM: " + LlvmErrors;
    return false;
  }
  return true;
}

/// `ptxas -v` for the exact architecture, when there is a ptxas that knows it.
bool readFootprint(const std::string& Ptx, const std::string& Sm, NvptxBuildResult& R) {
  std::string Ptxas = NvptxPtxas::find();
  if (Ptxas.empty() || NvptxPtxas::archFor(Ptxas, Sm) != Sm)
    return true; // best effort: no ptxas for this architecture here
  std::string Output;
  if (!NvptxPtxas::assemble(Ptxas, Ptx, Sm, "", Output)) {
    R.Error = "ptxas rejected the generated PTX for " + Sm + ": " + Output;
    return false;
  }
  std::map<std::string, PtxasFootprint> Found = NvptxPtxas::parseVerbose(Output);
  for (auto& [Name, TMan] : R.Manifests) {
    auto It = Found.find(TMan.Symbol);
    if (It == Found.end())
      continue;
    TMan.Registers = It->second.Registers;
    TMan.SpillBytes = It->second.SpillBytes;
    TMan.StaticSharedBytes = It->second.StaticSharedBytes;
  }
  return true;
}

} // namespace

bool NvptxPayloadBuilder::hasMmaSync(const std::string& Sm) {
  return smVersion(Sm) >= 80;
}

bool NvptxPayloadBuilder::hasWgmma(const std::string& Sm) {
  return smVersion(Sm) >= 90 && Sm.back() == 'a';
}

unsigned NvptxPayloadBuilder::wgmmaAtoms() {
  const char* V = std::getenv("CAJETA_GPU_WGMMA_WIDE");
  const std::string S(V ? V : "");
  return S == "0" ? 1 : S == "2" ? 2 : 4;
}

bool NvptxPayloadBuilder::wgmmaAcrossSteps() {
  const char* V = std::getenv("CAJETA_GPU_WGMMA_CARRY");
  return !V || std::string(V) != "0";
}

bool NvptxPayloadBuilder::tilePairStores() {
  const char* V = std::getenv("CAJETA_GPU_TILE_PAIR_STORES");
  return !V || std::string(V) != "0";
}

bool NvptxPayloadBuilder::asyncCopiesInLine() {
  const char* V = std::getenv("CAJETA_GPU_ASYNC_COPY_INLINE");
  return V && std::string(V) == "1";
}

bool NvptxPayloadBuilder::knowsArch(const std::string& Sm, std::string& Why) {
  return createMachine(Sm, Why) != nullptr;
}

NvptxBuildResult NvptxPayloadBuilder::build(const kir::Module& KM, const NvptxBuildOptions& O) {
  NvptxBuildResult R;
  std::string Ptx;
  if (!buildPtx(KM, O, Ptx, R.Error, &R))
    return R;
  if (O.ReadFootprint && !readFootprint(Ptx, O.Sm, R))
    return R;
  R.Payload.Target = "nvptx-" + O.Sm;
  R.Payload.Format = "ptx";
  R.Payload.Attributes["sm"] = std::to_string(smVersion(O.Sm));
  R.Payload.Attributes["ptx_version"] = ptxVersion(Ptx);
  R.Payload.Attributes["gpu_abi"] = std::to_string(CAJETA_GPU_KERNEL_ABI_VERSION);
  R.Payload.Bytes.assign(Ptx.begin(), Ptx.end());
  R.Ok = true;
  return R;
}

bool NvptxPayloadBuilder::emitPtx(const kir::Module& KM, const NvptxBuildOptions& O,
                                  std::string& Ptx, std::string& Error) {
  return buildPtx(KM, O, Ptx, Error, nullptr);
}

bool NvptxPayloadBuilder::emitLlvmIr(const kir::Module& KM, const NvptxBuildOptions& O,
                                     bool Optimized, std::string& Ir, std::string& Error) {
  std::unique_ptr<llvm::TargetMachine> TM = createMachine(O.Sm, Error);
  if (!TM)
    return false;
  llvm::LLVMContext Ctx;
  std::string LlvmErrors;
  Ctx.setDiagnosticHandler(LlvmPipeline::quietDiagnostics(LlvmErrors));
  Lowered L;
  if (!emitToLlvm(KM, O, *TM, Ctx, L, Error))
    return false;
  if (Optimized)
    optimizeForNvptx(*L.M, *TM);
  llvm::raw_string_ostream OS(Ir);
  L.M->print(OS, nullptr);
  OS.flush();
  return true;
}

} // namespace cajeta::lowering
