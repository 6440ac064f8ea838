// Unroll-and-jam of a work-item's counted loop around an inner loop (LoopJam.h).
#include "compiler/kir/transforms/LoopJam.h"

#include "compiler/kir/Clone.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/CounterForm.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cajeta::kir {

namespace {

constexpr unsigned Factor = LoopJam::Factor;

bool isCounterType(Type T) {
  return T == Type::scalar(ScalarType::I32) || T == Type::scalar(ScalarType::U32) ||
         T == Type::scalar(ScalarType::I64) || T == Type::scalar(ScalarType::U64);
}

Type unsignedOf(Type T) {
  if (T == Type::scalar(ScalarType::I32))
    return Type::scalar(ScalarType::U32);
  if (T == Type::scalar(ScalarType::I64))
    return Type::scalar(ScalarType::U64);
  return T;
}

std::set<uint32_t> assignedIn(const Stmt* S) {
  std::set<uint32_t> Out;
  forEachExprIn(S, [&](const Expr* E) {
    if (E->K == Expr::Kind::Assign)
      Out.insert(E->Index);
  });
  return Out;
}

bool exprReads(const Expr* E, uint32_t Local) {
  bool Found = false;
  forEachExpr(E, [&](const Expr* X) { Found |= X->K == Expr::Kind::Local && X->Index == Local; });
  return Found;
}

bool stmtAccesses(const Stmt* S, uint32_t Local) {
  bool Found = false;
  forEachExprIn(S, [&](const Expr* X) {
    Found |= (X->K == Expr::Kind::Local || X->K == Expr::Kind::Assign) && X->Index == Local;
  });
  return Found;
}

bool hasLoop(const Stmt* S) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt* X) { Found |= X->K == Stmt::Kind::Loop; });
  return Found;
}

/// `(set Local e)` with e not reading Local: the local starts afresh there.
bool freshAssignment(const Stmt* S, uint32_t Local) {
  return S && S->K == Stmt::Kind::Eval && S->E && S->E->K == Expr::Kind::Assign &&
         S->E->Index == Local && S->E->Ops.size() == 1 && !exprReads(S->E->Ops[0], Local);
}

/// S's statements if it is a block, else S alone.
std::vector<Stmt*> statementsOf(Stmt* S) {
  if (S && S->K == Stmt::Kind::Block)
    return S->Body;
  return {S};
}

/// The parts of a loop the jam takes apart: straight-line statements before and after one
/// inner counted loop (`Init; Inner`).
struct Nest {
  Stmt* Init = nullptr;  // (set v start), just before the loop
  Stmt* Loop = nullptr;  // while (v < Bound) { Before; { InnerInit; Inner } After } step v++
  uint32_t Counter = 0;  // v
  Expr* Bound = nullptr; // read twice after the jam: the loop does not change it
  std::vector<Stmt*> Before, After;
  Stmt* InnerInit = nullptr;
  Stmt* Inner = nullptr;
  std::set<uint32_t> Renamed;     // locals each copy of the body gets its own of
  std::set<uint32_t> InnerShared; // the inner loop's counter and step temporaries
};

class Jammer {
public:
  Jammer(Module& M, Function& F) : M(M), F(F) {
    forEachExprIn(F.Body, [&](const Expr* E) {
      if ((E->K == Expr::Kind::Store || E->K == Expr::Kind::Atomic) && !E->Ops.empty() &&
          E->Ops[0]->K == Expr::Kind::Param)
        Written.insert(E->Ops[0]->Index);
    });
    forEachStmt(F.Body, [&](const Stmt* S) {
      if (S->K == Stmt::Kind::Loop && S->LoopId >= NextLoopId)
        NextLoopId = S->LoopId + 1;
    });
  }

