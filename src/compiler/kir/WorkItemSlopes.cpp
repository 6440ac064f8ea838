// Work-item slopes (WorkItemSlopes.h).
#include "compiler/kir/WorkItemSlopes.h"

#include "compiler/kir/Walk.h"

namespace cajeta::kir {

WorkItemSlopes::WorkItemSlopes(const Function& F, const GroupUniformity& U) : U(U) {
  Assignments.assign(F.Locals.size(), {});
  forEachExprIn(F.Body, [&](const Expr* E) {
    if (E->K == Expr::Kind::Assign && E->Index < Assignments.size() && E->Ops.size() == 1)
      Assignments[E->Index].push_back(E->Ops[0]);
  });
}

Slope WorkItemSlopes::of(const Expr* E) {
  if (!E)
    return Slope::unknown();
  switch (E->K) {
  case Expr::Kind::Const:
  case Expr::Kind::Param:
  case Expr::Kind::Field:
    return Slope::of(0);
  case Expr::Kind::Local: {
    if (U.isUniformLocal(E->Index))
      return Slope::of(0);
    // A local assigned once: the slope of its value (a guard against cycles).
    if (E->Index >= Assignments.size() || Assignments[E->Index].size() != 1 ||
        Visiting.count(E->Index))
      return Slope::unknown();
    Visiting.insert(E->Index);
    Slope S = of(Assignments[E->Index].front());
    Visiting.erase(E->Index);
    return S;
  }
  case Expr::Kind::Intrinsic:
    if (E->IOp == IntrinsicOp::LocalId || E->IOp == IntrinsicOp::GlobalId)
      return Slope::of(E->Dim == 0 ? 1 : 0);
    return allZero(E) ? Slope::of(0) : Slope::unknown();
  case Expr::Kind::Cast:
    return E->Ops.size() == 1 ? of(E->Ops[0]) : Slope::unknown();
  case Expr::Kind::Unary: {
    Slope A = E->Ops.size() == 1 ? of(E->Ops[0]) : Slope::unknown();
    if (E->UOp == UnaryOp::Neg && A.Known)
      return Slope::of(-A.Step);
    return A.isZero() ? A : Slope::unknown();
  }
  case Expr::Kind::Binary:
    return binary(E);
  case Expr::Kind::Load: // a value read at an index the same across the row
    return E->Ops.size() == 2 && of(E->Ops[1]).isZero() ? Slope::of(0) : Slope::unknown();
  default:
    return allZero(E) ? Slope::of(0) : Slope::unknown();
  }
}

bool WorkItemSlopes::allZero(const Expr* E) {
  for (const Expr* O : E->Ops)
    if (!of(O).isZero())
      return false;
  return !E->Ops.empty() || E->K == Expr::Kind::Intrinsic;
}

Slope WorkItemSlopes::binary(const Expr* E) {
  if (E->Ops.size() != 2)
    return Slope::unknown();
  Slope A = of(E->Ops[0]), B = of(E->Ops[1]);
  if (A.isZero() && B.isZero())
    return A;
  if (!A.Known || !B.Known)
    return Slope::unknown();
  auto ConstOf = [](const Expr* X, int64_t& V) {
    while (X->K == Expr::Kind::Cast && X->Ops.size() == 1)
      X = X->Ops[0];
    if (X->K != Expr::Kind::Const || !X->Ty.isInteger())
      return false;
    V = int64_t(X->IntValue);
    return true;
  };
  int64_t C = 0;
  switch (E->BOp) {
  case BinaryOp::Add:
    return Slope::of(A.Step + B.Step);
  case BinaryOp::Sub:
    return Slope::of(A.Step - B.Step);
  case BinaryOp::Mul:
    if (B.isZero() && ConstOf(E->Ops[1], C))
      return Slope::of(A.Step * C);
    if (A.isZero() && ConstOf(E->Ops[0], C))
      return Slope::of(B.Step * C);
    return Slope::unknown();
  case BinaryOp::Shl:
    if (B.isZero() && ConstOf(E->Ops[1], C) && C >= 0 && C < 32)
      return Slope::of(A.Step * (int64_t(1) << C));
    return Slope::unknown();
  default:
    return Slope::unknown();
  }
}

} // namespace cajeta::kir
