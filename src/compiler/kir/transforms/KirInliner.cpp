// The KIR inliner of barrier helpers (see KirInliner.h): a deep copy of the kernel's statements
// with locals, parameters and loop ids remapped at each inlined call.
#include "compiler/kir/transforms/KirInliner.h"

#include <map>
#include <vector>

namespace cajeta::kir {
namespace {

using kir::Expr;
using kir::Stmt;

/// How the function being copied maps into the kernel copy.
struct Frame {
  const kir::Function* F = nullptr;
  std::vector<uint32_t> Locals;       // F's local -> kernel local
  std::vector<Expr*> ParamExprs;      // F's param -> replacement (buffers, PODs) or null
  std::vector<uint32_t> ParamLocals;  // F's scalar param -> kernel local
  std::map<uint32_t, uint32_t> Loops; // F's loop id -> kernel loop id
  bool IsKernel = false;
  uint32_t ResultLocal = ~0u; // helpers returning a value
  uint32_t WrapperLoop = ~0u; // ~0u: no wrapper (the only return is the last statement)
};

class Inliner {
public:
  Inliner(const kir::Module& M, kir::Function& Out, kir::Module& Scratch, bool AlsoWave)
      : M(M), Out(Out), Scratch(Scratch), AlsoWave(AlsoWave) {}

  Stmt* run(const kir::Function& K) {
    Frame Fr;
    Fr.F = &K;
    Fr.IsKernel = true;
    for (uint32_t I = 0; I < K.Locals.size(); ++I)
      Fr.Locals.push_back(I);
    Fr.ParamExprs.assign(K.Params.size(), nullptr);
    Fr.ParamLocals.assign(K.Params.size(), ~0u);
    NextLoopId = kir::maxLoopId(K.Body) + 1;
    mapLoops(K.Body, Fr, /*Identity=*/true);
    return copyStmt(K.Body, Fr);
  }

  std::string Error;

private:
  void mapLoops(const Stmt* S, Frame& Fr, bool Identity) {
    if (!S)
      return;
    if (S->K == Stmt::Kind::Loop)
      Fr.Loops[S->LoopId] = Identity ? S->LoopId : NextLoopId++;
    for (const Stmt* C : S->Body)
      mapLoops(C, Fr, Identity);
    for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
      mapLoops(C, Fr, Identity);
  }

  uint32_t newLocal(const std::string& Name, kir::Type Ty) {
    Out.Locals.push_back({Name, Ty, {}});
    return uint32_t(Out.Locals.size() - 1);
  }

  void fail(const kir::SourceLoc& L, const std::string& Message) {
    if (Error.empty())
      Error = "at " + std::to_string(L.Line) + ":" + std::to_string(L.Col) + ": " + Message;
  }

  bool isBarrierCall(const Expr* E) const {
    return E && E->K == Expr::Kind::Call && E->Index < M.Functions.size() &&
           (M.Functions[E->Index]->HasBarrier || (AlsoWave && M.Functions[E->Index]->UsesWave));
  }

  bool containsBarrierCall(const Expr* E) const {
    if (!E)
      return false;
    if (isBarrierCall(E))
      return true;
    for (const Expr* Op : E->Ops)
      if (containsBarrierCall(Op))
        return true;
    return false;
  }

  Expr* copyExpr(const Expr* E, Frame& Fr) {
    if (!E)
      return nullptr;
    if (containsBarrierCall(E)) {
      // The supported positions are handled by copyStmt and never get here.
      fail(E->Loc, "a call of a helper that contains a barrier must be a statement of its own or "
                   "the value assigned to a local");
      return nullptr;
    }
    if (E->K == Expr::Kind::Param && !Fr.IsKernel) {
      if (E->Index >= Fr.ParamExprs.size()) {
        fail(E->Loc, "parameter index out of range in '" + Fr.F->Name + "'");
        return nullptr;
      }
      if (Fr.ParamExprs[E->Index])
        return Fr.ParamExprs[E->Index];
      Expr* L = Scratch.newExpr(Expr::Kind::Local, E->Ty, E->Loc);
      L->Index = Fr.ParamLocals[E->Index];
      return L;
    }
    Expr* C = Scratch.newExpr(E->K, E->Ty, E->Loc);
    *C = *E;
    if (E->K == Expr::Kind::Local || E->K == Expr::Kind::Assign) {
      if (E->Index >= Fr.Locals.size()) {
        fail(E->Loc, "local index out of range in '" + Fr.F->Name + "'");
        return C;
      }
      C->Index = Fr.Locals[E->Index];
    }
    for (Expr*& Op : C->Ops)
      Op = copyExpr(Op, Fr);
    return C;
  }

