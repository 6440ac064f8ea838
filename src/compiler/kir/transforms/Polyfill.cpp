// The language's value rules as KIR rewrites (Polyfill.h). Each rewrite opens with its rule.
//
// KIR expressions are trees: a rule that reads an operand twice must not copy an operand that
// has effects or costs, so operands other than leaves (constants, parameters, POD fields,
// locals) are first assigned to fresh locals, in their source order, and the rule reads those.
#include "compiler/kir/transforms/Polyfill.h"

#include "compiler/kir/Builder.h"
#include "compiler/kir/Walk.h"

#include <cmath>

namespace cajeta::kir {

PolyfillConfig PolyfillConfig::llvm() {
  PolyfillConfig C;
  C.IntDivRem = true;
  C.ShiftMask = true;
  return C;
}

PolyfillConfig PolyfillConfig::spirv() {
  PolyfillConfig C;
  C.IntDivRem = true;
  C.SignedDivByMagnitude = true;
  C.ShiftMask = true;
  C.SaturatingFToI = true;
  C.JavaMinMax = true;
  C.F64ToF16Once = true;
  C.ExactFRem = true;
  return C;
}

bool PolyfillConfig::byName(const std::string& Name, PolyfillConfig& Out) {
  if (Name == "llvm" || Name == "cpu" || Name == "cuda") {
    Out = llvm();
    return true;
  }
  if (Name == "spirv" || Name == "vulkan") {
    Out = spirv();
    return true;
  }
  return false;
}

namespace {

using bundle::ScalarType;

ScalarType unsignedOfWidth(unsigned Bits) {
  switch (Bits) {
  case 8:
    return ScalarType::U8;
  case 16:
    return ScalarType::U16;
  case 32:
    return ScalarType::U32;
  default:
    return ScalarType::U64;
  }
}

uint64_t widthMask(unsigned Bits) {
  return Bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << Bits) - 1;
}

/// Reads that give the same value every time and have no effect: a local until something
/// assigns it, the others always.
bool isLeaf(const Expr* E) {
  return E->K == Expr::Kind::Const || E->K == Expr::Kind::Local || E->K == Expr::Kind::Param ||
         E->K == Expr::Kind::Field;
}
bool isImmutable(const Expr* E) {
  return E->K == Expr::Kind::Const || E->K == Expr::Kind::Param || E->K == Expr::Kind::Field;
}

class Rewriter {
public:
  Rewriter(Module& M, Function& F, const PolyfillConfig& C) : B(M, F), C(C) {}

  Expr* rewrite(Expr* E) {
    B.setLoc(E->Loc);
    switch (E->K) {
    case Expr::Kind::Binary:
      if (E->Ops.size() != 2 || E->Ops[0]->Ty != E->Ty || E->Ops[1]->Ty != E->Ty)
        break;
      if (C.ExactFRem && E->BOp == BinaryOp::Rem && E->Ty.isFloat())
        return floatRem(E);
      if (!E->Ty.isInteger())
        break;
      if (C.IntDivRem && (E->BOp == BinaryOp::Div || E->BOp == BinaryOp::Rem))
        return E->Ty.isSigned() && C.SignedDivByMagnitude ? divRemByMagnitude(E) : divRem(E);
      if (C.ShiftMask &&
          (E->BOp == BinaryOp::Shl || E->BOp == BinaryOp::Shr || E->BOp == BinaryOp::UShr))
        return shift(E);
      break;
    case Expr::Kind::Cast: {
      if (E->Ops.size() != 1 || !E->Ty.isScalar() || !E->Ops[0]->Ty.isScalar())
        break;
      Type From = E->Ops[0]->Ty;
      if (C.SaturatingFToI && From.isFloat() && E->Ty.isInteger())
        return floatToInt(E);
      if (C.F64ToF16Once && From.Elem == ScalarType::F64 && E->Ty.Elem == ScalarType::F16 &&
          E->Ty.isFloat())
        return f64ToF16(E);
      break;
    }
    case Expr::Kind::Intrinsic:
      if (C.JavaMinMax && (E->IOp == IntrinsicOp::Min || E->IOp == IntrinsicOp::Max) &&
          E->Ty.isFloat() && E->Ops.size() == 2)
        return minMax(E);
      break;
    default:
      break;
    }
    return E;
  }

private:
  Builder B;
  const PolyfillConfig& C;

