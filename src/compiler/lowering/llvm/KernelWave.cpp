// KernelLowering's wave (subgroup) operations, native tier: every kir::WaveOp built from the
// target's wave leaves (width, lane id, 32-bit shuffle, ballot, vote, native reduction).
#include "compiler/lowering/llvm/KernelLowering.h"

#include <llvm/IR/Intrinsics.h>

namespace cajeta::lowering {

using kir::Expr;
using kir::IntrinsicOp;
using kir::Type;
using kir::WaveOp;

namespace {

bool isReduction(WaveOp Op) {
  return Op >= WaveOp::ReduceSum && Op <= WaveOp::ReduceXor;
}

bool isScan(WaveOp Op) {
  return Op == WaveOp::InclusiveSum || Op == WaveOp::ExclusiveSum;
}

/// The composites of Kir.h's wave semantics over one target's leaves. A leaf the target lacks
/// (null) leaves Missing set and a poison value in its place; the caller reports the error.
class WaveBuilder {
public:
  WaveBuilder(llvm::IRBuilder<>& B, LoweringTarget& T, const WorkItemContext& W)
      : B(B), T(T), W(W), I32(B.getInt32Ty()) {}

  bool Missing = false;

  llvm::Value* width() {
    if (!Width)
      Width = leaf(T.waveWidth(B, W), I32);
    return Width;
  }
  /// The width as a constant, 0 when the target's width is not one.
  uint32_t constantWidth() {
    auto* C = llvm::dyn_cast<llvm::ConstantInt>(width());
    return C ? uint32_t(C->getZExtValue()) : 0;
  }
  llvm::Value* lane() {
    if (!Lane)
      Lane = leaf(T.waveLaneId(B, W), I32);
    return Lane;
  }

  /// V (KIR type Ty) as lane Src (i32, in range) holds it: i32 pieces, one shuffle each.
  llvm::Value* shuffle(llvm::Value* V, Type Ty, llvm::Value* Src) {
    llvm::SmallVector<llvm::Value*, 2> Pieces = toPieces(V, Ty);
    for (llvm::Value*& P : Pieces)
      P = leaf(T.waveShuffle(B, W, P, Src), I32);
    return fromPieces(Pieces, Ty);
  }
  /// V of lane Src when Valid, else this lane's own V (a shuffle of the own lane).
  llvm::Value* shuffleIf(llvm::Value* V, Type Ty, llvm::Value* Valid, llvm::Value* Src) {
    return shuffle(V, Ty, B.CreateSelect(Valid, Src, lane()));
  }
  llvm::Value* shuffleUp(llvm::Value* V, Type Ty, llvm::Value* Delta) {
    return shuffleIf(V, Ty, B.CreateICmpUGE(lane(), Delta), B.CreateSub(lane(), Delta));
  }
  llvm::Value* shuffleDown(llvm::Value* V, Type Ty, llvm::Value* Delta) {
    // lane + Delta < width, without the wrap of lane + Delta in 32 bits.
    llvm::Value* Valid = B.CreateICmpULT(Delta, B.CreateSub(width(), lane()));
    return shuffleIf(V, Ty, Valid, B.CreateAdd(lane(), Delta));
  }
  llvm::Value* shuffleXor(llvm::Value* V, Type Ty, llvm::Value* Mask) {
    llvm::Value* Src = B.CreateXor(lane(), Mask);
    return shuffleIf(V, Ty, B.CreateICmpULT(Src, width()), Src);
  }
  llvm::Value* rotate(llvm::Value* V, Type Ty, llvm::Value* Delta) {
    llvm::Value* Src = B.CreateAnd(B.CreateAdd(lane(), Delta), B.CreateSub(width(), B.getInt32(1)));
    return shuffle(V, Ty, Src);
  }

