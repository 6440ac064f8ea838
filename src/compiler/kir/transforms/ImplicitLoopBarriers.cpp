// Implicit loop barriers (ImplicitLoopBarriers.h).
#include "compiler/kir/transforms/ImplicitLoopBarriers.h"

#include "compiler/kir/transforms/UniformLoopUnroll.h"

#include "compiler/kir/GroupUniformity.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/WorkItemSlopes.h"
#include "compiler/kir/transforms/CounterForm.h"
#include "compiler/kir/transforms/LoopExit.h"

#include <functional>
#include <limits>
#include <memory>
#include <set>

namespace cajeta::kir {

namespace {

bool containsLoop(const Stmt* S) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt* X) { Found |= X->K == Stmt::Kind::Loop; });
  return Found;
}

bool containsBarrier(const Stmt* S) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt* X) { Found |= X->K == Stmt::Kind::Barrier; });
  return Found;
}

class Rewriter {
public:
  Rewriter(Module& M, Function& F, bool IgnoreCost) : M(M), F(F), IgnoreCost(IgnoreCost) {
    forEachStmt(F.Body, [&](const Stmt* S) {
      if (S->K == Stmt::Kind::Loop && S->LoopId >= NextLoopId)
        NextLoopId = S->LoopId + 1;
    });
  }

  void run() {
    U = std::make_unique<GroupUniformity>(F);
    maskDivergentIfs(F.Body, true);
    addBarriers();
  }

private:
  Expr* boolConst(bool V, SourceLoc Loc) {
    Expr* C = M.newExpr(Expr::Kind::Const, Type::scalar(ScalarType::Bool), Loc);
    C->IntValue = V ? 1 : 0;
    return C;
  }

  /// do { if (Leave) break; Body } while (false)
  Stmt* maskedRegion(Expr* Leave, Stmt* Body, SourceLoc Loc) {
    Stmt* Do = M.newStmt(Stmt::Kind::Loop, Loc);
    Do->LoopId = NextLoopId++;
    Masks.insert(Do->LoopId);
    Do->TestAtEnd = true;
    Do->E = boolConst(false, Loc);
    Stmt* Exit = breakIf(M, Leave, Do->LoopId, Loc);
    Stmt* Block = M.newStmt(Stmt::Kind::Block, Loc);
    Block->Body = {Exit, Body};
    Do->LoopBody = Block;
    return Do;
  }

  Expr* readLocal(uint32_t L, SourceLoc Loc) {
    Expr* R = M.newExpr(Expr::Kind::Local, F.Locals[L].Ty, Loc);
    R->Index = L;
    return R;
  }

  /// `if (c) T [else E]` as masked regions: with an else, the condition is kept in a new local
  /// first (T may change what c reads).
  Stmt* masked(Stmt* If) {
    SourceLoc Loc = If->Loc;
    if (!If->Else)
      return maskedRegion(negate(M, If->E), If->Then, Loc);
    uint32_t G = uint32_t(F.Locals.size());
    F.Locals.push_back({"$guard" + std::to_string(G), Type::scalar(ScalarType::Bool), Loc});
    Expr* Set = M.newExpr(Expr::Kind::Assign, Type::scalar(ScalarType::Bool), Loc);
    Set->Index = G;
    Set->Ops = {If->E};
    Stmt* Init = M.newStmt(Stmt::Kind::Eval, Loc);
    Init->E = Set;
    auto Branch = [&](Stmt* Body, bool OnTrue) -> Stmt* {
      Expr* Leave = OnTrue ? negate(M, readLocal(G, Loc)) : readLocal(G, Loc);
      if (containsLoop(Body))
        return maskedRegion(Leave, Body, Loc);
      Stmt* Guarded = M.newStmt(Stmt::Kind::If, Loc);
      Guarded->E = negate(M, Leave);
      Guarded->Then = Body;
      return Guarded;
    };
    Stmt* Block = M.newStmt(Stmt::Kind::Block, Loc);
    Block->Body = {Init, Branch(If->Then, true), Branch(If->Else, false)};
    return Block;
  }

  /// The cost model: whether running uniform loop L once per group makes at least one of its
  /// accesses contiguous across the work-items and none a gather (WorkItemSlopes). An access
  /// whose index steps by anything else (a[i * n + k] with i the work-item's x: a column of a
  /// row-major matrix) would become a gather, slower than the work-item's own walk along the
  /// row, so such a loop stays inside the work-item.
  bool profitable(const Stmt* L) const {
    if (IgnoreCost)
      return true;
    WorkItemSlopes Slopes(F, *U);
    bool Contiguous = false, Gather = false;
    auto Visit = [&](const Expr* E) {
      bool Access =
          E->K == Expr::Kind::Load || E->K == Expr::Kind::Store || E->K == Expr::Kind::Atomic;
      if (Access && E->Ops.size() >= 2) {
        Slope S = Slopes.of(E->Ops[1]);
        Contiguous |= S.Known && S.Step == 1;
        Gather |= !S.Known || (S.Step != 0 && S.Step != 1);
      }
      if (E->K == Expr::Kind::Call || E->K == Expr::Kind::Dispatch)
        for (const Expr* O : E->Ops)
          Gather |= O && O->Ty.isArray(); // a helper's accesses are not seen here
    };
    for (const Stmt* Part : {L->LoopBody, L->Step})
      forEachExprIn(Part, Visit);
    forEachExpr(L->E, Visit);
    return Contiguous && !Gather;
  }

  /// Whether a loop under S older than loop id First (not a masked region) is uniform and
  /// worth running once per group.
  bool hasUniformLoopBelow(const Stmt* S, uint32_t First) const {
    bool Found = false;
    forEachStmt(S, [&](const Stmt* X) {
      Found |=
          X->K == Stmt::Kind::Loop && X->LoopId < First && U->isUniformLoop(X) && profitable(X);
    });
    return Found;
  }