  /// A rewrite's operands, readable any number of times (read(I)), after Prefix has run.
  struct Bound {
    std::vector<Expr*> Prefix; // assignments of temporaries, in source order
    std::vector<Expr*> Ops;
  };

  /// Makes Ops re-readable. Every operand up to the last one that is not a leaf is assigned to a
  /// temporary, in order (a local read before such an operand too: the operand may assign it);
  /// the leaves after it are read in place, after it, as in the source. With KeepFirst, a
  /// non-leaf Ops[0] followed by leaves only stays in place: the rule then evaluates it once and
  /// before it reads any other operand.
  Bound bind(const std::vector<Expr*>& Ops, bool KeepFirst = false) {
    Bound R;
    R.Ops = Ops;
    size_t Last = Ops.size();
    for (size_t I = 0; I < Ops.size(); ++I)
      if (!isLeaf(Ops[I]))
        Last = I;
    if (Last == Ops.size() || (KeepFirst && Last == 0))
      return R;
    for (size_t I = 0; I <= Last; ++I) {
      if (isImmutable(Ops[I]))
        continue;
      uint32_t T = B.local("polyfill.tmp", Ops[I]->Ty);
      R.Prefix.push_back(B.assign(T, Ops[I]));
      R.Ops[I] = B.l(T);
    }
    return R;
  }
  /// Operand I of Bd as a new node (a leaf is copied; a kept first operand is itself).
  Expr* read(const Bound& Bd, size_t I) {
    Expr* E = Bd.Ops[I];
    return isLeaf(E) ? B.shallowCopy(E) : E;
  }
  /// Body after Bd's prefix.
  Expr* wrap(const Bound& Bd, Expr* Body) {
    if (Bd.Prefix.empty())
      return Body;
    std::vector<Expr*> Ops = Bd.Prefix;
    Ops.push_back(Body);
    return B.expr(Expr::Kind::Seq, Body->Ty, std::move(Ops));
  }
  /// V after evaluating X (only for its effects).
  Expr* valueAfter(Expr* X, Expr* V) {
    if (isLeaf(X))
      return V;
    return B.expr(Expr::Kind::Seq, V->Ty, {X, V});
  }

  Expr* intConst(Type T, int64_t V) { return B.constInt(T.Elem, V); }
  Expr* floatConst(Type T, double V) { return B.constFloat(T.Elem, V); }
  Expr* cmp(BinaryOp Op, Expr* L, Expr* R) { return B.bin(Op, L, R); }

  Expr* divRem(Expr* E) {
    // The rule: integer division never traps and always has a value. x / 0 == 0 and x % 0 == 0;
    // for signed types MIN / -1 == MIN (-MIN wrapped) and MIN % -1 == 0. Otherwise both round
    // toward zero, as in C (DivTrunc, RemTrunc). x is evaluated once, then d.
    //
    // The division runs unconditionally on a safe divisor (1 where d is 0, or -1 when signed;
    // x % 1 == 0 is then the remainder asked for), and the quotient is scaled by 0 where d == 0
    // and by -1 where d == -1 (x / 1 negated, wrapping at MIN): no branch around the division.
    Type T = E->Ty;
    bool IsDiv = E->BOp == BinaryOp::Div, Signed = T.isSigned();
    IntrinsicOp Raw = IsDiv ? IntrinsicOp::DivTrunc : IntrinsicOp::RemTrunc;
    Expr* X = E->Ops[0];
    Expr* D = E->Ops[1];
    if (D->K == Expr::Kind::Const) { // a known divisor needs no guard
      uint64_t V = D->IntValue & widthMask(T.bits());
      if (V == 0)
        return valueAfter(X, B.zero(T));
      if (Signed && V == widthMask(T.bits()))
        return IsDiv ? B.un(UnaryOp::Neg, X) : valueAfter(X, B.zero(T));
      return B.intrinsic(Raw, T, {X, D});
    }
    Bound Bd = bind({X, D}, /*KeepFirst=*/true);
    auto d = [&] { return read(Bd, 1); };
    Expr* Safe;
    if (!Signed) // umax(d, 1) in LLVM
      Safe = B.select(cmp(BinaryOp::Eq, d(), B.zero(T)), intConst(T, 1), d());
    else
      Safe = B.select(B.bin(BinaryOp::Or, cmp(BinaryOp::Eq, d(), B.zero(T)),
                            cmp(BinaryOp::Eq, d(), intConst(T, -1))),
                      intConst(T, 1), d());
    Expr* Q = B.intrinsic(Raw, T, {read(Bd, 0), Safe});
    if (!IsDiv)
      return wrap(Bd, Q);
    Expr* Scale;
    if (!Signed)
      Scale = B.cast(T, cmp(BinaryOp::Ne, d(), B.zero(T)));
    else
      Scale = B.select(
          cmp(BinaryOp::Eq, d(), B.zero(T)), B.zero(T),
          B.select(cmp(BinaryOp::Eq, d(), intConst(T, -1)), intConst(T, -1), intConst(T, 1)));
    return wrap(Bd, B.bin(BinaryOp::Mul, Q, Scale));
  }

