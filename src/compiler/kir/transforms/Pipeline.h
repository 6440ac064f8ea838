// The per-target KIR pass pipeline: the one place that lists, in order, the KIR -> KIR passes a
// target's emitter relies on. Every payload builder runs it on a copy of Sema's module before
// emitting; the emitters then see only what the pipeline leaves (no emitter runs a pass).
#pragma once

#include "compiler/kir/Kir.h"
#include "compiler/kir/transforms/Polyfill.h"
#include "compiler/kir/transforms/TierSelection.h"
#include "compiler/kir/transforms/TileLowering.h"
#include "compiler/kir/transforms/WaveExpand.h"

#include <memory>
#include <set>
#include <string>

namespace cajeta::kir {

/// What a target needs of the pipeline.
enum class LoopBarriers : uint8_t { None, Profitable, All };

struct PipelineConfig {
  std::string Backend; // "cpu", "cuda", "vulkan": names the target in traces and errors
  /// Inline helpers that contain a barrier into their kernels (targets that run barriers by work-
  /// item loop fission: the CPU).
  bool InlineBarrierHelpers = false;
  /// The wave tier: Portable rewrites every wave op into shared-memory exchanges and barriers.
  ImplTier WaveTier = ImplTier::Native;
  /// The value rules the emitter leaves to KIR (Polyfill), applied after every other pass.
  PolyfillConfig Polyfill;
  /// What the native wave tier provides: in the native tier, WaveExpand rewrites every other
  /// wave op into these primitives.
  WavePrimitives Wave;
  /// How tiles become plain KIR (the mma tier's form and the portable scratch's budget).
  TileLoweringConfig Tiles;
  /// What the target knows of Device.supports(Capability.X) at compile time, by capability:
  /// 1 true, 0 false, -1 decided on the device (left for the emitter); the fold-capabilities
  /// pass makes the known ones constants. Empty: nothing known.
  std::vector<int8_t> Capabilities{};
  /// The most static shared memory a kernel may declare on the target (its arrays and the
  /// software tile's scratch; 0: no limit). A kernel over it is dropped (with Dropped) or fails.
  uint64_t MaxStaticSharedBytes = 0;
  /// The target copies global -> shared asynchronously (AsyncCopy stays for its emitter);
  /// otherwise kir::AsyncCopyLowering makes the copies plain.
  bool NativeAsyncCopy = false;
  /// NVIDIA sm_90a: kernels with block copies get a second entry whose copies go through the
  /// tensor memory accelerator (kir::TmaBlockCopies).
  bool TmaBlockCopies = false;
  /// Without native copies: stage the whole, aligned ones in registers as wide loads
  /// (kir::AsyncCopyLowering's Staged form; the emitter lowers LoadWord and StoreWords).
  bool StagedAsyncCopies = false;
  /// Leave RayQuery expressions to the emitter (SPIR-V's native ray query) instead of
  /// kir::RayQueryLowering's software walk.
  bool NativeRayQuery = false;
  /// The software ray query's stack walk tests a node's two children where it visits the node
  /// (GPUs: primary rays 11 % faster on the H200); false: each node tests its own box (the CPU,
  /// where that ran 10-20 % faster). kir::RayQueryLowering::Form's ChildrenAtParent.
  bool RayChildrenAtParent = false;
  /// The software ray query reads nodes and primitive slots through 4-word views
  /// (kir::RayQueryLowering::Form's WordViews; the emitter lowers LoadWord).
  bool RayWordViews = false;
  /// Give uniform loops an implicit barrier (kir::ImplicitLoopBarriers), so that fission runs
  /// them once per group around a vectorizable loop over the work-items (the CPU): where the
  /// cost model expects it to pay, everywhere (a test mode), or nowhere.
  LoopBarriers ImplicitLoopBarriers = LoopBarriers::None;
  /// Before them: unroll-and-jam a work-item's counted loop around an inner loop by four
  /// (kir::LoopJam), so that each pass of the inner loop over the work-items serves four.
  bool LoopJam = false;
  /// The native tier's waves are vectors of the work-item loop (the CPU): kir::WaveSteps makes
  /// each primitive a statement of its own for the fission, Wave.width() Wave.ConstantWidth.
  bool WaveSteps = false;
};

/// Debugging switches (`cajeta emit --print-after=PASS`, `--print-after-all`, `--verify-each`).
struct PipelineTrace {
  std::set<std::string> PrintAfter; // pass names
  bool PrintAfterAll = false;
  bool VerifyEach = false;    // run the KIR verifier after every pass
  std::string* Out = nullptr; // where the dumps go (nothing is printed without it)
};

/// Whether runPipeline verifies the module after every pass even without
/// PipelineTrace::VerifyEach: on in debug builds (!NDEBUG); test executables switch it on.
bool verifyEachPassByDefault();
void setVerifyEachPassByDefault(bool On);

/// Verifies M after pass Pass of the Backend pipeline: true, or false with Error naming the
/// pass, listing the problems and holding a dump of M.
bool verifyAfterPass(const Module& M, const std::string& Pass, const std::string& Backend,
                     std::string& Error);

/// The names of the pipeline's passes, in the order they run.
const std::set<std::string>& pipelinePassNames();

/// A copy of M with C's passes applied to every function available on C.Backend. Null with
/// Error set (naming the pass and the function) when a pass cannot rewrite a function. M must
/// verify (kir::verify; an error otherwise), so the emitters that take the result may assume
/// valid KIR; with VerifyEach (or verifyEachPassByDefault) every pass's output is verified too.
/// With Dropped, a kernel that cannot exist on the target (its software tiles do not fit the
/// target's shared memory) is left out of the result (not available on C.Backend) and a line
/// saying why is added to Dropped, instead of failing the whole module.
std::unique_ptr<Module> runPipeline(const Module& M, const PipelineConfig& C, std::string& Error,
                                    const PipelineTrace* Trace = nullptr,
                                    std::vector<std::string>* Dropped = nullptr);

} // namespace cajeta::kir
