// SpirvEmitter's wave (subgroup) operations, the native tier: Vulkan GroupNonUniform instructions
// with the semantics Kir.h (WaveOp) defines. Shuffles read an always in-range lane and keep the
// own value where Kir.h says so; 32-bit integer reductions and scans are native
// (GroupNonUniformArithmetic); float ones (and 64-bit integer ones) run Kir.h's fixed orders
// over shuffles (a butterfly for reductions, Hillis-Steele for scans), so every backend computes
// the same bits. Values that are not 32 bits wide travel as 32-bit words (bool, int8, int16 and
// float16 widened, 64-bit values as a uvec2), so no shaderSubgroupExtendedTypes is needed.
#include "compiler/lowering/spirv/SpirvEmitter.h"

namespace cajeta::spirv {

using kir::Expr;
using kir::Type;
using kir::WaveOp;

namespace {

bool isReduction(WaveOp Op) {
  return Op == WaveOp::ReduceSum || Op == WaveOp::ReduceMin || Op == WaveOp::ReduceMax ||
         Op == WaveOp::ReduceAnd || Op == WaveOp::ReduceOr || Op == WaveOp::ReduceXor;
}

bool isScan(WaveOp Op) {
  return Op == WaveOp::InclusiveSum || Op == WaveOp::ExclusiveSum;
}

/// The operand types Sema admits: reductions and scans on 32/64-bit integers and floats (And,
/// Or, Xor on integers only); votes on bool; shuffles on any scalar.
bool operandTypeOk(WaveOp Op, const Type& T) {
  if (!T.isScalar() || T.isVoid())
    return false;
  if (Op == WaveOp::Ballot || Op == WaveOp::All || Op == WaveOp::Any)
    return T.isBool();
  bool Wide = !T.isBool() && T.bits() >= 32;
  if (Op == WaveOp::ReduceAnd || Op == WaveOp::ReduceOr || Op == WaveOp::ReduceXor)
    return Wide && T.isInteger();
  if (isReduction(Op) || isScan(Op))
    return Wide && (T.isInteger() || T.isFloat());
  return true;
}

Type resultType(WaveOp Op, const Type& Operand) {
  if (Op == WaveOp::Width || Op == WaveOp::LaneId)
    return Type::scalar(kir::ScalarType::U32);
  if (Op == WaveOp::Ballot)
    return Type::scalar(kir::ScalarType::U64);
  if (Op == WaveOp::All || Op == WaveOp::Any)
    return Type::scalar(kir::ScalarType::Bool);
  return Operand;
}

} // namespace

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

uint32_t SpirvEmitter::wordType(Type T) {
  if (T.bits() == 64 && !T.isBool())
    return Mb.typeVector(u32(), 2);
  if (T.isFloat() && T.bits() == 32)
    return Mb.typeFloat(32);
  return u32();
}

uint32_t SpirvEmitter::viaWords(Type T, uint32_t V, const std::function<uint32_t(uint32_t)>& F) {
  uint32_t Ty = valueType(T);
  if (T.isBool()) {
    uint32_t W = op(spv::Op::OpSelect, u32(), {V, Mb.constU32(1), Mb.constU32(0)});
    return op(spv::Op::OpINotEqual, boolTy(), {F(W), Mb.constU32(0)});
  }
  if (T.bits() == 32) // int32, uint32, float32: one word as it is
    return F(V);
  if (T.bits() == 64) {
    uint32_t U2 = Mb.typeVector(u32(), 2);
    return op(spv::Op::OpBitcast, Ty, {F(op(spv::Op::OpBitcast, U2, {V}))});
  }
  // 8 and 16 bits: the bits zero-extended to a word (float16 through its int16 bits).
  uint32_t IT = Mb.typeInt(T.bits());
  uint32_t Bits = T.isFloat() ? op(spv::Op::OpBitcast, IT, {V}) : V;
  uint32_t Back = op(spv::Op::OpUConvert, IT, {F(op(spv::Op::OpUConvert, u32(), {Bits}))});
  return T.isFloat() ? op(spv::Op::OpBitcast, Ty, {Back}) : Back;
}

uint32_t SpirvEmitter::shuffleFrom(Type T, uint32_t V, uint32_t Source) {
  Mb.addCapability(spv::Capability::GroupNonUniformShuffle);
  uint32_t Scope = subgroupScope();
  return viaWords(T, V, [&](uint32_t W) {
    return op(spv::Op::OpGroupNonUniformShuffle, wordType(T), {Scope, W, Source});
  });
}

uint32_t SpirvEmitter::functionVar(uint32_t Type) {
  uint32_t Ptr = Mb.typePointer(spv::StorageClass::Function, Type);
  uint32_t Id = Mb.newId();
  SpirvModuleBuilder::inst(Cur->Vars, spv::Op::OpVariable,
                           {Ptr, Id, uint32_t(spv::StorageClass::Function)});
  return Id;
}

void SpirvEmitter::waveSteps(const std::function<void(uint32_t)>& Body) {
  // for (m = 1; m < width; m <<= 1) Body(m): wave-uniform trip count, so every lane takes part
  // in each step's shuffle.
  uint32_t Width = waveWidth();
  uint32_t Step = functionVar(u32());
  opVoid(spv::Op::OpStore, {Step, Mb.constU32(1)});
  uint32_t Header = Mb.newId(), Test = Mb.newId(), Loop = Mb.newId(), Continue = Mb.newId(),
           Merge = Mb.newId();
  branch(Header);
  beginBlock(Header);
  opVoid(spv::Op::OpLoopMerge, {Merge, Continue, 0});
  branch(Test);
  beginBlock(Test);
  uint32_t M = op(spv::Op::OpLoad, u32(), {Step});
  condBranch(op(spv::Op::OpULessThan, boolTy(), {M, Width}), Loop, Merge);
  beginBlock(Loop);
  Body(M);
  branch(Continue);
  beginBlock(Continue);
  opVoid(spv::Op::OpStore, {Step, op(spv::Op::OpShiftLeftLogical, u32(), {M, Mb.constU32(1)})});
  branch(Header);
  beginBlock(Merge);
}

uint32_t SpirvEmitter::waveCombine(WaveOp Op, Type T, uint32_t A, uint32_t B) {
  uint32_t Ty = valueType(T);
  switch (Op) {
  case WaveOp::ReduceSum:
  case WaveOp::InclusiveSum:
  case WaveOp::ExclusiveSum:
    return arith(T.isFloat() ? spv::Op::OpFAdd : spv::Op::OpIAdd, Ty, A, B);
  case WaveOp::ReduceMin:
  case WaveOp::ReduceMax: {
    bool IsMin = Op == WaveOp::ReduceMin;
    if (T.isFloat()) // Math.min/max: NaN wins, -0 < +0
      return floatMinMax(IsMin, T, A, B);
    spv::Op Less = T.isSigned() ? spv::Op::OpSLessThan : spv::Op::OpULessThan;
    uint32_t ALess = op(Less, boolTy(), {A, B});
    return op(spv::Op::OpSelect, Ty, {ALess, IsMin ? A : B, IsMin ? B : A});
  }
  case WaveOp::ReduceAnd:
    return op(spv::Op::OpBitwiseAnd, Ty, {A, B});
  case WaveOp::ReduceOr:
    return op(spv::Op::OpBitwiseOr, Ty, {A, B});
  case WaveOp::ReduceXor:
    return op(spv::Op::OpBitwiseXor, Ty, {A, B});
  default:
    return A;
  }
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

uint32_t SpirvEmitter::butterflyReduce(WaveOp Op, Type T, uint32_t V) {
  // Kir.h's order: for m = 1, 2, ..., width/2: v = op(v, v of lane ^ m). lane ^ m < width for
  // m < width (a power of two), so the source is always in range.
  uint32_t Acc = functionVar(valueType(T));
  opVoid(spv::Op::OpStore, {Acc, V});
  uint32_t Lane = waveLane();
  waveSteps([&](uint32_t M) {
    uint32_t Now = op(spv::Op::OpLoad, valueType(T), {Acc});
    uint32_t Other = shuffleFrom(T, Now, op(spv::Op::OpBitwiseXor, u32(), {Lane, M}));
    opVoid(spv::Op::OpStore, {Acc, waveCombine(Op, T, Now, Other)});
  });
  return op(spv::Op::OpLoad, valueType(T), {Acc});
}

uint32_t SpirvEmitter::shuffleUpOrOwn(Type T, uint32_t V, uint32_t Lane, uint32_t Delta,
                                      uint32_t& InRange) {
  // The value of lane - delta where lane >= delta; the shuffle reads the own lane elsewhere.
  InRange = op(spv::Op::OpUGreaterThanEqual, boolTy(), {Lane, Delta});
  uint32_t Src =
      op(spv::Op::OpSelect, u32(), {InRange, op(spv::Op::OpISub, u32(), {Lane, Delta}), Lane});
  return shuffleFrom(T, V, Src);
}

uint32_t SpirvEmitter::scanInclusive(Type T, uint32_t V) {
  // Kir.h's order (Hillis-Steele): for d = 1, 2, ..., width/2: if (lane >= d) v = (v of
  // lane - d) + v.
  uint32_t Ty = valueType(T);
  uint32_t Acc = functionVar(Ty);
  opVoid(spv::Op::OpStore, {Acc, V});
  uint32_t Lane = waveLane();
  waveSteps([&](uint32_t D) {
    uint32_t Now = op(spv::Op::OpLoad, Ty, {Acc});
    uint32_t InRange = 0;
    uint32_t Up = shuffleUpOrOwn(T, Now, Lane, D, InRange);
    uint32_t Sum = waveCombine(WaveOp::InclusiveSum, T, Up, Now);
    opVoid(spv::Op::OpStore, {Acc, op(spv::Op::OpSelect, Ty, {InRange, Sum, Now})});
  });
  return op(spv::Op::OpLoad, Ty, {Acc});
}

uint32_t SpirvEmitter::lowerWave(const Expr* E) {
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
  if ((Arity && !operandTypeOk(Op, T)) || E->Ty != resultType(Op, T) ||
      (Arity == 2 && E->Ops[1]->Ty != Type::scalar(kir::ScalarType::U32))) {
    fail(E->Loc, std::string("malformed KIR: 'Wave.") + kir::waveOpName(Op) +
                     "' on operands or with a result of the wrong type");
    return 0;
  }
  if (Op == WaveOp::Width)
    return waveWidth();
  if (Op == WaveOp::LaneId)
    return waveLane();
  uint32_t V = lowerExpr(E->Ops[0]);
  uint32_t Arg = Arity == 2 ? lowerExpr(E->Ops[1]) : 0;
  if (!Error.empty())
    return 0;
  uint32_t Ty = valueType(T);
  uint32_t Bl = boolTy();
  switch (Op) {
  case WaveOp::Shuffle: // lane & (width - 1)
    return shuffleFrom(T, V,
                       op(spv::Op::OpBitwiseAnd, u32(),
                          {Arg, op(spv::Op::OpISub, u32(), {waveWidth(), Mb.constU32(1)})}));
  case WaveOp::Rotate: { // (lane + delta) & (width - 1)
    uint32_t Sum = op(spv::Op::OpIAdd, u32(), {waveLane(), Arg});
    return shuffleFrom(T, V,
                       op(spv::Op::OpBitwiseAnd, u32(),
                          {Sum, op(spv::Op::OpISub, u32(), {waveWidth(), Mb.constU32(1)})}));
  }
  case WaveOp::ShuffleUp: {
    uint32_t InRange = 0;
    uint32_t Up = shuffleUpOrOwn(T, V, waveLane(), Arg, InRange);
    return op(spv::Op::OpSelect, Ty, {InRange, Up, V});
  }
  case WaveOp::ShuffleDown: {
    // lane + delta < width without overflow: delta < width - lane (lane < width).
    uint32_t Lane = waveLane();
    uint32_t Room = op(spv::Op::OpISub, u32(), {waveWidth(), Lane});
    uint32_t InRange = op(spv::Op::OpULessThan, Bl, {Arg, Room});
    uint32_t Src =
        op(spv::Op::OpSelect, u32(), {InRange, op(spv::Op::OpIAdd, u32(), {Lane, Arg}), Lane});
    return op(spv::Op::OpSelect, Ty, {InRange, shuffleFrom(T, V, Src), V});
  }
  case WaveOp::ShuffleXor: {
    uint32_t Lane = waveLane();
    uint32_t Other = op(spv::Op::OpBitwiseXor, u32(), {Lane, Arg});
    uint32_t InRange = op(spv::Op::OpULessThan, Bl, {Other, waveWidth()});
    uint32_t Src = op(spv::Op::OpSelect, u32(), {InRange, Other, Lane});
    return op(spv::Op::OpSelect, Ty, {InRange, shuffleFrom(T, V, Src), V});
  }
  case WaveOp::BroadcastFirst: {
    // Every lane is active, so the first active one is lane 0.
    Mb.addCapability(spv::Capability::GroupNonUniformBallot);
    uint32_t Scope = subgroupScope();
    return viaWords(T, V, [&](uint32_t W) {
      return op(spv::Op::OpGroupNonUniformBroadcastFirst, wordType(T), {Scope, W});
    });
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
    return op(Op == WaveOp::All ? spv::Op::OpGroupNonUniformAll : spv::Op::OpGroupNonUniformAny, Bl,
              {subgroupScope(), V});
  default:
    break;
  }
  bool Native = T.isInteger() && T.bits() == 32;
  if (isReduction(Op))
    return Native ? nativeArithmetic(Op, T, V) : butterflyReduce(Op, T, V);
  if (Native)
    return nativeArithmetic(Op, T, V);
  uint32_t Inclusive = scanInclusive(T, V);
  if (Op == WaveOp::InclusiveSum)
    return Inclusive;
  // Exclusive: the inclusive sum of lane - 1, 0 at lane 0.
  uint32_t InRange = 0;
  uint32_t Prev = shuffleUpOrOwn(T, Inclusive, waveLane(), Mb.constU32(1), InRange);
  return op(spv::Op::OpSelect, Ty, {InRange, Prev, zeroOf(T)});
}

} // namespace cajeta::spirv
