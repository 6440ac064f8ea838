// Workgroup uniformity (GroupUniformity.h).
//
// "Uniform" here is among the running work-items: a work-item that returned never runs again,
// and one that left a loop by a divergent `break` is parked until that loop ends (the CPU's
// fission runs it only after the loop), so the work-items still inside agree on every uniform
// value. A local assigned inside such a loop is uniform only if nothing outside the loop
// refers to it (the parked work-items come back to the loop's exit, where they would see the
// value the others left). A divergent `continue` is not treated that way: the loop's body is
// then divergent. The fixed point starts from "every scalar local is uniform" and demotes a
// local at each assignment that is not a uniform statement under uniform control.
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

GroupUniformity::GroupUniformity(const Function& Fn) : F(Fn) {
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
                    (E->K == Expr::Kind::Intrinsic && E->IOp == IntrinsicOp::AsyncCopy);
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
  EnclosingAllRefs.assign(F.Locals.size(), {});
  std::vector<bool> Seen(F.Locals.size(), false);
  std::vector<const Stmt*> Stack;
  auto Ref = [&](uint32_t L) {
    if (L >= Seen.size())
      return;
    std::vector<const Stmt*>& Common = EnclosingAllRefs[L];
    if (!Seen[L]) {
      Seen[L] = true;
      Common = Stack;
      return;
    }
    size_t N = 0;
    while (N < Common.size() && N < Stack.size() && Common[N] == Stack[N])
      ++N;
    Common.resize(N);
  };
  auto RefsIn = [&](const Expr* E) {
    forEachExpr(E, [&](const Expr* X) {
      if (X->K == Expr::Kind::Local || X->K == Expr::Kind::Assign)
        Ref(X->Index);
    });
  };
  std::function<void(const Stmt*)> Walk = [&](const Stmt* S) {
    if (!S)
      return;
    bool IsLoop = S->K == Stmt::Kind::Loop;
    if (IsLoop)
      Stack.push_back(S);
    RefsIn(S->E);
    for (const Stmt* C : S->Body)
      Walk(C);
    for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
      Walk(C);
    if (IsLoop)
      Stack.pop_back();
  };
  Walk(F.Body);
}

bool GroupUniformity::isLoopLocal(uint32_t L, const Stmt* Loop) const {
  const std::vector<const Stmt*>& Common = EnclosingAllRefs[L];
  return std::find(Common.begin(), Common.end(), Loop) != Common.end();
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
        Ok = Ok && isLoopLocal(A->Index, L);
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
  BodyUniform.clear();
  BreakScopes.clear();
  walk(F.Body, true);
  return Changed;
}

bool GroupUniformity::isRematerializable(const Expr* E) const {
  if (!E)
    return false;
  switch (E->K) {
  case Expr::Kind::Const:
    return true;
  case Expr::Kind::Param:
    return E->Ty.isScalar();
  case Expr::Kind::Local:
    return Remat.count(E->Index) != 0;
  case Expr::Kind::Intrinsic:
    if (E->IOp == IntrinsicOp::LocalId || E->IOp == IntrinsicOp::GlobalId ||
        isGroupGeometry(E->IOp))
      return true;
    if (!isCheapPrimitive(E->IOp))
      return false;
    break;
  case Expr::Kind::Unary:
  case Expr::Kind::Binary:
  case Expr::Kind::Cast:
  case Expr::Kind::Select:
    break;
  default:
    return false;
  }
  for (const Expr* O : E->Ops)
    if (!isRematerializable(O))
      return false;
  return true;
}

void GroupUniformity::computeRematerialization() {
  // Assignments per local, and the kernel's top-level statements (reached through blocks only)
  // in order: a single assignment there comes before every read of the local (Sema declares
  // each local with its initial value, so no read precedes its declaration).
  std::vector<unsigned> Count(F.Locals.size(), 0);
  forEachExprIn(F.Body, [&](const Expr* E) {
    if (E->K == Expr::Kind::Assign && E->Index < Count.size())
      ++Count[E->Index];
  });
  std::vector<bool> Read(F.Locals.size(), false);
  std::function<void(const Stmt*)> TopLevel = [&](const Stmt* S) {
    if (!S)
      return;
    if (S->K == Stmt::Kind::Block) {
      for (const Stmt* C : S->Body)
        TopLevel(C);
      return;
    }
    if (S->K == Stmt::Kind::Eval && S->E && S->E->K == Expr::Kind::Assign &&
        S->E->Ops.size() == 1) {
      uint32_t L = S->E->Index;
      if (L < Count.size() && Count[L] == 1 && !Read[L] && !isUniformLocal(L) &&
          F.Locals[L].Ty.isScalar() && isRematerializable(S->E->Ops[0])) {
        Remat[L] = S->E->Ops[0];
        RematStmts.insert(S);
      }
    }
    forEachExprIn(S, [&](const Expr* E) {
      if (E->K == Expr::Kind::Local && E->Index < Read.size())
        Read[E->Index] = true;
    });
  };
  TopLevel(F.Body);
  // A local read before the top-level statement that assigns it (only possible in code that
  // Sema did not write) is not rematerialized; nor are its dependants.
  bool Dropped = true;
  while (Dropped) {
    Dropped = false;
    for (auto It = Remat.begin(); It != Remat.end();) {
      if (isRematerializable(It->second)) {
        ++It;
        continue;
      }
      for (auto S = RematStmts.begin(); S != RematStmts.end(); ++S)
        if ((*S)->E->Index == It->first) {
          RematStmts.erase(S);
          break;
        }
      It = Remat.erase(It);
      Dropped = true;
    }
  }
}

} // namespace cajeta::kir
