// Four work-items per work-item for element-wise GPU kernels (WorkItemQuads.h).
#include "compiler/kir/transforms/WorkItemQuads.h"

#include "compiler/kir/Builder.h"
#include "compiler/kir/Clone.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/GridStrideInterchange.h"

#include <algorithm>
#include <map>
#include <vector>

namespace cajeta::kir {

namespace {

void flatten(Stmt* S, std::vector<Stmt*>& Out) {
  if (S && S->K == Stmt::Kind::Block)
    for (Stmt* C : S->Body)
      flatten(C, Out);
  else if (S)
    Out.push_back(S);
}

bool isU32(const Type& T) {
  return T.isScalar() && T.Elem == ScalarType::U32;
}

/// A guard's index and count: uint32, or int32 (a kernel written with CUDA's int habits).
bool isIndexType(const Type& T) {
  return T.isScalar() && (T.Elem == ScalarType::U32 || T.Elem == ScalarType::I32);
}

/// What the rewrite needs of a kernel of the guarded form.
struct GuardedKernel {
  std::vector<Stmt*> Prefix;   // local assignments before the guard
  std::vector<Stmt*> Guarded;  // the statements the guard runs
  uint32_t IndexLocal = 0;     // i = global_id x
  const Expr* Count = nullptr; // n as the guard reads it (a parameter or its local copy)
  int CountParam = -1;
  bool Range = false;  // a grid-stride loop (`buf.range(n)`) rather than a guard
  uint32_t LoopId = 0; // the range loop's id
};

/// Counts the assignments of each local under S.
std::map<uint32_t, unsigned> assignments(const Stmt* S) {
  std::map<uint32_t, unsigned> N;
  forEachExprIn(S, [&](const Expr* E) {
    if (E->K == Expr::Kind::Assign)
      ++N[E->Index];
  });
  return N;
}

bool hasSideEffect(const Expr* E) {
  bool Any = false;
  forEachExpr(E, [&](const Expr* X) {
    Any |= X->K == Expr::Kind::Store || X->K == Expr::Kind::Assign || X->K == Expr::Kind::Atomic;
  });
  return Any;
}

/// Whether E's nodes are ones a work-item computes from its global index in x alone.
bool plainExpr(const Expr* E) {
  bool Plain = true;
  forEachExpr(E, [&](const Expr* X) {
    switch (X->K) {
    case Expr::Kind::Const:
    case Expr::Kind::Local:
    case Expr::Kind::Param:
    case Expr::Kind::Unary:
    case Expr::Kind::Binary:
    case Expr::Kind::Cast:
    case Expr::Kind::Select:
    case Expr::Kind::Load:
    case Expr::Kind::Store:
    case Expr::Kind::Assign:
    case Expr::Kind::Atomic:
    case Expr::Kind::Field:
      break;
    case Expr::Kind::Intrinsic:
      // The global index in x (each copy's own), math and the legalized primitives (Sqrt to
      // MaxNum in the enumeration); any other coordinate would see the quad launch's geometry.
      Plain &= (X->IOp == IntrinsicOp::GlobalId && X->Dim == 0) ||
               (X->IOp >= IntrinsicOp::Sqrt && X->IOp <= IntrinsicOp::MaxNum);
      break;
    default:
      Plain = false;
    }
    // Buffers only as parameters (no shared or private arrays).
    if ((X->K == Expr::Kind::Load || X->K == Expr::Kind::Store || X->K == Expr::Kind::Atomic) &&
        (X->Ops.empty() || X->Ops[0]->K != Expr::Kind::Param))
      Plain = false;
  });
  return Plain;
}

/// Whether S is made of statements (`if`s and blocks included) whose expressions are plain: no
/// loop, break, continue or return.
bool branchesOnly(const Stmt* S) {
  switch (S->K) {
  case Stmt::Kind::Block:
    return std::all_of(S->Body.begin(), S->Body.end(), branchesOnly);
  case Stmt::Kind::Eval:
    return S->E && plainExpr(S->E);
  case Stmt::Kind::If:
    return S->E && plainExpr(S->E) && (!S->Then || branchesOnly(S->Then)) &&
           (!S->Else || branchesOnly(S->Else));
  default:
    return false;
  }
}

/// The parameter a count local holds: the local's one assignment (in Prefix) is a parameter or
/// another such local; -1 otherwise.
int countParamOf(const Expr* Count, const std::vector<Stmt*>& Prefix,
                 std::map<uint32_t, unsigned>& Assigned) {
  for (unsigned Hops = 0; Hops < 4 && Count; ++Hops) {
    if (Count->K == Expr::Kind::Param)
      return int(Count->Index);
    if (Count->K != Expr::Kind::Local || Assigned[Count->Index] != 1)
      return -1;
    const Expr* From = nullptr;
    for (const Stmt* S : Prefix)
      if (S->E->Index == Count->Index)
        From = S->E->Ops[0];
    Count = From;
  }
  return -1;
}

bool match(const Function& F, GuardedKernel& G) {
  if (!F.IsKernel || !F.Body || F.HasBarrier || F.UsesWave || F.UsesTiles ||
      !F.SharedArrays.empty() || !F.PrivateArrays.empty())
    return false;
  std::vector<Stmt*> Top;
  flatten(F.Body, Top);
  size_t At = 0;
  while (At < Top.size() && Top[At]->K == Stmt::Kind::Eval)
    ++At;
  if (At == Top.size())
    return false;
  const Stmt* Guard = Top[At];
  G.Prefix.assign(Top.begin(), Top.begin() + At);
  G.Guarded.clear();
  G.Range = Guard->K == Stmt::Kind::Loop;
  const Expr* C = Guard->E;
  if (!C || C->K != Expr::Kind::Binary || C->Ops.size() != 2 || C->Ops[0]->K != Expr::Kind::Local)
    return false;
  if (G.Range) { // for (i, T v : buf.range(n)) { ... }, each step on its index alone
    if (!Guard->GridStride || !GridStrideInterchange::stepsIndependent(F) || C->BOp != BinaryOp::Lt)
      return false;
    flatten(Guard->LoopBody, G.Guarded);
  } else if (Guard->K != Stmt::Kind::If || Guard->Else) {
    return false;
  } else if (C->BOp == BinaryOp::Lt && At + 1 == Top.size()) { // if (i < n) { ... }
    flatten(Guard->Then, G.Guarded);
  } else if (C->BOp == BinaryOp::Ge) { // if (i >= n) return; ...
    std::vector<Stmt*> Then;
    flatten(Guard->Then, Then);
    if (Then.size() != 1 || Then[0]->K != Stmt::Kind::Return || Then[0]->E)
      return false;
    G.Guarded.assign(Top.begin() + At + 1, Top.end());
  } else {
    return false;
  }
  if (G.Guarded.empty())
    return false;
  std::map<uint32_t, unsigned> Assigned = assignments(F.Body);
  // The prefix: local copies computed without memory (a load there would run for work-items
  // past the count in the original, and checked builds would report it). The range form's
  // stride (the grid's size) is read only by its step, which the rewrite replaces.
  for (const Stmt* S : G.Prefix) {
    if (!S->E || S->E->K != Expr::Kind::Assign || S->E->Ops.size() != 1)
      return false;
    const Expr* V = S->E->Ops[0];
    bool Stride = G.Range && V->K == Expr::Kind::Intrinsic && V->IOp == IntrinsicOp::GlobalSize &&
                  V->Dim == 0;
    if (!Stride && !plainExpr(V))
      return false;
    bool Memory = false;
    forEachExpr(V, [&](const Expr* X) {
      Memory |= X->K == Expr::Kind::Load || X->K == Expr::Kind::Store ||
                X->K == Expr::Kind::Atomic || X->K == Expr::Kind::Assign;
    });
    if (Memory)
      return false;
  }
  for (const Stmt* S : G.Guarded)
    if (!branchesOnly(S))
      return false;
  // i: assigned from the global index in x in the prefix, and elsewhere only by the range
  // loop's step.
  G.IndexLocal = C->Ops[0]->Index;
  const Type IndexTy = F.Locals[G.IndexLocal].Ty;
  if (!(G.Range ? isU32(IndexTy) : isIndexType(IndexTy)) ||
      Assigned[G.IndexLocal] != (G.Range ? 2u : 1u))
    return false;
  if (G.Range) {
    std::map<uint32_t, unsigned> InStep = assignments(Guard->Step);
    if (InStep[G.IndexLocal] != 1)
      return false;
  }
  bool IndexFromId = false;
  for (const Stmt* S : G.Prefix) {
    const Expr* V = S->E->Ops[0];
    if (S->E->Index != G.IndexLocal)
      continue;
    // `uint32 i = global id`, or `int32 i = (int32) global id`.
    if (V->K == Expr::Kind::Cast && V->Ty == IndexTy && IndexTy.Elem == ScalarType::I32)
      V = V->Ops[0];
    IndexFromId = V->K == Expr::Kind::Intrinsic && V->IOp == IntrinsicOp::GlobalId && V->Dim == 0;
  }
  if (!IndexFromId)
    return false;
  // n: a uint32 parameter, or a local the prefix assigns from one and nothing else assigns.
  G.Count = C->Ops[1];
  G.CountParam = countParamOf(G.Count, G.Prefix, Assigned);
  G.LoopId = Guard->LoopId;
  return G.Count->Ty == IndexTy && G.CountParam >= 0 && G.CountParam < int(F.Params.size()) &&
         F.Params[G.CountParam].Ty == IndexTy;
}

/// Builds the copies: copy s has its own locals and reads ($base + s) for the global index.
class Copier {
public:
  Copier(Function& F, Module& M, const GuardedKernel& G) : F(F), M(M), B(M, F), G(G) {
    B.setLoc(F.Body->Loc);
    size_t Original = F.Locals.size();
    for (unsigned S = 0; S < WorkItemQuads::Width; ++S) {
      Renamed[S].resize(Original);
      for (size_t L = 0; L < Original; ++L) {
        Local Copy = F.Locals[L];
        Copy.Name += ".q" + std::to_string(S);
        Renamed[S][L] = uint32_t(F.Locals.size());
        F.Locals.push_back(Copy);
      }
    }
    Base = B.local("$base", Type::scalar(ScalarType::U32));
  }

