#include "compiler/kir/GroupShapeIndependence.h"

#include "compiler/kir/Walk.h"

namespace cajeta::kir {
namespace {

/// True when no expression of F satisfies Bad.
template <typename Pred> bool noExpr(const Function& F, Pred Bad) {
  bool Found = false;
  forEachExprIn(F.Body, [&](const Expr* E) { Found = Found || Bad(E); });
  return !Found;
}

bool isIntrinsic(const Expr* E, IntrinsicOp Op) {
  return E->K == Expr::Kind::Intrinsic && E->IOp == Op;
}

} // namespace

bool GroupShapeIndependence::readsOnlyGlobalCoordinates(const Function& F) {
  if (!F.SharedArrays.empty())
    return false;
  return noExpr(F, [](const Expr* E) {
    return E->K == Expr::Kind::Call || E->K == Expr::Kind::Dispatch ||
           isIntrinsic(E, IntrinsicOp::LocalId) || isIntrinsic(E, IntrinsicOp::GroupId);
  });
}

bool GroupShapeIndependence::holds(const Function& F) {
  if (F.HasBarrier || F.UsesWave || F.UsesTiles || !readsOnlyGlobalCoordinates(F))
    return false;
  return noExpr(F, [](const Expr* E) {
    return isIntrinsic(E, IntrinsicOp::GroupDim) || isIntrinsic(E, IntrinsicOp::GridDim);
  });
}

} // namespace cajeta::kir
