// The wave composites in KIR (WaveExpand.h). Values travel through ShuffleWord as uint32 words:
// bool as 0/1, 8- and 16-bit numbers zero-extended (float16 by its bits), 32-bit ones by their
// bits, 64-bit ones as a low and a high word. A shuffle that keeps the lane's own value reads the
// own lane instead of an out-of-range one, so every ShuffleWord has an in-range source.
#include "compiler/kir/transforms/WaveExpand.h"

#include "compiler/kir/Builder.h"
#include "compiler/kir/transforms/StatementHoister.h"

#include <functional>
#include <vector>

namespace cajeta::kir {
namespace {

using bundle::ScalarType;

Type u32Ty() {
  return Type::scalar(ScalarType::U32);
}
Type u64Ty() {
  return Type::scalar(ScalarType::U64);
}

bool isInt32(const Type& T) {
  return T.isInteger() && T.bits() == 32;
}
bool isReduction(WaveOp Op) {
  return Op >= WaveOp::ReduceSum && Op <= WaveOp::ReduceXor;
}
bool isScan(WaveOp Op) {
  return Op == WaveOp::InclusiveSum || Op == WaveOp::ExclusiveSum;
}

class Expander : public StatementHoister {
public:
  Expander(Module& M, Function& F, const WavePrimitives& P)
      : StatementHoister(M), B(M, F), F(F), P(P) {}

  bool run() {
    F.Body = rewriteStmt(F.Body);
    return Error.empty();
  }

private:
  using Stmts = std::vector<Stmt*>;

  // ---- KIR pieces ----

  Expr* lane() { return B.wave(WaveOp::LaneId, u32Ty()); }
  Expr* width() {
    return P.ConstantWidth ? B.u32(P.ConstantWidth) : B.wave(WaveOp::Width, u32Ty());
  }
  Expr* widthMask() { return B.bin(BinaryOp::Sub, width(), B.u32(1)); }
  uint32_t newLocal(const std::string& Name, Type T) { return B.local("wave." + Name, T); }
  Stmt* set(uint32_t L, Expr* V) { return B.eval(B.assign(L, V)); }
  Expr* bitcast(Type To, Expr* A) { return B.intrinsic(IntrinsicOp::Bitcast, To, {A}); }
  Expr* castTo(Type To, Expr* A) { return A->Ty == To ? A : B.cast(To, A); }
  /// Cond ? Src : lane: the source of a shuffle that keeps the own value where Cond is false.
  Expr* srcOr(Expr* Cond, Expr* Src) { return B.select(Cond, Src, lane()); }

  // ---- words ----

  /// Local L's value as uint32 words (one, or low and high for 64-bit types).
  std::vector<Expr*> toWords(uint32_t L) {
    Type T = F.Locals[L].Ty;
    if (T.isBool())
      return {B.cast(u32Ty(), B.l(L))};
    if (T.bits() == 64) {
      auto Bits = [&] { return T.isFloat() ? bitcast(u64Ty(), B.l(L)) : castTo(u64Ty(), B.l(L)); };
      Expr* Hi = B.bin(BinaryOp::UShr, Bits(), B.constInt(ScalarType::U64, 32));
      return {B.cast(u32Ty(), Bits()), B.cast(u32Ty(), Hi)};
    }
    Expr* X = B.l(L);
    if (T.isFloat()) // by the bits: float16 through uint16
      X = bitcast(Type::scalar(T.bits() == 16 ? ScalarType::U16 : ScalarType::U32), X);
    else if (T.isSigned()) // zero-extended, not sign-extended
      X = castTo(Type::scalar(T.bits() == 8    ? ScalarType::U8
                              : T.bits() == 16 ? ScalarType::U16
                                               : ScalarType::U32),
                 X);
    return {castTo(u32Ty(), X)};
  }

  /// The value of type T whose words are W (toWords' inverse).
  Expr* fromWords(Type T, const std::vector<Expr*>& W) {
    if (T.isBool())
      return B.bin(BinaryOp::Ne, W[0], B.u32(0));
    if (T.bits() == 64) {
      Expr* Bits =
          B.bin(BinaryOp::Or, B.cast(u64Ty(), W[0]),
                B.bin(BinaryOp::Shl, B.cast(u64Ty(), W[1]), B.constInt(ScalarType::U64, 32)));
      return T.isFloat() ? bitcast(T, Bits) : castTo(T, Bits);
    }
    if (T.isFloat())
      return bitcast(
          T, castTo(Type::scalar(T.bits() == 16 ? ScalarType::U16 : ScalarType::U32), W[0]));
    return castTo(T, W[0]);
  }

  /// Local V's value as lane Src (in range) holds it: one ShuffleWord per word. Statements the
  /// shuffle needs first go to Out.
  Expr* shuffle(uint32_t V, Expr* Src, Stmts& Out) {
    std::vector<Expr*> W = toWords(V);
    if (W.size() == 1) {
      W[0] = B.wave(WaveOp::ShuffleWord, u32Ty(), {W[0], Src});
    } else {
      uint32_t S = newLocal("src", u32Ty()); // the source once for both words
      Out.push_back(set(S, Src));
      for (Expr*& X : W)
        X = B.wave(WaveOp::ShuffleWord, u32Ty(), {X, B.l(S)});
    }
    return fromWords(F.Locals[V].Ty, W);
  }

