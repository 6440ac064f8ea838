// The verb seam: the leaf operations of the KIR -> LLVM lowering that differ per backend.
//
// KernelLowering is the one shared body walk; a LoweringTarget supplies only what a backend does
// differently: its TargetMachine, the kernel entry and how a body is wrapped (CPU work-item loops
// vs a GPU entry), coordinate reads, bounds-failure reports, math intrinsics (a portable default
// that backends may override), address spaces, and the implementation tier of tiered features.
#pragma once

#include "compiler/kir/Kir.h"
#include "compiler/kir/transforms/TierSelection.h"
#include "compiler/kir/transforms/TileLowering.h"
#include "compiler/kir/transforms/WaveExpand.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/IR/IRBuilder.h>

#include <functional>
#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace cajeta::lowering {

using kir::Feature;
using kir::ImplTier;

/// A buffer as the body walk sees it: base pointer, element count (i64) and, in a --check-bounds
/// build, the kernel parameter index it came from (i32) so a failure inside a helper names it.
struct BufferValue {
  llvm::Value* Ptr = nullptr;
  llvm::Value* Length = nullptr;
  llvm::Value* ParamIndex = nullptr;
  bool HostArray = false;  // a host heap array: every index is checked (Java's rule)
  bool Private = false;    // a private array: a pass's own indices, never checked
  bool Swizzle128 = false; // kir::SharedArray::Swizzle128: elements at swizzled addresses
  uint8_t RowAtoms = 1;    // kir::SharedArray::RowAtoms: rows of this many 128-byte atoms
};

/// One parameter's value: a scalar (Scalar set) or a buffer. A POD parameter's Scalar is a
/// pointer to its bytes in C layout (any address space); a field read loads at its offset.
struct ArgValue {
  llvm::Value* Scalar = nullptr;
  BufferValue Buffer;
};

/// Target-defined per-function state the walk forwards untouched: the target reads coordinates
/// and reports failures through it, and passes it to helpers as hidden leading arguments.
struct WorkItemContext {
  std::vector<llvm::Value*> Values;
};

/// What a target's kernel wrapper hands the body walk.
struct KernelFrame {
  std::vector<ArgValue> Args;              // one per KIR parameter
  WorkItemContext WorkItem;                // coordinates etc., target-defined
  llvm::BasicBlock* ReturnBlock = nullptr; // `return` in a kernel ends this work-item: branch here
  llvm::BasicBlock* FailBlock = nullptr;   // after a recorded bounds failure: leave the kernel
  /// Fission only (a HasBarrier kernel on a target without a native barrier): work-items per
  /// workgroup (i64), defined in the entry block, where the walk puts its per-work-item arrays.
  llvm::Value* GroupSize = nullptr;
  /// Set by the walk (targets that defer bounds failures): the target calls it where its loop
  /// over a workgroup's work-items ends, where the failures seen in that loop are reported.
  std::function<void(llvm::IRBuilder<>&)> AfterWorkItems;
  /// A TMA entry's tensor maps (kir::Function::TensorMaps): each one's generic address (i64).
  std::vector<llvm::Value*> TensorMaps;
};

/// Emits a kernel body with the builder positioned inside the target's wrapper. On return the
/// builder is at the end of the body (its block may already be terminated).
using BodyEmitter = llvm::function_ref<void(llvm::IRBuilder<>& B, KernelFrame& Frame)>;

class LoweringTarget {
public:
  virtual ~LoweringTarget();

  /// The machine code generator: triple, data layout and TTI come from it.
  virtual llvm::TargetMachine& targetMachine() = 0;

  /// Address space of buffer memory (generic 0 on CPU; global on GPUs).
  virtual unsigned bufferAddressSpace() const { return 0; }

  /// Builds the kernel entry for KF in LM, loads its parameters, wraps the body (CPU: the
  /// work-item loops) and calls EmitBody once. Returns the entry function; on an unsupported
  /// kernel returns null and sets Error.
  virtual llvm::Function* emitKernel(llvm::Module& LM, const kir::Function& KF,
                                     BodyEmitter EmitBody, std::string& Error) = 0;

  /// Types of the hidden leading parameters of every device helper (what it needs of
  /// WorkItemContext). The walk passes the caller's WorkItemContext::Values for them.
  virtual std::vector<llvm::Type*> helperHiddenParams(llvm::LLVMContext& Ctx) const = 0;

