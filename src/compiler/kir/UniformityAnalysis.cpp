// Barrier uniformity analysis over KIR.
#include "compiler/kir/UniformityAnalysis.h"

#include <functional>
#include <optional>
#include <set>

namespace cajeta::kir {

namespace {

/// Whether an expression tree contains a call (direct or through a tag) satisfying Pred.
bool anyCallee(const Expr* E, const std::function<bool(uint32_t)>& Pred) {
  if (!E)
    return false;
  if (E->K == Expr::Kind::Call && Pred(E->Index))
    return true;
  if (E->K == Expr::Kind::Dispatch)
    for (uint32_t T : E->Targets)
      if (Pred(T))
        return true;
  for (const Expr* O : E->Ops)
    if (anyCallee(O, Pred))
      return true;
  return false;
}

void forEachStmt(const Stmt* S, const std::function<void(const Stmt*)>& F) {
  if (!S)
    return;
  F(S);
  for (const Stmt* C : S->Body)
    forEachStmt(C, F);
  forEachStmt(S->Then, F);
  forEachStmt(S->Else, F);
  forEachStmt(S->LoopBody, F);
  forEachStmt(S->Step, F);
}

/// The first wave op in E that needs every lane of the wave (all but Wave.width/laneId).
const Expr* convergentWaveOp(const Expr* E) {
  if (!E)
    return nullptr;
  if (isConvergentWaveOp(E))
    return E;
  for (const Expr* O : E->Ops)
    if (const Expr* W = convergentWaveOp(O))
      return W;
  return nullptr;
}

bool usesIdsDirectly(const Expr* E) {
  if (!E)
    return false;
  if (E->K == Expr::Kind::Intrinsic &&
      (E->IOp == IntrinsicOp::LocalId || E->IOp == IntrinsicOp::GlobalId))
    return true;
  if (E->K == Expr::Kind::Wave && E->WOp != WaveOp::Width)
    return true; // lanes, and wave results that differ between the waves of a group
  for (const Expr* O : E->Ops)
    if (usesIdsDirectly(O))
      return true;
  return false;
}

class FunctionChecker {
public:
  FunctionChecker(const Module& M, const Function& F, const std::vector<bool>& UsesIds,
                  std::vector<UniformityProblem>& Out)
      : M(M), F(F), UsesIds(UsesIds), Out(Out) {}

  void run() {
    // Loops that contain a barrier (directly or through a call).
    forEachStmt(F.Body, [&](const Stmt* S) {
      if (S->K != Stmt::Kind::Loop)
        return;
      bool Has = false;
      forEachStmt(S->LoopBody, [&](const Stmt* C) { Has |= isBarrierLike(C); });
      forEachStmt(S->Step, [&](const Stmt* C) { Has |= isBarrierLike(C); });
      if (Has)
        BarrierLoops.insert(S->LoopId);
    });
    // Varying locals, to a fixpoint.
    bool Changed = true;
    while (Changed) {
      size_t Before = Varying.size();
      markAssignments(F.Body, false);
      Changed = Varying.size() != Before;
    }
    check(F.Body, std::nullopt);
  }

private:
  /// A barrier, a wave op, or a call to a helper containing either: every work-item of the
  /// group must reach it.
  bool isBarrierLike(const Stmt* S) const {
    if (S->K == Stmt::Kind::Barrier || convergentWaveOp(S->E))
      return true;
    return anyCallee(
        S->E, [&](uint32_t C) { return M.Functions[C]->HasBarrier || M.Functions[C]->UsesWave; });
  }

  bool varying(const Expr* E) const {
    if (!E)
      return false;
    switch (E->K) {
    case Expr::Kind::Intrinsic:
      if (E->IOp == IntrinsicOp::LocalId || E->IOp == IntrinsicOp::GlobalId)
        return true;
      break;
    case Expr::Kind::Wave:
      if (E->WOp != WaveOp::Width)
        return true;
      break;
    case Expr::Kind::Local:
      return Varying.count(E->Index) != 0;
    case Expr::Kind::Atomic:
      return true;
    case Expr::Kind::Load:
      return varying(E->Ops[1]);
    case Expr::Kind::Call:
      if (UsesIds[E->Index])
        return true;
      break;
    case Expr::Kind::Dispatch:
      for (uint32_t T : E->Targets)
        if (UsesIds[T])
          return true;
      break;
    default:
      break;
    }
    for (const Expr* O : E->Ops)
      if (varying(O))
        return true;
    return false;
  }

