// bfloat16 as uint16 bits and float32 arithmetic (BFloat16Lowering.h).
//
// The rewrite is bottom-up, but each rule looks at its operands' types as Sema gave them (a
// rewritten operand of type uint16 may have been a bfloat16 or a uint16), so lower() records
// them before it rewrites the operands.
#include "compiler/kir/transforms/BFloat16Lowering.h"

#include "cajeta/xpu/BFloat16.hpp"
#include "compiler/kir/Builder.h"

namespace cajeta::kir {
namespace {

using bundle::ScalarType;

bool isBF(const Type& T) {
  return T.isScalar() && T.Elem == ScalarType::BF16;
}

const Type BF16 = Type::scalar(ScalarType::BF16);
const Type U16 = Type::scalar(ScalarType::U16);
const Type U32 = Type::scalar(ScalarType::U32);
const Type F32 = Type::scalar(ScalarType::F32);
const Type F64 = Type::scalar(ScalarType::F64);

/// Wave ops that move a value without computing with it: on the bits, as they are.
bool movesBits(WaveOp Op) {
  switch (Op) {
  case WaveOp::Shuffle:
  case WaveOp::ShuffleUp:
  case WaveOp::ShuffleDown:
  case WaveOp::ShuffleXor:
  case WaveOp::Rotate:
  case WaveOp::BroadcastFirst:
    return true;
  default:
    return false;
  }
}

class Lowerer {
public:
  Lowerer(Module& M, Function& F) : F(F), B(M, F) {}

  bool run(std::string& Error) {
    for (Local& L : F.Locals)
      if (isBF(L.Ty))
        L.Ty = U16;
    if (!F.IsKernel) { // a helper's parameters and result are values; a kernel's are its ABI
      for (Param& P : F.Params)
        if (isBF(P.Ty))
          P.Ty = U16;
      if (isBF(F.ReturnType))
        F.ReturnType = U16;
    }
    lowerStmt(F.Body);
    Error = Problem;
    return Problem.empty();
  }

private:
  Function& F;
  Builder B;
  std::string Problem;

