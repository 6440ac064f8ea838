// SpirvEmitter's expressions: operators (wrapping integers, no contraction), lazy && || ?:,
// calls and function-tag dispatch, geometry and math (GLSL.std.450). Integer division, shifts,
// float -> int casts, float %, Math.min/max on floats and float64 -> float16 arrive legalized by
// the KIR polyfill (kir/transforms/Polyfill), as raw primitives this file maps onto single ops.
#include "compiler/lowering/spirv/SpirvEmitter.h"

#include "bundle/VulkanKernelAbi.h"

#include <spirv/unified1/GLSL.std.450.h>

#include <cassert>
#include <cmath>

namespace cajeta::lowering::spirv {

using kir::BinaryOp;
using kir::Expr;
using kir::IntrinsicOp;
using kir::Type;
using kir::UnaryOp;

uint32_t SpirvEmitter::emitExpr(const Expr* E) {
  // The module is verified KIR (kir::runPipeline checks it): operand counts, types, indices
  // and where arrays may appear are asserted, not reported.
  assert(E && "verified KIR: no null expression");
  if (!Error.empty())
    return 0;
  switch (E->K) {
  case Expr::Kind::Const:
    if (E->Ty.isBool())
      return Mb.constBool(E->IntValue != 0);
    if (E->Ty.isFloat())
      return Mb.constFloat(E->Ty.bits(), E->FloatValue);
    return Mb.constInt(E->Ty.bits(), E->IntValue);
  case Expr::Kind::Local:
    assert(E->Index < Cur->Locals.size() && E->Ty == Cur->KF->Locals[E->Index].Ty &&
           "verified KIR: local reads");
    return op(spv::Op::OpLoad, valueType(E->Ty), {Cur->Locals[E->Index]});
  case Expr::Kind::Param:
    assert(E->Index < Cur->Params.size() && E->Ty.isScalar() &&
           E->Ty == Cur->KF->Params[E->Index].Ty && "verified KIR: scalar parameter reads");
    return Cur->Params[E->Index];
  case Expr::Kind::Unary:
    return emitUnary(E);
  case Expr::Kind::Binary:
    return emitBinary(E);
  case Expr::Kind::Cast:
    return emitCast(E);
  case Expr::Kind::Select:
    return emitSelect(E);
  case Expr::Kind::Load:
    return emitLoad(E);
  case Expr::Kind::Store:
    return emitStore(E);
  case Expr::Kind::Assign: {
    assert(E->Ops.size() == 1 && E->Index < Cur->Locals.size() &&
           E->Ops[0]->Ty == Cur->KF->Locals[E->Index].Ty && "verified KIR: assignment typing");
    uint32_t V = emitExpr(E->Ops[0]);
    if (Error.empty())
      opVoid(spv::Op::OpStore, {Cur->Locals[E->Index], V});
    return V;
  }
  case Expr::Kind::Seq: {
    uint32_t Last = 0;
    for (const Expr* Op : E->Ops)
      Last = emitExpr(Op);
    return Last;
  }
  case Expr::Kind::Call:
    return emitCallExpr(E);
  case Expr::Kind::Intrinsic:
    return emitIntrinsic(E);
  case Expr::Kind::SharedRef:
  case Expr::Kind::PrivateRef:
    assert(false && "verified KIR: an array is only the array operand of an access");
    return 0;
  case Expr::Kind::Atomic:
    return emitAtomic(E);
  case Expr::Kind::Field:
    return podField(E);
  case Expr::Kind::Dispatch:
    return emitDispatch(E);
  case Expr::Kind::Wave:
    return emitWave(E);
  case Expr::Kind::Tile:
    assert(false && "the pipeline's tile-lowering pass leaves no tile op");
    return 0;
  case Expr::Kind::RayQuery: // left by the pipeline only for the native form
    return emitRayQuery(E);
  case Expr::Kind::Host:
  case Expr::Kind::StringConst:
  case Expr::Kind::Global:
  case Expr::Kind::GlobalAssign:
    assert(false && "verified KIR: host operations only in host modules");
    return 0;
  }
  assert(false && "verified KIR: unknown expression kind");
  return 0;
}

uint32_t SpirvEmitter::arith(spv::Op Op, uint32_t Type, uint32_t A, uint32_t B) {
  uint32_t R = op(Op, Type, {A, B});
  // No contraction unless @FastMath: Vulkan may otherwise fuse a * b + c.
  bool IsFloatArith = Op == spv::Op::OpFAdd || Op == spv::Op::OpFSub || Op == spv::Op::OpFMul ||
                      Op == spv::Op::OpFDiv || Op == spv::Op::OpFRem;
  if (IsFloatArith && !Cur->KF->FastMath)
    Mb.decorate(R, spv::Decoration::NoContraction);
  return R;
}

uint32_t SpirvEmitter::emitUnary(const Expr* E) {
  assert(E->Ops.size() == 1 && E->Ops[0]->Ty == E->Ty && "verified KIR: unary typing");
  uint32_t V = emitExpr(E->Ops[0]);
  uint32_t T = valueType(E->Ty);
  switch (E->UOp) {
  case UnaryOp::Neg:
    if (E->Ty.isFloat())
      return op(spv::Op::OpFNegate, T, {V});
    if (E->Ty.isInteger())
      return op(spv::Op::OpSNegate, T, {V});
    break;
  case UnaryOp::Not:
    if (E->Ty.isBool())
      return op(spv::Op::OpLogicalNot, T, {V});
    break;
  case UnaryOp::BitNot:
    if (E->Ty.isInteger())
      return op(spv::Op::OpNot, T, {V});
    break;
  }
  assert(false && "verified KIR: a unary operator on a type that lacks it");
  return 0;
}

static bool isComparison(BinaryOp Op) {
  return Op == BinaryOp::Eq || Op == BinaryOp::Ne || Op == BinaryOp::Lt || Op == BinaryOp::Le ||
         Op == BinaryOp::Gt || Op == BinaryOp::Ge;
}

uint32_t SpirvEmitter::emitBinary(const Expr* E) {
  assert(E->Ops.size() == 2 && "verified KIR: binary operand count");
  if (E->BOp == BinaryOp::LogicalAnd || E->BOp == BinaryOp::LogicalOr)
    return emitLogical(E);
  Type OpTy = E->Ops[0]->Ty;
  assert(OpTy == E->Ops[1]->Ty && OpTy.isScalar() &&
         (isComparison(E->BOp) ? E->Ty.isBool() : E->Ty == OpTy) && "verified KIR: binary typing");
  uint32_t L = emitExpr(E->Ops[0]);
  uint32_t R = emitExpr(E->Ops[1]);
  if (!Error.empty())
    return 0;
  if (isComparison(E->BOp))
    return emitCompare(E, L, R);
  uint32_t T = valueType(OpTy);
  bool F = OpTy.isFloat(), I = OpTy.isInteger(), B = OpTy.isBool();
  switch (E->BOp) {
  case BinaryOp::Add:
    if (F || I)
      return arith(F ? spv::Op::OpFAdd : spv::Op::OpIAdd, T, L, R);
    break;
  case BinaryOp::Sub:
    if (F || I)
      return arith(F ? spv::Op::OpFSub : spv::Op::OpISub, T, L, R);
    break;
  case BinaryOp::Mul:
    if (F || I)
      return arith(F ? spv::Op::OpFMul : spv::Op::OpIMul, T, L, R);
    break;
  // Integer / % << >> >>> arrive as DivTrunc, RemTrunc, ShiftLeft, ShiftRight, and float % as a
  // call of the polyfill's fmod helper (OpFRem is not exact on Vulkan).
  case BinaryOp::Div:
    if (F)
      return arith(spv::Op::OpFDiv, T, L, R);
    break;
  case BinaryOp::And:
    if (I || B)
      return op(B ? spv::Op::OpLogicalAnd : spv::Op::OpBitwiseAnd, T, {L, R});
    break;
  case BinaryOp::Or:
    if (I || B)
      return op(B ? spv::Op::OpLogicalOr : spv::Op::OpBitwiseOr, T, {L, R});
    break;
  case BinaryOp::Xor:
    if (I || B)
      return op(B ? spv::Op::OpLogicalNotEqual : spv::Op::OpBitwiseXor, T, {L, R});
    break;
  default:
    break;
  }
  assert(false && "verified KIR: a binary operator on a type that lacks it");
  return 0;
}

uint32_t SpirvEmitter::emitCompare(const Expr* E, uint32_t L, uint32_t R) {
  Type OpTy = E->Ops[0]->Ty;
  unsigned Idx = unsigned(E->BOp) - unsigned(BinaryOp::Eq);
  if (OpTy.isFloat()) {
    // Ordered: NaN compares false, except != which is true.
    static const spv::Op P[] = {spv::Op::OpFOrdEqual,       spv::Op::OpFUnordNotEqual,
                                spv::Op::OpFOrdLessThan,    spv::Op::OpFOrdLessThanEqual,
                                spv::Op::OpFOrdGreaterThan, spv::Op::OpFOrdGreaterThanEqual};
    return op(P[Idx], boolTy(), {L, R});
  }
  if (OpTy.isBool()) {
    if (E->BOp == BinaryOp::Eq || E->BOp == BinaryOp::Ne)
      return op(E->BOp == BinaryOp::Eq ? spv::Op::OpLogicalEqual : spv::Op::OpLogicalNotEqual,
                boolTy(), {L, R});
    // Ordered comparison of bools: compare 0/1.
    L = convert(L, OpTy, Type::scalar(kir::ScalarType::U32));
    R = convert(R, OpTy, Type::scalar(kir::ScalarType::U32));
    OpTy = Type::scalar(kir::ScalarType::U32);
  }
  static const spv::Op S[] = {spv::Op::OpIEqual,       spv::Op::OpINotEqual,
                              spv::Op::OpSLessThan,    spv::Op::OpSLessThanEqual,
                              spv::Op::OpSGreaterThan, spv::Op::OpSGreaterThanEqual};
  static const spv::Op U[] = {spv::Op::OpIEqual,       spv::Op::OpINotEqual,
                              spv::Op::OpULessThan,    spv::Op::OpULessThanEqual,
                              spv::Op::OpUGreaterThan, spv::Op::OpUGreaterThanEqual};
  return op(OpTy.isSigned() ? S[Idx] : U[Idx], boolTy(), {L, R});
}

uint32_t SpirvEmitter::emitLogical(const Expr* E) {
  assert(E->Ty.isBool() && E->Ops[0]->Ty.isBool() && E->Ops[1]->Ty.isBool() &&
         "verified KIR: logical operators on bool");
  bool IsAnd = E->BOp == BinaryOp::LogicalAnd;
  uint32_t L = emitExpr(E->Ops[0]);
  uint32_t LEnd = curLabel();
  uint32_t Rhs = Mb.newId(), Merge = Mb.newId();
  opVoid(spv::Op::OpSelectionMerge, {Merge, 0});
  if (IsAnd)
    condBranch(L, Rhs, Merge);
  else
    condBranch(L, Merge, Rhs);
  beginBlock(Rhs);
  uint32_t R = emitExpr(E->Ops[1]);
  uint32_t REnd = curLabel();
  branch(Merge);
  beginBlock(Merge);
  return op(spv::Op::OpPhi, boolTy(), {Mb.constBool(!IsAnd), LEnd, R, REnd});
}

uint32_t SpirvEmitter::emitCast(const Expr* E) {
  if (E->Ops.size() != 1 || !E->Ops[0] || !E->Ops[0]->Ty.isScalar() || !E->Ty.isScalar()) {
    fail(E->Loc, "malformed KIR: cast between non-scalar types");
    return 0;
  }
  uint32_t V = emitExpr(E->Ops[0]);
  return Error.empty() ? convert(V, E->Ops[0]->Ty, E->Ty) : 0;
}

uint32_t SpirvEmitter::convert(uint32_t V, Type From, Type To) {
  uint32_t T = valueType(To);
  if (From == To)
    return V;
  if (To.isBool()) { // number -> bool: != 0 (a NaN is != 0)
    if (From.isFloat())
      return op(spv::Op::OpFUnordNotEqual, T, {V, zeroOf(From)});
    return op(spv::Op::OpINotEqual, T, {V, zeroOf(From)});
  }
  if (From.isBool()) { // bool -> number: 0/1
    uint32_t One = To.isFloat() ? Mb.constFloat(To.bits(), 1.0) : intConst(To, 1);
    return op(spv::Op::OpSelect, T, {V, One, zeroOf(To)});
  }
  if (From.isInteger() && To.isInteger()) {
    if (From.bits() == To.bits()) // signless types: the same SPIR-V type
      return V;
    if (To.bits() < From.bits() || !From.isSigned())
      return op(spv::Op::OpUConvert, T, {V});
    return op(spv::Op::OpSConvert, T, {V});
  }
  if (From.isInteger()) // int -> float: round to nearest
    return op(From.isSigned() ? spv::Op::OpConvertSToF : spv::Op::OpConvertUToF, T, {V});
  if (To.isFloat())
    return op(spv::Op::OpFConvert, T, {V});
  // float -> int saturates (Kir.h), which OpConvertFToS/U do not promise: the polyfill spells it
  // out over FToIUnchecked.
  fail({}, "internal error: a float -> int cast reached the SPIR-V emitter unlegalized");
  return 0;
}

/// Whether E may be evaluated although its Select did not choose it: no effect, no trap or
/// undefined behaviour, and cheap (at most Budget nodes). The polyfill's selects are such.
static bool speculatable(const Expr* E, int& Budget) {
  if (!E || --Budget < 0)
    return false;
  switch (E->K) {
  case Expr::Kind::Const:
  case Expr::Kind::Local:
  case Expr::Kind::Param:
  case Expr::Kind::Field:
    return E->Ty.isScalar();
  case Expr::Kind::Unary:
  case Expr::Kind::Select:
    break;
  case Expr::Kind::Binary:
    if (E->BOp == BinaryOp::Div || E->BOp == BinaryOp::Rem || E->BOp == BinaryOp::Shl ||
        E->BOp == BinaryOp::Shr || E->BOp == BinaryOp::UShr || E->BOp == BinaryOp::LogicalAnd ||
        E->BOp == BinaryOp::LogicalOr)
      return false;
    break;
  case Expr::Kind::Cast: // not float -> int (undefined out of range)
    if (E->Ops.size() != 1 || !E->Ops[0] || (E->Ops[0]->Ty.isFloat() && E->Ty.isInteger()))
      return false;
    break;
  case Expr::Kind::Intrinsic:
    if (E->IOp != IntrinsicOp::Bitcast)
      return false;
    break;
  default:
    return false;
  }
  for (const Expr* O : E->Ops)
    if (!speculatable(O, Budget))
      return false;
  return true;
}

uint32_t SpirvEmitter::emitSelect(const Expr* E) {
  assert(E->Ops.size() == 3 && E->Ops[0]->Ty.isBool() && E->Ops[1]->Ty == E->Ty &&
         E->Ops[2]->Ty == E->Ty && "verified KIR: select typing");
  uint32_t C = emitExpr(E->Ops[0]);
  int Budget = 16;
  if (E->Ty.isScalar() && speculatable(E->Ops[1], Budget) && speculatable(E->Ops[2], Budget)) {
    // Both arms are cheap and harmless: evaluate both and pick, without a branch.
    uint32_t TV = emitExpr(E->Ops[1]);
    uint32_t EV = emitExpr(E->Ops[2]);
    if (!Error.empty())
      return 0;
    return op(spv::Op::OpSelect, valueType(E->Ty), {C, TV, EV});
  }
  uint32_t Then = Mb.newId(), Else = Mb.newId(), Merge = Mb.newId();
  opVoid(spv::Op::OpSelectionMerge, {Merge, 0});
  condBranch(C, Then, Else);
  beginBlock(Then); // only the chosen arm is evaluated
  uint32_t TV = emitExpr(E->Ops[1]);
  uint32_t TEnd = curLabel();
  branch(Merge);
  beginBlock(Else);
  uint32_t EV = emitExpr(E->Ops[2]);
  uint32_t EEnd = curLabel();
  branch(Merge);
  beginBlock(Merge);
  if (E->Ty.isVoid() || !Error.empty())
    return 0;
  return op(spv::Op::OpPhi, valueType(E->Ty), {TV, TEnd, EV, EEnd});
}

// ---------------------------------------------------------------------------------------------
// Calls

bool SpirvEmitter::callArgs(const Expr* E, uint32_t Callee, const std::vector<const Expr*>& Args,
                            std::vector<uint32_t>& Bindings, Words& Values) {
  // Verified KIR: Callee is a helper available wherever its (vulkan) caller is, called with
  // arguments of its parameters' types; buffer and POD arguments are the caller's parameters.
  assert(Callee < M.Functions.size() && !M.Functions[Callee]->IsKernel &&
         kir::availableOn(*M.Functions[Callee], "vulkan") &&
         Args.size() == M.Functions[Callee]->Params.size() &&
         E->Ty == M.Functions[Callee]->ReturnType && "verified KIR: call signature");
  (void)E;
  (void)Callee;
  for (size_t I = 0; I < Args.size(); ++I) {
    const Expr* A = Args[I];
    assert(A->Ty == M.Functions[Callee]->Params[I].Ty && "verified KIR: argument types");
    if (A->Ty.isScalar()) {
      Values.push_back(emitExpr(A));
      continue;
    }
    // Buffers and PODs are module variables: the callee is specialised for the binding.
    assert(A->K == Expr::Kind::Param && A->Index < Cur->Params.size() &&
           "verified KIR: buffer and POD arguments are parameters");
    Bindings.push_back(Cur->Params[A->Index]);
  }
  return Error.empty();
}

uint32_t SpirvEmitter::emitCall(const Expr* E, uint32_t Callee,
                                const std::vector<uint32_t>& Bindings, const Words& Values) {
  uint32_t Fn = helperFunction(Callee, Bindings);
  if (!Error.empty())
    return 0;
  uint32_t RetTy = E->Ty.isVoid() ? Mb.typeVoid() : valueType(E->Ty);
  Words Ops{Fn};
  Ops.insert(Ops.end(), Values.begin(), Values.end());
  uint32_t R = op(spv::Op::OpFunctionCall, RetTy, Ops);
  if (Opts.CheckBounds) {
    // A bounds failure inside the helper ends this function too.
    uint32_t Failed = op(spv::Op::OpLoad, boolTy(), {FailedFlag});
    uint32_t Leave = Mb.newId(), Go = Mb.newId();
    opVoid(spv::Op::OpSelectionMerge, {Go, 0});
    condBranch(Failed, Leave, Go);
    beginBlock(Leave);
    emitReturn(Cur->KF->ReturnType.isVoid() ? 0 : zeroOf(Cur->KF->ReturnType));
    beginBlock(Go);
  }
  return E->Ty.isVoid() ? 0 : R;
}

uint32_t SpirvEmitter::emitCallExpr(const Expr* E) {
  std::vector<const Expr*> Args(E->Ops.begin(), E->Ops.end());
  std::vector<uint32_t> Bindings;
  Words Values;
  if (!callArgs(E, E->Index, Args, Bindings, Values))
    return 0;
  return emitCall(E, E->Index, Bindings, Values);
}

uint32_t SpirvEmitter::emitDispatch(const Expr* E) {
  assert(!E->Ops.empty() && E->Ops[0]->Ty == Type::scalar(kir::ScalarType::U32) &&
         "verified KIR: a uint32 dispatch tag");
  uint32_t Tag = emitExpr(E->Ops[0]);
  std::vector<const Expr*> Args(E->Ops.begin() + 1, E->Ops.end());
  std::vector<uint32_t> Bindings;
  Words Values;
  // Arguments are evaluated once, before the call, whichever function the tag picks.
  if (!E->Targets.empty() && !callArgs(E, E->Targets[0], Args, Bindings, Values))
    return 0;
  if (E->Targets.empty())
    for (const Expr* A : Args)
      if (A && A->Ty.isScalar())
        emitExpr(A);
  uint32_t Merge = Mb.newId(), Default = Mb.newId();
  Words Cases;
  for (uint32_t T = 0; T < E->Targets.size(); ++T) {
    Cases.push_back(T);
    Cases.push_back(Mb.newId());
  }
  Words SwitchOps{Tag, Default};
  SwitchOps.insert(SwitchOps.end(), Cases.begin(), Cases.end());
  opVoid(spv::Op::OpSelectionMerge, {Merge, 0});
  opVoid(spv::Op::OpSwitch, SwitchOps);
  Cur->HasPred.insert(Default);
  for (size_t I = 1; I < Cases.size(); I += 2)
    Cur->HasPred.insert(Cases[I]);
  Cur->Live = false;
  Words Phi;
  for (uint32_t T = 0; T < E->Targets.size() && Error.empty(); ++T) {
    uint32_t Callee = E->Targets[T];
    assert(Callee < M.Functions.size() && M.Functions[Callee]->ReturnType == E->Ty &&
           "verified KIR: dispatch targets of one signature");
    beginBlock(Cases[2 * T + 1]);
    uint32_t V = emitCall(E, Callee, Bindings, Values);
    if (Cur->Live && !E->Ty.isVoid()) {
      Phi.push_back(V);
      Phi.push_back(curLabel());
    }
    branch(Merge);
  }
  beginBlock(Default); // an out-of-range tag: no call, the zero value
  if (!E->Ty.isVoid()) {
    Phi.push_back(zeroOf(E->Ty));
    Phi.push_back(Default);
  }
  branch(Merge);
  beginBlock(Merge);
  if (E->Ty.isVoid() || !Error.empty())
    return 0;
  return op(spv::Op::OpPhi, valueType(E->Ty), Phi);
}

// ---------------------------------------------------------------------------------------------
// Intrinsics

uint32_t SpirvEmitter::emitIntrinsic(const Expr* E) {
  IntrinsicOp Op = E->IOp;
  switch (Op) {
  case IntrinsicOp::LocalId:
  case IntrinsicOp::GlobalId:
  case IntrinsicOp::GroupId:
  case IntrinsicOp::GroupDim:
  case IntrinsicOp::GridDim:
  case IntrinsicOp::GlobalSize: {
    assert(E->Dim <= 2 && E->Ops.empty() && E->Ty == Type::scalar(kir::ScalarType::U32) &&
           "verified KIR: geometry builtins");
    if (Op == IntrinsicOp::GlobalId)
      return op(spv::Op::OpIAdd, u32(),
                {op(spv::Op::OpIMul, u32(),
                    {coordinate(IntrinsicOp::GroupId, E->Dim),
                     coordinate(IntrinsicOp::GroupDim, E->Dim)}),
                 coordinate(IntrinsicOp::LocalId, E->Dim)});
    if (Op == IntrinsicOp::GlobalSize)
      return op(
          spv::Op::OpIMul, u32(),
          {coordinate(IntrinsicOp::GridDim, E->Dim), coordinate(IntrinsicOp::GroupDim, E->Dim)});
    return coordinate(Op, E->Dim);
  }
  case IntrinsicOp::Prefetch: // a hint; Vulkan has no prefetch
    return 0;
  case IntrinsicOp::LoadWord:
    return emitLoadWord(E);
  case IntrinsicOp::StoreWords:
    return emitStoreWords(E);
  case IntrinsicOp::MatrixFill:
  case IntrinsicOp::MatrixLoad:
  case IntrinsicOp::MatrixStore:
  case IntrinsicOp::MatrixMulAdd:
  case IntrinsicOp::MatrixScale:
  case IntrinsicOp::MatrixAdd:
  case IntrinsicOp::MatrixConvert:
  case IntrinsicOp::WaveBarrier:
    return emitMatrix(E);
  case IntrinsicOp::DivTrunc:
  case IntrinsicOp::RemTrunc:
  case IntrinsicOp::ShiftLeft:
  case IntrinsicOp::ShiftRight:
  case IntrinsicOp::FToIUnchecked:
  case IntrinsicOp::Bitcast:
  case IntrinsicOp::MinNum:
  case IntrinsicOp::MaxNum:
    return emitRawPrimitive(E);
  case IntrinsicOp::Supports: {
    // What the pipeline could not fold is the device's answer at pipeline creation.
    uint32_t& Id = SupportsConsts[E->Index];
    if (!Id) {
      Id = Mb.specConstBool(false, CAJETA_VK_SPEC_CAPABILITY_BASE + E->Index);
      Mb.addName(Id, "cj_supports_" + std::to_string(E->Index));
    }
    return Id;
  }
  case IntrinsicOp::BufferLength: {
    assert(E->Ops.size() == 1 && E->Ty == Type::scalar(kir::ScalarType::U64) &&
           "verified KIR: buffer length");
    ArrayRef A = arrayOf(E->Ops[0]);
    uint32_t Len = A.Shared ? A.Length32 : op(spv::Op::OpArrayLength, u32(), {A.Var, 0});
    return op(spv::Op::OpUConvert, Mb.typeInt(64), {Len});
  }
  default:
    break;
  }
  assert(E->Ops.size() == kir::mathOperandCount(Op) && "verified KIR: math operand count");
  Words Vals;
  for (const Expr* A : E->Ops) {
    assert(A->Ty == E->Ty && "verified KIR: math operands of the result's type");
    Vals.push_back(emitExpr(A));
  }
  return emitMath(E, Vals);
}

uint32_t SpirvEmitter::emitRawPrimitive(const Expr* E) {
  // The verifier checks the raw primitives' operand types (Kir.h).
  IntrinsicOp Op = E->IOp;
  Type Ty = E->Ty;
  uint32_t T = valueType(Ty);
  uint32_t A = emitExpr(E->Ops[0]);
  if (Op == IntrinsicOp::FToIUnchecked)
    return op(Ty.isSigned() ? spv::Op::OpConvertFToS : spv::Op::OpConvertFToU, T, {A});
  if (Op == IntrinsicOp::Bitcast) // bfloat16 <-> uint16 are one SPIR-V type: nothing to do
    return T == valueType(E->Ops[0]->Ty) ? A : op(spv::Op::OpBitcast, T, {A});
  uint32_t B = emitExpr(E->Ops[1]);
  bool S = Ty.isSigned();
  switch (Op) {
  case IntrinsicOp::MinNum: // NMin / NMax (a NaN operand gives the other: one of them)
    return glsl(T, GLSLstd450NMin, {A, B});
  case IntrinsicOp::MaxNum:
    return glsl(T, GLSLstd450NMax, {A, B});
  case IntrinsicOp::DivTrunc:
    return op(S ? spv::Op::OpSDiv : spv::Op::OpUDiv, T, {A, B});
  case IntrinsicOp::RemTrunc: // the sign of the dividend: OpSRem, not OpSMod
    return op(S ? spv::Op::OpSRem : spv::Op::OpUMod, T, {A, B});
  case IntrinsicOp::ShiftLeft:
    return op(spv::Op::OpShiftLeftLogical, T, {A, B});
  default:
    return op(S ? spv::Op::OpShiftRightArithmetic : spv::Op::OpShiftRightLogical, T, {A, B});
  }
}

uint32_t SpirvEmitter::glsl(uint32_t Type, uint32_t Inst, const Words& Ops) {
  Words All{Mb.glslStd450(), Inst};
  All.insert(All.end(), Ops.begin(), Ops.end());
  return op(spv::Op::OpExtInst, Type, All);
}

uint32_t SpirvEmitter::floatMinMax(bool IsMin, Type Ty, uint32_t A, uint32_t B) {
  // Math.min/max: NaN if either is NaN; -0.0 < +0.0 (GLSL NMin/FMin do not promise either).
  // For the atomics and the wave reductions, whose operands are SPIR-V values; the Min/Max
  // intrinsics get the same rule from the polyfill.
  uint32_t T = valueType(Ty), Bl = boolTy();
  uint32_t IT = Mb.typeInt(Ty.bits());
  uint32_t Less = op(spv::Op::OpFOrdLessThan, Bl, {A, B});
  uint32_t Greater = op(spv::Op::OpFOrdGreaterThan, Bl, {A, B});
  // Equal (or both zero): combine the bits, so min(-0, +0) = -0 and max(-0, +0) = +0.
  uint32_t ABits = op(spv::Op::OpBitcast, IT, {A});
  uint32_t BBits = op(spv::Op::OpBitcast, IT, {B});
  uint32_t Eq = op(spv::Op::OpBitcast, T,
                   {op(IsMin ? spv::Op::OpBitwiseOr : spv::Op::OpBitwiseAnd, IT, {ABits, BBits})});
  uint32_t R = op(spv::Op::OpSelect, T, {Less, IsMin ? A : B, Eq});
  R = op(spv::Op::OpSelect, T, {Greater, IsMin ? B : A, R});
  uint32_t Nan =
      op(spv::Op::OpLogicalOr, Bl, {op(spv::Op::OpIsNan, Bl, {A}), op(spv::Op::OpIsNan, Bl, {B})});
  uint32_t NanValue = arith(spv::Op::OpFAdd, T, A, B); // a NaN operand propagates
  return op(spv::Op::OpSelect, T, {Nan, NanValue, R});
}

uint32_t SpirvEmitter::glslMath(Type Ty, uint32_t Inst, const Words& Ops) {
  uint32_t T = valueType(Ty);
  if (Ty.bits() <= 32)
    return glsl(T, Inst, Ops);
  // GLSL.std.450 has these for 16/32-bit floats only: float64 goes through float32 (float32
  // accuracy; see VulkanKernelAbi.h).
  Type F32 = Type::scalar(kir::ScalarType::F32);
  Words Narrow;
  for (uint32_t V : Ops)
    Narrow.push_back(op(spv::Op::OpFConvert, valueType(F32), {V}));
  return op(spv::Op::OpFConvert, T, {glsl(valueType(F32), Inst, Narrow)});
}

uint32_t SpirvEmitter::powEdges(Type Ty, uint32_t X, uint32_t Y, uint32_t AbsPow) {
  // pow's special values as C99 Annex F (libm, the CPU backend) defines them; AbsPow = pow(|x|, y)
  // serves finite nonzero x and finite y.
  uint32_t T = valueType(Ty), IT = Mb.typeInt(Ty.bits()), Bl = boolTy();
  unsigned W = Ty.bits();
  auto F = [&](double V) { return Mb.constFloat(W, V); };
  auto Or = [&](uint32_t A, uint32_t B) { return op(spv::Op::OpLogicalOr, Bl, {A, B}); };
  auto And = [&](uint32_t A, uint32_t B) { return op(spv::Op::OpLogicalAnd, Bl, {A, B}); };
  auto Sel = [&](uint32_t C, uint32_t A, uint32_t B) {
    return op(spv::Op::OpSelect, T, {C, A, B});
  };
  uint32_t Inf = F(HUGE_VAL), Zero = F(0.0), One = F(1.0);
  uint32_t AbsX = glsl(T, GLSLstd450FAbs, {X});
  uint32_t XNeg =
      op(spv::Op::OpSLessThan, Bl, {op(spv::Op::OpBitcast, IT, {X}), Mb.constInt(W, 0)});
  uint32_t YNeg = op(spv::Op::OpFOrdLessThan, Bl, {Y, Zero});
  uint32_t XZero = op(spv::Op::OpFOrdEqual, Bl, {X, Zero});
  uint32_t XInf = op(spv::Op::OpIsInf, Bl, {X});
  uint32_t YInf = op(spv::Op::OpIsInf, Bl, {Y});
  // y integral (infinities excluded below); odd when y / 2 is not (exact: halving is exact).
  uint32_t YInt = op(spv::Op::OpFOrdEqual, Bl, {glsl(T, GLSLstd450Floor, {Y}), Y});
  uint32_t Half = arith(spv::Op::OpFMul, T, Y, F(0.5));
  uint32_t YOdd =
      And(YInt, op(spv::Op::OpFOrdNotEqual, Bl, {glsl(T, GLSLstd450Floor, {Half}), Half}));
  uint32_t Negate = And(XNeg, YOdd); // the result takes x's sign
  auto Signed = [&](uint32_t V) { return Sel(Negate, op(spv::Op::OpFNegate, T, {V}), V); };
  // Finite nonzero x, finite y: negative x needs an integral y.
  uint32_t Nan = arith(spv::Op::OpFDiv, T, Zero, Zero);
  uint32_t R = Sel(And(XNeg, op(spv::Op::OpLogicalNot, Bl, {YInt})), Nan, Signed(AbsPow));
  // x = +-0 or +-inf: 0 or inf by the signs of y and of log|x|, signed when y is an odd integer.
  uint32_t Big = Or(And(XZero, YNeg), And(XInf, op(spv::Op::OpLogicalNot, Bl, {YNeg})));
  R = Sel(Or(XZero, XInf), Signed(Sel(Big, Inf, Zero)), R);
  // y = +-inf: 1 for |x| == 1, else 0 or inf by whether |x| < 1 and y < 0 agree.
  uint32_t XSmall = op(spv::Op::OpFOrdLessThan, Bl, {AbsX, One});
  uint32_t YInfValue = Sel(op(spv::Op::OpLogicalEqual, Bl, {XSmall, YNeg}), Inf, Zero);
  YInfValue = Sel(op(spv::Op::OpFOrdEqual, Bl, {AbsX, One}), One, YInfValue);
  R = Sel(YInf, YInfValue, R);
  uint32_t AnyNan = Or(op(spv::Op::OpIsNan, Bl, {X}), op(spv::Op::OpIsNan, Bl, {Y}));
  R = Sel(AnyNan, arith(spv::Op::OpFAdd, T, X, Y), R);
  R = Sel(op(spv::Op::OpFOrdEqual, Bl, {Y, One}), X, R); // pow(x, 1) = x exactly
  // pow(x, +-0) = 1 and pow(1, y) = 1, even for NaN.
  uint32_t IsOne =
      Or(op(spv::Op::OpFOrdEqual, Bl, {Y, Zero}), op(spv::Op::OpFOrdEqual, Bl, {X, One}));
  return Sel(IsOne, One, R);
}

uint32_t SpirvEmitter::emitMath(const Expr* E, const Words& Ops) {
  IntrinsicOp Op = E->IOp;
  Type Ty = E->Ty;
  uint32_t T = valueType(Ty);
  if (Ty.isInteger()) {
    bool S = Ty.isSigned();
    switch (Op) {
    case IntrinsicOp::Abs: // abs(MIN) wraps to MIN
      return S ? glsl(T, GLSLstd450SAbs, Ops) : Ops[0];
    case IntrinsicOp::Min:
      return glsl(T, S ? GLSLstd450SMin : GLSLstd450UMin, Ops);
    case IntrinsicOp::Max:
      return glsl(T, S ? GLSLstd450SMax : GLSLstd450UMax, Ops);
    default:
      break;
    }
  } else if (Ty.isFloat()) {
    switch (Op) {
    case IntrinsicOp::Sqrt:
      return glsl(T, GLSLstd450Sqrt, Ops);
    case IntrinsicOp::Rsqrt: // 1 / sqrt(x), as on every backend (InverseSqrt is less exact)
      return arith(spv::Op::OpFDiv, T, Mb.constFloat(Ty.bits(), 1.0), glsl(T, GLSLstd450Sqrt, Ops));
    case IntrinsicOp::Abs:
      return glsl(T, GLSLstd450FAbs, Ops);
    case IntrinsicOp::Floor:
      return glsl(T, GLSLstd450Floor, Ops);
    case IntrinsicOp::Ceil:
      return glsl(T, GLSLstd450Ceil, Ops);
    case IntrinsicOp::Fma:
      UsedFma = true;
      return glsl(T, GLSLstd450Fma, Ops);
    default: // Min/Max on floats arrive legalized (the polyfill's Math.min/max)
      break;
    }
    uint32_t Inst = 0;
    switch (Op) {
    case IntrinsicOp::Exp:
      Inst = GLSLstd450Exp;
      break;
    case IntrinsicOp::Log:
      Inst = GLSLstd450Log;
      break;
    case IntrinsicOp::Pow:
      Inst = GLSLstd450Pow;
      break;
    case IntrinsicOp::Sin:
      Inst = GLSLstd450Sin;
      break;
    case IntrinsicOp::Cos:
      Inst = GLSLstd450Cos;
      break;
    case IntrinsicOp::Tanh:
      Inst = GLSLstd450Tanh;
      break;
    default:
      break;
    }
    if (Inst)
      UsedTranscendental = true;
    if (Op == IntrinsicOp::Pow) // GLSL Pow is undefined for x <= 0: |x| and the edge cases here
      return powEdges(Ty, Ops[0], Ops[1],
                      glslMath(Ty, Inst, {glsl(T, GLSLstd450FAbs, {Ops[0]}), Ops[1]}));
    if (Inst)
      return glslMath(Ty, Inst, Ops);
  }
  fail(E->Loc, std::string("'") + kir::intrinsicName(Op) + "' on " + Ty.str() +
                   " is not supported on vulkan");
  return 0;
}

} // namespace cajeta::lowering::spirv