  void markExpr(const Expr* E, bool Divergent) {
    if (!E)
      return;
    for (const Expr* O : E->Ops)
      markExpr(O, Divergent);
    if (E->K == Expr::Kind::Assign && (Divergent || varying(E->Ops[0])))
      Varying.insert(E->Index);
  }

  void markAssignments(const Stmt* S, bool Divergent) {
    if (!S)
      return;
    switch (S->K) {
    case Stmt::Kind::If: {
      markExpr(S->E, Divergent);
      bool D = Divergent || varying(S->E);
      markAssignments(S->Then, D);
      markAssignments(S->Else, D);
      return;
    }
    case Stmt::Kind::Loop: {
      markExpr(S->E, Divergent);
      bool D = Divergent || varying(S->E);
      markAssignments(S->LoopBody, D);
      markAssignments(S->Step, D);
      return;
    }
    default:
      markExpr(S->E, Divergent);
      for (const Stmt* C : S->Body)
        markAssignments(C, Divergent);
      return;
    }
  }

  static std::string where(SourceLoc L) { return "line " + std::to_string(L.Line); }

  void problem(SourceLoc L, uint32_t Len, std::string Msg) {
    Out.push_back({L, Len, std::move(Msg)});
  }

  void checkBarrierAt(const Stmt* S, std::optional<SourceLoc> Div) {
    std::string What = "call to a helper that contains a barrier or wave operation";
    uint32_t Len = 1;
    SourceLoc At = S->Loc;
    if (S->K == Stmt::Kind::Barrier) {
      What = "barrier";
      Len = 14; // "Barrier.sync()"
    } else if (const Expr* W = convergentWaveOp(S->E); W && W->K == Expr::Kind::Tile) {
      What = std::string("tile operation '") + tileOpName(W->TOp) +
             "' (a tile is held by a whole wave)";
      At = W->Loc;
    } else if (W) {
      What = std::string("wave operation 'Wave.") + waveOpName(W->WOp) + "'";
      Len = 5 + static_cast<uint32_t>(std::string(waveOpName(W->WOp)).size());
      At = W->Loc;
    }
    // A wave op can always be hoisted: say how (the CUDA habit is `if (warp == 0) reduce`).
    std::string Hint = S->K != Stmt::Kind::Barrier && convergentWaveOp(S->E)
                           ? "; compute it where every work-item reaches it and use the result "
                             "under the condition"
                           : "";
    if (Div) {
      problem(At, Len,
              What + " in divergent control flow: the condition at " + where(*Div) +
                  " depends on the work-item's identity (KernelThread.*, Wave.*)" + Hint);
      return;
    }
    if (EarlyExit)
      problem(At, Len,
              What + " after some work-items may have returned (the return at " +
                  where(*EarlyExit) +
                  " is under a condition that depends on the work-item's identity)");
  }