  /// A coordinate read: Op is LocalId, GroupId, GroupDim or GridDim; Dim 0..2; yields i32.
  virtual llvm::Value* coordinate(llvm::IRBuilder<>& B, const WorkItemContext& W,
                                  kir::IntrinsicOp Op, unsigned Dim) = 0;

  /// --check-bounds: records a failed access (first report wins). Control then goes to the
  /// function's failure exit; the walk emits that branch.
  virtual void emitBoundsFailure(llvm::IRBuilder<>& B, const WorkItemContext& W,
                                 llvm::Value* ParamIndex, llvm::Value* Index,
                                 llvm::Value* Length) = 0;
  /// --check-bounds: whether a kernel's work-items may go on past a failed access (the access
  /// skipped, a load giving 0) to the end of the target's loop over work-items, where the
  /// failure is reported (KernelFrame::AfterWorkItems), so that loop has no early exit and
  /// vectorizes. Only accesses outside any loop of the kernel are deferred.
  virtual bool defersBoundsFailures() const { return false; }

  /// --check-bounds: an i1 that is true once the launch has recorded a failure (checked after
  /// helper calls so that a failure inside a helper ends the caller too).
  virtual llvm::Value* emitHasFailed(llvm::IRBuilder<>& B, const WorkItemContext& W) = 0;

  /// A math builtin (Sqrt ... Fma, Abs/Min/Max on any number type) over already-evaluated
  /// operands of KIR type Ty. The portable default uses LLVM intrinsics, and libm where LLVM
  /// has none (the calls stay undefined symbols resolved by the loader). Returns null for an
  /// op/type pair it cannot lower.
  virtual llvm::Value* emitMath(llvm::IRBuilder<>& B, kir::IntrinsicOp Op,
                                llvm::ArrayRef<llvm::Value*> Ops, kir::Type Ty);

  /// kir::IntrinsicOp::MinNum / MaxNum (Max) of two floats: either operand for a NaN. The
  /// default compares and selects (x86 matches that to minss/maxss); a target with a min
  /// instruction that compare-and-select does not reach says so.
  virtual llvm::Value* emitMinNum(llvm::IRBuilder<>& B, llvm::Value* A, llvm::Value* C, bool Max);