  Expr* divRemByMagnitude(Expr* E) {
    // The rule as in divRem, for signed operands, without the machine's signed division: |x| and
    // |d| are divided as unsigned numbers (|MIN| is MIN read as unsigned, 2^(w-1)), by 1 where
    // d == 0, and the sign is applied by a multiply: by -1 when the signs differ (division) or x
    // is negative (remainder), by 0 for a division by 0. MIN / -1 then wraps back to MIN and
    // MIN % -1 == 0 with no special case; x % 0 == 0 follows from |x| % 1.
    Type T = E->Ty;
    Type U = Type::scalar(unsignedOfWidth(T.bits()));
    bool IsDiv = E->BOp == BinaryOp::Div;
    Bound Bd = bind({E->Ops[0], E->Ops[1]});
    auto x = [&] { return read(Bd, 0); };
    auto d = [&] { return read(Bd, 1); };
    auto Neg = [&](Expr* V) { return cmp(BinaryOp::Lt, V, B.zero(T)); };
    auto Mag = [&](auto V) { return B.cast(U, B.select(Neg(V()), B.un(UnaryOp::Neg, V()), V())); };
    Expr* Safe = B.bin(BinaryOp::Or, Mag(d), B.cast(U, cmp(BinaryOp::Eq, d(), B.zero(T))));
    Expr* Q = B.cast(
        T, B.intrinsic(IsDiv ? IntrinsicOp::DivTrunc : IntrinsicOp::RemTrunc, U, {Mag(x), Safe}));
    Expr* Sign;
    if (!IsDiv)
      Sign = B.select(Neg(x()), intConst(T, -1), intConst(T, 1));
    else
      Sign = B.select(
          cmp(BinaryOp::Eq, d(), B.zero(T)), B.zero(T),
          B.select(cmp(BinaryOp::Ne, Neg(x()), Neg(d())), intConst(T, -1), intConst(T, 1)));
    return wrap(Bd, B.bin(BinaryOp::Mul, Q, Sign));
  }

  Expr* shift(Expr* E) {
    // The rule: the count is taken modulo the width, x << (c & (bits - 1)), as in Java; >> is
    // arithmetic on signed types and logical on unsigned ones, >>> always logical. Each operand
    // is read once, in order, so nothing is bound.
    Type T = E->Ty;
    Type U = Type::scalar(unsignedOfWidth(T.bits()));
    uint64_t Mask = T.bits() - 1;
    Expr* X = E->Ops[0];
    Expr* Cnt = E->Ops[1];
    Expr* Count = Cnt->K == Expr::Kind::Const ? intConst(T, int64_t(Cnt->IntValue & Mask))
                                              : B.bin(BinaryOp::And, Cnt, intConst(T, Mask));
    if (E->BOp == BinaryOp::Shl)
      return B.intrinsic(IntrinsicOp::ShiftLeft, T, {X, Count});
    if (E->BOp == BinaryOp::Shr || !T.isSigned())
      return B.intrinsic(IntrinsicOp::ShiftRight, T, {X, Count});
    // >>> on a signed type: a logical shift of the same bits read as unsigned.
    return B.cast(T, B.intrinsic(IntrinsicOp::ShiftRight, U, {B.cast(U, X), B.cast(U, Count)}));
  }

