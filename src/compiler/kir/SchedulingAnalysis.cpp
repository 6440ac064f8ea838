// The scheduling analysis (SchedulingAnalysis.h). One walk per function: each statement and
// expression is visited once, a loop's count is matched against a few fixed shapes (bounded
// look-ups through locals assigned once, memoised), and a helper's cost is computed once and
// substituted at each call. Costs are kept in two parts, so that a grid-stride loop can charge
// the launch rather than each work-item: total = items * Item + Launch.
#include "compiler/kir/SchedulingAnalysis.h"

#include "bundle/AccelLayout.h"

#include "compiler/kir/Walk.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace cajeta::kir {

namespace {

/// A variable of a cost: a parameter index of the function being analysed, or the launch's
/// work-items or workgroups (sorted after the parameters, so they print last).
using VarId = uint32_t;
constexpr VarId ItemsVar = 1u << 30;
constexpr VarId GroupsVar = ItemsVar + 1;
/// Past these a polynomial stops being a useful bound (and the walk stays linear).
constexpr size_t MaxTerms = 64;
constexpr size_t MaxDegree = 12;
/// Kir.h: a wave has 4 to 64 lanes; a tile op's work is shared by the lanes of one wave.
constexpr double MinWaveWidth = 4;

using Monomial = std::vector<VarId>; // sorted; a power repeats its variable

/// A polynomial with real coefficients, or unknown with the reason why.
struct Poly {
  std::map<Monomial, double> Terms;
  std::string Unknown;

  static Poly constant(double C) {
    Poly P;
    if (C != 0)
      P.Terms[{}] = C;
    return P;
  }
  static Poly var(VarId V) {
    Poly P;
    P.Terms[{V}] = 1;
    return P;
  }
  static Poly unknown(std::string Why) {
    Poly P;
    P.Unknown = std::move(Why);
    return P;
  }
  bool isUnknown() const { return !Unknown.empty(); }
  bool isZero() const { return Unknown.empty() && Terms.empty(); }
  std::optional<double> constantValue() const {
    if (isUnknown() || Terms.size() > 1)
      return std::nullopt;
    if (Terms.empty())
      return 0.0;
    if (!Terms.begin()->first.empty())
      return std::nullopt;
    return Terms.begin()->second;
  }
};

Poly tooLarge() {
  return Poly::unknown("its cost polynomial grows past " + std::to_string(MaxTerms) +
                       " terms or degree " + std::to_string(MaxDegree));
}

void addTerm(Poly& P, const Monomial& M, double C) {
  double& T = P.Terms[M];
  T += C;
  if (T == 0)
    P.Terms.erase(M);
}

void addInto(Poly& A, const Poly& B, double Scale = 1) {
  if (A.isUnknown())
    return;
  if (B.isUnknown()) {
    A = B;
    return;
  }
  for (const auto& [M, C] : B.Terms)
    addTerm(A, M, C * Scale);
  if (A.Terms.size() > MaxTerms)
    A = tooLarge();
}

void addConstant(Poly& A, double C) {
  if (!A.isUnknown() && C != 0)
    addTerm(A, {}, C);
}

Poly plus(Poly A, const Poly& B, double Scale = 1) {
  addInto(A, B, Scale);
  return A;
}

/// A product with zero is zero, even when the other factor is unknown.
Poly mul(const Poly& A, const Poly& B) {
  if (A.isZero() || B.isZero())
    return {};
  if (A.isUnknown())
    return A;
  if (B.isUnknown())
    return B;
  Poly R;
  for (const auto& [MA, CA] : A.Terms)
    for (const auto& [MB, CB] : B.Terms) {
      if (MA.size() + MB.size() > MaxDegree)
        return tooLarge();
      Monomial M;
      M.reserve(MA.size() + MB.size());
      std::merge(MA.begin(), MA.end(), MB.begin(), MB.end(), std::back_inserter(M));
      addTerm(R, M, CA * CB);
      if (R.Terms.size() > MaxTerms)
        return tooLarge();
    }
  return R;
}

/// The term-wise maximum (or minimum) of A and B, an absent term counting 0. As every variable
/// is >= 0, the maximum bounds both A and B from above and the minimum from below.
Poly termWise(const Poly& A, const Poly& B, bool Max) {
  if (A.isUnknown())
    return A;
  if (B.isUnknown())
    return B;
  Poly R;
  auto Pick = [&](double X, double Y) { return Max ? std::max(X, Y) : std::min(X, Y); };
  for (const auto& [M, C] : A.Terms) {
    auto It = B.Terms.find(M);
    double V = Pick(C, It == B.Terms.end() ? 0 : It->second);
    if (V != 0)
      R.Terms[M] = V;
  }
  for (const auto& [M, C] : B.Terms)
    if (!A.Terms.count(M) && Pick(0, C) != 0)
      R.Terms[M] = Pick(0, C);
  return R;
}

/// Drops the negative terms: what is left bounds P from above (every variable is >= 0).
Poly dropNegative(Poly P) {
  for (auto It = P.Terms.begin(); It != P.Terms.end();)
    It = It->second < 0 ? P.Terms.erase(It) : std::next(It);
  return P;
}

/// P with each variable V replaced by Value(V).
Poly substitute(const Poly& P, const std::function<Poly(VarId)>& Value) {
  if (P.isUnknown())
    return P;
  Poly R;
  for (const auto& [M, C] : P.Terms) {
    Poly T = Poly::constant(C);
    for (VarId V : M)
      T = mul(T, Value(V));
    addInto(R, T);
  }
  return R;
}

/// A cost in two parts: the launch's total is items * Item + Launch.
struct Part {
  Poly Item;
  Poly Launch;
};

void addInto(Part& A, const Part& B) {
  addInto(A.Item, B.Item);
  addInto(A.Launch, B.Launch);
}

/// What a function does to one buffer parameter.
struct BufferUse {
  Part Read, Written; // bytes
  bool Accessed = false;
  bool NonStreaming = false;     // an access that is not at the work-item's index (+ Offset)
  std::optional<int64_t> Offset; // the constant of the streaming accesses' index
  bool AnyWrite = false;
  bool PlainWrite = false; // a write other than a commutative atomic
};

void mergeFlags(BufferUse& A, const BufferUse& B) {
  A.Accessed |= B.Accessed;
  A.NonStreaming |= B.NonStreaming;
  if (B.Offset) {
    if (A.Offset && *A.Offset != *B.Offset)
      A.NonStreaming = true;
    A.Offset = B.Offset;
  }
  A.AnyWrite |= B.AnyWrite;
  A.PlainWrite |= B.PlainWrite;
}

struct Summary {
  Part Ops;
  std::map<uint32_t, BufferUse> Buffers; // by parameter index
  uint32_t Barriers = 0;                 // static count, helpers' at each call site
};

void addInto(Summary& A, const Summary& B) {
  addInto(A.Ops, B.Ops);
  for (const auto& [P, U] : B.Buffers) {
    BufferUse& O = A.Buffers[P];
    addInto(O.Read, U.Read);
    addInto(O.Written, U.Written);
    mergeFlags(O, U);
  }
  A.Barriers += B.Barriers;
}

template <typename Fn> void forEachPart(Summary& S, Fn&& F) {
  F(S.Ops);
  for (auto& [P, U] : S.Buffers) {
    F(U.Read);
    F(U.Written);
  }
}

/// The upper bound of two alternatives (if arms, select arms, dispatch targets). Barriers: the
/// static count adds both arms (SumBarriers) or takes the larger (one target of a dispatch).
Summary maxOf(const Summary& A, const Summary& B, bool SumBarriers) {
  Summary R = A;
  R.Ops.Item = termWise(A.Ops.Item, B.Ops.Item, true);
  R.Ops.Launch = termWise(A.Ops.Launch, B.Ops.Launch, true);
  for (const auto& [P, U] : B.Buffers) {
    BufferUse& O = R.Buffers[P];
    O.Read.Item = termWise(O.Read.Item, U.Read.Item, true);
    O.Read.Launch = termWise(O.Read.Launch, U.Read.Launch, true);
    O.Written.Item = termWise(O.Written.Item, U.Written.Item, true);
    O.Written.Launch = termWise(O.Written.Launch, U.Written.Launch, true);
    mergeFlags(O, U);
  }
  R.Barriers = SumBarriers ? A.Barriers + B.Barriers : std::max(A.Barriers, B.Barriers);
  return R;
}

bool isCommutativeAtomic(AtomicOp Op) {
  switch (Op) {
  case AtomicOp::Add:
  case AtomicOp::Sub:
  case AtomicOp::Min:
  case AtomicOp::Max:
  case AtomicOp::And:
  case AtomicOp::Or:
  case AtomicOp::Xor:
    return true;
  default:
    return false;
  }
}

bool isGeometry(IntrinsicOp Op) {
  return Op == IntrinsicOp::LocalId || Op == IntrinsicOp::GlobalId || Op == IntrinsicOp::GroupId ||
         Op == IntrinsicOp::GroupDim || Op == IntrinsicOp::GridDim || Op == IntrinsicOp::GlobalSize;
}

bool isIntrinsic(const Expr* E, IntrinsicOp Op) {
  return E && E->K == Expr::Kind::Intrinsic && E->IOp == Op && E->Dim == 0;
}

std::optional<double> constValue(const Expr* E) {
  if (E->K != Expr::Kind::Const)
    return std::nullopt;
  if (E->Ty.isFloat())
    return E->FloatValue;
  if (E->Ty.isSigned())
    return double(int64_t(E->IntValue));
  return double(E->IntValue);
}

std::string lineOf(SourceLoc L) {
  return std::to_string(L.Line);
}

} // namespace