  /// The tier a feature gets on this backend; Portable unless a backend has it natively.
  virtual ImplTier tierFor(Feature F) const { return ImplTier::Portable; }
  /// Device.supports(Capability.X) as this target answers it at compile time, by capability
  /// (kir::PipelineConfig::Capabilities: 1, 0, or -1 for "ask the device"); TileTier is the
  /// tile tier the driver chose (CooperativeMatrix means the native one).
  virtual std::vector<int8_t> capabilities(ImplTier TileTier) const { return {}; }
  /// The most static shared memory a kernel may declare on this target (0: no limit).
  virtual uint64_t maxStaticSharedBytes() const { return 0; }
  /// The bytes of KF's static arrays that this target keeps at the start of the launch's
  /// dynamic shared memory (bundle::TargetManifest::DynamicSharedPrefix); 0 on most.
  virtual uint32_t dynamicSharedPrefix(const kir::Function& KF) const { return 0; }
  /// How kir::TileLowering lowers tiles here, given the tier the driver chose: the portable
  /// form with this target's shared-memory budget, unless the target has native fragments.
  virtual kir::TileLoweringConfig tileLowering(ImplTier Chosen) const;
  /// The mma.sync leaf (IntrinsicOp::MmaSync): result Dim of one product of inputs In (A: 4
  /// i32 registers, B: 2) into 4 accumulators (float32 for float inputs, i32 for integers).
  /// Null where the target has none.
  virtual llvm::Value* emitMmaSync(llvm::IRBuilder<>& B, llvm::ArrayRef<llvm::Value*> Ops,
                                   unsigned Dim, kir::MmaInput In) {
    return nullptr;
  }
  /// The sm_90a tile tier's leaves (IntrinsicOp::WgmmaReady .. ProxyFence); a target without
  /// them returns null or false. Ready: whether Array (a shared array's start) is a multiple of
  /// 1024 bytes and Elem (the address of a b tile in it) a multiple of Block bytes past it (the
  /// array's blocks of 8 rows: kir::SharedArray::RowAtoms); with KMajorDepth (a K-major b's K
  /// bytes), at a multiple of 32 bytes into a row of a block's first with its depth inside the
  /// row. Wgmma: one product of the four a registers A and b at BTile (the unswizzled address of
  /// its first element) into the accumulators C, which it replaces with the asynchronous
  /// results: 16-bit In, m64nNk16 into float32, N = 8 C.size() / 4, b's rows of N / 64 atoms;
  /// 8-bit In, m64nNk32 into int32, b K-major (its columns rows of one atom). With ABlock, A is
  /// one address instead: the warpgroup's 64 x K a, K-major and swizzled, its 8-row groups
  /// ABlock bytes apart.
  /// Wait: commits (where Commit) and waits for the products; C (every accumulator they wrote)
  /// comes back as values ordered after the wait.
  virtual llvm::Value* emitWgmmaReady(llvm::IRBuilder<>& B, llvm::Value* Array, llvm::Value* Elem,
                                      uint32_t Block, uint32_t KMajorDepth) {
    return nullptr;
  }
  virtual bool emitWgmma(llvm::IRBuilder<>& B, llvm::Value* BTile, llvm::ArrayRef<llvm::Value*> A,
                         uint32_t ABlock, std::vector<llvm::Value*>& C, kir::MmaInput In) {
    return false;
  }
  virtual bool emitWgmmaFence(llvm::IRBuilder<>& B) { return false; }
  virtual bool emitWgmmaCommit(llvm::IRBuilder<>& B) { return false; }
  virtual bool emitWgmmaWait(llvm::IRBuilder<>& B, std::vector<llvm::Value*>& C, unsigned Pending,
                             bool Commit) {
    return false;
  }
  virtual bool emitProxyFence(llvm::IRBuilder<>& B) { return false; }
  /// The tensor memory accelerator (kir::TmaBlockCopies): kernels with block copies get a TMA
  /// entry, whose leaves (IntrinsicOp::MbarrierInit .. MbarrierWait) these emit; a target
  /// without it returns false. Bar is a barrier's shared-memory address, Dst a box's, Map the
  /// tensor map's generic address (KernelFrame::TensorMaps); Coords (2 or 4), Count and Parity
  /// i32;
  /// Issue and Arrive i1, which threads take part (predicated, not branched around); PerWave,
  /// one elected lane of each wave arrives (Arrive true in all).
  virtual bool hasTensorMemoryAccelerator() const { return false; }
  virtual bool emitMbarrierInit(llvm::IRBuilder<>& B, llvm::Value* Bar, llvm::Value* Count) {
    return false;
  }
  virtual bool emitTmaLoad(llvm::IRBuilder<>& B, llvm::Value* Dst, llvm::Value* Map,
                           llvm::ArrayRef<llvm::Value*> Coords, llvm::Value* Bar, uint32_t Bytes,
                           llvm::Value* Issue) {
    return false;
  }
  virtual bool emitMbarrierArrive(llvm::IRBuilder<>& B, llvm::Value* Bar, llvm::Value* Arrive,
                                  bool PerWave) {
    return false;
  }
  virtual bool emitMbarrierWait(llvm::IRBuilder<>& B, llvm::Value* Bar, llvm::Value* Parity) {
    return false;
  }
  /// The CPU tile tier's leaf (IntrinsicOp::TileDot): C (M x N) += A (M x K) . B (K x N), all
  /// row-major at these addresses, of inputs In (bfloat16 into float32, int8 or uint8 into
  /// int32). False where the target has none.
  virtual bool emitTileDot(llvm::IRBuilder<>& B, llvm::Value* C, llvm::Value* A, llvm::Value* Bm,
                           unsigned M, unsigned N, unsigned K, kir::MmaInput In) {
    return false;
  }
  /// IntrinsicOp::Prefetch: the Bytes bytes from Addr (an i64 count) are read or written soon.
  /// A hint; the default emits nothing.
  virtual void emitPrefetch(llvm::IRBuilder<>& B, llvm::Value* Addr, llvm::Value* Bytes,
                            bool Write) {}
  /// The software ray query's stack walk form (kir::PipelineConfig::RayChildrenAtParent): a
  /// node's two children tested at the node (GPUs), or each node its own box (the default).
  virtual bool rayChildrenAtParent() const { return false; }
  /// Asynchronous global -> shared copies (IntrinsicOp::AsyncCopy, AsyncCommit, AsyncWait).
  /// Targets without them return false and the pipeline makes the copies plain.
  virtual bool hasAsyncCopy() const { return false; }
  /// One copy: Count elements of Elem from Src (global) to Dst (shared); elements at or past
  /// Valid are zero.
  struct AsyncCopyArgs {
    llvm::Value* Dst;
    llvm::Value* Src;
    llvm::Type* Elem;
    unsigned Count;
    llvm::Value* Valid;
    /// Element j's destination where the elements do not follow one another from Dst (a
    /// swizzled array): one per element, else empty. The fast path's copies stay within 16
    /// aligned bytes, which a swizzle keeps together.
    std::vector<llvm::Value*> DstElems = {};
  };
  /// A run of copies that follow one another in the kernel, in order (their operands are
  /// evaluated already), so a target can decide a fast path once for the whole run.
  virtual void emitAsyncCopies(llvm::IRBuilder<>& B, llvm::ArrayRef<AsyncCopyArgs> Copies) {}
  /// The same run where it stands in a block: a target may issue the copies it can in line,
  /// with no branch (so the code around them stays one straight line), and return the rest as
  /// plain, synchronous copies to be emitted later in the block. The lowering calls that before
  /// anything the copies could matter to (a wait, a barrier, another copy, a call, a jump out of
  /// the block, a change to a local their operands read) and at the block's end: a program may
  /// not read a copy's destination before the wait that covers it, so a copy finished later but
  /// before that wait is the same copy. Again evaluates the run's operands anew where it is
  /// called (to the same values), so that none of them is kept live until then.
  /// Default: emitAsyncCopies, nothing left.
  virtual std::function<void()>
  emitAsyncCopiesInLine(llvm::IRBuilder<>& B, llvm::ArrayRef<AsyncCopyArgs> Copies,
                        std::function<std::vector<AsyncCopyArgs>()> Again) {
    emitAsyncCopies(B, Copies);
    return {};
  }
  /// V through a copy the optimizer cannot see through (so a value computed from it is not
  /// merged with the same computation from V). Default: V.
  virtual llvm::Value* opaqueCopy(llvm::IRBuilder<>& B, llvm::Value* V) { return V; }
  virtual void emitAsyncCommit(llvm::IRBuilder<>& B) {}
  virtual void emitAsyncWait(llvm::IRBuilder<>& B, unsigned Pending) {}
  /// The ldmatrix leaf (IntrinsicOp::LdMatrix): the i32 register Dim (two float16) of Count (2 or
  /// 4) 8x8 matrices, transposed or not, whose rows this lane's Ptr (shared memory) starts.
  virtual llvm::Value* emitLdMatrix(llvm::IRBuilder<>& B, llvm::Value* Ptr, unsigned Count,
                                    bool Transposed, unsigned Dim) {
    return nullptr;
  }

