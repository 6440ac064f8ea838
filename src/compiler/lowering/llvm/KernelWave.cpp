// KernelLowering's wave (subgroup) operations, native tier: the primitives kir::WaveExpand leaves
// (kir::WavePrimitives; the composites are KIR by then), each one call of the target's wave
// leaves (width, lane id, 32-bit shuffle, ballot, vote, native reduction).
#include "compiler/lowering/llvm/KernelLowering.h"

namespace cajeta::lowering {

using kir::Expr;
using kir::Type;
using kir::WaveOp;

llvm::Value* KernelLowering::emitWave(const Expr* E) {
  WaveOp Op = E->WOp;
  if (Op > WaveOp::ShuffleWord)
    return fail(E, "unknown wave op " + std::to_string(unsigned(Op)));
  std::string Name = std::string("Wave.") + kir::waveOpName(Op);
  unsigned Arity = kir::waveOperandCount(Op);
  if (!checkOps(E, Arity))
    return poisonOf(E->Ty);
  Type Operand = Arity ? E->Ops[0]->Ty : Type::voidTy();
  if (Arity && !kir::waveOperandAllowed(Op, Operand))
    return fail(E, "'" + Name + "' on " + Operand.str());
  if (Arity == 2 && E->Ops[1]->Ty != Type::scalar(kir::ScalarType::U32))
    return fail(E, "the lane or distance of '" + Name + "' must be uint32");
  if (E->Ty != kir::waveResultType(Op, Operand))
    return fail(E, "'" + Name + "' has the wrong result type " + E->Ty.str());

  const WorkItemContext& W = Cur->WorkItem;
  // Without a native width there are no native waves at all: report before emitting anything.
  llvm::Value* Width = Target.waveWidth(B, W);
  if (!Width) {
    if (Error.empty())
      Error = "function '" + Cur->KF->Name + "' at " + std::to_string(E->Loc.Line) + ":" +
              std::to_string(E->Loc.Col) + ": '" + Name +
              "': wave operations need the portable tier on this backend" +
              (Opts.Backend.empty() ? std::string() : " (" + Opts.Backend + ")");
    return poisonOf(E->Ty);
  }
  std::vector<llvm::Value*> Vals;
  for (const Expr* A : E->Ops)
    Vals.push_back(emitExpr(A));
  if (!Error.empty())
    return poisonOf(E->Ty);

  llvm::Value* R = nullptr;
  switch (Op) {
  case WaveOp::Width:
    R = Width;
    break;
  case WaveOp::LaneId:
    R = Target.waveLaneId(B, W);
    break;
  case WaveOp::ShuffleWord:
    R = Target.waveShuffle(B, W, Vals[0], Vals[1]);
    break;
  case WaveOp::Ballot:
    R = Target.waveBallot(B, W, Vals[0]);
    break;
  case WaveOp::All:
  case WaveOp::Any:
    R = Target.waveVote(B, W, Op == WaveOp::All, Vals[0]);
    break;
  case WaveOp::ReduceSum:
  case WaveOp::ReduceMin:
  case WaveOp::ReduceMax:
  case WaveOp::ReduceAnd:
  case WaveOp::ReduceOr:
  case WaveOp::ReduceXor:
    R = Target.waveReduceNative(B, W, Op, Operand, Vals[0]);
    break;
  default: // a composite: kir::WaveExpand (the KIR pipeline) rewrites it before the walk
    break;
  }
  if (!R)
    return fail(E, "'" + Name + "' on " + (Arity ? Operand.str() : std::string("nothing")) +
                       " is not a wave primitive of this target (the KIR pipeline's "
                       "wave-expand pass has not run)");
  return R;
}

} // namespace cajeta::lowering
