// The one shared KIR -> LLVM body walk: every Expr/Stmt kind of Kir.h, for every backend, with
// the backend-specific leaves delegated to a LoweringTarget.
#pragma once

#include "compiler/kir/GroupUniformity.h"
#include "compiler/kir/Kir.h"
#include "compiler/kir/WorkItemSlopes.h"
#include "compiler/kir/transforms/Pipeline.h"
#include "compiler/lowering/LoweringTarget.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace cajeta::lowering {

struct LoweringOptions {
  bool CheckBounds = false; // every Load/Store/Atomic checks index < length and reports a failure
  /// Only functions available on this backend (kir::availableOn) are lowered; empty = all.
  std::string Backend;
  /// The wave-op tier the driver chose. Native takes effect only where the target has it
  /// (LoweringTarget::tierFor); otherwise wave ops are rewritten by PortableWave::expand.
  ImplTier WaveTier = ImplTier::Native;
  /// The tile tier the driver chose; Native takes effect only where the target has it
  /// (LoweringTarget::tileLowering).
  ImplTier TileTier = ImplTier::Portable;
  /// Targets without a native barrier (the CPU): also emit each kernel with a top-level
  /// grid-stride loop over a count parameter as a second entry that runs the loop a step at a
  /// time for the whole group (GridStrideInterchange; TargetManifest::StepSymbol).
  bool InterchangeGridStride = false;
  /// GPUs: also emit each element-wise kernel as a second entry whose work-items run four
  /// neighbouring work-items each (kir::WorkItemQuads; TargetManifest::QuadSymbol).
  bool QuadWorkItems = false;
  /// Targets without a native barrier: run uniform loops once per group around the loop over
  /// work-items (kir::ImplicitLoopBarriers), so that the work-item loop vectorizes.
  kir::LoopBarriers ImplicitLoopBarriers = kir::LoopBarriers::Profitable;
  /// With them: a work-item's counted loop around an inner loop jammed by four (kir::LoopJam).
  bool LoopJam = true;
};

class KernelLowering {
public:
  KernelLowering(const kir::Module& KM, llvm::Module& LM, LoweringTarget& T,
                 const LoweringOptions& O);

  /// Lowers every function of KM into LM: helpers as internal always-inline functions, kernels
  /// through LoweringTarget::emitKernel (a HasBarrier kernel on a target without a native barrier
  /// by KIR inlining and work-item loop fission). KM must verify (kir::verify; the pipeline
  /// guarantees it); returns false with Error set on what the target cannot express.
  bool emitModule(std::string& Error);

  /// Per kernel lowered (key: kir Function::Name), what its target manifest takes from the code
  /// as lowered: StaticSharedBytes (its fixed-size shared arrays, the portable wave tier's
  /// scratch included) and WaveTier ("native" / "portable" for kernels that use wave ops).
  const std::map<std::string, bundle::TargetManifest>& kernelManifests() const {
    return KernelManifests;
  }

  /// Whether this lowering rewrites wave ops into the portable tier.
  bool portableWaves() const { return portableWaves(Target, Opts); }
  static bool portableWaves(const LoweringTarget& T, const LoweringOptions& O) {
    return O.WaveTier == ImplTier::Portable || T.tierFor(Feature::WaveOps) == ImplTier::Portable;
  }
  /// What the KIR pipeline must do for target T before this walk (kir::runPipeline): the walk
  /// lowers the prepared module, never Sema's.
  static kir::PipelineConfig pipelineConfig(const LoweringTarget& T, const LoweringOptions& O);

  /// The function attribute on a kernel's quad entry (kir::WorkItemQuads), for the target's
  /// passes that vectorize its accesses.
  static constexpr const char* QuadEntryAttribute = "cajeta-quads";

  /// The entry function made for the kernel KM.Functions[I] (null for helpers and for functions
  /// not available on the backend).
  llvm::Function* kernelEntry(size_t I) const { return I < Entries.size() ? Entries[I] : nullptr; }