  Stmt* newStmt(Stmt::Kind K, kir::SourceLoc L) { return Scratch.newStmt(K, L); }

  Stmt* evalStmt(Expr* E) {
    Stmt* S = newStmt(Stmt::Kind::Eval, E->Loc);
    S->E = E;
    return S;
  }

  Stmt* breakStmt(uint32_t LoopId, kir::SourceLoc L) {
    Stmt* S = newStmt(Stmt::Kind::Break, L);
    S->LoopId = LoopId;
    return S;
  }

  Expr* assignExpr(uint32_t Local, Expr* V) {
    Expr* A = Scratch.newExpr(Expr::Kind::Assign, V->Ty, V->Loc);
    A->Index = Local;
    A->Ops = {V};
    return A;
  }

  Expr* localExpr(uint32_t Local, kir::SourceLoc L) {
    Expr* E = Scratch.newExpr(Expr::Kind::Local, Out.Locals[Local].Ty, L);
    E->Index = Local;
    return E;
  }

  /// The callee's body copied in place of Call (evaluated in Caller); its value, if any, is left
  /// in *ResultLocal.
  Stmt* inlineCall(const Expr* Call, Frame& Caller, uint32_t& ResultLocal) {
    const kir::Function& Callee = *M.Functions[Call->Index];
    Stmt* Block = newStmt(Stmt::Kind::Block, Call->Loc);
    if (Call->Ops.size() != Callee.Params.size() || !Callee.Body) {
      fail(Call->Loc, "call of '" + Callee.Name + "' does not match its declaration");
      return Block;
    }
    if (++Depth > 64) {
      fail(Call->Loc,
           "helpers with barriers nest too deeply (recursion?) at '" + Callee.Name + "'");
      return Block;
    }
    Frame Fr;
    Fr.F = &Callee;
    std::string Prefix = Callee.Name + ".";
    for (const kir::Local& L : Callee.Locals)
      Fr.Locals.push_back(newLocal(Prefix + L.Name, L.Ty));
    Fr.ParamExprs.assign(Callee.Params.size(), nullptr);
    Fr.ParamLocals.assign(Callee.Params.size(), ~0u);
    for (size_t I = 0; I < Callee.Params.size(); ++I) {
      const Expr* Arg = Call->Ops[I];
      if (!Arg || containsBarrierCall(Arg)) {
        fail(Call->Loc, "an argument of '" + Callee.Name +
                            "' is missing or calls a helper that "
                            "contains a barrier");
        return Block;
      }
      if (!Callee.Params[I].Ty.isScalar()) {
        Fr.ParamExprs[I] = copyExpr(Arg, Caller);
        continue;
      }
      Fr.ParamLocals[I] = newLocal(Prefix + Callee.Params[I].Name, Callee.Params[I].Ty);
      Block->Body.push_back(evalStmt(assignExpr(Fr.ParamLocals[I], copyExpr(Arg, Caller))));
    }
    if (!Callee.ReturnType.isVoid())
      Fr.ResultLocal = newLocal(Prefix + "result", Callee.ReturnType);
    ResultLocal = Fr.ResultLocal;
    mapLoops(Callee.Body, Fr, /*Identity=*/false);
    bool TailOnly = onlyTailReturn(Callee.Body);
    if (!TailOnly)
      Fr.WrapperLoop = NextLoopId++;
    Stmt* Body = copyStmt(Callee.Body, Fr);
    if (TailOnly) {
      Block->Body.push_back(Body);
    } else {
      Stmt* Inner = newStmt(Stmt::Kind::Block, Call->Loc);
      Inner->Body = {Body, breakStmt(Fr.WrapperLoop, Call->Loc)};
      Stmt* Wrapper = newStmt(Stmt::Kind::Loop, Call->Loc);
      Wrapper->LoopId = Fr.WrapperLoop;
      Wrapper->LoopBody = Inner;
      Block->Body.push_back(Wrapper);
    }
    --Depth;
    return Block;
  }

