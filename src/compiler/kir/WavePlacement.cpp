// The wave-op placement rules (WavePlacement.h).
#include "compiler/kir/WavePlacement.h"

#include <functional>
#include <string>

namespace cajeta::kir {

namespace {

class PlacementChecker {
public:
  PlacementChecker(const Module& M, std::vector<UniformityProblem>& Out) : M(M), Out(Out) {
    computeWrites();
  }

  void run(const Function& F) { stmt(F.Body); }

private:
  /// Whether each function writes memory (stores, atomics other than load), directly or through
  /// a helper.
  void computeWrites() {
    size_t N = M.Functions.size();
    Writes.assign(N, false);
    bool Changed = true;
    while (Changed) {
      Changed = false;
      for (size_t I = 0; I < N; ++I) {
        if (Writes[I])
          continue;
        bool W = false;
        forEach(M.Functions[I]->Body, [&](const Expr* E) {
          W = W || E->K == Expr::Kind::Store ||
              (E->K == Expr::Kind::Intrinsic &&
               (E->IOp == IntrinsicOp::AsyncCopy || E->IOp == IntrinsicOp::AsyncCopyBlock)) ||
              (E->K == Expr::Kind::Atomic && E->AOp != AtomicOp::Load) ||
              (E->K == Expr::Kind::Call && Writes[E->Index]);
          if (E->K == Expr::Kind::Dispatch)
            for (uint32_t T : E->Targets)
              W = W || Writes[T];
        });
        if (W) {
          Writes[I] = true;
          Changed = true;
        }
      }
    }
  }

  static void forEachExpr(const Expr* E, const std::function<void(const Expr*)>& F) {
    if (!E)
      return;
    F(E);
    for (const Expr* O : E->Ops)
      forEachExpr(O, F);
  }

  static void forEach(const Stmt* S, const std::function<void(const Expr*)>& F) {
    if (!S)
      return;
    forEachExpr(S->E, F);
    for (const Stmt* C : S->Body)
      forEach(C, F);
    for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
      forEach(C, F);
  }

  bool isWaveOp(const Expr* E) const { return isConvergentWaveOp(E); }
  bool isWaveCall(const Expr* E) const {
    return E->K == Expr::Kind::Call && M.Functions[E->Index]->UsesWave;
  }
  bool containsWave(const Expr* E) const {
    bool Found = false;
    forEachExpr(E, [&](const Expr* X) { Found = Found || isWaveOp(X) || isWaveCall(X); });
    return Found;
  }
  bool hasSideEffect(const Expr* E) const {
    switch (E->K) {
    case Expr::Kind::Assign:
    case Expr::Kind::Store:
    case Expr::Kind::Tile:
      return true;
    case Expr::Kind::RayQuery: // a query's state is its locals; all but the getters change them
      return E->RQOp < RayQueryOp::Type;
    case Expr::Kind::Atomic:
      return E->AOp != AtomicOp::Load;
    case Expr::Kind::Intrinsic:
      return E->IOp == IntrinsicOp::AsyncCopy || E->IOp == IntrinsicOp::AsyncCopyBlock;
    case Expr::Kind::Call:
      return Writes[E->Index];
    case Expr::Kind::Dispatch:
      for (uint32_t T : E->Targets)
        if (Writes[T])
          return true;
      return false;
    default:
      return false;
    }
  }

  std::string what(const Expr* E) const {
    if (E->K == Expr::Kind::Wave)
      return std::string("wave operation 'Wave.") + waveOpName(E->WOp) + "'";
    if (E->K == Expr::Kind::Tile)
      return std::string("tile operation '") + tileOpName(E->TOp) + "'";
    return "call of '" + M.Functions[E->Index]->Name + "', which uses wave operations,";
  }

  void problem(const Expr* E, const std::string& Msg) {
    uint32_t Len = E->K == Expr::Kind::Wave
                       ? 5 + static_cast<uint32_t>(std::string(waveOpName(E->WOp)).size())
                       : 1;
    Out.push_back({E->Loc, Len, Msg});
  }

  /// The first wave op or wave-helper call in E, in evaluation order.
  const Expr* firstWave(const Expr* E) const {
    const Expr* W = nullptr;
    forEachExpr(E, [&](const Expr* X) {
      if (!W && (isWaveOp(X) || isWaveCall(X)))
        W = X;
    });
    return W;
  }

  /// Walks E in evaluation order (operands before the node). SideEffect: something with a side
  /// effect was evaluated earlier in the statement. StmtRoot: E is the whole statement's
  /// expression or the value of an assignment to a local that is (a helper call may be there).
  void expr(const Expr* E, bool& SideEffect, bool StmtRoot) {
    if (!E)
      return;
    bool ArmsConditional = E->K == Expr::Kind::Select ||
                           (E->K == Expr::Kind::Binary &&
                            (E->BOp == BinaryOp::LogicalAnd || E->BOp == BinaryOp::LogicalOr));
    for (size_t I = 0; I < E->Ops.size(); ++I) {
      const Expr* O = E->Ops[I];
      if (ArmsConditional && I > 0) {
        if (const Expr* W = firstWave(O)) {
          problem(W, what(W) +
                         " in a conditionally evaluated operand (an arm of ?:, or the right side "
                         "of && or ||): every lane must reach it; compute it into a local first");
          continue;
        }
      }
      bool ChildRoot = StmtRoot && E->K == Expr::Kind::Assign;
      expr(O, SideEffect, ChildRoot);
    }
    if (isWaveOp(E) || isWaveCall(E)) {
      if (SideEffect)
        problem(E, what(E) +
                       " after a side effect in the same statement (an assignment, a store, an "
                       "atomic or a call that writes memory): split the statement");
      else if (isWaveCall(E) && !StmtRoot)
        problem(E, what(E) +
                       " inside an expression: call it as a statement of its own, or assign its "
                       "result to a local");
    }
    if (hasSideEffect(E))
      SideEffect = true;
  }

  void rootExpr(const Expr* E) {
    bool SideEffect = false;
    expr(E, SideEffect, true);
  }

  void noWaveIn(const Expr* E, const char* Where) {
    if (const Expr* W = firstWave(E))
      problem(W, what(W) + " in " + Where +
                     ": compute it into a local in the loop body (with a 'break' where the "
                     "condition fails)");
  }

  void stmt(const Stmt* S) {
    if (!S)
      return;
    switch (S->K) {
    case Stmt::Kind::Loop:
      noWaveIn(S->E, "a loop condition");
      if (S->Step) {
        const Expr* W = nullptr;
        forEach(S->Step, [&](const Expr* E) {
          if (!W && (isWaveOp(E) || isWaveCall(E)))
            W = E;
        });
        if (W)
          problem(W, what(W) + " in a loop's update: move it into the loop body");
      }
      stmt(S->LoopBody);
      return;
    case Stmt::Kind::If:
      rootExpr(S->E);
      stmt(S->Then);
      stmt(S->Else);
      return;
    default:
      rootExpr(S->E);
      for (const Stmt* C : S->Body)
        stmt(C);
      return;
    }
  }

  const Module& M;
  std::vector<UniformityProblem>& Out;
  std::vector<bool> Writes;
};

} // namespace

std::vector<UniformityProblem> checkWavePlacement(const Module& M) {
  std::vector<UniformityProblem> Out;
  PlacementChecker C(M, Out);
  for (const auto& F : M.Functions)
    if (F->UsesWave)
      C.run(*F);
  return Out;
}

} // namespace cajeta::kir