struct SchedulingAnalysis::Impl {
  const Module& M;
  std::unordered_map<const Function*, uint32_t> Index;
  std::vector<int8_t> OneDState; // 0 not yet known, 1 visiting, 2 one-dimensional, 3 not
  std::map<std::pair<uint32_t, bool>, Summary> Helpers;
  std::map<std::pair<uint32_t, bool>, bool> Visiting;

  explicit Impl(const Module& M) : M(M), OneDState(M.Functions.size(), 0) {
    for (uint32_t I = 0; I < M.Functions.size(); ++I)
      Index[M.Functions[I].get()] = I;
  }

  /// Whether function FI and the helpers it calls read only x geometry.
  bool oneD(uint32_t FI);
  /// The summary of helper FI, computed once per dimensionality.
  const Summary& helperSummary(uint32_t FI, bool OneD);
};

namespace {

/// The walk over one function.
class Walker {
public:
  Walker(SchedulingAnalysis::Impl& A, const Function& F, bool OneD)
      : A(A), F(F), OneD(OneD), Assigns(F.Locals.size()), Memo(2 * F.Locals.size()),
        MemoState(2 * F.Locals.size(), 0) {
    forEachExprIn(F.Body, [&](const Expr* E) {
      if (E->K == Expr::Kind::Assign && !E->Ops.empty() && E->Index < Assigns.size())
        Assigns[E->Index].push_back(E);
    });
    forEachStmt(F.Body, [&](const Stmt* S) {
      if (S->K == Stmt::Kind::Continue)
        Continued.insert(S->LoopId);
    });
  }

  Summary run() {
    Summary S;
    walk(F.Body, S);
    return S;
  }

private:
  enum class Bound : uint8_t { Upper, Lower };

  SchedulingAnalysis::Impl& A;
  const Function& F;
  bool OneD;
  std::vector<std::vector<const Expr*>> Assigns; // per local: its assignments
  std::vector<Poly> Memo;                        // resolveLocal, by 2 * local + bound
  std::vector<int8_t> MemoState;                 // 0 not yet, 1 visiting, 2 done
  static constexpr int MaxLocalChain = 64;
  int LocalDepth = 0;           // resolveLocal calls on the stack
  std::set<uint32_t> Continued; // loops that a `continue` targets
  bool InRepeat = false;        // inside a loop that runs its body more than once per element
  int GridVar = -1;             // the counter of the grid-stride loop around, if any