  bool run() {
    // Nests never hold one another (an inner loop holds no loop), so each is rewritten where
    // it was found; the last of a block first, so the others' positions stay.
    std::vector<std::pair<Stmt*, size_t>> Found;
    forEachStmt(F.Body, [&](const Stmt* S) {
      if (S->K != Stmt::Kind::Block)
        return;
      for (size_t I = 0; I + 1 < S->Body.size(); ++I)
        if (Nest N; match(const_cast<Stmt*>(S), I, N))
          Found.push_back({const_cast<Stmt*>(S), I});
    });
    for (auto It = Found.rbegin(); It != Found.rend(); ++It) {
      Nest N;
      if (match(It->first, It->second, N))
        jam(It->first, It->second, N);
    }
    return !Found.empty();
  }

private:
  /// Whether the body's expressions are plain arithmetic, loads of buffers the kernel never
  /// writes and (Stores) stores to buffers.
  bool plain(const Stmt* S, bool Stores) const {
    bool Ok = true;
    forEachStmt(S, [&](const Stmt* X) {
      Ok &= X->K == Stmt::Kind::Block || X->K == Stmt::Kind::Eval || X->K == Stmt::Kind::If ||
            X->K == Stmt::Kind::Loop;
    });
    forEachExprIn(S, [&](const Expr* E) {
      switch (E->K) {
      case Expr::Kind::Const:
      case Expr::Kind::Local:
      case Expr::Kind::Param:
      case Expr::Kind::Unary:
      case Expr::Kind::Binary:
      case Expr::Kind::Cast:
      case Expr::Kind::Select:
      case Expr::Kind::Assign:
      case Expr::Kind::Seq:
        return;
      case Expr::Kind::Load:
        Ok &= E->Ops[0]->K == Expr::Kind::Param && !Written.count(E->Ops[0]->Index);
        return;
      case Expr::Kind::Store:
        Ok &= Stores && E->Ops[0]->K == Expr::Kind::Param;
        return;
      default:
        Ok = false;
        return;
      }
    });
    return Ok;
  }

  /// Whether E is computed from constants, parameters and locals loop L does not assign.
  static bool invariantIn(const Expr* E, const std::set<uint32_t>& Assigned) {
    bool Ok = true;
    forEachExpr(E, [&](const Expr* X) {
      if (X->K == Expr::Kind::Local)
        Ok &= !Assigned.count(X->Index);
      else if (X->K != Expr::Kind::Const && X->K != Expr::Kind::Param &&
               X->K != Expr::Kind::Unary && X->K != Expr::Kind::Binary && X->K != Expr::Kind::Cast)
        Ok = false;
    });
    return Ok;
  }