  Builder& builder() { return B; }
  uint32_t base() const { return Base; }

  /// $base + s; the runtime keeps 4t + 3 within 32 bits.
  Expr* index(unsigned S) {
    return S ? noWrap(B.bin(BinaryOp::Add, B.l(Base), B.u32(S))) : B.l(Base);
  }
  static Expr* noWrap(Expr* E) {
    E->NoWrap = true;
    return E;
  }

  Stmt* copy(const Stmt* S, unsigned Copy) {
    Stmt* C = cloneStmt(S, M);
    rewriteExprs(C, [&](Expr* E) { return rename(E, Copy); });
    return C;
  }

  Expr* copy(const Expr* E, unsigned Copy) {
    return rewriteExpr(cloneExpr(E, M), [&](Expr* X) { return rename(X, Copy); });
  }

  /// Moves the loads E's statement reads before it into fresh locals (Out, in evaluation order),
  /// where that keeps the copy's own order: only operands without side effects of their own, and
  /// never a load that a select arm or the right side of && / || might skip.
  void hoistLoads(Stmt* S, std::vector<Stmt*>& Out) {
    Expr* E = S->E;
    if (S->K == Stmt::Kind::If) { // the condition always runs; the branches keep their loads
      if (!hasSideEffect(E))
        hoist(S->E, Out);
      return;
    }
    size_t First = 0;
    switch (E->K) {
    case Expr::Kind::Store:
    case Expr::Kind::Atomic:
      First = 1; // the buffer stays
      break;
    case Expr::Kind::Assign:
      break;
    default:
      return;
    }
    for (size_t I = First; I < E->Ops.size(); ++I)
      if (hasSideEffect(E->Ops[I]))
        return;
    for (size_t I = First; I < E->Ops.size(); ++I)
      hoist(E->Ops[I], Out);
  }