  /// The LLVM type of a KIR scalar as a value (bool = i1) and in memory (bool = i8).
  static llvm::Type* valueType(llvm::LLVMContext& C, kir::Type T);
  static llvm::Type* memoryType(llvm::LLVMContext& C, kir::Type T);

private:
  struct LoopTargets {
    llvm::BasicBlock* Continue = nullptr;
    llvm::BasicBlock* Break = nullptr;
  };
  /// The state of the function being lowered.
  struct FunctionState {
    const kir::Function* KF = nullptr;
    llvm::Function* F = nullptr;
    std::vector<ArgValue> Args;
    /// One per local: its slot, or (fission) an array with one slot per work-item.
    std::vector<llvm::Value*> Locals;
    std::vector<BufferValue> Shared;  // kernels: one per shared array
    std::vector<BufferValue> Private; // one per private array (Ptr: its alloca)
    WorkItemContext WorkItem;
    std::map<uint32_t, LoopTargets> Loops;
    llvm::BasicBlock* ReturnBlock = nullptr; // kernels: end of this work-item
    llvm::BasicBlock* FailBlock = nullptr;   // --check-bounds failure exit
    // Work-item loop fission (see KernelFission.cpp).
    bool Fission = false;
    WorkItemContext Group;                // the group-level context (of work-item 0)
    llvm::Value* GroupSize = nullptr;     // i64, defined in the entry block
    std::vector<llvm::Value*> TensorMaps; // a TMA entry's: KernelFrame::TensorMaps
    llvm::Value* Item = nullptr;          // i64 index of the current work-item
    llvm::Value* Lane = nullptr; // i32: its lane where the loop runs waves of lanes, else null
    llvm::BasicBlock* NextItem = nullptr; // inside a region: on to the next work-item
    /// Per-work-item i32 state when the kernel can park work-items: 0 runs, 1 returned, 2d left
    /// the barrier loop at depth d (break), 2d+1 waits for its step (continue). Null otherwise.
    llvm::Value* Park = nullptr;
    llvm::Value* AnyParked = nullptr; // i1: some work-item's park state is not 0 (with Park)
    llvm::Value* Leader = nullptr;    // i64: the first running work-item, GroupSize if none
    /// Fission: what is uniform across the group. Uniform locals have one slot for the group
    /// and their statements run once per group; rematerialized ones have no slot (a read
    /// recomputes them); the rest have a slot per work-item (PerItem).
    std::unique_ptr<kir::GroupUniformity> Uniformity;
    std::vector<bool> PerItem;
    std::vector<unsigned> RefCount;          // reads and assignments of each local in the function
    std::map<uint32_t, unsigned> GroupLoops; // barrier loops being lowered: id -> depth (1-based)
    std::set<const kir::Stmt*> BarrierStmts; // statements that contain a barrier
    /// --check-bounds inside a loop over work-items whose end reports failures (CPU): each
    /// access site's flag and smallest failing index, checked when the loop is done.
    struct DeferredCheck {
      llvm::Value* FirstIndex = nullptr; // i64 alloca: the smallest failing index
      llvm::Value* Candidate = nullptr;  // i64 alloca: this work-item's failing index
      llvm::Value* ParamIndex = nullptr;
      llvm::Value* Length = nullptr;
    };
    /// i32 allocas: the smallest site (position in Deferred) that failed in the loop, ~0 if
    /// none; and the same for the current work-item.
    llvm::Value* FailedSite = nullptr;
    llvm::Value* ZeroSlot = nullptr; // 16 zero bytes a skipped uniform load reads
    /// With deferred checks: how indices step along x (a load whose index does not reads the
    /// zero slot when out of range instead of being masked).
    std::unique_ptr<kir::GroupUniformity> SlopeUniformity;
    std::unique_ptr<kir::WorkItemSlopes> Slopes;
    llvm::Value* ItemFailedSite = nullptr;
    bool DeferChecks = false;
    /// The current work-item's first block and the loop's latch, where each deferred site's
    /// per-work-item values are reset and folded into the loop's (both unconditional, so the
    /// vectorizer sees plain reductions).
    llvm::BasicBlock* ItemStart = nullptr;
    llvm::BasicBlock* ItemLatch = nullptr;
    std::vector<DeferredCheck> Deferred;
    unsigned LoopDepth = 0;                // KIR loops being emitted inside the current work-item
    std::deque<BufferValue> HostArrays;    // host: heap arrays as indexed (bufferOf)
    std::vector<llvm::BasicBlock*> Unwind; // host: the enclosing try statements' dispatches
    llvm::BasicBlock* ReturnPending = nullptr; // host: returns (a zero value) to unwind
  };