  bool match(Stmt* Block, size_t At, Nest& N) const {
    N.Init = Block->Body[At];
    N.Loop = Block->Body[At + 1];
    const Stmt* L = N.Loop;
    if (!N.Init || N.Init->K != Stmt::Kind::Eval || !N.Init->E ||
        N.Init->E->K != Expr::Kind::Assign || N.Init->E->Ops.size() != 1 || !L ||
        L->K != Stmt::Kind::Loop || L->TestAtEnd || L->GridStride || !L->E || !L->LoopBody ||
        !L->Step)
      return false;
    N.Counter = N.Init->E->Index;
    uint32_t V = 0;
    const Expr* Amount = nullptr;
    if (N.Counter >= F.Locals.size() || !isCounterType(F.Locals[N.Counter].Ty) ||
        !CounterForm::stepOf(L->Step, V, Amount) || V != N.Counter ||
        Amount->K != Expr::Kind::Const || Amount->IntValue != 1)
      return false;
    const Expr* C = L->E;
    if (C->K != Expr::Kind::Binary || C->BOp != BinaryOp::Lt || C->Ops.size() != 2 ||
        C->Ops[0]->K != Expr::Kind::Local || C->Ops[0]->Index != N.Counter ||
        C->Ops[1]->Ty != F.Locals[N.Counter].Ty)
      return false;
    N.Bound = C->Ops[1];
    const std::set<uint32_t> Assigned = assignedIn(L->LoopBody);
    std::set<uint32_t> InLoop = Assigned;
    InLoop.insert(N.Counter);
    if (Assigned.count(N.Counter) || !invariantIn(N.Bound, InLoop))
      return false;
    // Straight-line statements around one inner loop.
    std::vector<Stmt*> Body = statementsOf(L->LoopBody);
    size_t K = Body.size();
    for (size_t I = 0; I < Body.size(); ++I) {
      if (!hasLoop(Body[I]))
        continue;
      if (K != Body.size())
        return false;
      K = I;
    }
    if (K == Body.size())
      return false;
    const Stmt* InnerBlock = Body[K];
    if (InnerBlock->K != Stmt::Kind::Block || InnerBlock->Body.size() != 2)
      return false;
    N.InnerInit = InnerBlock->Body[0];
    N.Inner = InnerBlock->Body[1];
    const Stmt* Li = N.Inner;
    if (!N.InnerInit || N.InnerInit->K != Stmt::Kind::Eval || !N.InnerInit->E ||
        N.InnerInit->E->K != Expr::Kind::Assign || !Li || Li->K != Stmt::Kind::Loop ||
        Li->TestAtEnd || Li->GridStride || !Li->E || !Li->LoopBody || !Li->Step ||
        hasLoop(Li->LoopBody))
      return false;
    uint32_t I = N.InnerInit->E->Index;
    if (!CounterForm::stepOf(Li->Step, V, Amount) || V != I)
      return false;
    N.Before.assign(Body.begin(), Body.begin() + K);
    N.After.assign(Body.begin() + K + 1, Body.end());
    // Memory: reads of buffers the kernel never writes; stores only after the inner loop.
    for (const Stmt* S : N.Before)
      if (!plain(S, false))
        return false;
    for (const Stmt* S : N.After)
      if (!plain(S, true))
        return false;
    if (!plain(InnerBlock, false))
      return false;
    // The inner loop's trip count is the same for every copy: its start, condition and step
    // read neither the counter nor what the body assigns (but its own counter and temporaries).
    std::set<uint32_t> Shared = assignedIn(Li->Step);
    Shared.insert(I);
    auto ReadsBody = [&](const Expr* E) {
      bool Found = exprReads(E, N.Counter);
      for (uint32_t X : Assigned)
        Found |= !Shared.count(X) && exprReads(E, X);
      return Found;
    };
    if (ReadsBody(N.InnerInit->E->Ops[0]) || ReadsBody(Li->E))
      return false;
    bool StepReads = false;
    forEachExprIn(Li->Step, [&](const Expr* E) { StepReads |= ReadsBody(E); });
    if (StepReads)
      return false;
    N.InnerShared = Shared;
    for (uint32_t X : Shared) {
      if (!stmtAccesses(L->LoopBody, X))
        continue;
      // The jammed loop counts with a copy of its own: after the nest only the rest's counter
      // holds the value the loops would have left.
      if (readOutside(X, L))
        return false;
      for (const Stmt* S : N.Before)
        if (stmtAccesses(S, X))
          return false;
      for (const Stmt* S : N.After)
        if (stmtAccesses(S, X))
          return false;
      for (const Stmt* S : statementsOf(Li->LoopBody))
        if (stmtAccesses(S, X) && X != I)
          return false;
      bool AssignsI = false;
      forEachExprIn(Li->LoopBody, [&](const Expr* E) {
        AssignsI |= E->K == Expr::Kind::Assign && E->Index == X;
      });
      if (AssignsI)
        return false;
    }
    // Every other local the body assigns starts afresh in each iteration, and is not read
    // after the loop: each copy of the body gets its own.
    for (uint32_t X : Assigned) {
      if (Shared.count(X))
        continue;
      if (!freshEachIteration(N, X) || readOutside(X, L))
        return false;
      N.Renamed.insert(X);
    }
    return true;
  }

  /// Whether X's first access in an iteration of N's loop is an assignment that does not read
  /// it: a statement before the inner loop, or (where only the inner loop's body uses X) a
  /// statement of that body.
  static bool freshEachIteration(const Nest& N, uint32_t X) {
    for (const Stmt* S : N.Before)
      if (stmtAccesses(S, X))
        return freshAssignment(S, X);
    bool Outside =
        stmtAccesses(N.InnerInit, X) || exprReads(N.Inner->E, X) || stmtAccesses(N.Inner->Step, X);
    for (const Stmt* S : N.After)
      Outside |= stmtAccesses(S, X);
    if (Outside)
      return false;
    for (Stmt* S : statementsOf(N.Inner->LoopBody))
      if (stmtAccesses(S, X))
        return freshAssignment(S, X);
    return false;
  }