  Expr* floatToInt(Expr* E) {
    // The rule: round toward zero; a value below the type's range gives its MIN, one above it
    // its MAX, NaN gives 0 (Java's cast). FToIUnchecked only ever sees values that fit (others
    // are replaced by 0.0 first, and give 0), and the bound for a value out of range is added
    // to that 0; NaN fails every comparison, so it adds 0 to 0.
    Type F = E->Ops[0]->Ty, T = E->Ty;
    unsigned N = T.bits();
    double Lo = T.isSigned() ? -std::ldexp(1.0, int(N) - 1) : 0.0;
    double Hi = T.isSigned() ? std::ldexp(1.0, int(N) - 1) : std::ldexp(1.0, int(N));
    int64_t LoVal = T.isSigned() ? int64_t(~(widthMask(N) >> 1)) : 0;
    int64_t HiVal = int64_t(T.isSigned() ? widthMask(N) >> 1 : widthMask(N));
    Bound Bd = bind({E->Ops[0]});
    auto v = [&] { return read(Bd, 0); };
    Expr* InRange = B.bin(BinaryOp::And, cmp(BinaryOp::Gt, v(), floatConst(F, Lo)),
                          cmp(BinaryOp::Lt, v(), floatConst(F, Hi)));
    Expr* R =
        B.intrinsic(IntrinsicOp::FToIUnchecked, T, {B.select(InRange, v(), floatConst(F, 0.0))});
    Expr* Clamp = B.select(
        cmp(BinaryOp::Le, v(), floatConst(F, Lo)), intConst(T, LoVal),
        B.select(cmp(BinaryOp::Ge, v(), floatConst(F, Hi)), intConst(T, HiVal), B.zero(T)));
    return wrap(Bd, B.bin(BinaryOp::Add, R, Clamp));
  }

  Expr* f64ToF16(Expr* E) {
    // The rule: float64 -> float16 rounds once, to nearest even. Through a float32 rounded to
    // nearest it would round twice; a float32 rounded to odd (toward zero, the lowest mantissa
    // bit set when inexact) keeps enough bits (24 >= 11 + 2) that its one rounding to float16 is
    // the correct one. The float32 conversion may round either way: a result that rounded away
    // from zero (to infinity, too) is stepped back one unit on its magnitude bits.
    Type F32 = Type::scalar(ScalarType::F32), F64 = Type::scalar(ScalarType::F64);
    Type U32 = Type::scalar(ScalarType::U32);
    Bound Bd = bind({E->Ops[0]});
    auto v = [&] { return read(Bd, 0); };
    auto Near = [&] { return B.cast(F32, v()); };
    auto Back = [&] { return B.cast(F64, Near()); }; // exact
    Expr* Away =
        cmp(BinaryOp::Gt, B.math(IntrinsicOp::Abs, {Back()}), B.math(IntrinsicOp::Abs, {v()}));
    Expr* Inexact = cmp(BinaryOp::Ne, Back(), v()); // NaN: the bit set keeps it a NaN
    Expr* Bits = B.intrinsic(IntrinsicOp::Bitcast, U32, {Near()});
    Bits = B.bin(BinaryOp::Sub, Bits, B.cast(U32, Away));
    Bits = B.bin(BinaryOp::Or, Bits, B.cast(U32, Inexact));
    return wrap(Bd, B.cast(E->Ty, B.intrinsic(IntrinsicOp::Bitcast, F32, {Bits})));
  }

  Expr* floatRem(Expr* E) {
    // The rule: x % y is C's fmod: exact, with the sign of x; NaN when y is 0 or NaN or x is
    // infinite or NaN. Remainders of the form x - y * trunc(x / y) (Vulkan's OpFRem) are neither
    // exact nor sign-keeping, so the division is done on the bits (musl's fmod) in a helper.
    // The call evaluates x, then y, once each. float16 goes through float32: both widenings and
    // the remainder (smaller than |y|, a multiple of x's ulp) are exact.
    Type T = E->Ty;
    if (T.Elem == ScalarType::F16) {
      Type F32 = Type::scalar(ScalarType::F32);
      Expr* R = B.call(fmodHelper(F32), {B.cast(F32, E->Ops[0]), B.cast(F32, E->Ops[1])});
      return B.cast(T, R);
    }
    return B.call(fmodHelper(T), {E->Ops[0], E->Ops[1]});
  }