  /// The butterfly of Kir.h: for m = 1, 2, ..., Width/2: V = Combine(V, V of lane ^ m).
  template <typename CombineFn>
  llvm::Value* butterfly(llvm::Value* V, Type Ty, uint32_t Width, CombineFn Combine) {
    for (uint32_t M = 1; M < Width; M <<= 1)
      V = Combine(V, shuffle(V, Ty, B.CreateXor(lane(), B.getInt32(M))));
    return V;
  }
  /// Hillis-Steele (Kir.h): for d = 1, 2, ..., Width/2: if (lane >= d) V = (V of lane - d) + V.
  template <typename AddFn>
  llvm::Value* inclusiveScan(llvm::Value* V, Type Ty, uint32_t Width, AddFn Add) {
    for (uint32_t D = 1; D < Width; D <<= 1) {
      llvm::Value* Valid = B.CreateICmpUGE(lane(), B.getInt32(D));
      llvm::Value* Below = shuffleIf(V, Ty, Valid, B.CreateSub(lane(), B.getInt32(D)));
      V = B.CreateSelect(Valid, Add(Below, V), V);
    }
    return V;
  }
  /// The inclusive sum of lane - 1; 0 at lane 0.
  llvm::Value* exclusiveFromInclusive(llvm::Value* Incl, Type Ty) {
    llvm::Value* Valid = B.CreateICmpNE(lane(), B.getInt32(0));
    llvm::Value* Prev = shuffleIf(Incl, Ty, Valid, B.CreateSub(lane(), B.getInt32(1)));
    return B.CreateSelect(Valid, Prev, llvm::Constant::getNullValue(Incl->getType()));
  }

private:
  llvm::Value* leaf(llvm::Value* V, llvm::Type* Ty) {
    if (V)
      return V;
    Missing = true;
    return llvm::PoisonValue::get(Ty);
  }
  /// A scalar of KIR type Ty as i32 pieces: narrower types zero-extended, 64-bit ones split
  /// low then high; floats by their bits.
  llvm::SmallVector<llvm::Value*, 2> toPieces(llvm::Value* V, Type Ty) {
    unsigned Bits = Ty.bits();
    if (Ty.isFloat())
      V = B.CreateBitCast(V, B.getIntNTy(Bits));
    if (Bits <= 32)
      return {B.CreateZExtOrTrunc(V, I32)};
    return {B.CreateTrunc(V, I32), B.CreateTrunc(B.CreateLShr(V, 32), I32)};
  }
  llvm::Value* fromPieces(llvm::ArrayRef<llvm::Value*> Pieces, Type Ty) {
    unsigned Bits = Ty.bits();
    llvm::Type* IntTy = B.getIntNTy(Bits);
    llvm::Value* R = nullptr;
    if (Pieces.size() == 1) {
      R = B.CreateZExtOrTrunc(Pieces[0], IntTy);
    } else {
      llvm::Value* Lo = B.CreateZExt(Pieces[0], IntTy);
      llvm::Value* Hi = B.CreateShl(B.CreateZExt(Pieces[1], IntTy), 32);
      R = B.CreateOr(Lo, Hi);
    }
    return Ty.isFloat() ? B.CreateBitCast(R, KernelLowering::valueType(B.getContext(), Ty)) : R;
  }

