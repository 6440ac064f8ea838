// Grid-stride loop interchange for the CPU (GridStrideInterchange.h).
#include "compiler/lowering/GridStrideInterchange.h"

#include <functional>

namespace cajeta::lowering {

using kir::Expr;
using kir::Stmt;

namespace {

/// Calls F on each grid-stride loop at the top level of S (through blocks only: a loop under an
/// if or in another loop is left alone, since fission evaluates such conditions once per group).
void forEachTopLevel(Stmt* S, const std::function<void(Stmt*)>& F) {
  if (!S)
    return;
  if (S->K == Stmt::Kind::Block) {
    for (Stmt* C : S->Body)
      forEachTopLevel(C, F);
    return;
  }
  if (S->K == Stmt::Kind::Loop && S->GridStride && S->E && !S->TestAtEnd)
    F(S);
}

} // namespace

bool GridStrideInterchange::applies(const kir::Function& K) {
  bool Found = false;
  forEachTopLevel(K.Body, [&](Stmt*) { Found = true; });
  return Found;
}

void GridStrideInterchange::rewrite(kir::Function& F, kir::Module& Scratch) {
  forEachTopLevel(F.Body, [&](Stmt* L) {
    kir::SourceLoc Loc = L->Loc;
    Expr* Not =
        Scratch.newExpr(Expr::Kind::Unary, kir::Type::scalar(bundle::ScalarType::Bool), Loc);
    Not->UOp = kir::UnaryOp::Not;
    Not->Ops = {L->E};
    Stmt* Break = Scratch.newStmt(Stmt::Kind::Break, Loc);
    Break->LoopId = L->LoopId;
    Stmt* Exit = Scratch.newStmt(Stmt::Kind::If, Loc);
    Exit->E = Not;
    Exit->Then = Break;
    Stmt* Body = Scratch.newStmt(Stmt::Kind::Block, Loc);
    Body->Body = {Exit, L->LoopBody, Scratch.newStmt(Stmt::Kind::Barrier, Loc)};
    L->LoopBody = Body;
    L->E = nullptr;
    F.HasBarrier = true;
  });
}

} // namespace cajeta::lowering