  // --- Wave (subgroup) leaves of the native tier (kir::WaveOp; the walk's KernelWave.cpp lowers
  // each wave primitive to one of these). Every lane of a full wave calls each one (Kir.h). The
  // defaults (null) mean the target has no native waves: its kernels need the portable tier. ---

  /// The wave primitives these leaves provide (kir::WaveExpand builds every other wave op from
  /// them before the walk); the default: none.
  virtual kir::WavePrimitives wavePrimitives() const { return {}; }
  /// Lanes per wave (i32), or null: no native waves.
  virtual llvm::Value* waveWidth(llvm::IRBuilder<>& B, const WorkItemContext& W) { return nullptr; }
  /// This work-item's lane in its wave (i32).
  virtual llvm::Value* waveLaneId(llvm::IRBuilder<>& B, const WorkItemContext& W) {
    return nullptr;
  }
  /// Value (i32) as lane SrcLane (i32, already in 0..width-1) holds it.
  virtual llvm::Value* waveShuffle(llvm::IRBuilder<>& B, const WorkItemContext& W,
                                   llvm::Value* Value, llvm::Value* SrcLane) {
    return nullptr;
  }
  /// i64 with bit i set iff Pred (i1) is true on lane i.
  virtual llvm::Value* waveBallot(llvm::IRBuilder<>& B, const WorkItemContext& W,
                                  llvm::Value* Pred) {
    return nullptr;
  }
  /// i1: Pred (i1) is true on every lane (All) or on some lane (!All).
  virtual llvm::Value* waveVote(llvm::IRBuilder<>& B, const WorkItemContext& W, bool All,
                                llvm::Value* Pred) {
    return nullptr;
  }
  /// Lane L of the result is lane Index[L] of Value (both vectors of i32, indices in range), as
  /// one instruction: a wave step's shuffle where waves are vectors of the work-item loop
  /// (kir::WaveSteps). Null: the walk builds it element by element.
  virtual llvm::Value* permuteLanes(llvm::IRBuilder<>& B, llvm::Value* Value, llvm::Value* Index) {
    return nullptr;
  }
  /// Reduction Op (ReduceSum..ReduceXor) of V (KIR type Ty) over the wave as one native
  /// instruction, or null when there is none (wavePrimitives() says which exist).
  virtual llvm::Value* waveReduceNative(llvm::IRBuilder<>& B, const WorkItemContext& W,
                                        kir::WaveOp Op, kir::Type Ty, llvm::Value* V) {
    return nullptr;
  }