  /// Where the k-th hoisted load of every copy reads a buffer of 4-byte elements at the copy's
  /// own index, the four read one chunk: each takes its word of the chunk (LoadWord).
  void loadChunks(std::vector<std::vector<Stmt*>>& Loads) {
    for (size_t K = 0; K < Loads[0].size(); ++K) {
      bool Whole = true;
      for (unsigned C = 0; C < WorkItemQuads::Width; ++C) {
        const Expr* V = K < Loads[C].size() ? Loads[C][K]->E->Ops[0] : nullptr;
        Whole &= V && V->K == Expr::Kind::Load && wordSized(V->Ops[0]) &&
                 V->Ops[0]->Index == Loads[0][K]->E->Ops[0]->Ops[0]->Index &&
                 copyIndex(V->Ops[1], C);
      }
      if (!Whole)
        continue;
      for (unsigned C = 0; C < WorkItemQuads::Width; ++C) {
        Expr*& V = Loads[C][K]->E->Ops[0];
        Expr* Word = B.intrinsic(IntrinsicOp::LoadWord, Type::scalar(ScalarType::U32),
                                 {V->Ops[0], chunk()}, uint8_t(C));
        Word->Index = WorkItemQuads::Width;
        V = bits(Word, V->Ty);
      }
    }
  }