  const Expr* singleValue(uint32_t Local) const {
    return Local < Assigns.size() && Assigns[Local].size() == 1 ? Assigns[Local][0]->Ops[0]
                                                                : nullptr;
  }

  /// E with casts stripped and locals assigned once replaced by their value (a bounded number
  /// of hops, so that the walk stays linear).
  const Expr* look(const Expr* E) const {
    for (int Hops = 0; E && Hops < 16; ++Hops) {
      if (E->K == Expr::Kind::Cast && !E->Ops.empty())
        E = E->Ops[0];
      else if (E->K == Expr::Kind::Local && singleValue(E->Index))
        E = singleValue(E->Index);
      else
        break;
    }
    return E;
  }

  int bufferParam(const Expr* E) const {
    return E && E->K == Expr::Kind::Param && E->Index < F.Params.size() &&
                   F.Params[E->Index].Ty.isBuffer()
               ? int(E->Index)
               : -1;
  }

  // ---- Values as polynomials of the parameters -------------------------------------------

  /// E as a polynomial in the function's scalar parameters and the launch geometry that bounds
  /// its value from above (Upper) or below (Lower), the operands taken as non-negative; or
  /// unknown with what the value is ("read from a buffer").
  Poly resolve(const Expr* E, Bound B) {
    Bound Flip = B == Bound::Upper ? Bound::Lower : Bound::Upper;
    switch (E->K) {
    case Expr::Kind::Const:
      return Poly::constant(*constValue(E));
    case Expr::Kind::Param: {
      const Param& P = F.Params[E->Index];
      if (P.Ty.isScalar() && !P.IsFunction)
        return Poly::var(E->Index);
      return Poly::unknown(P.Ty.isPod() ? "read from a POD parameter" : "of a function tag");
    }
    case Expr::Kind::Local:
      return resolveLocal(E->Index, B);
    case Expr::Kind::Cast:
      return resolve(E->Ops[0], B);
    case Expr::Kind::Unary:
      if (E->UOp == UnaryOp::Neg)
        return plus({}, resolve(E->Ops[0], Flip), -1);
      break;
    case Expr::Kind::Binary: {
      std::optional<double> C = constValue(E->Ops[1]);
      switch (E->BOp) {
      case BinaryOp::Add:
        return plus(resolve(E->Ops[0], B), resolve(E->Ops[1], B));
      case BinaryOp::Sub:
        return plus(resolve(E->Ops[0], B), resolve(E->Ops[1], Flip), -1);
      case BinaryOp::Mul:
        return mul(resolve(E->Ops[0], B), resolve(E->Ops[1], B));
      case BinaryOp::Div:
        if (C && *C > 0)
          return divide(resolve(E->Ops[0], B), *C, B);
        break;
      case BinaryOp::Shl:
        if (C && *C >= 0 && *C < 63)
          return plus({}, resolve(E->Ops[0], B), std::ldexp(1.0, int(*C)));
        break;
      case BinaryOp::Shr:
      case BinaryOp::UShr:
        if (C && *C >= 0 && *C < 63)
          return divide(resolve(E->Ops[0], B), std::ldexp(1.0, int(*C)), B);
        break;
      default:
        break;
      }
      break;
    }
    case Expr::Kind::Select:
      return either(E->Ops[1], E->Ops[2], B, B == Bound::Upper);
    case Expr::Kind::Intrinsic:
      switch (E->IOp) {
      case IntrinsicOp::GlobalSize:
      case IntrinsicOp::GridDim:
        if (OneD && E->Dim == 0)
          return Poly::var(E->IOp == IntrinsicOp::GlobalSize ? ItemsVar : GroupsVar);
        return Poly::unknown("from a launch of more than one dimension");
      case IntrinsicOp::GroupDim:
        return Poly::unknown("that depends on the workgroup size");
      case IntrinsicOp::LocalId:
      case IntrinsicOp::GlobalId:
      case IntrinsicOp::GroupId:
        return Poly::unknown("that depends on the work-item");
      case IntrinsicOp::Max:
        return either(E->Ops[0], E->Ops[1], B, true);
      case IntrinsicOp::Min:
        return either(E->Ops[0], E->Ops[1], B, false);
      case IntrinsicOp::BufferLength:
        return Poly::unknown("from a buffer's length");
      default:
        break;
      }
      break;
    case Expr::Kind::Load:
    case Expr::Kind::Atomic:
      return Poly::unknown("read from a buffer");
    case Expr::Kind::Field:
      return Poly::unknown("read from a POD parameter");
    case Expr::Kind::Call:
    case Expr::Kind::Dispatch:
      return Poly::unknown("returned by a helper");
    case Expr::Kind::Wave:
      return Poly::unknown("from a wave operation");
    default:
      break;
    }
    return Poly::unknown("the analysis cannot bound");
  }

  /// floor(P / C) from above (P / C) or below (P / C - (C - 1) / C).
  static Poly divide(const Poly& P, double C, Bound B) {
    Poly R = plus({}, P, 1 / C);
    if (B == Bound::Lower && C > 1)
      addConstant(R, -(C - 1) / C);
    return R;
  }

  /// A bound of max(X, Y) (Max) or min(X, Y) (!Max), or of a select between them (Max: the
  /// upper bound of either is the larger; the lower bound the smaller).
  Poly either(const Expr* X, const Expr* Y, Bound B, bool Max) {
    Poly PX = resolve(X, B), PY = resolve(Y, B);
    bool Outer = (B == Bound::Upper) == Max; // both must be bounded: the term-wise max / min
    if (Outer)
      return termWise(PX, PY, B == Bound::Upper);
    // min from above or max from below: either one bounds it; take the simpler.
    if (PX.isUnknown())
      return PY;
    if (PY.isUnknown())
      return PX;
    return PY.Terms.size() < PX.Terms.size() ? PY : PX;
  }