  static unsigned countReturns(const Stmt* S) {
    if (!S)
      return 0;
    unsigned N = S->K == Stmt::Kind::Return;
    for (const Stmt* C : S->Body)
      N += countReturns(C);
    for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
      N += countReturns(C);
    return N;
  }

  /// Whether the body's only return (if any) is its last top-level statement.
  static bool onlyTailReturn(const Stmt* Body) {
    unsigned N = countReturns(Body);
    if (N == 0)
      return true;
    if (N > 1 || Body->K != Stmt::Kind::Block || Body->Body.empty())
      return Body->K == Stmt::Kind::Return;
    return Body->Body.back()->K == Stmt::Kind::Return;
  }

  /// `f(...)` or `x = f(...)` with f a barrier helper: the inlined body (and the assignment).
  Stmt* inlineStatement(const Expr* E, uint32_t TargetLocal, Frame& Fr) {
    uint32_t Result = ~0u;
    Stmt* S = inlineCall(E, Fr, Result);
    if (TargetLocal != ~0u && Result != ~0u)
      S->Body.push_back(evalStmt(assignExpr(TargetLocal, localExpr(Result, E->Loc))));
    return S;
  }

  Stmt* copyStmt(const Stmt* S, Frame& Fr) {
    if (!S || !Error.empty())
      return nullptr;
    if (S->K == Stmt::Kind::Eval && S->E) {
      if (isBarrierCall(S->E))
        return inlineStatement(S->E, ~0u, Fr);
      if (S->E->K == Expr::Kind::Assign && S->E->Ops.size() == 1 && isBarrierCall(S->E->Ops[0]) &&
          S->E->Index < Fr.Locals.size())
        return inlineStatement(S->E->Ops[0], Fr.Locals[S->E->Index], Fr);
    }
    if (S->K == Stmt::Kind::Return && !Fr.IsKernel)
      return copyReturn(S, Fr);
    Stmt* C = newStmt(S->K, S->Loc);
    *C = *S;
    if (S->K == Stmt::Kind::Loop || S->K == Stmt::Kind::Break || S->K == Stmt::Kind::Continue) {
      auto It = Fr.Loops.find(S->LoopId);
      if (It == Fr.Loops.end()) {
        fail(S->Loc, "break/continue of an unknown loop in '" + Fr.F->Name + "'");
        return C;
      }
      C->LoopId = It->second;
    }
    C->E = copyExpr(S->E, Fr);
    for (Stmt*& Child : C->Body)
      Child = copyStmt(Child, Fr);
    C->Then = copyStmt(S->Then, Fr);
    C->Else = copyStmt(S->Else, Fr);
    C->LoopBody = copyStmt(S->LoopBody, Fr);
    C->Step = copyStmt(S->Step, Fr);
    return C;
  }

  /// `return [v]` in an inlined helper: assign the result, leave the wrapper loop (if any).
  Stmt* copyReturn(const Stmt* S, Frame& Fr) {
    Stmt* Block = newStmt(Stmt::Kind::Block, S->Loc);
    if (S->E && Fr.ResultLocal != ~0u) {
      if (isBarrierCall(S->E))
        Block->Body.push_back(inlineStatement(S->E, Fr.ResultLocal, Fr));
      else
        Block->Body.push_back(evalStmt(assignExpr(Fr.ResultLocal, copyExpr(S->E, Fr))));
    }
    if (Fr.WrapperLoop != ~0u)
      Block->Body.push_back(breakStmt(Fr.WrapperLoop, S->Loc));
    return Block;
  }

  const kir::Module& M;
  kir::Function& Out;
  kir::Module& Scratch;
  bool AlsoWave = false;
  uint32_t NextLoopId = 1;
  unsigned Depth = 0;
};

} // namespace

std::unique_ptr<kir::Function>
KirInliner::inlineBarrierCalls(const kir::Module& M, const kir::Function& K, kir::Module& Scratch,
                               std::string& Error, bool AlsoWaveHelpers) {
  auto Out = std::make_unique<kir::Function>(K);
  if (!K.Body) {
    Error = "kernel '" + K.Name + "' has no body";
    return nullptr;
  }
  Inliner I(M, *Out, Scratch, AlsoWaveHelpers);
  Out->Body = I.run(K);
  if (!I.Error.empty()) {
    Error = "kernel '" + K.Name + "': inlining helpers with barriers: " + I.Error;
    return nullptr;
  }
  return Out;
}

} // namespace cajeta::kir