  void declareHelper(size_t I);
  void emitHelperBody(size_t I);
  void emitKernelEntries(size_t I);
  /// Emits one entry for kernel KF from its lowered form (KF itself, or a rewritten copy whose
  /// Symbol names the entry); null with Error set on failure.
  llvm::Function* emitEntry(const kir::Function& KF, const kir::Function& Lowered);
  /// GPUs: the element-wise kernel's quad entry (kir::WorkItemQuads), recorded in TMan.
  /// A TMA entry (kir::TmaBlockCopies), recorded in the manifest of the kernel it belongs to.
  void emitTmaEntry(const kir::Function& KF);
  void emitQuadEntry(const kir::Function& KF, const kir::Function& Lowered,
                     bundle::TargetManifest& TMan);
  void emitBody(FunctionState& FS);
  void createLocals(FunctionState& FS);

  void emitStmt(const kir::Stmt* S);
  void emitLoop(const kir::Stmt* S);
  void emitJump(const kir::Stmt* S);
  void emitReturn(const kir::Stmt* S);
  /// Whether S is an AsyncCopy statement; a run of them is emitted together (emitAsyncCopies).
  bool isAsyncCopy(const kir::Stmt* S) const;
  /// The tensor memory accelerator's leaves (IntrinsicOp::MbarrierInit .. MbarrierWait): false
  /// where the target has none.
  bool emitTma(const kir::Expr* E);
  LoweringTarget::AsyncCopyArgs asyncCopyArgs(const kir::Expr* E);
  /// What a run of copies left to later in its block (LoweringTarget::emitAsyncCopiesInLine):
  /// the code to emit, and the locals the run's operands read (evaluated anew there).
  struct PendingCopies {
    std::function<void()> Emit;
    std::set<uint32_t> Reads;
  };
  /// Emits a run of copies; returns what the target left to emit later in the block (or null)
  /// and adds the locals its operands read to Reads.
  std::function<void()> emitAsyncCopies(llvm::ArrayRef<const kir::Stmt*> Run,
                                        std::set<uint32_t>& Reads);
  /// Whether S could see a copy's destination, leave the block or change an operand of the copies
  /// left: a barrier, a jump, a call, a wait, another copy, a store, an assignment to a local in
  /// Reads.
  static bool mayObserveCopies(const kir::Stmt* S, const std::set<uint32_t>& Reads);
  /// A block's statements, inner blocks as part of it; Left holds what a run of copies left to
  /// later, emitted before the first statement that could see it (finishCopies) or by the
  /// caller at the end.
  void emitBlockBody(const kir::Stmt* S, PendingCopies& Left);
  void finishCopies(PendingCopies& Left);
  /// Set while a run's operands are evaluated anew: local reads go through
  /// LoweringTarget::opaqueCopy.
  bool LaunderLocals = false;

