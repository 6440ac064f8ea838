// Workgroup uniformity (GroupUniformity.h).
//
// "Uniform" here is among the running work-items: a work-item that returned never runs again,
// and one that left a loop by a divergent `break` is parked until that loop ends (the CPU's
// fission runs it only after the loop), so the work-items still inside agree on every uniform
// value. The parked work-items come back at the loop's exit, where they would see what the
// others left in a uniform local: a local assigned in such a loop is uniform only if it is read
// nowhere else and assigned outside the loop only just before it (a for loop's counter). A
// divergent `continue` is not treated that way: the loop's body is then divergent. The fixed
// point starts from "every scalar local is uniform" and demotes a local at each assignment that
// is not a uniform statement under uniform control.
#include "compiler/kir/GroupUniformity.h"

#include "compiler/kir/Walk.h"

#include <algorithm>
#include <functional>

namespace cajeta::kir {

namespace {

bool containsAssign(const Expr* E) {
  bool Found = false;
  forEachExpr(E, [&](const Expr* X) { Found |= X->K == Expr::Kind::Assign; });
  return Found;
}

/// The assignments of an Eval statement of the plain forms `x = v` and `(seq (x = v) ... e)`
/// with no assignment nested in a value; false for any other statement.
bool statementAssigns(const Stmt* S, std::vector<const Expr*>& Out) {
  if (S->K != Stmt::Kind::Eval || !S->E)
    return false;
  auto Plain = [&](const Expr* E) {
    if (E->K == Expr::Kind::Assign) {
      if (E->Ops.size() != 1 || containsAssign(E->Ops[0]))
        return false;
      Out.push_back(E);
      return true;
    }
    return !containsAssign(E);
  };
  if (S->E->K == Expr::Kind::Seq) {
    for (const Expr* O : S->E->Ops)
      if (!O || !Plain(O))
        return false;
    return true;
  }
  return S->E->K == Expr::Kind::Assign && Plain(S->E);
}

bool isGroupGeometry(IntrinsicOp Op) {
  return Op == IntrinsicOp::GroupId || Op == IntrinsicOp::GroupDim || Op == IntrinsicOp::GridDim ||
         Op == IntrinsicOp::GlobalSize;
}

/// Pure arithmetic intrinsics: the value depends on the operands only.
bool isPureMath(IntrinsicOp Op) {
  switch (Op) {
  case IntrinsicOp::Sqrt:
  case IntrinsicOp::Rsqrt:
  case IntrinsicOp::Exp:
  case IntrinsicOp::Log:
  case IntrinsicOp::Pow:
  case IntrinsicOp::Sin:
  case IntrinsicOp::Cos:
  case IntrinsicOp::Tanh:
  case IntrinsicOp::Abs:
  case IntrinsicOp::Min:
  case IntrinsicOp::Max:
  case IntrinsicOp::Floor:
  case IntrinsicOp::Ceil:
  case IntrinsicOp::Fma:
  case IntrinsicOp::DivTrunc:
  case IntrinsicOp::RemTrunc:
  case IntrinsicOp::ShiftLeft:
  case IntrinsicOp::ShiftRight:
  case IntrinsicOp::FToIUnchecked:
  case IntrinsicOp::Bitcast:
  case IntrinsicOp::MinNum:
  case IntrinsicOp::MaxNum:
    return true;
  default:
    return false;
  }
}

/// Integer and bit operations cheap enough to recompute at every read.
bool isCheapPrimitive(IntrinsicOp Op) {
  return Op == IntrinsicOp::DivTrunc || Op == IntrinsicOp::RemTrunc ||
         Op == IntrinsicOp::ShiftLeft || Op == IntrinsicOp::ShiftRight ||
         Op == IntrinsicOp::Bitcast || Op == IntrinsicOp::Min || Op == IntrinsicOp::Max;
}

} // namespace

std::vector<bool> GroupUniformity::argumentsOnly(const Module& M) {
  const size_t N = M.Functions.size();
  std::vector<bool> Pure(N, false);
  std::vector<uint8_t> State(N, 0); // 0 unseen, 1 in progress, 2 done
  std::function<bool(size_t)> Decide = [&](size_t I) -> bool {
    if (State[I] == 2)
      return Pure[I];
    if (State[I] == 1) // recursion, rejected before KIR: not pure
      return false;
    State[I] = 1;
    const Function& F = *M.Functions[I];
    bool P = !F.IsKernel && !F.HasBarrier && !F.UsesWave && F.PrivateArrays.empty();
    for (const Param& Q : F.Params)
      P &= Q.Ty.isScalar();
    forEachStmt(F.Body, [&](const Stmt* S) { P &= S->K != Stmt::Kind::Barrier; });
    forEachExprIn(F.Body, [&](const Expr* E) {
      switch (E->K) {
      case Expr::Kind::Const:
      case Expr::Kind::Param:
      case Expr::Kind::Local:
      case Expr::Kind::Assign:
      case Expr::Kind::Unary:
      case Expr::Kind::Binary:
      case Expr::Kind::Cast:
      case Expr::Kind::Select:
      case Expr::Kind::Seq:
        return;
      case Expr::Kind::Intrinsic:
        P &= isGroupGeometry(E->IOp) || isPureMath(E->IOp) || E->IOp == IntrinsicOp::Supports;
        return;
      case Expr::Kind::Wave:
        P &= E->WOp == WaveOp::Width;
        return;
      case Expr::Kind::Call:
        P &= E->Index < N && Decide(E->Index);
        return;
      default:
        P = false;
      }
    });
    State[I] = 2;
    Pure[I] = P;
    return P;
  };
  for (size_t I = 0; I < N; ++I)
    Decide(I);
  return Pure;
}

GroupUniformity::GroupUniformity(const Function& Fn, const Module* M)
    : F(Fn), PureCallees(M ? argumentsOnly(*M) : std::vector<bool>()) {
  Uniform.assign(F.Locals.size(), false);
  for (size_t L = 0; L < F.Locals.size(); ++L)
    Uniform[L] = F.Locals[L].Ty.isScalar();
  // A buffer the kernel writes (or hands to a helper that might) can change between reads.
  ReadOnlyParam.assign(F.Params.size(), false);
  for (size_t P = 0; P < F.Params.size(); ++P)
    ReadOnlyParam[P] = F.Params[P].Ty.isBuffer() && !F.Params[P].IsAccel;
  forEachExprIn(F.Body, [&](const Expr* E) {
    bool Writes = E->K == Expr::Kind::Store || E->K == Expr::Kind::Atomic ||
                  (E->K == Expr::Kind::Tile && E->TOp == TileOp::Store);
    if (Writes && !E->Ops.empty() && E->Ops[0] && E->Ops[0]->K == Expr::Kind::Param &&
        E->Ops[0]->Index < ReadOnlyParam.size())
      ReadOnlyParam[E->Ops[0]->Index] = false;
    bool PassesOn = E->K == Expr::Kind::Call || E->K == Expr::Kind::Dispatch ||
                    (E->K == Expr::Kind::Intrinsic &&
                     (E->IOp == IntrinsicOp::AsyncCopy || E->IOp == IntrinsicOp::AsyncCopyBlock));
    if (PassesOn)
      for (const Expr* O : E->Ops)
        if (O && O->K == Expr::Kind::Param && O->Index < ReadOnlyParam.size())
          ReadOnlyParam[O->Index] = false;
  });
  computeLoopLocality();
  while (refine()) {
  }
  computeRematerialization();
}

void GroupUniformity::computeLoopLocality() {
  ReadLoops.assign(F.Locals.size(), {});
  Read.assign(F.Locals.size(), false);
  AssignSites.assign(F.Locals.size(), {});
  std::vector<const Stmt*> Stack;
  auto ReadAt = [&](uint32_t L) {
    if (L >= Read.size())
      return;
    std::vector<const Stmt*>& Common = ReadLoops[L];
    if (!Read[L]) {
      Read[L] = true;
      Common = Stack;
      return;
    }
    size_t N = 0;
    while (N < Common.size() && N < Stack.size() && Common[N] == Stack[N])
      ++N;
    Common.resize(N);
  };
  std::function<void(const Stmt*)> Walk = [&](const Stmt* S) {
    if (!S)
      return;
    bool IsLoop = S->K == Stmt::Kind::Loop;
    if (IsLoop)
      Stack.push_back(S);
    forEachExpr(S->E, [&](const Expr* X) {
      if (X->K == Expr::Kind::Local)
        ReadAt(X->Index);
      else if (X->K == Expr::Kind::Assign && X->Index < AssignSites.size())
        AssignSites[X->Index].push_back({S, Stack});
    });
    for (size_t I = 0; I < S->Body.size(); ++I) {
      if (S->K == Stmt::Kind::Block && S->Body[I])
        Parent[S->Body[I]] = {S, I};
      Walk(S->Body[I]);
    }
    for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
      Walk(C);
    if (IsLoop)
      Stack.pop_back();
  };
  Walk(F.Body);
}

bool GroupUniformity::isScopedTo(uint32_t L, const Stmt* Loop) const {
  auto Inside = [&](const std::vector<const Stmt*>& Loops) {
    return std::find(Loops.begin(), Loops.end(), Loop) != Loops.end();
  };
  if (Read[L] && !Inside(ReadLoops[L]))
    return false;
  auto LoopAt = Parent.find(Loop);
  for (const auto& [Site, Loops] : AssignSites[L]) {
    if (Inside(Loops))
      continue;
    // Set before the loop in the loop's own block (a for loop's initialisation): each entry
    // into the loop starts from a value every work-item shares.
    auto SiteAt = Parent.find(Site);
    if (LoopAt == Parent.end() || SiteAt == Parent.end() ||
        SiteAt->second.first != LoopAt->second.first ||
        SiteAt->second.second >= LoopAt->second.second)
      return false;
  }
  return true;
}

bool GroupUniformity::isUniform(const Expr* E) const {
  if (!E)
    return false;
  switch (E->K) {
  case Expr::Kind::Const:
    return true;
  case Expr::Kind::Param:
    return E->Ty.isScalar();
  case Expr::Kind::Local:
    return isUniformLocal(E->Index);
  case Expr::Kind::Field:
    return E->Ops.size() == 1 && E->Ops[0] && E->Ops[0]->K == Expr::Kind::Param;
  case Expr::Kind::Intrinsic:
    if (isGroupGeometry(E->IOp) || E->IOp == IntrinsicOp::Supports)
      return true;
    if (E->IOp == IntrinsicOp::BufferLength)
      return E->Ops.size() == 1 && E->Ops[0] &&
             (E->Ops[0]->K == Expr::Kind::Param || E->Ops[0]->K == Expr::Kind::SharedRef);
    if (!isPureMath(E->IOp))
      return false;
    break;
  case Expr::Kind::Wave:
    return E->WOp == WaveOp::Width;
  case Expr::Kind::Call: // of a helper whose value its arguments alone decide
    if (E->Index >= PureCallees.size() || !PureCallees[E->Index])
      return false;
    break;
  case Expr::Kind::Load: // of a buffer nothing writes while the kernel runs
    return E->Ops.size() == 2 && E->Ops[0] && E->Ops[0]->K == Expr::Kind::Param &&
           E->Ops[0]->Index < ReadOnlyParam.size() && ReadOnlyParam[E->Ops[0]->Index] &&
           isUniform(E->Ops[1]);
  case Expr::Kind::Unary:
  case Expr::Kind::Binary:
  case Expr::Kind::Cast:
  case Expr::Kind::Select:
    break;
  default:
    return false; // loads, calls, atomics, assignments, ...
  }
  for (const Expr* O : E->Ops)
    if (!isUniform(O))
      return false;
  return true;
}

void GroupUniformity::demoteAssignmentsIn(const Expr* E) {
  forEachExpr(E, [&](const Expr* X) {
    if (X->K == Expr::Kind::Assign && isUniformLocal(X->Index)) {
      Uniform[X->Index] = false;
      Changed = true;
    }
  });
}

void GroupUniformity::checkEval(const Stmt* S, bool UniformControl) {
  if (UniformControl)
    UniformControlEvals.insert(S);
  // A prefetch of a range the group shares: once per group is enough (it changes nothing).
  if (S->E && S->E->K == Expr::Kind::Intrinsic && S->E->IOp == IntrinsicOp::Prefetch) {
    if (UniformControl && isUniform(S->E->Ops[1]) && isUniform(S->E->Ops[2]))
      UniformStmts.insert(S);
    return;
  }
  std::vector<const Expr*> Assigns;
  bool Ok = statementAssigns(S, Assigns) && UniformControl && !Assigns.empty();
  if (Ok) {
    // Every part of the statement uniform, every target uniform so far and local to each loop
    // that some work-items leave by break.
    Ok = S->E->K != Expr::Kind::Seq ||
         std::all_of(S->E->Ops.begin(), S->E->Ops.end(),
                     [&](const Expr* O) { return O->K == Expr::Kind::Assign || isUniform(O); });
    for (const Expr* A : Assigns) {
      Ok = Ok && isUniformLocal(A->Index) && isUniform(A->Ops[0]);
      for (const Stmt* L : BreakScopes)
        Ok = Ok && isScopedTo(A->Index, L);
    }
  }
  if (Ok) {
    UniformStmts.insert(S);
    return;
  }
  demoteAssignmentsIn(S->E);
}

void GroupUniformity::walk(const Stmt* S, bool UniformControl) {
  if (!S)
    return;
  switch (S->K) {
  case Stmt::Kind::Block:
    for (const Stmt* C : S->Body)
      walk(C, UniformControl);
    return;
  case Stmt::Kind::Eval:
    return checkEval(S, UniformControl);
  case Stmt::Kind::If: {
    demoteAssignmentsIn(S->E);
    bool C = UniformControl && isUniform(S->E);
    walk(S->Then, C);
    walk(S->Else, C);
    return;
  }
  case Stmt::Kind::Loop: {
    demoteAssignmentsIn(S->E);
    bool Body = UniformControl && (!S->E || isUniform(S->E)) && !DivergentContinue.count(S->LoopId);
    BodyUniform[S->LoopId] = Body;
    if (Body)
      UniformLoops.insert(S);
    bool Scoped = Body && DivergentBreak.count(S->LoopId);
    if (Scoped)
      BreakScopes.push_back(S);
    walk(S->LoopBody, Body);
    walk(S->Step, Body);
    if (Scoped)
      BreakScopes.pop_back();
    return;
  }
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue: {
    auto It = BodyUniform.find(S->LoopId);
    if (It == BodyUniform.end() || !It->second || UniformControl)
      return;
    std::set<uint32_t>& Set = S->K == Stmt::Kind::Break ? DivergentBreak : DivergentContinue;
    Changed |= Set.insert(S->LoopId).second;
    return;
  }
  case Stmt::Kind::Return:
    demoteAssignmentsIn(S->E);
    return;
  case Stmt::Kind::Barrier:
    return;
  case Stmt::Kind::Try:
    // Host code only; nothing in it is a kernel's uniform value.
    forEachExprIn(S, [&](const Expr* E) {
      if (E->K == Expr::Kind::Assign && isUniformLocal(E->Index)) {
        Uniform[E->Index] = false;
        Changed = true;
      }
    });
    return;
  }
}

bool GroupUniformity::refine() {
  Changed = false;
  UniformStmts.clear();
  UniformLoops.clear();
  UniformControlEvals.clear();
  BodyUniform.clear();
  BreakScopes.clear();
  walk(F.Body, true);
  return Changed;
}

bool GroupUniformity::isRematerializable(const Expr* E, const std::set<uint32_t>& Stable) const {
  if (!E)
    return false;
  switch (E->K) {
  case Expr::Kind::Const:
    return true;
  case Expr::Kind::Param:
    return E->Ty.isScalar();
  case Expr::Kind::Local:
    return Remat.count(E->Index) != 0 || Stable.count(E->Index) != 0;
  case Expr::Kind::Intrinsic:
    if (E->IOp == IntrinsicOp::LocalId || E->IOp == IntrinsicOp::GlobalId ||
        isGroupGeometry(E->IOp))
      return true;
    if (!isCheapPrimitive(E->IOp))
      return false;
    break;
  case Expr::Kind::Wave: // the lane is a function of the work-item's index (Kir.h)
    return E->WOp == WaveOp::LaneId || E->WOp == WaveOp::Width;
  case Expr::Kind::Unary:
  case Expr::Kind::Binary:
  case Expr::Kind::Cast:
  case Expr::Kind::Select:
    break;
  default:
    return false;
  }
  for (const Expr* O : E->Ops)
    if (!isRematerializable(O, Stable))
      return false;
  return true;
}

bool GroupUniformity::isStableIn(uint32_t Local, const Stmt* Loop) const {
  if (!isUniformLocal(Local))
    return false;
  std::set<const Stmt*> Step;
  forEachStmt(Loop->Step, [&](const Stmt* S) { Step.insert(S); });
  auto LoopAt = Parent.find(Loop);
  for (const auto& Site : AssignSites[Local]) {
    if (Step.count(Site.first))
      continue;
    auto SiteAt = Parent.find(Site.first);
    if (LoopAt == Parent.end() || SiteAt == Parent.end() ||
        SiteAt->second.first != LoopAt->second.first ||
        SiteAt->second.second >= LoopAt->second.second)
      return false;
  }
  return true;
}

void GroupUniformity::computeRematerialization() {
  // A local assigned once, by an Eval statement whose value is rematerializable, and read only
  // where that statement has run before: later in its block, or later in the blocks around it
  // as long as only blocks enclose it (not out of a loop or an if).
  std::vector<unsigned> Count(F.Locals.size(), 0);
  forEachExprIn(F.Body, [&](const Expr* E) {
    if (E->K == Expr::Kind::Assign && E->Index < Count.size())
      ++Count[E->Index];
  });
  std::vector<bool> Available(F.Locals.size(), false), Rejected(F.Locals.size(), false);
  std::map<uint32_t, const Stmt*> Candidate;
  // Uniform locals that keep their value through each iteration of the loops being walked (a
  // counter set before its loop and stepped only in the loop's step): a value computed from one
  // in the loop's body can be recomputed anywhere later in that body.
  std::set<uint32_t> Stable;
  std::map<uint32_t, std::set<uint32_t>> StableFor;
  auto Reads = [&](const Expr* E) {
    forEachExpr(E, [&](const Expr* X) {
      if (X->K == Expr::Kind::Local && X->Index < Available.size() && !Available[X->Index])
        Rejected[X->Index] = true;
    });
  };
  // Returns the locals made available inside S that stay available after it.
  std::function<std::vector<uint32_t>(const Stmt*)> Walk = [&](const Stmt* S) {
    std::vector<uint32_t> Made;
    if (!S)
      return Made;
    if (S->K == Stmt::Kind::Block) {
      for (const Stmt* C : S->Body)
        for (uint32_t L : Walk(C))
          Made.push_back(L);
      return Made;
    }
    Reads(S->E);
    if (S->K == Stmt::Kind::Eval && S->E && S->E->K == Expr::Kind::Assign &&
        S->E->Ops.size() == 1) {
      uint32_t L = S->E->Index;
      if (L < Count.size() && Count[L] == 1 && !isUniformLocal(L) && F.Locals[L].Ty.isScalar() &&
          isRematerializable(S->E->Ops[0], Stable)) {
        Remat[L] = S->E->Ops[0];
        Candidate[L] = S;
        StableFor[L] = Stable;
        Available[L] = true;
        Made.push_back(L);
      } else if (L < Count.size() && Count[L] == 1 && isUniformLocal(L) &&
                 F.Locals[L].Ty.isScalar()) {
        // A uniform local set once (a counter-form loop's `q = $start + $t`): from here to the
        // end of the blocks around it it holds the value this pass of them gave it, so a value
        // computed from it here (`j2 = j1 + 4 * q`) can be recomputed there.
        Stable.insert(L);
      }
      return Made;
    }
    // Inside an if or a loop: what becomes available there is not after it.
    const std::set<uint32_t> Outer = Stable;
    for (const Stmt* C : S->Body)
      for (uint32_t L : Walk(C))
        Available[L] = false;
    Stable = Outer;
    if (S->K == Stmt::Kind::Loop)
      for (uint32_t X = 0; X < F.Locals.size(); ++X)
        if (isStableIn(X, S))
          Stable.insert(X);
    for (uint32_t L : Walk(S->LoopBody))
      Available[L] = false;
    Stable = Outer;
    for (const Stmt* C : {S->Then, S->Else, S->Step}) {
      for (uint32_t L : Walk(C))
        Available[L] = false;
      Stable = Outer;
    }
    return Made;
  };
  Walk(F.Body);
  for (auto& [L, S] : Candidate)
    if (!Rejected[L])
      RematStmts.insert(S);
  for (auto It = Remat.begin(); It != Remat.end();)
    It = Rejected[It->first] ? Remat.erase(It) : std::next(It);
  // A local whose value reads one that was dropped is dropped too.
  bool Dropped = true;
  while (Dropped) {
    Dropped = false;
    for (auto It = Remat.begin(); It != Remat.end();) {
      if (isRematerializable(It->second, StableFor[It->first])) {
        ++It;
        continue;
      }
      RematStmts.erase(Candidate[It->first]);
      It = Remat.erase(It);
      Dropped = true;
    }
  }
}

} // namespace cajeta::kir