  Poly resolveLocal(uint32_t Local, Bound B) {
    size_t Slot = 2 * size_t(Local) + (B == Bound::Upper ? 0 : 1);
    if (Slot >= Memo.size())
      return Poly::unknown("the analysis cannot bound");
    if (MemoState[Slot] == 2)
      return Memo[Slot];
    if (MemoState[Slot] == 1)
      return Poly::unknown("computed from itself");
    const Expr* V = singleValue(Local);
    if (!V)
      return Poly::unknown("held in '" + F.Locals[Local].Name + "', assigned more than once");
    // A bounded chain of locals keeps the recursion shallow on generated code.
    if (LocalDepth >= MaxLocalChain)
      return Poly::unknown("computed through more than " + std::to_string(MaxLocalChain) +
                           " locals");
    MemoState[Slot] = 1;
    ++LocalDepth;
    Poly P = resolve(V, B);
    --LocalDepth;
    Memo[Slot] = P;
    MemoState[Slot] = 2;
    return P;
  }

  // ---- Loops ------------------------------------------------------------------------------

  struct LoopShape {
    enum Kind : uint8_t { Counted, GridStride, GroupStride, Unbounded } K = Unbounded;
    Poly Trip; // Counted: per run of the loop; GridStride: per launch; GroupStride: per group
    uint32_t Counter = 0;
    std::string Why; // Unbounded
  };

  LoopShape unbounded(const Stmt* L, const std::string& Why) const {
    LoopShape S;
    S.Why = "loop at line " + lineOf(L->Loc) + " " + Why;
    return S;
  }

  static BinaryOp mirror(BinaryOp Op) {
    switch (Op) {
    case BinaryOp::Lt:
      return BinaryOp::Gt;
    case BinaryOp::Le:
      return BinaryOp::Ge;
    case BinaryOp::Gt:
      return BinaryOp::Lt;
    case BinaryOp::Ge:
      return BinaryOp::Le;
    default:
      return Op;
    }
  }

  /// The assignments that run exactly once per iteration of L: those of its step and, when no
  /// `continue` skips them, of the statements at the top of its body (`while (r < n) { ...;
  /// r++; }`). Only the top level is looked at, so each statement is seen for one loop.
  std::vector<const Expr*> onceAnIteration(const Stmt* L) const {
    std::vector<const Expr*> Out;
    // Not under a select's arms or the right of && / ||: those may not run.
    std::function<void(const Expr*)> Always = [&](const Expr* E) {
      if (!E)
        return;
      if (E->K == Expr::Kind::Assign)
        Out.push_back(E);
      bool Lazy = E->K == Expr::Kind::Select ||
                  (E->K == Expr::Kind::Binary &&
                   (E->BOp == BinaryOp::LogicalAnd || E->BOp == BinaryOp::LogicalOr));
      for (size_t I = 0; I < (Lazy ? size_t(1) : E->Ops.size()); ++I)
        Always(E->Ops[I]);
    };
    auto Collect = [&](const Stmt* S) { Always(S->E); };
    forEachStmt(L->Step, Collect);
    if (Continued.count(L->LoopId))
      return Out;
    std::vector<const Stmt*> Work = {L->LoopBody};
    while (!Work.empty()) {
      const Stmt* S = Work.back();
      Work.pop_back();
      if (!S)
        continue;
      if (S->K == Stmt::Kind::Block)
        Work.insert(Work.end(), S->Body.begin(), S->Body.end());
      else if (S->K == Stmt::Kind::Eval)
        Collect(S);
    }
    return Out;
  }

  /// Matches the loop's condition: `counter OP bound`, or a conjunction of conditions of which
  /// one matches (the loop ends when that one fails).
  LoopShape classify(const Stmt* L) {
    const Expr* C = L->E;
    if (C && C->K == Expr::Kind::Const && C->IntValue == 0) {
      LoopShape Never; // while (false): the body never runs
      Never.K = LoopShape::Counted;
      return Never;
    }
    if (!C || C->K == Expr::Kind::Const)
      return unbounded(L, "runs until a break");
    std::vector<const Expr*> Conjuncts = {C}, Compares;
    while (!Conjuncts.empty()) {
      const Expr* X = Conjuncts.back();
      Conjuncts.pop_back();
      if (X->K == Expr::Kind::Binary && X->BOp == BinaryOp::LogicalAnd) {
        Conjuncts.push_back(X->Ops[1]);
        Conjuncts.push_back(X->Ops[0]);
      } else if (X->K == Expr::Kind::Binary &&
                 (X->BOp == BinaryOp::Lt || X->BOp == BinaryOp::Le || X->BOp == BinaryOp::Gt ||
                  X->BOp == BinaryOp::Ge || X->BOp == BinaryOp::Ne)) {
        Compares.push_back(X);
      }
    }
    if (Compares.empty())
      return unbounded(L, "has a condition that is not a comparison with a counter");
    std::vector<const Expr*> Steps = onceAnIteration(L);
    LoopShape First;
    for (size_t I = 0; I < Compares.size(); ++I) {
      LoopShape S = classifyCompare(L, Compares[I], Steps);
      if (S.K != LoopShape::Unbounded)
        return S;
      if (I == 0)
        First = S;
    }
    return First;
  }

