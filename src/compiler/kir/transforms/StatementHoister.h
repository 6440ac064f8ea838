// The walk shared by the KIR passes that turn an expression into statements: the statements go
// just before the statement that evaluated the expression (in evaluation order), and a local
// holding the value takes its place. Where nothing may move — a loop's condition or step, an
// operand evaluated only conditionally (a select's arms, the right side of && and ||) — the
// pass is told it cannot hoist.
#pragma once

#include "compiler/kir/Kir.h"

#include <string>
#include <vector>

namespace cajeta::kir {

class StatementHoister {
public:
  virtual ~StatementHoister() = default;

  /// Set by the pass (or the walk) on the first expression it cannot rewrite; the walk stops.
  std::string Error;

protected:
  explicit StatementHoister(Module& M) : M(M) {}

  /// Whether a conditionally evaluated operand (the right side of && or ||, an arm of ?:) may
  /// take statements too: the expression then becomes an if over a temporary, so the operand's
  /// statements run only when the operand would be evaluated. A pass whose statements must run on
  /// every work-item alike (a wave op) says no. NewLocal makes the temporary (a local of F).
  virtual bool hoistsConditionalOperands() const { return false; }
  virtual uint32_t newLocal(const std::string& Name, Type T) { return 0; }

  /// Rewrites every statement under S; returns what replaces S.
  Stmt* rewriteStmt(Stmt* S);
  /// The pass's rewrite of E, whose operands are already rewritten: E itself, or what replaces
  /// it, with any statements it needs appended to Pre. Hoist false: Pre must stay untouched.
  virtual Expr* rewriteNode(Expr* E, std::vector<Stmt*>& Pre, bool Hoist) = 0;

private:
  Expr* rewriteExpr(Expr* E, std::vector<Stmt*>& Pre, bool Hoist);
  /// E (&&, || or ?:) whose conditional operands needed statements (Inner, by operand) as an if
  /// over a temporary appended to Pre; returns the temporary's read.
  Expr* branchOver(Expr* E, std::vector<std::vector<Stmt*>>& Inner, std::vector<Stmt*>& Pre);
  /// S preceded by Pre, as one block (S alone when Pre is empty).
  Stmt* withPre(std::vector<Stmt*>& Pre, Stmt* S);

  Module& M;
};

} // namespace cajeta::kir