  /// Where every copy of a statement stores to one buffer of 4-byte elements at the copy's own
  /// index, one store of the whole chunk (StoreWords) with the copies' values in order; null
  /// otherwise.
  Stmt* storeChunk(const std::vector<Stmt*>& Copies) {
    for (const Stmt* S : Copies)
      if (S->K != Stmt::Kind::Eval || S->E->K != Expr::Kind::Store)
        return nullptr;
    std::vector<Expr*> Ops = {Copies[0]->E->Ops[0], chunk()};
    for (unsigned C = 0; C < WorkItemQuads::Width; ++C) {
      const Expr* E = Copies[C]->E;
      if (!wordSized(E->Ops[0]) || E->Ops[0]->Index != Copies[0]->E->Ops[0]->Index ||
          !copyIndex(E->Ops[1], C) || hasSideEffect(E->Ops[2]))
        return nullptr;
      Ops.push_back(bits(E->Ops[2], Type::scalar(ScalarType::U32)));
    }
    Expr* Store = B.intrinsic(IntrinsicOp::StoreWords, Type::voidTy(), Ops);
    Store->Index = WorkItemQuads::Width;
    return B.eval(Store);
  }

private:
  static bool wordSized(const Expr* Buffer) {
    ScalarType E = Buffer->Ty.Elem;
    return Buffer->K == Expr::Kind::Param &&
           (E == ScalarType::F32 || E == ScalarType::I32 || E == ScalarType::U32);
  }

  /// Whether E is copy C's own index: its copy of i, or $base + C.
  bool copyIndex(const Expr* E, unsigned C) const {
    if (E->K == Expr::Kind::Local)
      return E->Index == Renamed[C][G.IndexLocal] || (C == 0 && E->Index == Base);
    return E->K == Expr::Kind::Binary && E->BOp == BinaryOp::Add &&
           E->Ops[0]->K == Expr::Kind::Local && E->Ops[0]->Index == Base &&
           E->Ops[1]->K == Expr::Kind::Const && E->Ops[1]->IntValue == C;
  }

  /// The quad's chunk of four elements: $base / 4.
  Expr* chunk() {
    return B.intrinsic(IntrinsicOp::ShiftRight, Type::scalar(ScalarType::U32),
                       {B.l(Base), B.u32(2)});
  }

  /// V as a value of T of the same bits (float32 <-> a word: a bit cast; int32: a cast).
  Expr* bits(Expr* V, Type T) {
    if (V->Ty == T)
      return V;
    if (V->Ty.Elem == ScalarType::F32 || T.Elem == ScalarType::F32)
      return B.intrinsic(IntrinsicOp::Bitcast, T, {V});
    return B.cast(T, V);
  }

  Expr* rename(Expr* E, unsigned Copy) {
    if (E->K == Expr::Kind::Local || E->K == Expr::Kind::Assign)
      E->Index = Renamed[Copy][E->Index];
    else if (E->K == Expr::Kind::Intrinsic && E->IOp == IntrinsicOp::GlobalId && E->Dim == 0)
      return index(Copy);
    return E;
  }

  void hoist(Expr*& E, std::vector<Stmt*>& Out) {
    if (E->K == Expr::Kind::Select ||
        (E->K == Expr::Kind::Binary &&
         (E->BOp == BinaryOp::LogicalAnd || E->BOp == BinaryOp::LogicalOr))) {
      hoist(E->Ops[0], Out); // the condition / left side always runs
      return;
    }
    for (size_t I = E->K == Expr::Kind::Load ? 1 : 0; I < E->Ops.size(); ++I)
      hoist(E->Ops[I], Out);
    if (E->K != Expr::Kind::Load)
      return;
    uint32_t L = B.local("$q" + std::to_string(F.Locals.size()), E->Ty);
    Out.push_back(B.eval(B.assign(L, E)));
    E = B.l(L);
  }