  /// `counter OP bound` with the counter assigned once before the loop and once an iteration
  /// (Steps), `counter = counter +/- increment`.
  LoopShape classifyCompare(const Stmt* L, const Expr* C,
                            const std::vector<const Expr*>& StepAssigns) {
    auto counterOf = [&](const Expr* Side) -> int {
      while (Side->K == Expr::Kind::Cast)
        Side = Side->Ops[0];
      if (Side->K != Expr::Kind::Local)
        return -1;
      for (const Expr* A : StepAssigns)
        if (A->Index == Side->Index)
          return int(Side->Index);
      return -1;
    };
    int K = counterOf(C->Ops[0]);
    bool CounterLeft = K >= 0;
    if (!CounterLeft)
      K = counterOf(C->Ops[1]);
    if (K < 0) {
      // Say what the condition depends on where that is the reason.
      for (const Expr* Side : {C->Ops[0], C->Ops[1]}) {
        Poly P = resolve(Side, Bound::Upper);
        if (P.isUnknown() && P.Unknown.rfind("held in", 0) != 0)
          return unbounded(L, "runs a count " + P.Unknown);
      }
      return unbounded(L, "has no counter that each iteration steps");
    }
    BinaryOp Op = CounterLeft ? C->BOp : mirror(C->BOp);
    const Expr* BoundE = CounterLeft ? C->Ops[1] : C->Ops[0];
    const std::string& Name = F.Locals[K].Name;
    if (Assigns[K].size() != 2)
      return unbounded(L, "changes its counter '" + Name + "' elsewhere than once an iteration");
    const Expr* StepA = nullptr;
    for (const Expr* A : StepAssigns)
      if (A->Index == uint32_t(K)) {
        if (StepA)
          return unbounded(L, "steps its counter '" + Name + "' more than once");
        StepA = A;
      }
    const Expr* Init = Assigns[K][0] == StepA ? Assigns[K][1] : Assigns[K][0];
    // The step: counter + d, d + counter or counter - d.
    const Expr* V = look(StepA->Ops[0]);
    auto isCounter = [&](const Expr* X) {
      X = look(X);
      return X->K == Expr::Kind::Local && X->Index == uint32_t(K);
    };
    const Expr* Delta = nullptr;
    bool Up = true;
    if (V->K == Expr::Kind::Binary && V->BOp == BinaryOp::Add) {
      Delta = isCounter(V->Ops[0]) ? V->Ops[1] : isCounter(V->Ops[1]) ? V->Ops[0] : nullptr;
    } else if (V->K == Expr::Kind::Binary && V->BOp == BinaryOp::Sub && isCounter(V->Ops[0])) {
      Delta = V->Ops[1];
      Up = false;
    }
    if (!Delta)
      return unbounded(L, "does not step its counter '" + Name + "' by a constant");
    const Expr* D = look(Delta);
    double Step = 0; // 0: a geometry step (>= 1, unknown)
    bool GridStep = isIntrinsic(D, IntrinsicOp::GlobalSize);
    bool GroupStep = isIntrinsic(D, IntrinsicOp::GroupDim);
    if (!(D->K == Expr::Kind::Intrinsic && isGeometry(D->IOp) && Up)) {
      std::optional<double> SC = resolve(Delta, Bound::Lower).constantValue();
      if (!SC || *SC <= 0)
        return unbounded(L, "does not step its counter '" + Name + "' by a constant");
      Step = *SC;
    }
    bool Toward = Up ? (Op == BinaryOp::Lt || Op == BinaryOp::Le)
                     : (Op == BinaryOp::Gt || Op == BinaryOp::Ge);
    if (Op == BinaryOp::Ne)
      Toward = Step == 1;
    if (!Toward)
      return unbounded(L, "does not step its counter '" + Name + "' toward its bound");
    double Inclusive = Op == BinaryOp::Le || Op == BinaryOp::Ge ? 1 : 0;
    const Expr* Start = Init->Ops[0];
    // A value that cannot be bounded from below is taken as 0 when it cannot be negative.
    auto lower = [&](const Expr* E, Poly& Out) {
      Out = resolve(E, Bound::Lower);
      const Expr* X = look(E);
      bool NonNegative =
          F.Locals[K].Ty.isUnsigned() || (X->K == Expr::Kind::Intrinsic && isGeometry(X->IOp));
      if (Out.isUnknown() && NonNegative)
        Out = {};
      return !Out.isUnknown();
    };
    LoopShape S;
    S.K = LoopShape::Counted;
    S.Counter = uint32_t(K);
    Poly From, To;
    if (Up) {
      To = resolve(BoundE, Bound::Upper);
      if (To.isUnknown())
        return unbounded(L, "runs a count " + To.Unknown);
      addConstant(To, Inclusive);
      const Expr* X = look(Start);
      if (OneD && GridStep && isIntrinsic(X, IntrinsicOp::GlobalId)) {
        S.K = LoopShape::GridStride;
        S.Trip = dropNegative(To);
        return S;
      }
      if (OneD && GroupStep && isIntrinsic(X, IntrinsicOp::LocalId)) {
        S.K = LoopShape::GroupStride;
        S.Trip = dropNegative(To);
        return S;
      }
      if (!lower(Start, From))
        return unbounded(L, "starts its counter '" + Name + "' at a value " + From.Unknown);
    } else {
      From = resolve(Start, Bound::Upper);
      if (From.isUnknown())
        return unbounded(L, "runs a count " + From.Unknown);
      if (!lower(BoundE, To))
        return unbounded(L, "runs down to a value " + To.Unknown);
      addConstant(To, -Inclusive);
      std::swap(From, To); // the count is To - From either way
    }
    // ceil((To - From) / Step) <= (To - From + Step - 1) / Step; a geometry step is >= 1. A
    // constant count is exact.
    double By = Step > 0 ? Step : 1;
    Poly Trip = plus(To, From, -1);
    if (std::optional<double> N = Trip.constantValue()) {
      S.Trip = Poly::constant(std::max(0.0, std::ceil(*N / By)));
      return S;
    }
    addConstant(Trip, By - 1);
    S.Trip = dropNegative(plus({}, Trip, 1 / By));
    return S;
  }