  void lowerStmt(Stmt* S) {
    if (!S)
      return;
    S->E = lower(S->E);
    for (Stmt* C : S->Body)
      lowerStmt(C);
    for (Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
      lowerStmt(C);
  }

  Expr* bitcast(Type To, Expr* V) { return B.intrinsic(IntrinsicOp::Bitcast, To, {V}); }

  /// The float32 a bfloat16's bits (a uint16 value) stand for: exact.
  Expr* toF32(Expr* Bits) {
    Expr* Wide = B.intrinsic(IntrinsicOp::ShiftLeft, U32, {B.cast(U32, Bits), B.u32(16)});
    return bitcast(F32, Wide);
  }

  /// A float32 rounded to the nearest bfloat16, ties to even, as uint16 bits: adding 0x7fff and
  /// the lowest kept bit carries exactly when the dropped half is above the tie or at it with an
  /// odd kept part (a carry into the exponent is right, up to infinity); a NaN stays a quiet NaN.
  Expr* fromF32(Expr* V) {
    uint32_t T = B.local("bf16.bits", U32);
    auto t = [&] { return B.l(T); };
    auto hi = [&] { return B.intrinsic(IntrinsicOp::ShiftRight, U32, {t(), B.u32(16)}); };
    Expr* IsNan =
        B.bin(BinaryOp::Gt, B.bin(BinaryOp::And, t(), B.u32(0x7fffffff)), B.u32(0x7f800000));
    Expr* Bias = B.bin(BinaryOp::Add, B.u32(0x7fff), B.bin(BinaryOp::And, hi(), B.u32(1)));
    Expr* Rounded =
        B.intrinsic(IntrinsicOp::ShiftRight, U32, {B.bin(BinaryOp::Add, t(), Bias), B.u32(16)});
    Expr* Quiet = B.bin(BinaryOp::Or, hi(), B.u32(0x40));
    Expr* Out = B.cast(U16, B.select(IsNan, Quiet, Rounded));
    return B.seq({B.assign(T, bitcast(U32, V)), Out});
  }

  /// A float64 rounded once to bfloat16: to a float32 rounded to odd (the conversion's result
  /// stepped back toward zero when it rounded away, its lowest bit set when inexact), whose 24
  /// bits keep the sticky information the second rounding needs.
  Expr* fromF64(Expr* V) {
    uint32_t D = B.local("bf16.wide", F64), N = B.local("bf16.near", F32);
    auto d = [&] { return B.l(D); };
    auto back = [&] { return B.cast(F64, B.l(N)); };
    Expr* Away =
        B.bin(BinaryOp::Gt, B.math(IntrinsicOp::Abs, {back()}), B.math(IntrinsicOp::Abs, {d()}));
    Expr* Inexact = B.bin(BinaryOp::Ne, back(), d()); // NaN: the bit set keeps it a NaN
    Expr* Bits = B.bin(BinaryOp::Sub, bitcast(U32, B.l(N)), B.cast(U32, Away));
    Bits = B.bin(BinaryOp::Or, Bits, B.cast(U32, Inexact));
    Expr* Odd = bitcast(F32, Bits);
    return B.seq({B.assign(D, V), B.assign(N, B.cast(F32, d())), fromF32(Odd)});
  }

  /// X (of type From, not bfloat16) converted to bfloat16 bits.
  Expr* toBF(Type From, Expr* X) {
    if (From.Elem == ScalarType::F32)
      return fromF32(X);
    if (From.Elem == ScalarType::F64)
      return fromF64(X);
    if (From.isInteger() && From.bits() >= 32) // exact in float64 up to 32 bits
      return fromF64(B.cast(F64, X));
    return fromF32(B.cast(F32, X)); // float16, bool and the narrow integers: exact in float32
  }

  /// bfloat16 bits X converted to To (not bfloat16).
  Expr* fromBF(Type To, Expr* X) {
    Expr* V = toF32(X);
    return To == F32 ? V : B.cast(To, V);
  }

  Expr* lower(Expr* E) {
    if (!E)
      return nullptr;
    std::vector<Type> Was;
    for (Expr* O : E->Ops)
      Was.push_back(O ? O->Ty : Type::voidTy());
    const Type Ty = E->Ty;
    for (Expr*& O : E->Ops)
      O = lower(O);
    B.setLoc(E->Loc);
    auto wasBF = [&](size_t I) { return I < Was.size() && isBF(Was[I]); };
    switch (E->K) {
    case Expr::Kind::Const:
      if (!isBF(Ty))
        return E;
      E->Ty = U16;
      E->IntValue = BFloat16Lowering::bitsOf(E->FloatValue);
      E->FloatValue = 0;
      return E;
    case Expr::Kind::Local:
    case Expr::Kind::Assign:
    case Expr::Kind::Select:
    case Expr::Kind::Seq:
    case Expr::Kind::Call:
    case Expr::Kind::Dispatch:
      if (isBF(Ty))
        E->Ty = U16;
      return E;
    case Expr::Kind::Param:
      if (!isBF(Ty))
        return E;
      if (F.IsKernel)
        return bitcast(U16, E);
      E->Ty = U16;
      return E;
    case Expr::Kind::Field:
    case Expr::Kind::Global:
    case Expr::Kind::Load:
      return isBF(Ty) ? bitcast(U16, E) : E;
    case Expr::Kind::Store:
    case Expr::Kind::GlobalAssign: {
      if (!isBF(Ty))
        return E;
      Expr*& V = E->Ops.back();
      V = bitcast(BF16, V);
      return bitcast(U16, E);
    }
    case Expr::Kind::Host:
      for (size_t I = 0; I < E->Ops.size(); ++I)
        if (wasBF(I))
          E->Ops[I] = bitcast(BF16, E->Ops[I]);
      return E;
    case Expr::Kind::Cast:
      if (wasBF(0) && isBF(Ty))
        return E->Ops[0];
      if (wasBF(0))
        return fromBF(Ty, E->Ops[0]);
      if (isBF(Ty))
        return toBF(Was[0], E->Ops[0]);
      return E;
    case Expr::Kind::Unary:
      if (!isBF(Ty))
        return E;
      // -x flips the sign bit, as IEEE negation does (NaNs too).
      return B.bin(BinaryOp::Xor, E->Ops[0], B.constInt(ScalarType::U16, 0x8000));
    case Expr::Kind::Binary: {
      if (!wasBF(0))
        return E;
      Expr* R = B.bin(E->BOp, toF32(E->Ops[0]), toF32(E->Ops[1]));
      return isBF(Ty) ? fromF32(R) : R; // a comparison is bool
    }
    case Expr::Kind::Intrinsic:
      return intrinsic(E, Was);
    case Expr::Kind::Wave:
      if (!isBF(Ty))
        return E;
      if (movesBits(E->WOp)) {
        E->Ty = U16;
        return E;
      }
      Problem = "line " + std::to_string(E->Loc.Line) +
                ": a bfloat16 wave reduction reached the emitter (kir::WaveExpand expands them)";
      return E;
    default:
      return E;
    }
  }

  Expr* intrinsic(Expr* E, const std::vector<Type>& Was) {
    const Type Ty = E->Ty;
    bool AnyBF = isBF(Ty);
    for (const Type& T : Was)
      AnyBF = AnyBF || isBF(T);
    if (!AnyBF)
      return E;
    if (E->IOp >= IntrinsicOp::MatrixFill && E->IOp <= IntrinsicOp::MatrixConvert) {
      // Cooperative matrices of bfloat16 are the SPIR-V emitter's (SPV_KHR_bfloat16): their
      // scalar operands stay bfloat16, as storage does.
      for (size_t I = 0; I < E->Ops.size(); ++I)
        if (isBF(Was[I]))
          E->Ops[I] = bitcast(BF16, E->Ops[I]);
      return E;
    }
    if (E->IOp == IntrinsicOp::Bitcast) { // bfloat16 <-> int16 / uint16: the same bits
      Type To = isBF(Ty) ? U16 : Ty;
      return E->Ops[0]->Ty == To ? E->Ops[0] : B.cast(To, E->Ops[0]);
    }
    // The math functions: float32's, rounded back.
    std::vector<Expr*> Ops;
    for (size_t I = 0; I < E->Ops.size(); ++I)
      Ops.push_back(isBF(Was[I]) ? toF32(E->Ops[I]) : E->Ops[I]);
    Expr* R = B.intrinsic(E->IOp, isBF(Ty) ? F32 : Ty, Ops, E->Dim);
    R->Index = E->Index;
    return isBF(Ty) ? fromF32(R) : R;
  }
};

} // namespace

uint16_t BFloat16Lowering::bitsOf(double V) {
  return xpu::bfloat16::fromDouble(V);
}

bool BFloat16Lowering::run(Module& M, Function& F, std::string& Error) {
  if (!F.Body)
    return true;
  Lowerer L(M, F);
  return L.run(Error);
}

} // namespace cajeta::kir