  /// Whether F reads X anywhere but inside loop L.
  bool readOutside(uint32_t X, const Stmt* L) const {
    bool Found = false;
    std::function<void(const Stmt*)> Walk = [&](const Stmt* S) {
      if (!S || S == L)
        return;
      Found |= exprReads(S->E, X);
      for (const Stmt* C : S->Body)
        Walk(C);
      for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
        Walk(C);
    };
    Walk(F.Body);
    return Found;
  }

  uint32_t newLocal(const std::string& Name, Type Ty, SourceLoc Loc) {
    F.Locals.push_back({Name, Ty, Loc});
    return uint32_t(F.Locals.size() - 1);
  }
  Expr* local(uint32_t I, SourceLoc Loc) {
    Expr* E = M.newExpr(Expr::Kind::Local, F.Locals[I].Ty, Loc);
    E->Index = I;
    return E;
  }
  Expr* constant(Type T, uint64_t V, SourceLoc Loc) {
    Expr* E = M.newExpr(Expr::Kind::Const, T, Loc);
    E->IntValue = V;
    return E;
  }
  Expr* binary(BinaryOp Op, Type T, Expr* A, Expr* B, SourceLoc Loc) {
    Expr* E = M.newExpr(Expr::Kind::Binary, T, Loc);
    E->BOp = Op;
    E->Ops = {A, B};
    return E;
  }
  Expr* castTo(Type T, Expr* A, SourceLoc Loc) {
    if (A->Ty == T)
      return A;
    Expr* E = M.newExpr(Expr::Kind::Cast, T, Loc);
    E->Ops = {A};
    return E;
  }
  Stmt* assign(uint32_t I, Expr* Value, SourceLoc Loc) {
    Expr* E = M.newExpr(Expr::Kind::Assign, F.Locals[I].Ty, Loc);
    E->Index = I;
    E->Ops = {Value};
    Stmt* S = M.newStmt(Stmt::Kind::Eval, Loc);
    S->E = E;
    return S;
  }
  Stmt* block(std::vector<Stmt*> Body, SourceLoc Loc) {
    Stmt* S = M.newStmt(Stmt::Kind::Block, Loc);
    S->Body = std::move(Body);
    return S;
  }
  /// A copy of E with its locals renamed by Map.
  Expr* copy(const Expr* E, const std::map<uint32_t, uint32_t>& Map) {
    Expr* C = cloneExpr(E, M);
    rename(C, Map);
    return C;
  }
  static void rename(Expr* E, const std::map<uint32_t, uint32_t>& Map) {
    forEachExpr(E, [&](const Expr* X) {
      if (X->K != Expr::Kind::Local && X->K != Expr::Kind::Assign)
        return;
      auto It = Map.find(X->Index);
      if (It != Map.end())
        const_cast<Expr*>(X)->Index = It->second;
    });
  }
  /// A copy of S with its locals renamed by Map.
  Stmt* copy(const Stmt* S, const std::map<uint32_t, uint32_t>& Map) {
    Stmt* C = cloneStmt(S, M);
    forEachStmt(C, [&](const Stmt* X) { rename(X->E, Map); });
    return C;
  }