  /// Body(m, Out) for m = 1, 2, 4, ..., width/2: unrolled when the width is a constant, else
  /// the loop `for (m = 1; m < Wave.width(); m <<= 1)` (a wave-uniform trip count).
  void steps(Stmts& Out, const std::function<void(const std::function<Expr*()>&, Stmts&)>& Body) {
    if (P.ConstantWidth) {
      for (uint32_t M = 1; M < P.ConstantWidth; M <<= 1)
        Body([&, M] { return B.u32(M); }, Out);
      return;
    }
    uint32_t M = newLocal("step", u32Ty());
    Out.push_back(set(M, B.u32(1)));
    Stmts LoopBody;
    Body([&, M] { return B.l(M); }, LoopBody);
    Out.push_back(B.loop(B.bin(BinaryOp::Lt, B.l(M), width()), B.block(LoopBody),
                         set(M, B.bin(BinaryOp::Shl, B.l(M), B.u32(1)))));
  }

  Expr* combine(WaveOp Op, Expr* X, Expr* Y) {
    switch (Op) {
    case WaveOp::ReduceMin: // Math.min/max on floats (NaN wins, -0 < +0)
      return B.intrinsic(IntrinsicOp::Min, X->Ty, {X, Y});
    case WaveOp::ReduceMax:
      return B.intrinsic(IntrinsicOp::Max, X->Ty, {X, Y});
    case WaveOp::ReduceAnd:
      return B.bin(BinaryOp::And, X, Y);
    case WaveOp::ReduceOr:
      return B.bin(BinaryOp::Or, X, Y);
    case WaveOp::ReduceXor:
      return B.bin(BinaryOp::Xor, X, Y);
    default:
      return B.bin(BinaryOp::Add, X, Y);
    }
  }

  // ---- the composites ----

  /// Statements to Out that leave the value of composite E in a new local, which is returned.
  Expr* expand(Expr* E, Stmts& Out) {
    WaveOp Op = E->WOp;
    Type T = E->Ops[0]->Ty;
    uint32_t V = newLocal("value", T);
    Out.push_back(set(V, E->Ops[0]));
    uint32_t N = 0;
    if (E->Ops.size() == 2) {
      N = newLocal("lane", u32Ty());
      Out.push_back(set(N, E->Ops[1]));
    }
    uint32_t R = newLocal(waveOpName(Op), E->Ty);
    switch (Op) {
    case WaveOp::Shuffle: // lane & (width - 1)
      Out.push_back(set(R, shuffle(V, B.bin(BinaryOp::And, B.l(N), widthMask()), Out)));
      break;
    case WaveOp::ShuffleUp: // lane - delta where lane >= delta
      Out.push_back(set(R, shuffle(V,
                                   srcOr(B.bin(BinaryOp::Ge, lane(), B.l(N)),
                                         B.bin(BinaryOp::Sub, lane(), B.l(N))),
                                   Out)));
      break;
    case WaveOp::ShuffleDown: // lane + delta where delta < width - lane (no 32-bit wrap)
      Out.push_back(
          set(R, shuffle(V,
                         srcOr(B.bin(BinaryOp::Lt, B.l(N), B.bin(BinaryOp::Sub, width(), lane())),
                               B.bin(BinaryOp::Add, lane(), B.l(N))),
                         Out)));
      break;
    case WaveOp::ShuffleXor: // lane ^ mask where that is < width
      Out.push_back(
          set(R, shuffle(V,
                         srcOr(B.bin(BinaryOp::Lt, B.bin(BinaryOp::Xor, lane(), B.l(N)), width()),
                               B.bin(BinaryOp::Xor, lane(), B.l(N))),
                         Out)));
      break;
    case WaveOp::Rotate: // (lane + delta) & (width - 1)
      Out.push_back(
          set(R, shuffle(V, B.bin(BinaryOp::And, B.bin(BinaryOp::Add, lane(), B.l(N)), widthMask()),
                         Out)));
      break;
    case WaveOp::BroadcastFirst: // every lane is active, so the first active one is lane 0
      if (P.BroadcastFirstWord) {
        std::vector<Expr*> W = toWords(V);
        for (Expr*& X : W)
          X = B.wave(WaveOp::BroadcastFirst, u32Ty(), {X});
        Out.push_back(set(R, fromWords(T, W)));
      } else {
        Out.push_back(set(R, shuffle(V, B.u32(0), Out)));
      }
      break;
    case WaveOp::InclusiveSum:
    case WaveOp::ExclusiveSum:
      inclusiveScan(V, R, Out);
      if (Op == WaveOp::ExclusiveSum) {
        // The inclusive sum of lane - 1; 0 at lane 0.
        uint32_t Prev = newLocal("prev", T);
        Out.push_back(set(Prev, shuffle(R,
                                        srcOr(B.bin(BinaryOp::Ne, lane(), B.u32(0)),
                                              B.bin(BinaryOp::Sub, lane(), B.u32(1))),
                                        Out)));
        Out.push_back(
            set(R, B.select(B.bin(BinaryOp::Ne, lane(), B.u32(0)), B.l(Prev), B.zero(T))));
      }
      break;
    default: // the reductions
      butterfly(Op, V, R, Out);
      break;
    }
    return B.l(R);
  }