  void walkLoop(const Stmt* L, Summary& Into) {
    LoopShape Shape = classify(L);
    bool SavedRepeat = InRepeat;
    int SavedGrid = GridVar;
    if (Shape.K == LoopShape::GridStride)
      GridVar = int(Shape.Counter);
    else
      InRepeat = true;
    Summary Body, Cond;
    walk(L->LoopBody, Body);
    walk(L->Step, Body);
    walkExpr(L->E, Cond);
    InRepeat = SavedRepeat;
    GridVar = SavedGrid;
    switch (Shape.K) {
    case LoopShape::Counted: {
      // The test runs once more than the body; a do-while's body runs at least once.
      Poly More = plus(Shape.Trip, Poly::constant(1));
      const Poly& BodyTrips = L->TestAtEnd ? More : Shape.Trip;
      forEachPart(Body, [&](Part& P) {
        P.Item = mul(P.Item, BodyTrips);
        P.Launch = mul(P.Launch, BodyTrips);
      });
      forEachPart(Cond, [&](Part& P) {
        P.Item = mul(P.Item, More);
        P.Launch = mul(P.Launch, More);
      });
      break;
    }
    case LoopShape::GridStride:
    case LoopShape::GroupStride: {
      // Trip iterations in all (per group: times groups), each costing at most the body's
      // per-work-item part and, for a grid-stride loop nested in it, its launch part; the test
      // once more per work-item.
      Poly Total =
          Shape.K == LoopShape::GridStride ? Shape.Trip : mul(Shape.Trip, Poly::var(GroupsVar));
      Summary Once = Cond;
      addInto(Body, Cond);
      forEachPart(Body, [&](Part& P) {
        P.Launch = mul(plus(P.Item, P.Launch), Total);
        P.Item = {};
      });
      Cond = Once;
      break;
    }
    case LoopShape::Unbounded:
      for (Summary* S : {&Body, &Cond})
        forEachPart(*S, [&](Part& P) {
          for (Poly* X : {&P.Item, &P.Launch})
            if (!X->isZero() && !X->isUnknown())
              *X = Poly::unknown(Shape.Why);
        });
      break;
    }
    addInto(Into, Body);
    addInto(Into, Cond);
  }

  // ---- Statements and expressions ---------------------------------------------------------

  void walk(const Stmt* S, Summary& Into) {
    if (!S)
      return;
    switch (S->K) {
    case Stmt::Kind::Block:
      for (const Stmt* C : S->Body)
        walk(C, Into);
      return;
    case Stmt::Kind::If: {
      walkExpr(S->E, Into);
      Summary Then, Else;
      walk(S->Then, Then);
      walk(S->Else, Else);
      addInto(Into, maxOf(Then, Else, true));
      return;
    }
    case Stmt::Kind::Loop:
      walkLoop(S, Into);
      return;
    case Stmt::Kind::Barrier:
      ++Into.Barriers;
      return;
    default:
      walkExpr(S->E, Into);
      return;
    }
  }

  /// Arithmetic operations of E itself, per work-item.
  double operations(const Expr* E) const {
    switch (E->K) {
    case Expr::Kind::Unary:
      return E->UOp == UnaryOp::Not ? 0 : 1;
    case Expr::Kind::Binary:
      switch (E->BOp) {
      case BinaryOp::Eq:
      case BinaryOp::Ne:
      case BinaryOp::Lt:
      case BinaryOp::Le:
      case BinaryOp::Gt:
      case BinaryOp::Ge:
      case BinaryOp::LogicalAnd:
      case BinaryOp::LogicalOr:
        return 0;
      default:
        return E->Ty.isBool() ? 0 : 1; // & | ^ on bool are logic
      }
    case Expr::Kind::Intrinsic:
      if (E->IOp == IntrinsicOp::Fma)
        return 2;
      if ((E->IOp >= IntrinsicOp::Sqrt && E->IOp <= IntrinsicOp::Ceil) ||
          (E->IOp >= IntrinsicOp::DivTrunc && E->IOp <= IntrinsicOp::ShiftRight))
        return 1;
      return 0;
    case Expr::Kind::Atomic:
      return isCommutativeAtomic(E->AOp) ? 1 : 0;
    case Expr::Kind::Tile: {
      Type T = tileOf(E->Index);
      double Elements = double(T.Rows) * T.Cols;
      if (E->TOp == TileOp::Scale || E->TOp == TileOp::Add)
        return Elements / MinWaveWidth;
      if (E->TOp == TileOp::Mac && !E->Ops.empty() && E->Ops[0]->K == Expr::Kind::Local)
        return 2 * Elements * tileOf(E->Ops[0]->Index).Cols / MinWaveWidth;
      return 0;
    }
    default:
      return 0;
    }
  }

  Type tileOf(uint32_t Local) const {
    return Local < F.Locals.size() ? F.Locals[Local].Ty : Type();
  }

  /// The constant c of an index `gid + c` (outside a grid-stride loop) or `counter + c` (its
  /// counter inside one); nullopt for any other index.
  std::optional<int64_t> unitOffset(const Expr* E) const {
    int64_t Offset = 0;
    for (int Hops = 0; E && Hops < 16; ++Hops) {
      if (E->K == Expr::Kind::Cast) {
        E = E->Ops[0];
      } else if (E->K == Expr::Kind::Local && int(E->Index) == GridVar) {
        return Offset;
      } else if (E->K == Expr::Kind::Local && singleValue(E->Index)) {
        E = singleValue(E->Index);
      } else if (E->K == Expr::Kind::Binary &&
                 (E->BOp == BinaryOp::Add || E->BOp == BinaryOp::Sub)) {
        std::optional<double> R = constValue(E->Ops[1]);
        std::optional<double> L = E->BOp == BinaryOp::Add ? constValue(E->Ops[0]) : std::nullopt;
        if (R) {
          Offset += E->BOp == BinaryOp::Add ? int64_t(*R) : -int64_t(*R);
          E = E->Ops[0];
        } else if (L) {
          Offset += int64_t(*L);
          E = E->Ops[1];
        } else {
          return std::nullopt;
        }
      } else if (GridVar < 0 && isIntrinsic(E, IntrinsicOp::GlobalId)) {
        return Offset;
      } else {
        return std::nullopt;
      }
    }
    return std::nullopt;
  }