  /// A loop whose trip count differs between work-items (`for (j = i + 1; j < n; j++)`) in its
  /// counter form (kir::CounterForm) runs once per group with the work-items that are done
  /// parked, if that makes it, or a loop inside it, worth running so. Kept only then.
  bool tryCounterForm(Stmt* Block, size_t At) {
    Stmt* L = Block->Body[At];
    // A grid-stride loop is left to the interchange's step entry, which the runtime takes when
    // the loop has more than one step per work-item; its plain entry runs one step each.
    if (!L || L->K != Stmt::Kind::Loop || L->GridStride || U->isUniformLoop(L) ||
        containsBarrier(L) || !CounterForm::matches(F, Block, At))
      return false;
    CounterForm::Undo Undo = CounterForm::rewrite(M, F, Block, At);
    auto Trial = std::make_unique<GroupUniformity>(F);
    std::swap(U, Trial);
    if (U->isUniformLoop(L) &&
        (profitable(L) || hasUniformLoopBelow(L->LoopBody, std::numeric_limits<uint32_t>::max()))) {
      Undos.push_back(Undo);
      return true;
    }
    CounterForm::undo(F, Undo);
    std::swap(U, Trial);
    return false;
  }

  /// tryCounterForm on each loop reached under uniform control in S.
  void counterForms(Stmt* S) {
    if (!S)
      return;
    if (S->K == Stmt::Kind::Block) {
      for (size_t I = 0; I < S->Body.size(); ++I) {
        if (tryCounterForm(S, I))
          ++I;
        counterForms(S->Body[I]);
      }
    } else if (S->K == Stmt::Kind::Loop && U->isUniformLoop(S)) {
      counterForms(S->LoopBody);
    } else if (S->K == Stmt::Kind::If && U->isUniform(S->E)) {
      counterForms(S->Then);
      counterForms(S->Else);
    }
  }

  /// Walks the statements reached under uniform control; a divergent if there that holds a loop
  /// becomes masked regions when that makes a loop inside it uniform.
  void maskDivergentIfs(Stmt*& Slot, bool UniformControl) {
    Stmt* S = Slot;
    if (!S || !UniformControl)
      return;
    switch (S->K) {
    case Stmt::Kind::Block:
      for (size_t I = 0; I < S->Body.size(); ++I) {
        if (tryCounterForm(S, I))
          ++I; // the loop moved one on
        maskDivergentIfs(S->Body[I], true);
      }
      return;
    case Stmt::Kind::Loop:
      if (!U->isUniformLoop(S))
        return;
      maskDivergentIfs(S->LoopBody, true);
      return;
    case Stmt::Kind::If: {
      if (U->isUniform(S->E)) {
        maskDivergentIfs(S->Then, true);
        maskDivergentIfs(S->Else, true);
        return;
      }
      if (!containsLoop(S) || containsBarrier(S))
        return;
      size_t Locals = F.Locals.size();
      uint32_t First = NextLoopId;
      size_t Mark = Undos.size();
      Slot = masked(S);
      auto Trial = std::make_unique<GroupUniformity>(F);
      std::swap(U, Trial);
      counterForms(Slot); // a triangular loop inside may run once per group now
      if (!hasUniformLoopBelow(Slot, First)) {
        while (Undos.size() > Mark) {
          CounterForm::undo(F, Undos.back());
          Undos.pop_back();
        }
        Slot = S; // nothing gained: keep the if
        F.Locals.resize(Locals);
        NextLoopId = First;
        std::swap(U, Trial);
        return;
      }
      maskDivergentIfs(Slot, true); // ifs inside the masked regions
      return;
    }
    default:
      return;
    }
  }

  void addBarriers() {
    // Recomputed: the masked regions changed what is uniform. A masked region holds the
    // barrier of a loop inside it and needs none of its own.
    U = std::make_unique<GroupUniformity>(F);
    std::vector<Stmt*> Loops;
    std::function<void(Stmt*)> Collect = [&](Stmt* S) {
      if (!S)
        return;
      if (S->K == Stmt::Kind::Loop && !Masks.count(S->LoopId) && U->isUniformLoop(S) &&
          !containsBarrier(S->LoopBody) && !containsBarrier(S->Step) && profitable(S))
        Loops.push_back(S);
      for (Stmt* C : S->Body)
        Collect(C);
      for (Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
        Collect(C);
    };
    Collect(F.Body);
    auto AddBarrier = [&](Stmt* L) {
      Stmt* Body = M.newStmt(Stmt::Kind::Block, L->Loc);
      Body->Body = {L->LoopBody, M.newStmt(Stmt::Kind::Barrier, L->Loc)};
      L->LoopBody = Body;
      F.HasBarrier = true;
    };
    for (Stmt* L : Loops) {
      Stmt *Main = nullptr, *Rest = nullptr;
      if (!UniformLoopUnroll::run(M, F, L, Main, Rest)) {
        AddBarrier(L);
        continue;
      }
      AddBarrier(Main);
      AddBarrier(Rest);
    }
  }

  Module& M;
  Function& F;
  std::unique_ptr<GroupUniformity> U;
  uint32_t NextLoopId = 0;
  bool IgnoreCost = false;
  std::set<uint32_t> Masks;             // the masked regions' loop ids
  std::vector<CounterForm::Undo> Undos; // counter forms kept so far, in order
};

} // namespace

void ImplicitLoopBarriers::run(Module& M, Function& F, bool IgnoreCost) {
  if (!F.IsKernel || !F.PrivateArrays.empty() || !F.Body || M.IsHost)
    return;
  Rewriter(M, F, IgnoreCost).run();
}

} // namespace cajeta::kir