  void jam(Stmt* Block, size_t At, const Nest& N) {
    const SourceLoc Loc = N.Loop->Loc;
    const uint32_t V = N.Counter;
    const Type T = F.Locals[V].Ty, UT = unsignedOf(T);
    const Type Bool = Type::scalar(ScalarType::Bool);
    const std::string Name = F.Locals[V].Name;
    // start = the loop's start; count = start < bound ? (bound - start) / Factor : 0.
    uint32_t Start = newLocal("$jamStart" + Name, T, Loc);
    uint32_t Count = newLocal("$jamCount" + Name, UT, Loc);
    Stmt* SetStart = assign(Start, N.Init->E->Ops[0], Loc);
    Expr* Span = binary(BinaryOp::Sub, UT, castTo(UT, cloneExpr(N.Bound, M), Loc),
                        castTo(UT, local(Start, Loc), Loc), Loc);
    Expr* Pick = M.newExpr(Expr::Kind::Select, UT, Loc);
    Pick->Ops = {binary(BinaryOp::Lt, Bool, local(Start, Loc), cloneExpr(N.Bound, M), Loc),
                 binary(BinaryOp::Div, UT, Span, constant(UT, Factor, Loc), Loc),
                 constant(UT, 0, Loc)};
    Stmt* SetCount = assign(Count, Pick, Loc);
    // The jammed loop: for (q = 0; q < count; q++), v_u = start + (Factor q + u).
    uint32_t Q = newLocal("$jam" + Name, UT, Loc);
    std::vector<std::map<uint32_t, uint32_t>> Maps(Factor);
    std::vector<Stmt*> Body;
    for (unsigned U = 0; U < Factor; ++U) {
      uint32_t VU = newLocal(Name + "$" + std::to_string(U), T, Loc);
      Maps[U][V] = VU;
      Expr* Offset =
          binary(BinaryOp::Add, UT,
                 binary(BinaryOp::Mul, UT, local(Q, Loc), constant(UT, Factor, Loc), Loc),
                 constant(UT, U, Loc), Loc);
      Body.push_back(assign(
          VU, binary(BinaryOp::Add, T, local(Start, Loc), castTo(T, Offset, Loc), Loc), Loc));
      for (uint32_t X : N.Renamed)
        Maps[U][X] =
            newLocal(F.Locals[X].Name + "$" + std::to_string(U), F.Locals[X].Ty, F.Locals[X].Loc);
    }
    // The inner loop's counter and step temporaries: one fresh set, shared by the copies, so
    // that the jammed loop and the rest share no local (each keeps its own uniformity).
    std::map<uint32_t, uint32_t> InnerMap;
    for (uint32_t X : N.InnerShared)
      InnerMap[X] = newLocal(F.Locals[X].Name + "$jam", F.Locals[X].Ty, F.Locals[X].Loc);
    for (auto& Map : Maps)
      Map.insert(InnerMap.begin(), InnerMap.end());
    for (unsigned U = 0; U < Factor; ++U)
      for (const Stmt* S : N.Before)
        Body.push_back(copy(S, Maps[U]));
    Stmt* Inner = M.newStmt(Stmt::Kind::Loop, N.Inner->Loc);
    Inner->LoopId = NextLoopId++;
    Inner->E = copy(N.Inner->E, InnerMap);
    Inner->Step = copy(N.Inner->Step, InnerMap);
    std::vector<Stmt*> InnerBody;
    for (unsigned U = 0; U < Factor; ++U)
      InnerBody.push_back(copy(N.Inner->LoopBody, Maps[U]));
    Inner->LoopBody = block(std::move(InnerBody), N.Inner->Loc);
    Body.push_back(block({copy(N.InnerInit, InnerMap), Inner}, N.Inner->Loc));
    for (unsigned U = 0; U < Factor; ++U)
      for (const Stmt* S : N.After)
        Body.push_back(copy(S, Maps[U]));
    Stmt* Jammed = M.newStmt(Stmt::Kind::Loop, Loc);
    Jammed->LoopId = NextLoopId++;
    Jammed->E = binary(BinaryOp::Lt, Bool, local(Q, Loc), local(Count, Loc), Loc);
    Jammed->LoopBody = block(std::move(Body), Loc);
    Jammed->Step =
        assign(Q, binary(BinaryOp::Add, UT, local(Q, Loc), constant(UT, 1, Loc), Loc), Loc);
    // The rest as it was, from start + Factor * count.
    Expr* Done = binary(BinaryOp::Mul, UT, local(Count, Loc), constant(UT, Factor, Loc), Loc);
    Stmt* Rest = block(
        {assign(V, binary(BinaryOp::Add, T, local(Start, Loc), castTo(T, Done, Loc), Loc), Loc),
         N.Loop},
        Loc);
    Stmt* Main = block({assign(Q, constant(UT, 0, Loc), Loc), Jammed}, Loc);
    Block->Body[At] = block({SetStart, SetCount, Main, Rest}, Loc);
    Block->Body.erase(Block->Body.begin() + At + 1);
  }

  Module& M;
  Function& F;
  std::set<uint32_t> Written; // buffer parameters stored to
  uint32_t NextLoopId = 0;
};

} // namespace

bool LoopJam::run(Module& M, Function& F) {
  if (!F.IsKernel || !F.Body || M.IsHost)
    return false;
  return Jammer(M, F).run();
}

} // namespace cajeta::kir
