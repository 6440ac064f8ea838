// The per-target KIR pass pipeline (Pipeline.h). Each pass rewrites the functions of the copy in
// place; a kernel rewritten by an inliner is replaced by its inlined copy.
#include "compiler/kir/transforms/Pipeline.h"

#include "compiler/kir/Clone.h"
#include "compiler/kir/GroupShapeIndependence.h"
#include "compiler/kir/Verifier.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/AsyncBlockCopyLowering.h"
#include "compiler/kir/transforms/AsyncCopyLowering.h"
#include "compiler/kir/transforms/BFloat16Lowering.h"
#include "compiler/kir/transforms/ImplicitLoopBarriers.h"
#include "compiler/kir/transforms/KirInliner.h"
#include "compiler/kir/transforms/LoopJam.h"
#include "compiler/kir/transforms/Polyfill.h"
#include "compiler/kir/transforms/PortableWave.h"
#include "compiler/kir/transforms/RayQueryLowering.h"
#include "compiler/kir/transforms/TmaBlockCopies.h"
#include "compiler/kir/transforms/WaveExpand.h"
#include "compiler/kir/transforms/WaveSteps.h"

#include <atomic>
#include <functional>

namespace cajeta::kir {
namespace {

/// One pass over one function of the copy: true, or false with Error set (and Drop set when the
/// function merely cannot exist on the target).
using FunctionPass = std::function<bool(Module&, size_t Index, std::string& Error, bool& Drop)>;

struct Pass {
  const char* Name;
  FunctionPass Run;
};

/// Replaces kernel I of M with Copy (its nodes in M), deep-copied so no node is shared with
/// another function before later passes rewrite in place.
void replaceFunction(Module& M, size_t I, const Function& Copy) {
  M.Functions[I] = cloneFunction(Copy, M);
}

bool inlineBarrierHelpers(Module& M, size_t I, std::string& Error, bool&) {
  const Function& F = *M.Functions[I];
  if (!F.IsKernel || !F.HasBarrier)
    return true;
  std::unique_ptr<Function> Copy = KirInliner::inlineBarrierCalls(M, F, M, Error);
  if (!Copy)
    return false;
  replaceFunction(M, I, *Copy);
  return true;
}

bool portableWaves(Module& M, size_t I, std::string& Error, bool&) {
  const Function& F = *M.Functions[I];
  if (!F.IsKernel || !F.UsesWave)
    return true;
  std::unique_ptr<Function> Copy = PortableWave::expand(M, F, M, Error);
  if (!Copy)
    return false;
  replaceFunction(M, I, *Copy);
  return true;
}

bool waveSteps(uint32_t Width, Module& M, size_t I, std::string& Error) {
  const Function& F = *M.Functions[I];
  if (!F.IsKernel || !F.UsesWave)
    return true;
  std::unique_ptr<Function> Copy = WaveSteps::expand(M, F, M, Width, Error);
  if (!Copy)
    return false;
  replaceFunction(M, I, *Copy);
  return true;
}

#ifdef NDEBUG
std::atomic<bool> VerifyEachDefault{false};
#else
std::atomic<bool> VerifyEachDefault{true};
#endif

bool expandWaves(const WavePrimitives& P, Module& M, size_t I, std::string& Error) {
  Function& F = *M.Functions[I];
  return !F.UsesWave || WaveExpand::run(M, F, P, Error);
}

/// Device.supports(Capability.X) with a known answer becomes that constant, first, so that the
/// branch not taken never reaches the other passes or the emitter.
bool foldCapabilities(const std::vector<int8_t>& Known, Module& M, size_t I) {
  Function& F = *M.Functions[I];
  auto Fold = [&](Expr* E) -> Expr* {
    if (E->K != Expr::Kind::Intrinsic || E->IOp != IntrinsicOp::Supports ||
        E->Index >= Known.size() || Known[E->Index] < 0)
      return E;
    Expr* C = M.newExpr(Expr::Kind::Const, E->Ty, E->Loc);
    C->IntValue = Known[E->Index] ? 1 : 0;
    return C;
  };
  rewriteExprs(F.Body, Fold);
  return true;
}

/// A kernel that cannot exist on Backend (runPipeline's Dropped): every other backend it was
/// available on keeps it; the target's emitter skips it.
void leaveOut(Function& F, const std::string& Backend) {
  std::vector<std::string> Others;
  for (const char* B : {"cpu", "cuda", "hip", "vulkan"})
    if (B != Backend && availableOn(F, B))
      Others.push_back(B);
  F.Backends = Others.empty() ? std::vector<std::string>{"none"} : Others;
}

std::vector<Pass> passesFor(const PipelineConfig& C) {
  std::vector<Pass> Passes;
  Passes.push_back(
      {"fold-capabilities", [K = C.Capabilities](Module& M, size_t I, std::string&, bool&) {
         return foldCapabilities(K, M, I);
       }});
  // Ray queries become loops over the acceleration structure's buffer, before anything else
  // looks at the function's statements.
  if (!C.NativeRayQuery)
    Passes.push_back(
        {"ray-query", [Walk = RayQueryLowering::Form{C.RayChildrenAtParent, C.RayWordViews}](
                          Module& M, size_t I, std::string& Error, bool&) {
           return RayQueryLowering::run(M, *M.Functions[I], Walk, Error);
         }});
  // The TMA entries, copies of their kernels whose block copies stay for tma-lowering.
  if (C.TmaBlockCopies)
    Passes.push_back({"tma-entries", [](Module& M, size_t I, std::string&, bool&) {
                        TmaBlockCopies::addEntry(M, I);
                        return true;
                      }});
  // A group's block copies become each work-item's chunk copies, which every later pass (the
  // tile lowering's proofs that copies miss the products in flight among them) already knows.
  Passes.push_back({"async-copy-blocks", [](Module& M, size_t I, std::string& Error, bool&) {
                      return AsyncBlockCopyLowering::run(M, *M.Functions[I], Error);
                    }});
  // First: tiles become wave ops, barriers and shared memory (or mma leaves), which the later
  // passes then treat as any other.
  Passes.push_back(
      {"tile-lowering", [T = C.Tiles](Module& M, size_t I, std::string& Error, bool& Drop) {
         return TileLowering::run(M, *M.Functions[I], T, Error, Drop);
       }});
  // Once the tile lowering has laid out the shared arrays (and proved its products miss the
  // copies): the TMA entries' block copies as the accelerator's boxes.
  if (C.TmaBlockCopies)
    Passes.push_back({"tma-lowering", [](Module& M, size_t I, std::string&, bool&) {
                        TmaBlockCopies::lower(M, *M.Functions[I]);
                        return true;
                      }});
  // The wave composites in KIR over the tier's primitives: the target's in the native tier; in
  // the portable tier its own, which portable-wave then builds from shared memory.
  bool Portable = C.WaveTier == ImplTier::Portable;
  if (Portable || C.Wave.Available)
    Passes.push_back({"wave-expand", [P = Portable ? PortableWave::primitives() : C.Wave](
                                         Module& M, size_t I, std::string& Error, bool&) {
                        return expandWaves(P, M, I, Error);
                      }});
  if (!C.NativeAsyncCopy)
    Passes.push_back(
        {"async-copy", [Staged = C.StagedAsyncCopies](Module& M, size_t I, std::string&, bool&) {
           AsyncCopyLowering::run(M, *M.Functions[I], Staged);
           return true;
         }});
  // The wave tiers for fission (portable, or steps) inline barrier and wave helpers themselves.
  if (Portable)
    Passes.push_back({"portable-wave", portableWaves});
  else if (C.WaveSteps)
    Passes.push_back(
        {"wave-steps", [W = C.Wave.ConstantWidth](Module& M, size_t I, std::string& Error, bool&) {
           return waveSteps(W, M, I, Error);
         }});
  if (C.InlineBarrierHelpers)
    Passes.push_back({"inline-barrier-helpers", inlineBarrierHelpers});
  // Judged on the kernel as written, before the implicit loop barriers (which need no group of
  // any particular shape) make it look as though it had barriers of its own.
  Passes.push_back({"group-shape", [](Module& M, size_t I, std::string&, bool&) {
                      Function& F = *M.Functions[I];
                      F.GroupShapeFree = F.IsKernel && GroupShapeIndependence::holds(F);
                      return true;
                    }});
  if (C.LoopJam)
    Passes.push_back({"loop-jam", [](Module& M, size_t I, std::string&, bool&) {
                        LoopJam::run(M, *M.Functions[I]);
                        return true;
                      }});
  // After inlining, so that a loop's uniformity is judged in the kernel as it will run.
  if (C.ImplicitLoopBarriers != LoopBarriers::None)
    Passes.push_back({"implicit-loop-barriers", [All = C.ImplicitLoopBarriers == LoopBarriers::All](
                                                    Module& M, size_t I, std::string&, bool&) {
                        ImplicitLoopBarriers::run(M, *M.Functions[I], All);
                        return true;
                      }});
  // Every target: no emitter computes in bfloat16. After the passes that may make bfloat16
  // operations (tiles, waves) and before the polyfill, which then legalizes its float32 ones.
  Passes.push_back({"bfloat16", [](Module& M, size_t I, std::string& Error, bool&) {
                      return BFloat16Lowering::run(M, *M.Functions[I], Error);
                    }});
  // Last, so that what the other passes make is legalized too.
  if (C.Polyfill.any())
    Passes.push_back({"polyfill", [P = C.Polyfill](Module& M, size_t I, std::string&, bool&) {
                        Polyfill::run(M, *M.Functions[I], P);
                        return true;
                      }});
  return Passes;
}

} // namespace

bool verifyEachPassByDefault() {
  return VerifyEachDefault;
}

void setVerifyEachPassByDefault(bool On) {
  VerifyEachDefault = On;
}

bool verifyAfterPass(const Module& M, const std::string& Pass, const std::string& Backend,
                     std::string& Error) {
  std::string Problems;
  if (verify(M, Problems))
    return true;
  Error = "invalid KIR after pass " + Pass + " (" + Backend + "):\n" + Problems + "\n; KIR after " +
          Pass + " (" + Backend + ")\n" + dump(M);
  return false;
}

const std::set<std::string>& pipelinePassNames() {
  static const std::set<std::string> Names = {
      "portable-wave",     "wave-steps",  "inline-barrier-helpers",
      "polyfill",          "wave-expand", "tile-lowering",
      "async-copy",        "ray-query",   "implicit-loop-barriers",
      "bfloat16",          "tma-entries", "tma-lowering",
      "async-copy-blocks", "loop-jam"};
  return Names;
}

std::unique_ptr<Module> runPipeline(const Module& M, const PipelineConfig& C, std::string& Error,
                                    const PipelineTrace* Trace, std::vector<std::string>* Dropped) {
  // The emitters trust the pipeline's output: the input must be valid KIR already (cheap: one
  // walk), so a malformed hand-built module is an error here, never a crash in an emitter.
  std::string Problems;
  if (!verify(M, Problems)) {
    Error = "invalid KIR given to the " + C.Backend + " pipeline:\n" + Problems;
    return nullptr;
  }
  bool VerifyEach = (Trace && Trace->VerifyEach) || verifyEachPassByDefault();
  std::unique_ptr<Module> Out = cloneModule(M);
  for (const Pass& P : passesFor(C)) {
    for (size_t I = 0; I < Out->Functions.size(); ++I) {
      if (!availableOn(*Out->Functions[I], C.Backend))
        continue;
      std::string Why;
      bool Drop = false;
      bool Ok = P.Run(*Out, I, Why, Drop);
      if (!Ok && Drop && Dropped && Out->Functions[I]->IsKernel) {
        leaveOut(*Out->Functions[I], C.Backend);
        Dropped->push_back(Why); // names the kernel
        continue;
      }
      if (!Ok) {
        Error = "function '" + Out->Functions[I]->Name + "': pass " + P.Name + " (" + C.Backend +
                ") failed: " + Why;
        return nullptr;
      }
    }
    if (VerifyEach && !verifyAfterPass(*Out, P.Name, C.Backend, Error))
      return nullptr;
    if (Trace && Trace->Out && (Trace->PrintAfterAll || Trace->PrintAfter.count(P.Name)))
      *Trace->Out += "; KIR after " + std::string(P.Name) + " (" + C.Backend + ")\n" + dump(*Out);
  }
  if (C.MaxStaticSharedBytes)
    for (auto& FP : Out->Functions) {
      Function& F = *FP;
      if (!F.IsKernel || !availableOn(F, C.Backend))
        continue;
      uint64_t Bytes = 0;
      for (const SharedArray& S : F.SharedArrays)
        if (!S.PerWave)
          Bytes += uint64_t(S.Count) * bundle::scalarTypeSize(S.Elem);
      if (Bytes <= C.MaxStaticSharedBytes)
        continue;
      std::string Why = "kernel '" + F.Name + "': its " + std::to_string(Bytes) +
                        " bytes of static shared memory exceed the " +
                        std::to_string(C.MaxStaticSharedBytes) +
                        " a kernel may declare here; a dynamic shared array (sized at launch) "
                        "can be larger";
      if (!Dropped) {
        Error = Why;
        return nullptr;
      }
      leaveOut(F, C.Backend);
      Dropped->push_back(Why);
    }
  return Out;
}

} // namespace cajeta::kir