  // Work-item loop fission (KernelFission.cpp).
  void emitFissionBody(FunctionState& FS);
  /// Collects the statements that run at group level: those holding a barrier or a uniform
  /// statement (and those statements themselves).
  bool markBarriers(const kir::Stmt* S, std::set<const kir::Stmt*>& Out);
  /// Whether a break (or continue) in the function targets loop Loop.
  bool isJumpTarget(const kir::Stmt* Loop, kir::Stmt::Kind Jump) const;
  bool needsParking(const kir::Stmt* S) const;
  void emitGroupStmt(const kir::Stmt* S);
  void emitGroupLoop(const kir::Stmt* S);
  void emitRegion(const std::vector<const kir::Stmt*>& Stmts);
  /// The region's loop, twice where work-items may be parked: unmasked while none is.
  void emitRegionBoth(const std::vector<const kir::Stmt*>& Stmts);
  /// The per-work-item locals that only Stmts refer to and that each run writes before reading.
  std::vector<uint32_t> regionPrivateLocals(const std::vector<const kir::Stmt*>& Stmts);
  /// One loop over the group's work-items running Stmts (skipping parked ones if SkipParked).
  void emitRegionLoop(const std::vector<const kir::Stmt*>& Stmts, bool SkipParked);
  /// AnyParked = whether some work-item of the group is parked, and Leader = the first one that
  /// is not (after a region that can park one, and after unparking): the park states change
  /// nowhere else, so group-level statements read both instead of scanning the group.
  void updateAnyParked();
  /// The first running work-item of the group: {found (i1), index (i64)}.
  std::pair<llvm::Value*, llvm::Value*> findLeader();
  /// A group-level condition, evaluated once by the first running work-item (false if none).
  llvm::Value* leaderCondition(const kir::Expr* E);
  /// Every work-item whose park state is State runs again.
  void unpark(uint32_t State);
  void park(uint32_t State);
  /// A local's slot for the current work-item.
  llvm::Value* localAddress(uint32_t Index);
  /// The local's value for the current work-item, and its update: a per-work-item bool of the
  /// fission lives in a byte (0 or 1).
  llvm::Value* loadLocal(uint32_t Index);
  void storeLocal(uint32_t Index, llvm::Value* V);
  llvm::Value* emitExpr(const kir::Expr* E);
  llvm::Value* emitUnary(const kir::Expr* E);
  llvm::Value* emitBinary(const kir::Expr* E);
  llvm::Value* emitCompare(const kir::Expr* E, llvm::Value* L, llvm::Value* R);
  llvm::Value* emitLogical(const kir::Expr* E);
  llvm::Value* emitCast(const kir::Expr* E);
  llvm::Value* emitSelect(const kir::Expr* E);
  llvm::Value* emitLoad(const kir::Expr* E);
  llvm::Value* emitStore(const kir::Expr* E);
  llvm::Value* emitCallExpr(const kir::Expr* E);
  llvm::Value* emitIntrinsic(const kir::Expr* E);
  /// DivTrunc, RemTrunc, ShiftLeft, ShiftRight, FToIUnchecked, Bitcast: one instruction each.
  llvm::Value* emitRawPrimitive(const kir::Expr* E);
  llvm::Value* emitField(const kir::Expr* E);
  llvm::Value* emitDispatch(const kir::Expr* E);
  /// A wave primitive (kir::WaveExpand has built the rest from them) from one of the target's
  /// wave leaves (KernelWave.cpp).
  llvm::Value* emitWave(const kir::Expr* E);
  /// A wave step of the fission (kir::WaveSteps::isStep): for each wave of the group, its lanes'
  /// operands as vectors, the primitive as one vector operation (waveStepValue), the result
  /// into each lane's slot (KernelWave.cpp).
  void emitWaveStep(const kir::Stmt* S);
  /// Local Operand's values on lanes Base..Base+Width-1 of the group, as a vector.
  llvm::Value* waveLanes(const kir::Expr* Operand, llvm::Value* Base, unsigned Width);
  /// Primitive Op over a wave whose operands are the vectors Ops (operand KIR type Ty).
  llvm::Value* waveStepValue(kir::WaveOp Op, kir::Type Ty, llvm::ArrayRef<llvm::Value*> Ops,
                             unsigned Width);
  /// Evaluates the arguments Args for a call of KM.Functions[Callee] (hidden ones first), or
  /// returns false after reporting an error.
  bool emitCallArgs(const kir::Expr* E, uint32_t Callee, llvm::ArrayRef<const kir::Expr*> Args,
                    std::vector<llvm::Value*>& Out);
  llvm::Value* emitCall(const kir::Expr* E, uint32_t Callee, llvm::ArrayRef<llvm::Value*> Args);
  /// Whether this lowering declared helper Callee; reports the call E otherwise.
  bool callable(const kir::Expr* E, uint32_t Callee);

  // Host modules (KernelHost.cpp): host methods as external functions, heap arrays, and the
  // HostOp calls into the host support ABI (cajeta/xpu/cajeta_host.h).
  llvm::Value* emitHost(const kir::Expr* E);
  llvm::Value* emitHostOp(const kir::Expr* E);
  llvm::Value* emitStringConst(const kir::Expr* E);
  /// The LLVM global of host static field Index (made on first use, zero-initialised).
  llvm::GlobalVariable* global(uint32_t Index);
  /// A heap array's element pointer and length (Java's checked indexing).
  const BufferValue* hostArrayOf(const kir::Expr* E);
  /// Declares (once) the host support function Name of type FT.
  llvm::FunctionCallee hostFunction(const char* Name, llvm::FunctionType* FT);
  /// Calls cajeta_host_index_fail for Index and Length at E's line; the block ends unreachable.
  void emitHostIndexFailure(const kir::Expr* IndexExpr, llvm::Value* Index, llvm::Value* Length);
  llvm::Value* lineOf(const kir::Expr* E);
  /// After a host op that can raise an exception, or a call of a host method: when one is
  /// pending, go to the innermost handler dispatch, or return from the function.
  void checkPending();
  llvm::BasicBlock* unwindTarget();
  void emitTry(const kir::Stmt* S);