  /// An access of Bytes bytes to buffer parameter P at Index (null: not element-wise).
  void access(Summary& S, int P, const Expr* Index, double Bytes, bool Read, bool Write,
              bool PlainWrite) {
    BufferUse& U = S.Buffers[uint32_t(P)];
    U.Accessed = true;
    if (Read)
      addConstant(U.Read.Item, Bytes);
    if (Write) {
      addConstant(U.Written.Item, Bytes);
      U.AnyWrite = true;
      U.PlainWrite |= PlainWrite;
    }
    std::optional<int64_t> Offset =
        Index && !InRepeat && OneD ? unitOffset(Index) : std::optional<int64_t>();
    if (!Offset) {
      U.NonStreaming = true;
      return;
    }
    if (U.Offset && *U.Offset != *Offset)
      U.NonStreaming = true;
    U.Offset = Offset;
  }

  void walkExpr(const Expr* E, Summary& S) {
    if (!E)
      return;
    switch (E->K) {
    case Expr::Kind::Select: {
      walkExpr(E->Ops[0], S);
      Summary X, Y;
      walkExpr(E->Ops[1], X);
      walkExpr(E->Ops[2], Y);
      addInto(S, maxOf(X, Y, true));
      return;
    }
    case Expr::Kind::Call:
      for (const Expr* O : E->Ops)
        walkExpr(O, S);
      call(E->Index, E, 0, S);
      return;
    case Expr::Kind::Dispatch: {
      for (const Expr* O : E->Ops)
        walkExpr(O, S);
      std::optional<Summary> Worst;
      for (uint32_t T : E->Targets) {
        Summary C;
        call(T, E, 1, C);
        Worst = Worst ? maxOf(*Worst, C, false) : C;
      }
      if (Worst)
        addInto(S, *Worst);
      return;
    }
    default:
      for (const Expr* O : E->Ops)
        walkExpr(O, S);
      break;
    }
    addConstant(S.Ops.Item, operations(E));
    auto size = [](ScalarType T) { return double(bundle::scalarTypeSize(T)); };
    switch (E->K) {
    case Expr::Kind::Load:
      if (int P = bufferParam(E->Ops[0]); P >= 0)
        access(S, P, E->Ops[1], size(E->Ops[0]->Ty.Elem), true, false, false);
      break;
    case Expr::Kind::Store:
      if (int P = bufferParam(E->Ops[0]); P >= 0)
        access(S, P, E->Ops[1], size(E->Ops[0]->Ty.Elem), false, true, true);
      break;
    case Expr::Kind::Atomic:
      if (int P = bufferParam(E->Ops[0]); P >= 0)
        access(S, P, E->Ops[1], size(E->Ops[0]->Ty.Elem), E->AOp != AtomicOp::Store,
               E->AOp != AtomicOp::Load, !isCommutativeAtomic(E->AOp));
      break;
    case Expr::Kind::RayQuery:
      // The walk reads as much of the scene as the rays and the tree make it: nothing bounds
      // the bytes or the operations of a proceed() from the parameters.
      if (E->RQOp == RayQueryOp::Initialize)
        if (int P = bufferParam(E->Ops[0]); P >= 0)
          access(S, P, nullptr, 4 * bundle::accel::HeaderWords, true, false, false);
      if (E->RQOp == RayQueryOp::Proceed) {
        std::string Why =
            "the ray query at line " + std::to_string(E->Loc.Line) + " reads what its rays reach";
        for (uint32_t P = 0; P < F.Params.size(); ++P)
          if (F.Params[P].IsAccel) {
            BufferUse& U = S.Buffers[P];
            U.Accessed = true;
            U.NonStreaming = true;
            addInto(U.Read.Item, Poly::unknown(Why));
          }
        addInto(S.Ops.Item, Poly::unknown(Why));
      }
      break;
    case Expr::Kind::Tile:
      if (E->TOp == TileOp::Load || E->TOp == TileOp::Store)
        if (int P = bufferParam(E->Ops[0]); P >= 0) {
          Type T = tileOf(E->Index);
          double Bytes = double(T.Rows) * T.Cols * size(E->Ops[0]->Ty.Elem) / MinWaveWidth;
          access(S, P, nullptr, Bytes, E->TOp == TileOp::Load, E->TOp == TileOp::Store, true);
        }
      break;
    case Expr::Kind::Intrinsic:
      if (E->IOp == IntrinsicOp::AsyncCopy && E->Ops.size() > 2)
        if (int P = bufferParam(E->Ops[2]); P >= 0)
          access(S, P, nullptr, double(E->Index) * size(E->Ops[2]->Ty.Elem), true, false, false);
      // A block copy's bytes are shared out over the group, as a tile's are.
      if (E->IOp == IntrinsicOp::AsyncCopyBlock && E->Ops.size() > 8)
        if (int P = bufferParam(E->Ops[2]); P >= 0)
          access(S, P, nullptr,
                 double(E->Index) * double(E->Ops[8]->IntValue) * size(E->Ops[2]->Ty.Elem) /
                     MinWaveWidth,
                 true, false, false);
      break;
    default:
      break;
    }
  }

