// SpirvEmitter's expressions: operators with the language's defined semantics (wrapping
// integers, x / 0 == 0, masked shifts, saturating float -> int, no contraction), lazy && || ?:,
// calls and function-tag dispatch, geometry and math (GLSL.std.450; Java min/max by hand).
#include "compiler/lowering/spirv/SpirvEmitter.h"

#include <spirv/unified1/GLSL.std.450.h>

#include <cmath>

namespace cajeta::spirv {

using kir::BinaryOp;
using kir::Expr;
using kir::IntrinsicOp;
using kir::Type;
using kir::UnaryOp;

uint32_t SpirvEmitter::lowerExpr(const Expr* E) {
  if (!E) {
    fail({}, "malformed KIR: null expression");
    return 0;
  }
  if (!Error.empty())
    return 0;
  auto Bad = [&](const std::string& Message) {
    fail(E->Loc, "malformed KIR: " + Message);
    return 0u;
  };
  switch (E->K) {
  case Expr::Kind::Const:
    if (!E->Ty.isScalar())
      return Bad("constant of non-scalar type");
    if (E->Ty.isBool())
      return Mb.constBool(E->IntValue != 0);
    if (E->Ty.isFloat())
      return Mb.constFloat(E->Ty.bits(), E->FloatValue);
    return Mb.constInt(E->Ty.bits(), E->IntValue);
  case Expr::Kind::Local:
    if (E->Index >= Cur->Locals.size() || E->Ty != Cur->KF->Locals[E->Index].Ty)
      return Bad("no local " + std::to_string(E->Index) + " of this type");
    return op(spv::Op::OpLoad, valueType(E->Ty), {Cur->Locals[E->Index]});
  case Expr::Kind::Param:
    if (E->Index >= Cur->Params.size() || !E->Ty.isScalar() ||
        E->Ty != Cur->KF->Params[E->Index].Ty)
      return Bad("parameter " + std::to_string(E->Index) + " read as a scalar");
    return Cur->Params[E->Index];
  case Expr::Kind::Unary:
    return lowerUnary(E);
  case Expr::Kind::Binary:
    return lowerBinary(E);
  case Expr::Kind::Cast:
    return lowerCast(E);
  case Expr::Kind::Select:
    return lowerSelect(E);
  case Expr::Kind::Load:
    return lowerLoad(E);
  case Expr::Kind::Store:
    return lowerStore(E);
  case Expr::Kind::Assign: {
    if (E->Ops.size() != 1 || !E->Ops[0] || E->Index >= Cur->Locals.size() ||
        E->Ops[0]->Ty != Cur->KF->Locals[E->Index].Ty)
      return Bad("assignment of the wrong type");
    uint32_t V = lowerExpr(E->Ops[0]);
    if (Error.empty())
      opVoid(spv::Op::OpStore, {Cur->Locals[E->Index], V});
    return V;
  }
  case Expr::Kind::Seq: {
    uint32_t Last = 0;
    for (const Expr* Op : E->Ops)
      Last = lowerExpr(Op);
    return Last;
  }
  case Expr::Kind::Call:
    return lowerCall(E);
  case Expr::Kind::Intrinsic:
    return lowerIntrinsic(E);
  case Expr::Kind::SharedRef:
    return Bad("a shared array used as a value");
  case Expr::Kind::Atomic:
    return lowerAtomic(E);
  case Expr::Kind::Field:
    return podField(E);
  case Expr::Kind::Dispatch:
    return lowerDispatch(E);
  case Expr::Kind::Wave:
    return lowerWave(E);
  }
  return Bad("unknown expression kind");
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

uint32_t SpirvEmitter::lowerUnary(const Expr* E) {
  if (E->Ops.size() != 1 || !E->Ops[0] || E->Ops[0]->Ty != E->Ty) {
    fail(E->Loc, "malformed KIR: unary operand type differs from the result");
    return 0;
  }
  uint32_t V = lowerExpr(E->Ops[0]);
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
  fail(E->Loc, std::string("malformed KIR: '") + kir::unaryOpName(E->UOp) + "' on " + E->Ty.str());
  return 0;
}

static bool isComparison(BinaryOp Op) {
  return Op == BinaryOp::Eq || Op == BinaryOp::Ne || Op == BinaryOp::Lt || Op == BinaryOp::Le ||
         Op == BinaryOp::Gt || Op == BinaryOp::Ge;
}

uint32_t SpirvEmitter::lowerBinary(const Expr* E) {
  if (E->Ops.size() != 2 || !E->Ops[0] || !E->Ops[1]) {
    fail(E->Loc, "malformed KIR: binary operator without two operands");
    return 0;
  }
  if (E->BOp == BinaryOp::LogicalAnd || E->BOp == BinaryOp::LogicalOr)
    return lowerLogical(E);
  Type OpTy = E->Ops[0]->Ty;
  if (OpTy != E->Ops[1]->Ty || !OpTy.isScalar() ||
      (isComparison(E->BOp) ? !E->Ty.isBool() : E->Ty != OpTy)) {
    fail(E->Loc, "malformed KIR: binary operand or result types are wrong");
    return 0;
  }
  uint32_t L = lowerExpr(E->Ops[0]);
  uint32_t R = lowerExpr(E->Ops[1]);
  if (!Error.empty())
    return 0;
  if (isComparison(E->BOp))
    return lowerCompare(E, L, R);
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
  case BinaryOp::Div:
  case BinaryOp::Rem:
    if (F && E->BOp == BinaryOp::Rem)
      return exactFRem(OpTy, L, R); // OpFRem is not exact on Vulkan
    if (F)
      return arith(spv::Op::OpFDiv, T, L, R);
    if (I)
      return lowerIntDivRem(E, L, R);
    break;
  case BinaryOp::Shl:
  case BinaryOp::Shr:
  case BinaryOp::UShr: {
    if (!I)
      break;
    uint32_t Count = op(spv::Op::OpBitwiseAnd, T, {R, intConst(OpTy, OpTy.bits() - 1)});
    if (E->BOp == BinaryOp::Shl)
      return op(spv::Op::OpShiftLeftLogical, T, {L, Count});
    if (E->BOp == BinaryOp::Shr && OpTy.isSigned())
      return op(spv::Op::OpShiftRightArithmetic, T, {L, Count});
    return op(spv::Op::OpShiftRightLogical, T, {L, Count});
  }
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
  fail(E->Loc, std::string("malformed KIR: '") + kir::binaryOpName(E->BOp) + "' on " + OpTy.str());
  return 0;
}

uint32_t SpirvEmitter::lowerIntDivRem(const Expr* E, uint32_t L, uint32_t R) {
  // No undefined results: divide by a safe divisor, then fix the result.
  //   x / 0 == 0, x % 0 == 0, MIN / -1 == MIN (= -MIN wrapped), MIN % -1 == 0.
  Type Ty = E->Ty;
  uint32_t T = valueType(Ty);
  uint32_t Zero = intConst(Ty, 0), One = intConst(Ty, 1);
  uint32_t IsZero = op(spv::Op::OpIEqual, boolTy(), {R, Zero});
  bool IsDiv = E->BOp == BinaryOp::Div;
  if (!Ty.isSigned()) {
    uint32_t D = op(spv::Op::OpSelect, T, {IsZero, One, R});
    if (!IsDiv)
      return op(spv::Op::OpUMod, T, {L, D});
    return op(spv::Op::OpSelect, T, {IsZero, Zero, op(spv::Op::OpUDiv, T, {L, D})});
  }
  // Signed: divide the magnitudes with unsigned ops and apply the signs ourselves. OpSDiv and
  // OpSRem are defined for negative operands, but NVIDIA's Vulkan driver returned remainders
  // with the divisor's sign and wrong quotients for them (H200, driver 580, 2026-11-30), as
  // GLSL (where negative % is undefined) compilers may. |MIN| is MIN read as unsigned (2^(w-1)),
  // so MIN / -1 wraps back to MIN and MIN % -1 is 0 without special cases; x / 0 uses a
  // divisor of 1 and is then replaced by 0, and x % 0 == 0 follows from |x| % 1.
  uint32_t D = op(spv::Op::OpSelect, T, {IsZero, One, R});
  uint32_t LNeg = op(spv::Op::OpSLessThan, boolTy(), {L, Zero});
  uint32_t DNeg = op(spv::Op::OpSLessThan, boolTy(), {D, Zero});
  uint32_t LAbs = op(spv::Op::OpSelect, T, {LNeg, op(spv::Op::OpSNegate, T, {L}), L});
  uint32_t DAbs = op(spv::Op::OpSelect, T, {DNeg, op(spv::Op::OpSNegate, T, {D}), D});
  if (!IsDiv) {
    uint32_t RAbs = op(spv::Op::OpUMod, T, {LAbs, DAbs});
    return op(spv::Op::OpSelect, T, {LNeg, op(spv::Op::OpSNegate, T, {RAbs}), RAbs});
  }
  uint32_t QAbs = op(spv::Op::OpUDiv, T, {LAbs, DAbs});
  uint32_t Differ = op(spv::Op::OpLogicalNotEqual, boolTy(), {LNeg, DNeg});
  uint32_t Q = op(spv::Op::OpSelect, T, {Differ, op(spv::Op::OpSNegate, T, {QAbs}), QAbs});
  return op(spv::Op::OpSelect, T, {IsZero, Zero, Q});
}

uint32_t SpirvEmitter::lowerCompare(const Expr* E, uint32_t L, uint32_t R) {
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

uint32_t SpirvEmitter::lowerLogical(const Expr* E) {
  if (!E->Ty.isBool() || !E->Ops[0]->Ty.isBool() || !E->Ops[1]->Ty.isBool()) {
    fail(E->Loc, "malformed KIR: logical operator on non-bool operands");
    return 0;
  }
  bool IsAnd = E->BOp == BinaryOp::LogicalAnd;
  uint32_t L = lowerExpr(E->Ops[0]);
  uint32_t LEnd = curLabel();
  uint32_t Rhs = Mb.newId(), Merge = Mb.newId();
  opVoid(spv::Op::OpSelectionMerge, {Merge, 0});
  if (IsAnd)
    condBranch(L, Rhs, Merge);
  else
    condBranch(L, Merge, Rhs);
  beginBlock(Rhs);
  uint32_t R = lowerExpr(E->Ops[1]);
  uint32_t REnd = curLabel();
  branch(Merge);
  beginBlock(Merge);
  return op(spv::Op::OpPhi, boolTy(), {Mb.constBool(!IsAnd), LEnd, R, REnd});
}

uint32_t SpirvEmitter::lowerCast(const Expr* E) {
  if (E->Ops.size() != 1 || !E->Ops[0] || !E->Ops[0]->Ty.isScalar() || !E->Ty.isScalar()) {
    fail(E->Loc, "malformed KIR: cast between non-scalar types");
    return 0;
  }
  uint32_t V = lowerExpr(E->Ops[0]);
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
  if (To.isFloat() && From.bits() == 64 && To.bits() == 16) // one rounding, not two
    return op(spv::Op::OpFConvert, T, {narrowToOddF32(V)});
  if (To.isFloat())
    return op(spv::Op::OpFConvert, T, {V});
  // float -> int: toward zero, saturating, NaN -> 0. Out-of-range inputs are replaced by 0
  // before the conversion (whose result would be undefined) and the bound selected after.
  unsigned N = To.bits();
  uint32_t B = boolTy();
  uint32_t Zero = zeroOf(From);
  uint32_t Lo, Hi, LoVal, HiVal;
  if (To.isSigned()) {
    double Bound = std::ldexp(1.0, int(N) - 1);
    Lo = op(spv::Op::OpFOrdLessThanEqual, B, {V, Mb.constFloat(From.bits(), -Bound)});
    Hi = op(spv::Op::OpFOrdGreaterThanEqual, B, {V, Mb.constFloat(From.bits(), Bound)});
    LoVal = intConst(To, uint64_t(1) << (N - 1));
    HiVal = intConst(To, (uint64_t(1) << (N - 1)) - 1);
  } else {
    double Bound = std::ldexp(1.0, int(N));
    Lo = op(spv::Op::OpFOrdLessThanEqual, B, {V, Zero});
    Hi = op(spv::Op::OpFOrdGreaterThanEqual, B, {V, Mb.constFloat(From.bits(), Bound)});
    LoVal = intConst(To, 0);
    HiVal = intConst(To, ~uint64_t(0));
  }
  uint32_t Nan = op(spv::Op::OpIsNan, B, {V});
  uint32_t Out = op(spv::Op::OpLogicalOr, B, {op(spv::Op::OpLogicalOr, B, {Lo, Hi}), Nan});
  uint32_t Safe = op(spv::Op::OpSelect, valueType(From), {Out, Zero, V});
  uint32_t R = op(To.isSigned() ? spv::Op::OpConvertFToS : spv::Op::OpConvertFToU, T, {Safe});
  R = op(spv::Op::OpSelect, T, {Lo, LoVal, R});
  R = op(spv::Op::OpSelect, T, {Hi, HiVal, R});
  return op(spv::Op::OpSelect, T, {Nan, zeroOf(To), R});
}

uint32_t SpirvEmitter::narrowToOddF32(uint32_t V) {
  // float64 -> float32 rounded to odd: toward zero, then the lowest mantissa bit set when
  // inexact. Its round-to-nearest-even to float16 (11 bits <= 24 - 2) is then the correctly
  // rounded float64 -> float16 (a float32 rounded to nearest first would round twice).
  uint32_t F32 = Mb.typeFloat(32), F64 = Mb.typeFloat(64), Bl = boolTy();
  uint32_t Near = op(spv::Op::OpFConvert, F32, {V});    // some rounding, within one ulp
  uint32_t Back = op(spv::Op::OpFConvert, F64, {Near}); // exact
  uint32_t Bits = op(spv::Op::OpBitcast, u32(), {Near});
  uint32_t Above = op(spv::Op::OpFOrdGreaterThan, Bl,
                      {glsl(F64, GLSLstd450FAbs, {Back}), glsl(F64, GLSLstd450FAbs, {V})});
  // Rounded away from zero (to infinity, too): one step back toward zero on the magnitude bits.
  Bits = op(spv::Op::OpSelect, u32(),
            {Above, op(spv::Op::OpISub, u32(), {Bits, Mb.constU32(1)}), Bits});
  uint32_t Inexact = op(spv::Op::OpFOrdNotEqual, Bl, {Back, V}); // false for NaN
  Bits = op(spv::Op::OpSelect, u32(),
            {Inexact, op(spv::Op::OpBitwiseOr, u32(), {Bits, Mb.constU32(1)}), Bits});
  return op(spv::Op::OpBitcast, F32, {Bits});
}

uint32_t SpirvEmitter::lowerSelect(const Expr* E) {
  if (E->Ops.size() != 3 || !E->Ops[0] || !E->Ops[1] || !E->Ops[2] || !E->Ops[0]->Ty.isBool() ||
      E->Ops[1]->Ty != E->Ty || E->Ops[2]->Ty != E->Ty) {
    fail(E->Loc, "malformed KIR: select with a non-bool condition or arms of the wrong type");
    return 0;
  }
  uint32_t C = lowerExpr(E->Ops[0]);
  uint32_t Then = Mb.newId(), Else = Mb.newId(), Merge = Mb.newId();
  opVoid(spv::Op::OpSelectionMerge, {Merge, 0});
  condBranch(C, Then, Else);
  beginBlock(Then); // only the chosen arm is evaluated
  uint32_t TV = lowerExpr(E->Ops[1]);
  uint32_t TEnd = curLabel();
  branch(Merge);
  beginBlock(Else);
  uint32_t EV = lowerExpr(E->Ops[2]);
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
  if (Callee >= M.Functions.size() || M.Functions[Callee]->IsKernel)
    return fail(E->Loc, "malformed KIR: call of function " + std::to_string(Callee) +
                            ", which is not a helper");
  const kir::Function& F = *M.Functions[Callee];
  if (!kir::availableOn(F, "vulkan"))
    return fail(E->Loc, "'" + F.Name + "' is not available on vulkan (@Backend)");
  if (Args.size() != F.Params.size() || E->Ty != F.ReturnType)
    return fail(E->Loc, "malformed KIR: call of '" + F.Name + "' with the wrong arguments");
  for (size_t I = 0; I < Args.size(); ++I) {
    const Expr* A = Args[I];
    if (!A || A->Ty != F.Params[I].Ty)
      return fail(E->Loc, "malformed KIR: argument " + std::to_string(I) + " of '" + F.Name +
                              "' is missing or of the wrong type");
    if (A->Ty.isScalar()) {
      Values.push_back(lowerExpr(A));
      continue;
    }
    // Buffers and PODs are module variables: the callee is specialised for the binding.
    if (A->K != Expr::Kind::Param || A->Index >= Cur->Params.size() || A->Ty.isShared())
      return fail(E->Loc, "argument " + std::to_string(I) + " of '" + F.Name +
                              "' must be a buffer or POD parameter (shared arrays cannot be "
                              "passed to helpers)");
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

uint32_t SpirvEmitter::lowerCall(const Expr* E) {
  std::vector<const Expr*> Args(E->Ops.begin(), E->Ops.end());
  std::vector<uint32_t> Bindings;
  Words Values;
  if (!callArgs(E, E->Index, Args, Bindings, Values))
    return 0;
  return emitCall(E, E->Index, Bindings, Values);
}

uint32_t SpirvEmitter::lowerDispatch(const Expr* E) {
  if (E->Ops.empty() || !E->Ops[0] || E->Ops[0]->Ty != Type::scalar(kir::ScalarType::U32)) {
    fail(E->Loc, "malformed KIR: dispatch without a uint32 tag");
    return 0;
  }
  uint32_t Tag = lowerExpr(E->Ops[0]);
  std::vector<const Expr*> Args(E->Ops.begin() + 1, E->Ops.end());
  std::vector<uint32_t> Bindings;
  Words Values;
  // Arguments are evaluated once, before the call, whichever function the tag picks.
  if (!E->Targets.empty() && !callArgs(E, E->Targets[0], Args, Bindings, Values))
    return 0;
  if (E->Targets.empty())
    for (const Expr* A : Args)
      if (A && A->Ty.isScalar())
        lowerExpr(A);
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
    if (Callee >= M.Functions.size() || M.Functions[Callee]->ReturnType != E->Ty) {
      fail(E->Loc, "malformed KIR: dispatch target " + std::to_string(T) +
                       " is not a helper of the same type");
      return 0;
    }
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

static unsigned mathArity(IntrinsicOp Op) {
  switch (Op) {
  case IntrinsicOp::Pow:
  case IntrinsicOp::Min:
  case IntrinsicOp::Max:
    return 2;
  case IntrinsicOp::Fma:
    return 3;
  default:
    return 1;
  }
}

uint32_t SpirvEmitter::lowerIntrinsic(const Expr* E) {
  IntrinsicOp Op = E->IOp;
  switch (Op) {
  case IntrinsicOp::LocalId:
  case IntrinsicOp::GlobalId:
  case IntrinsicOp::GroupId:
  case IntrinsicOp::GroupDim:
  case IntrinsicOp::GridDim:
  case IntrinsicOp::GlobalSize: {
    if (E->Dim > 2 || !E->Ops.empty() || E->Ty != Type::scalar(kir::ScalarType::U32)) {
      fail(E->Loc, "malformed KIR: geometry builtins take no operands, dimension 0..2, and "
                   "yield uint32");
      return 0;
    }
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
  case IntrinsicOp::BufferLength: {
    ArrayRef A;
    if (E->Ops.size() != 1 || !E->Ops[0] || E->Ty != Type::scalar(kir::ScalarType::U64) ||
        !arrayOf(E->Ops[0], A)) {
      fail(E->Loc, "malformed KIR: length of something other than an array");
      return 0;
    }
    uint32_t Len = A.Shared ? A.Length32 : op(spv::Op::OpArrayLength, u32(), {A.Var, 0});
    return op(spv::Op::OpUConvert, Mb.typeInt(64), {Len});
  }
  case IntrinsicOp::Bitcast: { // numbers of one width (Kir.h)
    if (E->Ops.size() != 1 || !E->Ops[0] || !E->Ops[0]->Ty.isScalar() || !E->Ty.isScalar() ||
        E->Ops[0]->Ty.isBool() || E->Ty.isBool() || E->Ops[0]->Ty.bits() != E->Ty.bits()) {
      fail(E->Loc, "malformed KIR: bitcast to " + E->Ty.str() + " of another width");
      return 0;
    }
    uint32_t V = lowerExpr(E->Ops[0]);
    return op(spv::Op::OpBitcast, valueType(E->Ty), {V});
  }
  default:
    break;
  }
  if (E->Ops.size() != mathArity(Op)) {
    fail(E->Loc,
         std::string("malformed KIR: wrong operand count for '") + kir::intrinsicName(Op) + "'");
    return 0;
  }
  Words Vals;
  for (const Expr* A : E->Ops) {
    if (!A || A->Ty != E->Ty) {
      fail(E->Loc, std::string("malformed KIR: operand of '") + kir::intrinsicName(Op) +
                       "' has the wrong type");
      return 0;
    }
    Vals.push_back(lowerExpr(A));
  }
  return lowerMath(E, Vals);
}

uint32_t SpirvEmitter::glsl(uint32_t Type, uint32_t Inst, const Words& Ops) {
  Words All{Mb.glslStd450(), Inst};
  All.insert(All.end(), Ops.begin(), Ops.end());
  return op(spv::Op::OpExtInst, Type, All);
}

uint32_t SpirvEmitter::floatMinMax(bool IsMin, Type Ty, uint32_t A, uint32_t B) {
  // Math.min/max: NaN if either is NaN; -0.0 < +0.0 (GLSL NMin/FMin do not promise either).
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

uint32_t SpirvEmitter::lowerMath(const Expr* E, const Words& Ops) {
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
    case IntrinsicOp::Min:
    case IntrinsicOp::Max:
      return floatMinMax(Op == IntrinsicOp::Min, Ty, Ops[0], Ops[1]);
    default:
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

} // namespace cajeta::spirv
