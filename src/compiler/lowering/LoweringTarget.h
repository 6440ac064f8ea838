// The verb seam: the leaf operations of the KIR -> LLVM lowering that differ per backend.
//
// KernelLowering is the one shared body walk; a LoweringTarget supplies only what a backend does
// differently: its TargetMachine, the kernel entry and how a body is wrapped (CPU work-item loops
// vs a GPU entry), coordinate reads, bounds-failure reports, math intrinsics (a portable default
// that backends may override), address spaces, and the implementation tier of tiered features.
#pragma once

#include "compiler/kir/Kir.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/IR/IRBuilder.h>

#include <string>
#include <vector>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace cajeta::lowering {

/// How a tiered feature is implemented on a backend (spec: ImplTier).
enum class ImplTier { Native, Portable };

/// Features whose implementation tier differs per backend (wave ops, cooperative matrices...).
enum class Feature { WaveOps, CooperativeMatrix, FloatAtomics };

/// A buffer as the body walk sees it: base pointer, element count (i64) and, in a --check-bounds
/// build, the kernel parameter index it came from (i32) so a failure inside a helper names it.
struct BufferValue {
  llvm::Value* Ptr = nullptr;
  llvm::Value* Length = nullptr;
  llvm::Value* ParamIndex = nullptr;
};

/// One parameter's value: a scalar (Scalar set) or a buffer.
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

  /// --check-bounds: an i1 that is true once the launch has recorded a failure (checked after
  /// helper calls so that a failure inside a helper ends the caller too).
  virtual llvm::Value* emitHasFailed(llvm::IRBuilder<>& B, const WorkItemContext& W) = 0;

  /// A math builtin (Sqrt ... Fma, Abs/Min/Max on any number type) over already-evaluated
  /// operands of KIR type Ty. The portable default uses LLVM intrinsics, and libm where LLVM
  /// has none (the calls stay undefined symbols resolved by the loader). Returns null for an
  /// op/type pair it cannot lower.
  virtual llvm::Value* emitMath(llvm::IRBuilder<>& B, kir::IntrinsicOp Op,
                                llvm::ArrayRef<llvm::Value*> Ops, kir::Type Ty);

  /// The tier a feature gets on this backend; Portable unless a backend has it natively.
  virtual ImplTier tierFor(Feature F) const { return ImplTier::Portable; }

  // TODO(issue 3): barriers. `virtual void emitBarrier(IRBuilder&, const WorkItemContext&)`
  // arrives with Shared memory; on the CPU it splits the work-item loop (loop fission), so the
  // hook will take the body regions rather than emit one instruction.
};

} // namespace cajeta::lowering