  Function& F;
  Module& M;
  Builder B;
  const GuardedKernel& G;
  uint32_t Base = 0;
  std::vector<uint32_t> Renamed[WorkItemQuads::Width];
};

} // namespace

int WorkItemQuads::countParam(const Function& K) {
  GuardedKernel G;
  return match(K, G) ? G.CountParam : -1;
}

bool WorkItemQuads::anyGrid(const Function& K) {
  GuardedKernel G;
  return match(K, G) && G.Range;
}

bool WorkItemQuads::rewrite(Function& F, Module& M, bool WholeChunks) {
  GuardedKernel G;
  if (!match(F, G))
    return false;
  Copier Q(F, M, G);
  Builder& B = Q.builder();
  const uint32_t Base = Q.base();
  Type U32 = Type::scalar(ScalarType::U32);
  // $base = global_id x * 4 (the runtime keeps the quad grid's indices within 31 bits).
  Stmt* SetBase = B.eval(B.assign(
      Base, Copier::noWrap(B.bin(BinaryOp::Mul, B.geom(IntrinsicOp::GlobalId, 0), B.u32(Width)))));
  // All four in range: the guards are true (i is the copy's index and n the parameter).
  std::vector<Stmt*> Fast;
  std::vector<Stmt*> Line = G.Prefix;
  Line.insert(Line.end(), G.Guarded.begin(), G.Guarded.end());
  for (const Stmt* S : Line) {
    std::vector<Stmt*> Copies;
    std::vector<std::vector<Stmt*>> Loads(Width); // each copy's, in the same order
    for (unsigned C = 0; C < Width; ++C) {
      Copies.push_back(Q.copy(S, C));
      Q.hoistLoads(Copies.back(), Loads[C]);
    }
    if (WholeChunks)
      Q.loadChunks(Loads);
    for (const std::vector<Stmt*>& L : Loads)
      Fast.insert(Fast.end(), L.begin(), L.end());
    if (Stmt* Chunk = WholeChunks ? Q.storeChunk(Copies) : nullptr) {
      Fast.push_back(Chunk);
      continue;
    }
    // The copies' stores last to first: the slow path below ends with the last copy's store,
    // which the CFG simplification would otherwise sink out of both paths into their join,
    // splitting the fast path's run of stores.
    Fast.insert(Fast.end(), Copies.rbegin(), Copies.rend());
  }
  // Otherwise each copy in turn under its own guard.
  std::vector<Stmt*> Slow;
  for (unsigned C = 0; C < Width; ++C) {
    for (const Stmt* S : G.Prefix)
      Slow.push_back(Q.copy(S, C));
    std::vector<Stmt*> Then;
    for (const Stmt* S : G.Guarded)
      Then.push_back(Q.copy(S, C));
    Expr* Index = Q.index(C);
    if (G.Count->Ty != Index->Ty)
      Index = B.cast(G.Count->Ty, Index); // an int32 count: below 2^31, as the runtime keeps it
    Slow.push_back(
        B.ifThen(B.bin(BinaryOp::Lt, Index, Q.copy(G.Count, C)), B.block(std::move(Then))));
  }
  const Type CountTy = F.Params[G.CountParam].Ty;
  auto Count = [&] {
    Expr* P = B.expr(Expr::Kind::Param, CountTy);
    P->Index = uint32_t(G.CountParam);
    return P;
  };
  // A signed count compares signed: the runtime keeps the quads' indices below 2^31 for it.
  Expr* Last = Q.index(Width - 1);
  if (CountTy != U32)
    Last = B.cast(CountTy, Last);
  Stmt* Split = B.ifThen(B.bin(BinaryOp::Lt, Last, Count()), B.block(std::move(Fast)),
                         B.block(std::move(Slow)));
  if (!G.Range) {
    F.Body = B.block({SetBase, Split});
    return true;
  }
  // The range form: quads of the count, a grid of quads apart, `for ($base < n) {...} step
  // $base += 4 * the grid's size` (the runtime keeps n + 4 * the grid's size within 32 bits).
  uint32_t Step = B.local("$step", U32);
  Stmt* SetStep =
      B.eval(B.assign(Step, Copier::noWrap(B.bin(BinaryOp::Mul, B.geom(IntrinsicOp::GlobalSize, 0),
                                                 B.u32(Width)))));
  Stmt* Loop = B.loop(G.LoopId, B.bin(BinaryOp::Lt, B.l(Base), Count()), B.block({Split}),
                      B.eval(B.assign(Base, B.bin(BinaryOp::Add, B.l(Base), B.l(Step)))));
  F.Body = B.block({SetBase, SetStep, Loop});
  return true;
}

} // namespace cajeta::kir