  llvm::IRBuilder<>& B;
  LoweringTarget& T;
  const WorkItemContext& W;
  llvm::Type* I32;
  llvm::Value* Width = nullptr;
  llvm::Value* Lane = nullptr;
};

/// Whether Ty may be the operand of Op (Sema's rules, checked again on KIR).
bool operandAllowed(WaveOp Op, Type Ty) {
  if (!Ty.isScalar())
    return false;
  switch (Op) {
  case WaveOp::Ballot:
  case WaveOp::All:
  case WaveOp::Any:
    return Ty.isBool();
  case WaveOp::ReduceAnd:
  case WaveOp::ReduceOr:
  case WaveOp::ReduceXor:
    return Ty.isInteger() && Ty.bits() >= 32;
  case WaveOp::ReduceSum:
  case WaveOp::ReduceMin:
  case WaveOp::ReduceMax:
  case WaveOp::InclusiveSum:
  case WaveOp::ExclusiveSum:
    return (Ty.isInteger() || Ty.isFloat()) && Ty.bits() >= 32;
  default:
    return true;
  }
}

Type resultType(WaveOp Op, Type Operand) {
  switch (Op) {
  case WaveOp::Width:
  case WaveOp::LaneId:
    return Type::scalar(kir::ScalarType::U32);
  case WaveOp::Ballot:
    return Type::scalar(kir::ScalarType::U64);
  case WaveOp::All:
  case WaveOp::Any:
    return Type::scalar(kir::ScalarType::Bool);
  default:
    return Operand;
  }
}

} // namespace

llvm::Value* KernelLowering::lowerWave(const Expr* E) {
  WaveOp Op = E->WOp;
  if (Op > WaveOp::ExclusiveSum)
    return fail(E, "unknown wave op " + std::to_string(unsigned(Op)));
  std::string Name = std::string("Wave.") + kir::waveOpName(Op);
  unsigned Arity = kir::waveOperandCount(Op);
  if (!checkOps(E, Arity))
    return poisonOf(E->Ty);
  Type Operand = Arity ? E->Ops[0]->Ty : Type::voidTy();
  if (Arity && !operandAllowed(Op, Operand))
    return fail(E, "'" + Name + "' on " + Operand.str());
  if (Arity == 2 && E->Ops[1]->Ty != Type::scalar(kir::ScalarType::U32))
    return fail(E, "the lane or distance of '" + Name + "' must be uint32");
  if (E->Ty != resultType(Op, Operand))
    return fail(E, "'" + Name + "' has the wrong result type " + E->Ty.str());

  std::vector<llvm::Value*> Vals;
  for (const Expr* A : E->Ops)
    Vals.push_back(lowerExpr(A));
  if (!Error.empty())
    return poisonOf(E->Ty);

  WaveBuilder WB(B, Target, Cur->WorkItem);
  auto NeedsPortable = [&]() {
    if (Error.empty())
      Error = "function '" + Cur->KF->Name + "' at " + std::to_string(E->Loc.Line) + ":" +
              std::to_string(E->Loc.Col) + ": '" + Name +
              "': wave operations need the portable tier on this backend" +
              (Opts.Backend.empty() ? std::string() : " (" + Opts.Backend + ")");
    return poisonOf(E->Ty);
  };
  // Without a native width there are no native waves at all: report before emitting anything.
  if (!WB.width() || WB.Missing)
    return NeedsPortable();

  llvm::Value* R = nullptr;
  switch (Op) {
  case WaveOp::Width:
    R = WB.width();
    break;
  case WaveOp::LaneId:
    R = WB.lane();
    break;
  case WaveOp::Shuffle:
    R = WB.shuffle(Vals[0], Operand, B.CreateAnd(Vals[1], B.CreateSub(WB.width(), B.getInt32(1))));
    break;
  case WaveOp::ShuffleUp:
    R = WB.shuffleUp(Vals[0], Operand, Vals[1]);
    break;
  case WaveOp::ShuffleDown:
    R = WB.shuffleDown(Vals[0], Operand, Vals[1]);
    break;
  case WaveOp::ShuffleXor:
    R = WB.shuffleXor(Vals[0], Operand, Vals[1]);
    break;
  case WaveOp::Rotate:
    R = WB.rotate(Vals[0], Operand, Vals[1]);
    break;
  case WaveOp::BroadcastFirst:
    R = WB.shuffle(Vals[0], Operand, B.getInt32(0));
    break;
  case WaveOp::Ballot:
    R = Target.waveBallot(B, Cur->WorkItem, Vals[0]);
    break;
  case WaveOp::All:
  case WaveOp::Any:
    R = Target.waveVote(B, Cur->WorkItem, Op == WaveOp::All, Vals[0]);
    break;
  default:
    break;
  }
  if (isReduction(Op) || isScan(Op)) {
    if (isReduction(Op))
      R = Target.waveReduceNative(B, Cur->WorkItem, Op, Operand, Vals[0]);
    if (!R) {
      uint32_t Width = WB.constantWidth();
      if (!Width)
        return NeedsPortable(); // the unrolled trees need a constant width
      bool Float = Operand.isFloat();
      bool Signed = Operand.isSigned();
      bool NoMath = false;
      auto Add = [&](llvm::Value* X, llvm::Value* Y) {
        return Float ? B.CreateFAdd(X, Y) : B.CreateAdd(X, Y);
      };
      auto MinMax = [&](IntrinsicOp MOp, llvm::Value* X, llvm::Value* Y) -> llvm::Value* {
        if (!Float) {
          bool Min = MOp == IntrinsicOp::Min;
          llvm::Intrinsic::ID Id = Signed ? (Min ? llvm::Intrinsic::smin : llvm::Intrinsic::smax)
                                          : (Min ? llvm::Intrinsic::umin : llvm::Intrinsic::umax);
          return B.CreateBinaryIntrinsic(Id, X, Y);
        }
        // Math.min/max exactly as the walk lowers them (NaN wins, -0 < +0).
        llvm::Value* V = Target.emitMath(B, MOp, {X, Y}, Operand);
        if (!V)
          NoMath = true;
        return V ? V : X;
      };
      llvm::Value* V = Vals[0];
      switch (Op) {
      case WaveOp::ReduceSum:
        R = WB.butterfly(V, Operand, Width, Add);
        break;
      case WaveOp::ReduceMin:
        R = WB.butterfly(V, Operand, Width, [&](llvm::Value* X, llvm::Value* Y) {
          return MinMax(IntrinsicOp::Min, X, Y);
        });
        break;
      case WaveOp::ReduceMax:
        R = WB.butterfly(V, Operand, Width, [&](llvm::Value* X, llvm::Value* Y) {
          return MinMax(IntrinsicOp::Max, X, Y);
        });
        break;
      case WaveOp::ReduceAnd:
        R = WB.butterfly(V, Operand, Width,
                         [&](llvm::Value* X, llvm::Value* Y) { return B.CreateAnd(X, Y); });
        break;
      case WaveOp::ReduceOr:
        R = WB.butterfly(V, Operand, Width,
                         [&](llvm::Value* X, llvm::Value* Y) { return B.CreateOr(X, Y); });
        break;
      case WaveOp::ReduceXor:
        R = WB.butterfly(V, Operand, Width,
                         [&](llvm::Value* X, llvm::Value* Y) { return B.CreateXor(X, Y); });
        break;
      case WaveOp::InclusiveSum:
        R = WB.inclusiveScan(V, Operand, Width, Add);
        break;
      case WaveOp::ExclusiveSum:
        R = WB.exclusiveFromInclusive(WB.inclusiveScan(V, Operand, Width, Add), Operand);
        break;
      default:
        break;
      }
      if (NoMath)
        return fail(E, "the target cannot lower Math.min/max on " + Operand.str() + " for '" +
                           Name + "'");
    }
  }
  if (!R || WB.Missing)
    return NeedsPortable();
  return R;
}

} // namespace cajeta::lowering