  // Atomics (KernelAtomics.cpp).
  llvm::Value* emitAtomic(const kir::Expr* E);
  llvm::Value* sharedAtomicOnOneThread(const kir::Expr* E, llvm::Value* Addr,
                                       const std::vector<llvm::Value*>& Vals, llvm::Type* T,
                                       llvm::Align Al);
  llvm::Value* atomicFloatMinMax(const kir::Expr* E, llvm::Value* Addr, llvm::Value* V,
                                 llvm::AtomicOrdering Order);

  /// The array an expression names (a buffer Param or a SharedRef), or null after an error.
  const BufferValue* bufferOf(const kir::Expr* E);
  /// The element address for Buf[Index] (Index any KIR integer), with the --check-bounds test
  /// (KernelBounds.cpp). With InRange, a test inside a work-item loop that defers its reports
  /// sets *InRange instead of leaving: the caller skips the access when it is false.
  /// ForLoad: a load at an index the whole group shares reads a zero slot instead when out of
  /// range (no test then: one scalar load the vectorizer can hoist, not a masked gather).
  /// Element Index (int64) of Buf, of memory type Elem: at its address, or where the array's
  /// swizzle puts it (BufferValue::Swizzle128).
  llvm::Value* elementPointer(const BufferValue& Buf, llvm::Type* Elem, llvm::Value* Index);
  llvm::Value* elementAddress(const BufferValue& Buf, const kir::Expr* IndexExpr, kir::Type ElemTy,
                              llvm::Value** InRange = nullptr, bool ForLoad = false);
  /// The address of Count consecutive elements of Buf from element First (int64), with the
  /// --check-bounds test of the whole run (never deferred): out of range, the first element
  /// past the buffer is the one reported.
  llvm::Value* runPointer(const BufferValue& Buf, llvm::Type* Elem, llvm::Value* First,
                          unsigned Count);
  /// Reports the deferred bounds failures of the loop over work-items just closed (and leaves
  /// the kernel if there was one); forgets them.
  void emitDeferredChecks();
  /// Whether the bounds checks of a loop over work-items running S are deferred to its end.
  bool defersChecksIn(const kir::Stmt* S) const;
  /// Continues emission in a fresh block after a terminator (the code there is unreachable).
  void startDeadBlock();
  /// Terminates the current block with a branch to To unless it is already terminated.
  void branchTo(llvm::BasicBlock* To);
  llvm::BasicBlock* newBlock(const char* Name);

  /// Records the first error and returns a placeholder value of type Ty (poison). The walk
  /// assumes verified KIR (kir::verify, run by the pipeline); fail/checkOps remain for the
  /// checks not yet moved into the verifier.
  llvm::Value* fail(const kir::Expr* E, const std::string& Message);
  bool checkOps(const kir::Expr* E, size_t N);
  /// Records the first error for a construct the target cannot express (valid KIR).
  llvm::Value* unsupported(const kir::Expr* E, const std::string& Message);
  llvm::Value* poisonOf(kir::Type T);

  const kir::Module& KM;
  llvm::Module& LM;
  llvm::LLVMContext& Ctx;
  LoweringTarget& Target;
  LoweringOptions Opts;
  llvm::IRBuilder<> B;
  std::vector<llvm::Function*> Helpers;       // index: KM.Functions
  std::vector<llvm::Function*> Entries;       // index: KM.Functions
  std::vector<llvm::GlobalVariable*> Globals; // index: KM.Globals (host modules)
  kir::Module Scratch;                        // nodes of inlined kernel copies
  std::vector<std::unique_ptr<kir::Function>> Inlined;
  std::map<std::string, bundle::TargetManifest> KernelManifests;
  FunctionState* Cur = nullptr;
  std::string Error;
};

} // namespace cajeta::lowering