  /// Kir.h's butterfly: for m = 1, 2, ..., width/2: R = op(R, R of lane ^ m).
  void butterfly(WaveOp Op, uint32_t V, uint32_t R, Stmts& Out) {
    Out.push_back(set(R, B.l(V)));
    steps(Out, [&](const std::function<Expr*()>& M, Stmts& Body) {
      Expr* Other = shuffle(R, B.bin(BinaryOp::Xor, lane(), M()), Body);
      Body.push_back(set(R, combine(Op, B.l(R), Other)));
    });
  }

  /// Kir.h's Hillis-Steele: for d = 1, 2, ..., width/2: if (lane >= d) R = (R of lane - d) + R.
  /// Every lane shuffles (its own value where lane < d), so every step is wave-uniform.
  void inclusiveScan(uint32_t V, uint32_t R, Stmts& Out) {
    Type T = F.Locals[R].Ty;
    Out.push_back(set(R, B.l(V)));
    uint32_t Below = newLocal("below", T);
    steps(Out, [&](const std::function<Expr*()>& D, Stmts& Body) {
      Body.push_back(
          set(Below,
              shuffle(R, srcOr(B.bin(BinaryOp::Ge, lane(), D()), B.bin(BinaryOp::Sub, lane(), D())),
                      Body)));
      Body.push_back(set(R, B.select(B.bin(BinaryOp::Ge, lane(), D()),
                                     B.bin(BinaryOp::Add, B.l(Below), B.l(R)), B.l(R))));
    });
  }

  // ---- the walk ----

  std::string where(const Expr* E) const {
    return "at " + std::to_string(E->Loc.Line) + ":" + std::to_string(E->Loc.Col) + ": 'Wave." +
           waveOpName(E->WOp) + "'";
  }

  /// Whether E (a Wave) is well-formed KIR; sets Error if not.
  bool check(const Expr* E) {
    unsigned Arity = waveOperandCount(E->WOp);
    if (E->WOp > WaveOp::ShuffleWord) {
      Error = "malformed KIR: unknown wave op " + std::to_string(unsigned(E->WOp));
      return false;
    }
    if (E->Ops.size() != Arity) {
      Error = "malformed KIR " + where(E) + " with " + std::to_string(E->Ops.size()) + " operands";
      return false;
    }
    for (const Expr* O : E->Ops)
      if (!O) {
        Error = "malformed KIR " + where(E) + " with a null operand";
        return false;
      }
    Type T = Arity ? E->Ops[0]->Ty : Type::voidTy();
    if ((Arity && !waveOperandAllowed(E->WOp, T)) || (Arity == 2 && E->Ops[1]->Ty != u32Ty()) ||
        E->Ty != waveResultType(E->WOp, T)) {
      Error = "malformed KIR " + where(E) + " on operands or with a result of the wrong type";
      return false;
    }
    return true;
  }

  /// Each composite wave op becomes statements in Pre (in evaluation order) and a local. Hoist
  /// false where it cannot move (a loop's condition or step, a conditionally evaluated operand):
  /// a composite there is an error (Sema prevents it).
  Expr* rewriteNode(Expr* E, Stmts& Pre, bool Hoist) override {
    if (E->K != Expr::Kind::Wave || !check(E) || P.provides(*E))
      return E;
    if (!Hoist) {
      Error = where(E) + " in a loop condition, a loop update or a conditional operand cannot be "
                         "expanded";
      return E;
    }
    B.setLoc(E->Loc);
    return expand(E, Pre);
  }

  Builder B;
  Function& F;
  const WavePrimitives& P;
};

} // namespace

bool WavePrimitives::provides(const Expr& E) const {
  switch (E.WOp) {
  case WaveOp::Width:
  case WaveOp::LaneId:
  case WaveOp::ShuffleWord:
  case WaveOp::Ballot:
  case WaveOp::All:
  case WaveOp::Any:
    return true;
  case WaveOp::BroadcastFirst:
    return BroadcastFirstWord && E.Ops.size() == 1 && E.Ops[0] && E.Ops[0]->Ty == u32Ty();
  default:
    if (E.Ops.size() != 1 || !E.Ops[0] || !E.Ops[0]->Ty.isInteger() ||
        !(isInt32(E.Ops[0]->Ty) || (Int64Arithmetic && E.Ops[0]->Ty.bits() == 64)))
      return false;
    return isReduction(E.WOp) ? ReduceInt32 : isScan(E.WOp) && ScanInt32;
  }
}

bool WaveExpand::run(Module& M, Function& F, const WavePrimitives& P, std::string& Error) {
  Expander X(M, F, P);
  if (X.run())
    return true;
  Error = X.Error;
  return false;
}

} // namespace cajeta::kir