  /// A call of function FI at E, its arguments from E->Ops[FirstArg]: the callee's summary with
  /// its parameters replaced by the arguments' bounds and its buffers by the caller's.
  void call(uint32_t FI, const Expr* E, size_t FirstArg, Summary& Into) {
    if (FI >= A.M.Functions.size())
      return;
    const Function& Callee = *A.M.Functions[FI];
    const Summary& C = A.helperSummary(FI, OneD);
    std::map<VarId, Poly> Args;
    auto Value = [&](VarId V) -> Poly {
      if (V == ItemsVar || V == GroupsVar)
        return Poly::var(V);
      if (auto It = Args.find(V); It != Args.end())
        return It->second;
      Poly P = FirstArg + V < E->Ops.size() ? resolve(E->Ops[FirstArg + V], Bound::Upper)
                                            : Poly::unknown("missing");
      if (P.isUnknown())
        P = Poly::unknown("helper '" + Callee.Name + "' called at line " + lineOf(E->Loc) +
                          " runs a count from its parameter '" +
                          (V < Callee.Params.size() ? Callee.Params[V].Name : "?") +
                          "', here a value " + P.Unknown);
      return Args[V] = P;
    };
    Summary Out;
    Out.Ops.Item = substitute(C.Ops.Item, Value);
    Out.Ops.Launch = substitute(C.Ops.Launch, Value);
    for (const auto& [CP, U] : C.Buffers) {
      int P = FirstArg + CP < E->Ops.size() ? bufferParam(E->Ops[FirstArg + CP]) : -1;
      if (P < 0)
        continue;
      BufferUse& O = Out.Buffers[uint32_t(P)];
      O.Read = {substitute(U.Read.Item, Value), substitute(U.Read.Launch, Value)};
      O.Written = {substitute(U.Written.Item, Value), substitute(U.Written.Launch, Value)};
      O.Accessed = U.Accessed;
      O.NonStreaming = U.Accessed; // the helper's indices are not followed
      O.AnyWrite = U.AnyWrite;
      O.PlainWrite = U.PlainWrite;
    }
    Out.Barriers = C.Barriers;
    addInto(Into, Out);
  }
};

} // namespace

bool SchedulingAnalysis::Impl::oneD(uint32_t FI) {
  if (OneDState[FI] == 1)
    return false; // recursion (Sema rejects it): the cautious answer
  if (OneDState[FI] >= 2)
    return OneDState[FI] == 2;
  OneDState[FI] = 1;
  bool Result = true;
  forEachExprIn(M.Functions[FI]->Body, [&](const Expr* E) {
    if (E->K == Expr::Kind::Intrinsic && isGeometry(E->IOp) && E->Dim != 0)
      Result = false;
    if (E->K == Expr::Kind::Call && E->Index < M.Functions.size() && !oneD(E->Index))
      Result = false;
    if (E->K == Expr::Kind::Dispatch)
      for (uint32_t T : E->Targets)
        if (T < M.Functions.size() && !oneD(T))
          Result = false;
  });
  OneDState[FI] = Result ? 2 : 3;
  return Result;
}

const Summary& SchedulingAnalysis::Impl::helperSummary(uint32_t FI, bool OneD) {
  auto Key = std::make_pair(FI, OneD);
  if (auto It = Helpers.find(Key); It != Helpers.end())
    return It->second;
  static const Summary Empty;
  if (Visiting[Key])
    return Empty; // recursion (Sema rejects it)
  Visiting[Key] = true;
  Summary S = Walker(*this, *M.Functions[FI], OneD).run();
  Visiting[Key] = false;
  return Helpers[Key] = std::move(S);
}

SchedulingAnalysis::SchedulingAnalysis(const Module& M) : P(std::make_unique<Impl>(M)) {}

SchedulingAnalysis::~SchedulingAnalysis() = default;

namespace {

/// items * Item + Launch as a manifest cost, the terms of higher degree first.
bundle::CostExpr toCost(const Part& P, const Function& K) {
  Poly Total = plus(mul(P.Item, Poly::var(ItemsVar)), P.Launch);
  bundle::CostExpr Out;
  if (Total.isUnknown()) {
    Out.Unknown = Total.Unknown;
    return Out;
  }
  std::vector<std::pair<Monomial, double>> Terms(Total.Terms.begin(), Total.Terms.end());
  std::stable_sort(Terms.begin(), Terms.end(),
                   [](const auto& X, const auto& Y) { return X.first.size() > Y.first.size(); });
  for (const auto& [M, C] : Terms) {
    bundle::CostTerm T;
    T.Coefficient = C;
    for (VarId V : M)
      T.Variables.push_back(V == ItemsVar ? "items" : V == GroupsVar ? "groups" : K.Params[V].Name);
    Out.Terms.push_back(std::move(T));
  }
  return Out;
}

} // namespace

bundle::SchedulingManifest SchedulingAnalysis::analyze(const Function& K) {
  auto It = P->Index.find(&K);
  bool OneD = It != P->Index.end() ? P->oneD(It->second) : false;
  Summary S = Walker(*P, K, OneD).run();
  bundle::SchedulingManifest Out;
  Part Read, Written;
  bool Restartable = true;
  for (uint32_t I = 0; I < K.Params.size(); ++I) {
    if (!K.Params[I].Ty.isBuffer())
      continue;
    bundle::BufferSchedule B;
    B.Param = I;
    if (auto U = S.Buffers.find(I); U != S.Buffers.end()) {
      B.Accumulates = U->second.AnyWrite && !U->second.PlainWrite;
      B.Streaming = U->second.Accessed && !U->second.NonStreaming;
      B.BytesRead = toCost(U->second.Read, K);
      B.BytesWritten = toCost(U->second.Written, K);
      addInto(Read, U->second.Read);
      addInto(Written, U->second.Written);
    }
    if (B.Accumulates ||
        (I < K.ParamAccess.size() && K.ParamAccess[I] == bundle::Access::ReadWrite))
      Restartable = false;
    Out.Buffers.push_back(std::move(B));
  }
  Out.BytesRead = toCost(Read, K);
  Out.BytesWritten = toCost(Written, K);
  Out.Operations = toCost(S.Ops, K);
  for (const Local& L : K.Locals)
    if (L.Ty.isTile() && uint32_t(L.Ty.Rows) * L.Ty.Cols > Out.TileRows * Out.TileCols) {
      Out.TileRows = L.Ty.Rows;
      Out.TileCols = L.Ty.Cols;
    }
  Out.Restartable = Restartable;
  Out.YieldPoints = S.Barriers;
  return Out;
}

} // namespace cajeta::kir
