// Generic KIR traversal: the lambda form of Halide's IRVisitor / IRMutator. Passes and analyses
// visit or rewrite nodes through these instead of writing their own recursion.
#pragma once

#include "compiler/kir/Kir.h"

namespace cajeta::kir {

/// Calls F on E and then on every operand, pre-order.
template <typename Fn> void forEachExpr(const Expr* E, Fn&& F) {
  if (!E)
    return;
  F(E);
  for (const Expr* O : E->Ops)
    forEachExpr(O, F);
}

/// Calls F on S and every statement nested in it (bodies, branches, loop bodies, steps),
/// pre-order.
template <typename Fn> void forEachStmt(const Stmt* S, Fn&& F) {
  if (!S)
    return;
  F(S);
  for (const Stmt* C : S->Body)
    forEachStmt(C, F);
  for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
    forEachStmt(C, F);
}

/// Calls F on every expression node under S (each statement's E and its operands).
template <typename Fn> void forEachExprIn(const Stmt* S, Fn&& F) {
  forEachStmt(S, [&](const Stmt* St) { forEachExpr(St->E, F); });
}

/// Rewrites the expression tree at E bottom-up: the operands first, then F(E), whose result
/// replaces E (F returns E itself to keep it). Nodes are changed in place, so E must be owned by
/// the function being rewritten (a copy, never a shared node of another module).
template <typename Fn> Expr* rewriteExpr(Expr* E, Fn&& F) {
  if (!E)
    return nullptr;
  for (Expr*& O : E->Ops)
    O = rewriteExpr(O, F);
  return F(E);
}

/// Rewrites the statement tree at S top-down: where F(S) returns a statement, it replaces S (and
/// is not walked); where F returns null, S stays and its nested statements (bodies, branches,
/// loop bodies, steps) are rewritten in turn. Returns what takes S's place.
template <typename Fn> Stmt* rewriteStmts(Stmt* S, Fn&& F) {
  if (!S)
    return nullptr;
  if (Stmt* R = F(S))
    return R;
  for (Stmt*& C : S->Body)
    C = rewriteStmts(C, F);
  for (Stmt** C : {&S->Then, &S->Else, &S->LoopBody, &S->Step})
    *C = rewriteStmts(*C, F);
  return S;
}

/// rewriteExpr over every statement's expression under S.
template <typename Fn> void rewriteExprs(Stmt* S, Fn&& F) {
  if (!S)
    return;
  S->E = rewriteExpr(S->E, F);
  for (Stmt* C : S->Body)
    rewriteExprs(C, F);
  for (Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
    rewriteExprs(C, F);
}

} // namespace cajeta::kir