  /// The module's fmod helper for float type F (float32 or float64), made on first use.
  uint32_t fmodHelper(Type F) {
    std::string Name = "polyfill.fmod" + std::to_string(F.bits());
    Module& M = B.module();
    for (size_t I = 0; I < M.Functions.size(); ++I)
      if (M.Functions[I]->Name == Name)
        return uint32_t(I);
    // musl's fmod over the bits: N-bit words, Mant fraction bits, EBits exponent bits.
    const unsigned N = F.bits(), Mant = N == 64 ? 52 : 23, EBits = N - 1 - Mant;
    const Type U = Type::scalar(unsignedOfWidth(N)), I32 = Type::scalar(ScalarType::I32);
    Builder H(M);
    H.setLoc(B.loc());
    uint32_t Index = H.function(Name, false, F);
    H.current().ParamAccess = {bundle::Access::None, bundle::Access::None};
    uint32_t X = H.param("x", F), Y = H.param("y", F);
    uint32_t Ux = H.local("ux", U), Uy = H.local("uy", U), Ex = H.local("ex", I32),
             Ey = H.local("ey", I32), Sx = H.local("sx", U), Iv = H.local("i", U);
    auto W = [&](uint64_t V) { return H.constInt(U.Elem, int64_t(V)); };
    auto I = [&](int64_t V) { return H.i32(V); };
    auto Bin = [&](BinaryOp Op, Expr* L, Expr* R) { return H.bin(Op, L, R); };
    // Shifts by counts below N (a computed count is masked, which never changes it here).
    auto Count = [&](Expr* C) {
      return C->K == Expr::Kind::Const ? C : Bin(BinaryOp::And, C, W(N - 1));
    };
    auto Shl = [&](Expr* V, Expr* C) {
      return H.intrinsic(IntrinsicOp::ShiftLeft, U, {V, Count(C)});
    };
    auto Shr = [&](Expr* V, Expr* C) {
      return H.intrinsic(IntrinsicOp::ShiftRight, U, {V, Count(C)});
    };
    auto Set = [&](uint32_t L, Expr* V) { return H.eval(H.assign(L, V)); };
    auto Dec = [&](uint32_t L) { return Set(L, Bin(BinaryOp::Sub, H.l(L), I(1))); };
    auto Top = [&](uint32_t L) { return Bin(BinaryOp::Eq, Shr(H.l(L), W(N - 1)), W(0)); };
    auto SignedZero = [&] { // x's sign on a zero (from the bits: 0 * x may lose it on a GPU)
      return H.ret(H.intrinsic(IntrinsicOp::Bitcast, F, {H.l(Sx)}));
    };
    auto Exponent = [&](uint32_t L) {
      return H.cast(I32, Bin(BinaryOp::And, Shr(H.l(L), W(Mant)), W((1u << EBits) - 1)));
    };
    // Normalise a word and its exponent: the leading one at bit Mant, the exponent going below
    // 1 for a subnormal.
    auto Normalise = [&](uint32_t L, uint32_t E) {
      Stmt* Sub = H.block(
          {Set(Iv, Shl(H.l(L), W(EBits + 1))),
           H.loop(Top(Iv), H.block({Dec(E), Set(Iv, Shl(H.l(Iv), W(1)))})),
           Set(L, Shl(H.l(L), H.cast(U, Bin(BinaryOp::Add, H.un(UnaryOp::Neg, H.l(E)), I(1)))))});
      Stmt* Normal = H.block({Set(L, Bin(BinaryOp::And, H.l(L), W(widthMask(N) >> (EBits + 1)))),
                              Set(L, Bin(BinaryOp::Or, H.l(L), W(uint64_t(1) << Mant)))});
      return H.ifThen(Bin(BinaryOp::Eq, H.l(E), I(0)), Sub, Normal);
    };
    // i = ux - uy; when not negative: a zero remainder ends, else ux = i.
    auto Step = [&] {
      return H.block(
          {Set(Iv, Bin(BinaryOp::Sub, H.l(Ux), H.l(Uy))),
           H.ifThen(Top(Iv), H.block({H.ifThen(Bin(BinaryOp::Eq, H.l(Iv), W(0)), SignedZero()),
                                      Set(Ux, H.l(Iv))}))});
    };
    Expr* XY = Bin(BinaryOp::Mul, H.p(X), H.p(Y));
    Expr* NanOut = Bin(BinaryOp::Div, XY, Bin(BinaryOp::Mul, H.p(X), H.p(Y)));
    H.body({
        Set(Ux, H.intrinsic(IntrinsicOp::Bitcast, U, {H.p(X)})),
        Set(Uy, H.intrinsic(IntrinsicOp::Bitcast, U, {H.p(Y)})),
        Set(Ex, Exponent(Ux)),
        Set(Ey, Exponent(Uy)),
        Set(Sx, Bin(BinaryOp::And, H.l(Ux), W(uint64_t(1) << (N - 1)))),
        H.ifThen(Bin(BinaryOp::Or,
                     Bin(BinaryOp::Or, Bin(BinaryOp::Eq, Shl(H.l(Uy), W(1)), W(0)),
                         Bin(BinaryOp::Ne, H.p(Y), H.p(Y))),
                     Bin(BinaryOp::Eq, H.l(Ex), I((1 << EBits) - 1))),
                 H.ret(NanOut)),
        H.ifThen(Bin(BinaryOp::Le, Shl(H.l(Ux), W(1)), Shl(H.l(Uy), W(1))),
                 H.block({H.ifThen(Bin(BinaryOp::Eq, Shl(H.l(Ux), W(1)), Shl(H.l(Uy), W(1))),
                                   SignedZero()),
                          H.ret(H.p(X))})),
        Normalise(Ux, Ex),
        Normalise(Uy, Ey),
        // Long division a bit at a time.
        H.loop(Bin(BinaryOp::Gt, H.l(Ex), H.l(Ey)),
               H.block({Step(), Set(Ux, Shl(H.l(Ux), W(1))), Dec(Ex)})),
        Step(),
        H.loop(Bin(BinaryOp::Eq, Shr(H.l(Ux), W(Mant)), W(0)),
               H.block({Set(Ux, Shl(H.l(Ux), W(1))), Dec(Ex)})),
        // Rebuild the float: a normal exponent, or shifted down to a subnormal.
        H.ifThen(Bin(BinaryOp::Gt, H.l(Ex), I(0)),
                 H.block({Set(Ux, Bin(BinaryOp::Sub, H.l(Ux), W(uint64_t(1) << Mant))),
                          Set(Ux, Bin(BinaryOp::Or, H.l(Ux), Shl(H.cast(U, H.l(Ex)), W(Mant))))}),
                 Set(Ux, Shr(H.l(Ux),
                             H.cast(U, Bin(BinaryOp::Add, H.un(UnaryOp::Neg, H.l(Ex)), I(1)))))),
        H.ret(H.intrinsic(IntrinsicOp::Bitcast, F, {Bin(BinaryOp::Or, H.l(Ux), H.l(Sx))})),
    });
    return Index;
  }

