// `if (leave) break L`, the statement the CPU's loop rewrites put at the top of a loop that runs
// once per group (the grid-stride interchange, the counter form, the masked guard): a work-item
// that takes it is parked until the loop ends.
#pragma once

#include "compiler/kir/Kir.h"

namespace cajeta::kir {

/// `!E` for a bool E (new node in M).
inline Expr* negate(Module& M, Expr* E) {
  Expr* N = M.newExpr(Expr::Kind::Unary, Type::scalar(ScalarType::Bool), E->Loc);
  N->UOp = UnaryOp::Not;
  N->Ops = {E};
  return N;
}

/// `if (Leave) break LoopId` (new nodes in M).
inline Stmt* breakIf(Module& M, Expr* Leave, uint32_t LoopId, SourceLoc Loc) {
  Stmt* Break = M.newStmt(Stmt::Kind::Break, Loc);
  Break->LoopId = LoopId;
  Stmt* Exit = M.newStmt(Stmt::Kind::If, Loc);
  Exit->E = Leave;
  Exit->Then = Break;
  return Exit;
}

} // namespace cajeta::kir
