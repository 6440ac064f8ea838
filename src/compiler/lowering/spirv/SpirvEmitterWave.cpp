// SpirvEmitter's wave (subgroup) operations, the native tier: the primitives kir::WaveExpand
// leaves (the composites are KIR by then, Kir.h's orders over 32-bit shuffles) as Vulkan
// GroupNonUniform instructions: the subgroup size and lane, the shuffle of a uint32 word,
// ballot, votes, broadcast of a word from the first lane, and the 32-bit integer reductions and
// scans (GroupNonUniformArithmetic, whose order cannot change an integer result). Subgroup
// instructions see only 32-bit words and bools, so no shaderSubgroupExtendedTypes is needed.
#include "compiler/lowering/spirv/SpirvEmitter.h"

namespace cajeta::lowering::spirv {

using kir::Expr;
using kir::Type;
using kir::WaveOp;

uint32_t SpirvEmitter::scalarBuiltin(spv::BuiltIn B) {
  if (auto It = Builtins.find(B); It != Builtins.end())
    return It->second;
  uint32_t Var =
      Mb.globalVariable(Mb.typePointer(spv::StorageClass::Input, u32()), spv::StorageClass::Input);
  Mb.decorate(Var, spv::Decoration::BuiltIn, {uint32_t(B)});
  Builtins[B] = Var; // listed in the entry point's interface
  return Var;
}

uint32_t SpirvEmitter::subgroupScope() {
  Mb.addCapability(spv::Capability::GroupNonUniform);
  return Mb.constU32(uint32_t(spv::Scope::Subgroup));
}

uint32_t SpirvEmitter::waveWidth() {
  Mb.addCapability(spv::Capability::GroupNonUniform);
  return op(spv::Op::OpLoad, u32(), {scalarBuiltin(spv::BuiltIn::SubgroupSize)});
}

uint32_t SpirvEmitter::waveLane() {
  Mb.addCapability(spv::Capability::GroupNonUniform);
  return op(spv::Op::OpLoad, u32(), {scalarBuiltin(spv::BuiltIn::SubgroupLocalInvocationId)});
}

uint32_t SpirvEmitter::nativeArithmetic(WaveOp Op, Type T, uint32_t V) {
  // 32-bit integers: the result does not depend on the order, so the driver's is fine.
  Mb.addCapability(spv::Capability::GroupNonUniformArithmetic);
  uint32_t Scope = subgroupScope();
  bool S = T.isSigned();
  spv::Op Inst = spv::Op::OpGroupNonUniformIAdd;
  switch (Op) {
  case WaveOp::ReduceMin:
    Inst = S ? spv::Op::OpGroupNonUniformSMin : spv::Op::OpGroupNonUniformUMin;
    break;
  case WaveOp::ReduceMax:
    Inst = S ? spv::Op::OpGroupNonUniformSMax : spv::Op::OpGroupNonUniformUMax;
    break;
  case WaveOp::ReduceAnd:
    Inst = spv::Op::OpGroupNonUniformBitwiseAnd;
    break;
  case WaveOp::ReduceOr:
    Inst = spv::Op::OpGroupNonUniformBitwiseOr;
    break;
  case WaveOp::ReduceXor:
    Inst = spv::Op::OpGroupNonUniformBitwiseXor;
    break;
  default:
    break;
  }
  spv::GroupOperation G = Op == WaveOp::InclusiveSum   ? spv::GroupOperation::InclusiveScan
                          : Op == WaveOp::ExclusiveSum ? spv::GroupOperation::ExclusiveScan
                                                       : spv::GroupOperation::Reduce;
  return op(Inst, valueType(T), {Scope, uint32_t(G), V});
}

uint32_t SpirvEmitter::emitWave(const Expr* E) {
  WaveOp Op = E->WOp;
  unsigned Arity = kir::waveOperandCount(Op);
  if (E->Ops.size() != Arity) {
    fail(E->Loc, std::string("malformed KIR: 'Wave.") + kir::waveOpName(Op) + "' with " +
                     std::to_string(E->Ops.size()) + " operands");
    return 0;
  }
  for (const Expr* A : E->Ops)
    if (!A) {
      fail(E->Loc, "malformed KIR: null operand of a wave op");
      return 0;
    }
  Type T = Arity ? E->Ops[0]->Ty : Type::scalar(kir::ScalarType::U32);
  if ((Arity && !kir::waveOperandAllowed(Op, T)) || E->Ty != kir::waveResultType(Op, T) ||
      (Arity == 2 && E->Ops[1]->Ty != Type::scalar(kir::ScalarType::U32))) {
    fail(E->Loc, std::string("malformed KIR: 'Wave.") + kir::waveOpName(Op) +
                     "' on operands or with a result of the wrong type");
    return 0;
  }
  if (Op == WaveOp::Width)
    return waveWidth();
  if (Op == WaveOp::LaneId)
    return waveLane();
  uint32_t V = emitExpr(E->Ops[0]);
  uint32_t Arg = Arity == 2 ? emitExpr(E->Ops[1]) : 0;
  if (!Error.empty())
    return 0;
  bool Word = T == Type::scalar(kir::ScalarType::U32);
  bool Int32 = T.isInteger() && T.bits() == 32;
  switch (Op) {
  case WaveOp::ShuffleWord: { // the lane is in range (WaveExpand)
    Mb.addCapability(spv::Capability::GroupNonUniformShuffle);
    uint32_t Scope = subgroupScope();
    return op(spv::Op::OpGroupNonUniformShuffle, u32(), {Scope, V, Arg});
  }
  case WaveOp::BroadcastFirst:
    if (!Word)
      break;
    {
      // Every lane is active, so the first active one is lane 0.
      Mb.addCapability(spv::Capability::GroupNonUniformBallot);
      uint32_t Scope = subgroupScope();
      return op(spv::Op::OpGroupNonUniformBroadcastFirst, u32(), {Scope, V});
    }
  case WaveOp::Ballot: {
    Mb.addCapability(spv::Capability::GroupNonUniformBallot);
    uint32_t Scope = subgroupScope();
    uint32_t Mask = op(spv::Op::OpGroupNonUniformBallot, Mb.typeVector(u32(), 4), {Scope, V});
    uint32_t U64 = Mb.typeInt(64);
    uint32_t Lo = op(spv::Op::OpUConvert, U64, {op(spv::Op::OpCompositeExtract, u32(), {Mask, 0})});
    uint32_t Hi = op(spv::Op::OpUConvert, U64, {op(spv::Op::OpCompositeExtract, u32(), {Mask, 1})});
    return op(spv::Op::OpBitwiseOr, U64,
              {Lo, op(spv::Op::OpShiftLeftLogical, U64, {Hi, Mb.constInt(64, 32)})});
  }
  case WaveOp::All:
  case WaveOp::Any:
    Mb.addCapability(spv::Capability::GroupNonUniformVote);
    return op(Op == WaveOp::All ? spv::Op::OpGroupNonUniformAll : spv::Op::OpGroupNonUniformAny,
              boolTy(), {subgroupScope(), V});
  case WaveOp::ReduceSum:
  case WaveOp::ReduceMin:
  case WaveOp::ReduceMax:
  case WaveOp::ReduceAnd:
  case WaveOp::ReduceOr:
  case WaveOp::ReduceXor:
  case WaveOp::InclusiveSum:
  case WaveOp::ExclusiveSum:
    if (Int32)
      return nativeArithmetic(Op, T, V);
    break;
  default:
    break;
  }
  // A composite: kir::WaveExpand (the KIR pipeline) rewrites it before the emitter.
  fail(E->Loc, std::string("'Wave.") + kir::waveOpName(Op) + "' on " + T.str() +
                   " is not a wave primitive of SPIR-V (the KIR pipeline's wave-expand pass has "
                   "not run)");
  return 0;
}

} // namespace cajeta::lowering::spirv