  Expr* minMax(Expr* E) {
    // The rule: Math.min/max. A NaN operand gives NaN (the sum, which carries it); otherwise the
    // smaller (larger) value, and between equal values, +0 and -0 included, the bitwise or (and)
    // of the two, so min(-0, +0) == -0 and max(-0, +0) == +0.
    bool IsMin = E->IOp == IntrinsicOp::Min;
    Type T = E->Ty;
    Type U = Type::scalar(unsignedOfWidth(T.bits()));
    Bound Bd = bind({E->Ops[0], E->Ops[1]});
    auto a = [&] { return read(Bd, 0); };
    auto b = [&] { return read(Bd, 1); };
    auto Bits = [&](Expr* V) { return B.intrinsic(IntrinsicOp::Bitcast, U, {V}); };
    Expr* Equal = B.intrinsic(IntrinsicOp::Bitcast, T,
                              {B.bin(IsMin ? BinaryOp::Or : BinaryOp::And, Bits(a()), Bits(b()))});
    Expr* R = B.select(cmp(BinaryOp::Lt, a(), b()), IsMin ? a() : b(),
                       B.select(cmp(BinaryOp::Gt, a(), b()), IsMin ? b() : a(), Equal));
    Expr* AnyNan = B.bin(BinaryOp::Or, cmp(BinaryOp::Ne, a(), a()), cmp(BinaryOp::Ne, b(), b()));
    return wrap(Bd, B.select(AnyNan, B.bin(BinaryOp::Add, a(), b()), R));
  }
};

} // namespace

void Polyfill::run(Module& M, Function& F, const PolyfillConfig& C) {
  if (!C.any() || !F.Body)
    return;
  Rewriter R(M, F, C);
  rewriteExprs(F.Body, [&](Expr* E) { return R.rewrite(E); });
}

} // namespace cajeta::kir
