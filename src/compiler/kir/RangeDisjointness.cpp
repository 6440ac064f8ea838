#include "compiler/kir/RangeDisjointness.h"

#include "compiler/kir/Walk.h"

#include <algorithm>

namespace cajeta::kir {

namespace {

constexpr uint64_t U32Max = 0xffffffffull;

bool isU32(const Expr* E) {
  return E->Ty.isScalar() && E->Ty.Elem == ScalarType::U32;
}

std::optional<uint64_t> constant(const Expr* E) {
  const int64_t V = int64_t(E->IntValue); // two's complement
  if (E->K != Expr::Kind::Const || !E->Ty.isInteger() || V < 0 || uint64_t(V) > U32Max)
    return std::nullopt;
  return uint64_t(V);
}

bool powerOfTwo(uint64_t V) {
  return V && !(V & (V - 1));
}

/// Whether a definition's value is computed without effects (no assignment, store or call).
bool pureValue(const Expr* E) {
  bool Pure = true;
  forEachExpr(E, [&](const Expr* X) {
    Pure &= X->K != Expr::Kind::Assign && X->K != Expr::Kind::Store && X->K != Expr::Kind::Atomic &&
            X->K != Expr::Kind::Call && X->K != Expr::Kind::Dispatch && X->K != Expr::Kind::Tile &&
            X->K != Expr::Kind::RayQuery && X->K != Expr::Kind::Host &&
            X->K != Expr::Kind::GlobalAssign;
  });
  return Pure;
}

} // namespace

RangeDisjointness::RangeDisjointness(const Function& F, uint32_t WaveWidth)
    : Assigners(F.Locals.size()), Definition(F.Locals.size(), nullptr), WaveWidth(WaveWidth) {
  number(F.Body, nullptr);
  for (uint32_t L = 0; L < Assigners.size(); ++L) {
    if (Assigners[L].size() != 1)
      continue;
    const Stmt* S = Assigners[L][0];
    const Stmt* Parent = ParentOf.at(S);
    if (S->K == Stmt::Kind::Eval && S->E->K == Expr::Kind::Assign && S->E->Index == L && Parent &&
        Parent->K == Stmt::Kind::Block && pureValue(S->E->Ops[0]))
      Definition[L] = S;
  }
}

void RangeDisjointness::number(const Stmt* S, const Stmt* Parent) {
  if (!S)
    return;
  Pos[S] = uint32_t(Pos.size());
  ParentOf[S] = Parent;
  if (S->E)
    forEachExpr(S->E, [&](const Expr* E) {
      if (E->K == Expr::Kind::Assign && E->Index < Assigners.size())
        Assigners[E->Index].push_back(S);
    });
  for (const Stmt* C : S->Body)
    number(C, S);
  number(S->Then, S);
  number(S->Else, S);
  number(S->LoopBody, S);
  number(S->Step, S);
  End[S] = uint32_t(Pos.size());
}

bool RangeDisjointness::contains(const Stmt* Outer, const Stmt* S) const {
  return Pos.at(Outer) <= Pos.at(S) && Pos.at(S) < End.at(Outer);
}

bool RangeDisjointness::assignedBetween(uint32_t L, const Stmt* From, const Stmt* To) const {
  for (const Stmt* A : Assigners[L]) {
    if (Pos.at(From) < Pos.at(A) && Pos.at(A) < Pos.at(To))
      return true;
    // A loop around To but not From runs all of its body between them, its later part too.
    for (const Stmt* P = ParentOf.at(To); P; P = ParentOf.at(P))
      if (P->K == Stmt::Kind::Loop && !contains(P, From) && contains(P, A))
        return true;
  }
  return false;
}

const Expr* RangeDisjointness::definition(uint32_t L, const Query& Q) const {
  const Stmt* D = L < Definition.size() ? Definition[L] : nullptr;
  if (!D || !Pos.count(Q.At))
    return nullptr;
  // D dominates At: At lies in a later statement of D's block.
  const Stmt* Block = ParentOf.at(D);
  if (!(Pos.at(Q.At) >= End.at(D) && Pos.at(Q.At) < End.at(Block)))
    return nullptr;
  // What D read still holds at At.
  bool Holds = true;
  forEachExpr(D->E->Ops[0], [&](const Expr* E) {
    if (E->K == Expr::Kind::Local)
      Holds &= !assignedBetween(E->Index, D, Q.At);
  });
  return Holds ? D->E->Ops[0] : nullptr;
}

std::optional<std::pair<uint32_t, uint32_t>> RangeDisjointness::counterPlus(const Expr* E,
                                                                            const Query& Q) const {
  if (!isU32(E))
    return std::nullopt;
  if (E->K == Expr::Kind::Local) {
    if (const Expr* D = definition(E->Index, Q))
      return counterPlus(D, Q);
    Q.Counters->push_back(E->Index);
    return std::make_pair(E->Index, 0u);
  }
  if (E->K == Expr::Kind::Binary && (E->BOp == BinaryOp::Add || E->BOp == BinaryOp::Sub)) {
    const bool Add = E->BOp == BinaryOp::Add;
    if (auto C = constant(E->Ops[1]))
      if (auto X = counterPlus(E->Ops[0], Q))
        return std::make_pair(X->first, uint32_t(Add ? X->second + *C : X->second - *C));
    if (auto C = constant(E->Ops[0]); C && Add)
      if (auto X = counterPlus(E->Ops[1], Q))
        return std::make_pair(X->first, uint32_t(X->second + *C));
  }
  return std::nullopt;
}

std::optional<RangeDisjointness::Form> RangeDisjointness::form(const Expr* E,
                                                               const Query& Q) const {
  if (!isU32(E))
    return std::nullopt;
  if (E->K == Expr::Kind::Local)
    if (const Expr* D = definition(E->Index, Q))
      return form(D, Q);
  if (E->K == Expr::Kind::Binary && E->BOp == BinaryOp::Add) {
    auto A = form(E->Ops[0], Q), B = form(E->Ops[1], Q);
    if (!A || !B || (A->Stage && B->Stage))
      return std::nullopt;
    Form Sum{A->Stage ? A->Stage : B->Stage, {A->Rest.Lo + B->Rest.Lo, A->Rest.Hi + B->Rest.Hi}};
    if (Sum.Rest.Hi > U32Max)
      return std::nullopt;
    return Sum;
  }
  if (E->K == Expr::Kind::Binary && E->BOp == BinaryOp::Mul) {
    for (int Side = 0; Side < 2; ++Side)
      if (auto C = constant(E->Ops[1 - Side]))
        if (auto X = form(E->Ops[Side], Q)) {
          Form Product{X->Stage, {X->Rest.Lo * *C, X->Rest.Hi * *C}};
          if (Product.Stage)
            Product.Stage->Period *= *C;
          if (Product.Rest.Hi > U32Max || (Product.Stage && Product.Stage->Period > U32Max))
            return std::nullopt;
          return Product;
        }
  }
  if (E->K == Expr::Kind::Binary && E->BOp == BinaryOp::Rem)
    if (auto M = constant(E->Ops[1]); M && powerOfTwo(*M) && *M > 1)
      if (auto X = counterPlus(E->Ops[0], Q))
        return Form{StageTerm{1, *M, X->first, X->second}, {0, 0}};
  if (auto R = range(E, Q))
    return Form{std::nullopt, *R};
  return std::nullopt;
}

std::optional<RangeDisjointness::Interval> RangeDisjointness::range(const Expr* E,
                                                                    const Query& Q) const {
  if (auto C = constant(E))
    return Interval{*C, *C};
  if (!isU32(E))
    return std::nullopt;
  const Interval Whole{0, U32Max};
  switch (E->K) {
  case Expr::Kind::Local:
    if (const Expr* D = definition(E->Index, Q))
      return range(D, Q);
    return Whole;
  case Expr::Kind::Intrinsic:
    switch (E->IOp) {
    case IntrinsicOp::LocalId:
      return Interval{0, Q.MaxGroup - 1ull};
    case IntrinsicOp::GroupDim:
      return Interval{1, Q.MaxGroup};
    case IntrinsicOp::Min:
    case IntrinsicOp::Max: {
      auto A = range(E->Ops[0], Q), B = range(E->Ops[1], Q);
      if (!A || !B)
        return Whole;
      if (E->IOp == IntrinsicOp::Min)
        return Interval{std::min(A->Lo, B->Lo), std::min(A->Hi, B->Hi)};
      return Interval{std::max(A->Lo, B->Lo), std::max(A->Hi, B->Hi)};
    }
    default:
      return Whole;
    }
  case Expr::Kind::Wave:
    if (E->WOp == WaveOp::Width && WaveWidth)
      return Interval{WaveWidth, WaveWidth};
    return Whole;
  case Expr::Kind::Select: {
    auto A = range(E->Ops[1], Q), B = range(E->Ops[2], Q);
    if (!A || !B)
      return Whole;
    return Interval{std::min(A->Lo, B->Lo), std::max(A->Hi, B->Hi)};
  }
  case Expr::Kind::Binary: {
    auto A = range(E->Ops[0], Q), B = range(E->Ops[1], Q);
    if (!A || !B)
      return Whole;
    Interval R = Whole;
    switch (E->BOp) {
    case BinaryOp::Add:
      R = {A->Lo + B->Lo, A->Hi + B->Hi};
      break;
    case BinaryOp::Sub:
      if (A->Lo < B->Hi) // may wrap
        return Whole;
      R = {A->Lo - B->Hi, A->Hi - B->Lo};
      break;
    case BinaryOp::Mul:
      if (A->Hi && B->Hi > U32Max / A->Hi)
        return Whole;
      R = {A->Lo * B->Lo, A->Hi * B->Hi};
      break;
    case BinaryOp::Div:
      if (B->Lo == 0) // x / 0 == 0 keeps the result at most A->Hi
        return Interval{0, A->Hi};
      R = {A->Lo / B->Hi, A->Hi / B->Lo};
      break;
    case BinaryOp::Rem:
      if (B->Lo == 0)
        return Interval{0, A->Hi};
      R = A->Hi < B->Lo ? *A : Interval{0, std::min(A->Hi, B->Hi - 1)};
      break;
    case BinaryOp::And:
      R = {0, std::min(A->Hi, B->Hi)};
      break;
    case BinaryOp::Shr:
    case BinaryOp::UShr:
      if (B->Hi != B->Lo || B->Lo > 31)
        return Interval{0, A->Hi};
      R = {A->Lo >> B->Lo, A->Hi >> B->Lo};
      break;
    default:
      return Whole;
    }
    return R.Hi > U32Max ? Whole : R;
  }
  default:
    return Whole;
  }
}

std::optional<std::pair<RangeDisjointness::Form, RangeDisjointness::Form>>
RangeDisjointness::forms(const Range& Earlier, const Range& Later, uint64_t Block,
                         uint32_t MaxGroup, std::vector<uint32_t>& Counters) const {
  if (!Block || !Earlier.Length || !Later.Length || !Pos.count(Earlier.At) || !Pos.count(Later.At))
    return std::nullopt;
  auto A = form(Earlier.Index, {Earlier.At, MaxGroup, &Counters});
  auto B = form(Later.Index, {Later.At, MaxGroup, &Counters});
  if (!A || !B)
    return std::nullopt;
  std::sort(Counters.begin(), Counters.end());
  Counters.erase(std::unique(Counters.begin(), Counters.end()), Counters.end());
  return std::make_pair(*A, *B);
}

bool RangeDisjointness::disjoint(const Range& Earlier, const Range& Later, uint64_t Block,
                                 uint32_t MaxGroup) const {
  std::vector<uint32_t> Counters;
  auto AB = forms(Earlier, Later, Block, MaxGroup, Counters);
  if (!AB)
    return false;
  for (uint32_t L : Counters)
    if (assignedBetween(L, Earlier.At, Later.At))
      return false;
  return apart(AB->first, AB->second, Earlier.Length, Later.Length, Block);
}

bool RangeDisjointness::disjointNextTurn(const Range& Earlier, const Range& Later, const Stmt* Loop,
                                         uint64_t Block, uint32_t MaxGroup) const {
  std::vector<uint32_t> Counters;
  if (!Loop->LoopBody || !Pos.count(Earlier.At) || !Pos.count(Later.At) ||
      !contains(Loop->LoopBody, Earlier.At) || !contains(Loop->LoopBody, Later.At))
    return false;
  auto AB = forms(Earlier, Later, Block, MaxGroup, Counters);
  if (!AB)
    return false;
  Form& B = AB->second;
  for (uint32_t L : Counters) {
    bool InLoop = false;
    for (const Stmt* S : Assigners[L])
      InLoop |= contains(Loop, S);
    if (!InLoop)
      continue; // the same value in both turns
    const std::optional<uint32_t> Step = stepIncrement(Loop, L);
    if (!Step)
      return false;
    if (B.Stage && B.Stage->Counter == L)
      B.Stage->Offset += *Step;
  }
  return apart(AB->first, B, Earlier.Length, Later.Length, Block);
}

std::optional<uint32_t> RangeDisjointness::stepIncrement(const Stmt* Loop, uint32_t L) const {
  if (!Loop->Step)
    return std::nullopt;
  for (const Stmt* S : Assigners[L])
    if (contains(Loop, S) && !contains(Loop->Step, S))
      return std::nullopt;
  std::vector<uint32_t> Copies{L}; // locals holding L's value in the step
  std::optional<uint32_t> Step;
  bool Plain = true;
  forEachExprIn(Loop->Step, [&](const Expr* E) {
    if (E->K != Expr::Kind::Assign || E->Ops.empty())
      return;
    const Expr* V = E->Ops[0];
    auto IsCopy = [&](const Expr* X) {
      return X->K == Expr::Kind::Local &&
             std::find(Copies.begin(), Copies.end(), X->Index) != Copies.end();
    };
    if (E->Index != L) {
      if (IsCopy(V) && Assigners[E->Index].size() == 1)
        Copies.push_back(E->Index);
      return;
    }
    std::optional<uint64_t> C;
    if (Step || V->K != Expr::Kind::Binary || V->BOp != BinaryOp::Add || !IsCopy(V->Ops[0]) ||
        !(C = constant(V->Ops[1])))
      Plain = false;
    else
      Step = uint32_t(*C);
  });
  return Plain ? Step : std::nullopt;
}

bool RangeDisjointness::apart(const Form& A, const Form& B, uint64_t EarlierLength,
                              uint64_t LaterLength, uint64_t Block) const {
  // The blocks [first, last] that a range's elements fall in, for a rest at its extremes.
  auto Blocks = [&](const Interval& Rest, uint64_t Length) {
    return Interval{Rest.Lo / Block, (Rest.Hi + Length - 1) / Block};
  };
  auto Apart = [&] {
    const Interval X = Blocks(A.Rest, EarlierLength), Y = Blocks(B.Rest, LaterLength);
    return X.Hi < Y.Lo || Y.Hi < X.Lo;
  };
  if (!A.Stage && !B.Stage)
    return Apart();
  if (!A.Stage || !B.Stage)
    return false;
  const StageTerm &S = *A.Stage, &T = *B.Stage;
  if (S.Period != T.Period || S.Stages != T.Stages || S.Counter != T.Counter || S.Period % Block)
    return false;
  // No index past 2^32 (the sum of stage and rest is the index itself).
  auto NoWrap = [&](const Interval& Rest, uint64_t Length) {
    return S.Period * (S.Stages - 1) + Rest.Hi + Length - 1 <= U32Max;
  };
  if (!NoWrap(A.Rest, EarlierLength) || !NoWrap(B.Rest, LaterLength))
    return false;
  if (S.Offset == T.Offset) // one stage: its two parts apart
    return Apart();
  if ((S.Offset - T.Offset) % S.Stages == 0)
    return false;
  // Each range within its own stage (the stages' periods whole blocks).
  auto Within = [&](const Interval& Rest, uint64_t Length) { return Rest.Hi + Length <= S.Period; };
  return Within(A.Rest, EarlierLength) && Within(B.Rest, LaterLength);
}

} // namespace cajeta::kir