  // --- Device-subset hooks for GPU targets (NVPTX); the defaults suit the CPU. ---

  /// Address space of workgroup-shared arrays (generic 0 on CPU; 3 on NVPTX).
  virtual unsigned sharedAddressSpace() const { return 0; }

  /// The kernel's shared array KF.SharedArrays[Index] as the walk indexes it: base pointer (in
  /// sharedAddressSpace()), element count (i64) and the ParamIndex a --check-bounds report names
  /// (SHARED_PARAM_BIT | Index). GPUs: a module-level array (static) or the launch's dynamic
  /// shared bytes / element size (dynamic). Targets that allocate shared memory in their kernel
  /// wrapper (CPU) override this to return what they placed in WorkItemContext. The default
  /// returns an empty BufferValue (no shared memory on this target).
  virtual BufferValue sharedArray(llvm::IRBuilder<>& B, const WorkItemContext& W,
                                  const kir::Function& KF, unsigned Index) {
    return {};
  }

  /// Whether a Barrier is one instruction in the per-work-item body (GPUs: the walk calls
  /// emitBarrier where the Barrier statement is) rather than a split of the body into regions
  /// (CPU work-item loop fission).
  virtual bool hasNativeBarrier() const { return false; }
  /// Whether all work-items of a workgroup run on one thread, one after another (the CPU): then
  /// atomics on its shared arrays need no atomicity, and plain read-modify-writes replace them.
  virtual bool workgroupRunsOnOneThread() const { return false; }

  /// A workgroup barrier that also orders shared and global memory (only when hasNativeBarrier).
  virtual void emitBarrier(llvm::IRBuilder<>& B, const WorkItemContext& W) {}

  // --- Work-item loop fission (targets without a native barrier: the CPU) ---
  // A kernel with Function::HasBarrier is first inlined (KirInliner) so that no helper call holds
  // a barrier; emitKernel then calls EmitBody once per workgroup with Frame.WorkItem the group's
  // context (that of work-item 0) and Frame.GroupSize set; the walk splits the body at barriers
  // into regions and asks emitWorkItemLoop for one loop over the work-items per region.

  /// The code of one region for one work-item: B is inside the work-item loop, Item the
  /// work-item's context, ItemIndex its linear index in the group (i64), Lane its lane (i32, the
  /// index modulo the wave width) where the loop runs waves of lanes, else null, NextItem the
  /// block that goes on to the next work-item (the region ends by branching there).
  using RegionEmitter = llvm::function_ref<void(llvm::IRBuilder<>& B, const WorkItemContext& Item,
                                                llvm::Value* ItemIndex, llvm::Value* Lane,
                                                llvm::BasicBlock* NextItem)>;
  /// One loop over the group's work-items (linear order) running Region. LaneWidth nonzero (a
  /// kernel whose waves are vectors of this loop): where the group's x size is a multiple of it,
  /// the loop runs waves of LaneWidth lanes, an inner loop whose index is the lane, so that
  /// accesses indexed by the lane are contiguous (Region is then emitted twice).
  virtual void emitWorkItemLoop(llvm::IRBuilder<>& B, const WorkItemContext& Group,
                                RegionEmitter Region, unsigned LaneWidth = 0) {}

  /// The context of work-item ItemIndex (i64, linear: x + dimX * (y + dimY * z)) of Group's group.
  /// Only called when !hasNativeBarrier().
  virtual WorkItemContext workItemAt(llvm::IRBuilder<>& B, const WorkItemContext& Group,
                                     llvm::Value* ItemIndex) {
    return Group;
  }
};

} // namespace cajeta::lowering