  void check(const Stmt* S, std::optional<SourceLoc> Div) {
    if (!S)
      return;
    switch (S->K) {
    case Stmt::Kind::Barrier:
      checkBarrierAt(S, Div);
      return;
    case Stmt::Kind::Eval:
      if (isBarrierLike(S))
        checkBarrierAt(S, Div);
      return;
    case Stmt::Kind::If: {
      std::optional<SourceLoc> D = Div ? Div : (varying(S->E) ? std::optional(S->E->Loc) : Div);
      if (isBarrierLike(S))
        checkBarrierAt(S, Div);
      check(S->Then, D);
      check(S->Else, D);
      return;
    }
    case Stmt::Kind::Loop: {
      std::optional<SourceLoc> D = Div ? Div : (varying(S->E) ? std::optional(S->E->Loc) : Div);
      check(S->LoopBody, D);
      check(S->Step, D);
      return;
    }
    case Stmt::Kind::Block:
      for (const Stmt* C : S->Body)
        check(C, Div);
      return;
    case Stmt::Kind::Return:
      if (isBarrierLike(S))
        checkBarrierAt(S, Div);
      if (Div && !EarlyExit)
        EarlyExit = Div;
      return;
    case Stmt::Kind::Break:
    case Stmt::Kind::Continue:
      if (Div && BarrierLoops.count(S->LoopId))
        problem(S->Loc, S->K == Stmt::Kind::Break ? 5 : 8,
                std::string(S->K == Stmt::Kind::Break ? "'break'" : "'continue'") +
                    " under a condition that depends on the work-item's identity (" + where(*Div) +
                    ") skips a barrier in its loop");
      return;
    case Stmt::Kind::Try: // host code only; never analysed
      return;
    }
  }

  const Module& M;
  const Function& F;
  const std::vector<bool>& UsesIds;
  std::vector<UniformityProblem>& Out;
  std::set<uint32_t> Varying;
  std::set<uint32_t> BarrierLoops;
  std::optional<SourceLoc> EarlyExit;
};

} // namespace

std::vector<UniformityProblem> checkBarrierUniformity(Module& M) {
  size_t N = M.Functions.size();
  std::vector<bool> HasBarrier(N), UsesIds(N), UsesWave(N);
  for (size_t I = 0; I < N; ++I)
    forEachStmt(M.Functions[I]->Body, [&](const Stmt* S) {
      HasBarrier[I] = HasBarrier[I] || S->K == Stmt::Kind::Barrier;
      UsesIds[I] = UsesIds[I] || usesIdsDirectly(S->E);
      UsesWave[I] = UsesWave[I] || convergentWaveOp(S->E);
    });
  // Propagate through calls to a fixpoint (recursion is rejected earlier; this terminates anyway).
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (size_t I = 0; I < N; ++I)
      forEachStmt(M.Functions[I]->Body, [&](const Stmt* S) {
        bool B = anyCallee(S->E, [&](uint32_t C) { return HasBarrier[C]; });
        bool U = anyCallee(S->E, [&](uint32_t C) { return UsesIds[C]; });
        bool W = anyCallee(S->E, [&](uint32_t C) { return UsesWave[C]; });
        if (W && !UsesWave[I]) {
          UsesWave[I] = true;
          Changed = true;
        }
        if (B && !HasBarrier[I]) {
          HasBarrier[I] = true;
          Changed = true;
        }
        if (U && !UsesIds[I]) {
          UsesIds[I] = true;
          Changed = true;
        }
      });
  }
  for (size_t I = 0; I < N; ++I) {
    M.Functions[I]->HasBarrier = HasBarrier[I];
    M.Functions[I]->UsesWave = M.Functions[I]->UsesWave || UsesWave[I];
  }

  std::vector<UniformityProblem> Out;
  for (size_t I = 0; I < N; ++I) {
    const Function& F = *M.Functions[I];
    // A function value must not reach a barrier: its call is a switch that divergent tags split.
    forEachStmt(F.Body, [&](const Stmt* S) {
      std::function<void(const Expr*)> Walk = [&](const Expr* E) {
        if (!E)
          return;
        if (E->K == Expr::Kind::Dispatch)
          for (uint32_t T : E->Targets)
            if (HasBarrier[T] || UsesWave[T])
              Out.push_back({E->Loc, 1,
                             "a function value may call '" + M.Functions[T]->Name +
                                 "', which contains a " +
                                 (HasBarrier[T] ? "barrier" : "wave operation") +
                                 "; call such helpers directly"});
        for (const Expr* O : E->Ops)
          Walk(O);
      };
      Walk(S->E);
    });
    if (HasBarrier[I] || UsesWave[I])
      FunctionChecker(M, F, UsesIds, Out).run();
  }
  return Out;
}

} // namespace cajeta::kir
