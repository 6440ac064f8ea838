// Sema for statements: scopes, locals, control flow, loops with labels, returns.
#include "compiler/frontend/Sema.h"

#include "compiler/frontend/TypeRules.h"

#include <functional>

namespace cajeta::frontend {

using kir::Type;

void Sema::pushScope() {
  Scopes.emplace_back();
}
void Sema::popScope() {
  Scopes.pop_back();
}

std::optional<uint32_t> Sema::lookupLocal(const std::string& Name) const {
  for (auto It = Scopes.rbegin(); It != Scopes.rend(); ++It) {
    auto F = It->find(Name);
    if (F != It->end())
      return F->second;
  }
  return std::nullopt;
}

uint32_t Sema::declareLocal(const std::string& Name, Type Ty, SourceRange R) {
  if (lookupLocal(Name) || BufferParams.count(Name) || PodParams.count(Name) ||
      SharedByName.count(Name))
    Diags.error(R, "variable '" + Name + "' is already defined in this method");
  kir::Function& Fn = *Current->Fn;
  uint32_t Id = static_cast<uint32_t>(Fn.Locals.size());
  Fn.Locals.push_back({Name, Ty, loc(R)});
  Scopes.back()[Name] = Id;
  return Id;
}

uint32_t Sema::newTemp(Type Ty) {
  kir::Function& Fn = *Current->Fn;
  uint32_t Id = static_cast<uint32_t>(Fn.Locals.size());
  Fn.Locals.push_back({"$t" + std::to_string(Id), Ty, {}});
  return Id;
}

kir::Stmt* Sema::makeBlock(std::vector<kir::Stmt*> Body, SourceRange R) {
  kir::Stmt* B = M->newStmt(kir::Stmt::Kind::Block, loc(R));
  B->Body = std::move(Body);
  return B;
}

kir::Stmt* Sema::evalStmt(kir::Expr* E, SourceRange R) {
  kir::Stmt* S = M->newStmt(kir::Stmt::Kind::Eval, loc(R));
  S->E = E;
  return S;
}

kir::Expr* Sema::buildCondition(const Expr* E, const char* What) {
  Value V = buildExpr(E);
  if (!V)
    return nullptr;
  if (V.Lit != Value::None || !V.E->Ty.isBool()) {
    std::string Found = V.Lit == Value::IntLit     ? "an integer constant"
                        : V.Lit == Value::FloatLit ? "a float constant"
                                                   : V.E->Ty.str();
    Diags.error(E->Range,
                std::string("the condition of ") + What + " must be bool, found " + Found);
    return nullptr;
  }
  return V.E;
}

kir::Stmt* Sema::buildBlock(const Stmt* S, bool NewScope) {
  if (NewScope)
    pushScope();
  std::vector<kir::Stmt*> Body;
  for (const Stmt* C : S->Body)
    if (kir::Stmt* K = buildStmt(C))
      Body.push_back(K);
  if (NewScope)
    popScope();
  return makeBlock(std::move(Body), S->Range);
}

kir::Stmt* Sema::buildLocalVar(const Stmt* S) {
  std::vector<kir::Stmt*> Out;
  std::optional<Type> Ty;
  // One message per mistake: `KernelBuffer<T> b = a;` and `float32[] a = heap float32[n];` are
  // each reported once, at the declaration or at the allocation.
  bool AllAllocs = !S->Vars.empty();
  for (const Stmt::Declarator& D : S->Vars)
    AllAllocs &= D.Init && D.Init->K == Expr::Kind::Alloc;
  bool SkipInits = false;
  int Sig = -1;
  if (S->VarType.Name == "Shared")
    return buildSharedDecl(S);
  if (S->VarType.Name == "RayQuery" && !InHost)
    return buildRayQueryDecl(S);
  if ((S->VarType.Name == "Tile" || S->VarType.Name == "CooperativeMatrix") &&
      !S->VarType.Args.empty())
    return buildTileDecl(S);
  if (InHost) {
    Ty = resolveType(S->VarType, false, "a local variable", &Sig);
    SkipInits = !Ty && AllAllocs; // `T[] a = heap T[n]` with T unknown: one error, at the type
  } else if (S->VarType.Name == "KernelBuffer") {
    Diags.error(S->VarType.Range, "a KernelBuffer cannot be a local variable; use the parameter "
                                  "directly");
    SkipInits = true;
  } else if (S->VarType.ArrayDims > 0 && AllAllocs) {
    SkipInits = false; // the allocation's own error says it
  } else {
    Ty = resolveType(S->VarType, false, "a local variable", &Sig);
  }
  for (const Stmt::Declarator& D : S->Vars) {
    kir::Expr* Init = nullptr;
    // A string for a String variable: the type's error says it.
    bool StringForString =
        !Ty && S->VarType.Name == "String" && D.Init && D.Init->K == Expr::Kind::StringLit;
    if (D.Init &&
        !(SkipInits &&
          (D.Init->K == Expr::Kind::Name || (InHost && D.Init->K == Expr::Kind::Alloc))) &&
        !StringForString) {
      Value V = buildExpr(D.Init);
      if (V && Ty && checkFnValue(V, Sig, D.Init->Range))
        Init = convert(V, *Ty, D.Init->Range, "the initialiser");
    }
    if (!Ty)
      continue;
    if (Ty->isHostValue() && !D.Init) {
      Diags.error(D.Range, "'" + D.Name + "' needs an initialiser: a " + Ty->str() +
                               " variable always refers to one");
      continue;
    }
    // Zero, false, or for a function value the no-op tag.
    if (!Init && !D.Init)
      Init = Ty->isFloat() ? floatConst(*Ty, 0.0, D.Range)
                           : intConst(*Ty, Sig >= 0 ? 0xFFFFFFFFu : 0, D.Range);
    uint32_t L = declareLocal(D.Name, *Ty, D.Range);
    if (Sig >= 0)
      LocalFnSig[L] = Sig;
    if (!Init)
      continue;
    kir::Expr* A = M->newExpr(kir::Expr::Kind::Assign, *Ty, loc(D.Range));
    A->Index = L;
    A->Ops = {Init};
    Out.push_back(evalStmt(A, D.Range));
  }
  if (Out.size() == 1)
    return Out[0];
  return makeBlock(std::move(Out), S->Range);
}

static bool isStatementExpression(const Expr* E) {
  switch (E->K) {
  case Expr::Kind::Assign:
  case Expr::Kind::Postfix:
  case Expr::Kind::Call:
  case Expr::Kind::Invalid:
    return true;
  case Expr::Kind::Unary:
    return E->Op == Tok::PlusPlus || E->Op == Tok::MinusMinus;
  default:
    return false;
  }
}

kir::Stmt* Sema::buildStmt(const Stmt* S) {
  if (!S)
    return nullptr;
  std::vector<std::string> Labels;
  switch (S->K) {
  case Stmt::Kind::Block:
    return buildBlock(S, true);
  case Stmt::Kind::Empty:
    return nullptr;
  case Stmt::Kind::LocalVar:
    return buildLocalVar(S);
  case Stmt::Kind::ExprStmt: {
    const Expr* C = S->Cond;
    if (C->K == Expr::Kind::Call && C->Ops[0]->K == Expr::Kind::Member &&
        C->Ops[0]->Ops[0]->K == Expr::Kind::Name && C->Ops[0]->Ops[0]->Text == "Barrier" &&
        !lookupLocal("Barrier")) {
      if (C->Ops[0]->Text == "sync")
        return buildBarrier(C);
      Diags.error(C->Ops[0]->Range, "'Barrier' has no method '" + C->Ops[0]->Text +
                                        "' (the workgroup barrier is Barrier.sync())");
      return nullptr;
    }
    if (!isStatementExpression(S->Cond)) {
      Diags.error(S->Cond->Range, "this expression is not a statement (its value is unused)");
      buildExpr(S->Cond);
      return nullptr;
    }
    Value V = buildExpr(S->Cond);
    if (!V)
      return nullptr;
    return evalStmt(materialize(V), S->Range);
  }
  case Stmt::Kind::If: {
    kir::Expr* C = buildCondition(S->Cond, "'if'");
    pushScope();
    kir::Stmt* Then = buildStmt(S->Then);
    popScope();
    pushScope();
    kir::Stmt* Else = buildStmt(S->Else);
    popScope();
    if (!C)
      return nullptr;
    kir::Stmt* K = M->newStmt(kir::Stmt::Kind::If, loc(S->Range));
    K->E = C;
    K->Then = Then ? Then : makeBlock({}, S->Range);
    K->Else = Else;
    return K;
  }
  case Stmt::Kind::While:
  case Stmt::Kind::DoWhile:
  case Stmt::Kind::For:
    return buildLoop(S, {});
  case Stmt::Kind::ForRange:
    return buildForRange(S, {});
  case Stmt::Kind::Labeled: {
    // Collect nested labels (a: b: for ...) and attach them to the loop.
    const Stmt* Inner = S;
    while (Inner && Inner->K == Stmt::Kind::Labeled) {
      for (const LoopScope& L : Loops)
        for (const std::string& Name : L.Labels)
          if (Name == Inner->Label)
            Diags.error({Inner->Range.Begin, Inner->Range.Begin + (uint32_t)Inner->Label.size()},
                        "label '" + Inner->Label + "' is already in use by an enclosing loop");
      Labels.push_back(Inner->Label);
      Inner = Inner->Then;
    }
    if (!Inner)
      return nullptr;
    if (Inner->K == Stmt::Kind::ForRange)
      return buildForRange(Inner, Labels);
    if (Inner->K == Stmt::Kind::While || Inner->K == Stmt::Kind::DoWhile ||
        Inner->K == Stmt::Kind::For)
      return buildLoop(Inner, Labels);
    Diags.error({S->Range.Begin, S->Range.Begin + (uint32_t)S->Label.size()},
                "a label must name a loop ('" + S->Label +
                    "' labels a statement that is not a loop)");
    return buildStmt(Inner);
  }
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue:
    return buildJump(S);
  case Stmt::Kind::Return:
    return buildReturn(S);
  case Stmt::Kind::Try:
    if (InHost)
      return buildTry(S);
    Diags.error(S->Range, "exceptions are not allowed in device code ('try')");
    return nullptr;
  case Stmt::Kind::Unsupported:
    if (InHost && S->Label == "throw") {
      Diags.error(S->Range, "host code cannot throw yet; it catches what the runtime raises");
      return nullptr;
    }
    if (S->Label == "throw" || S->Label == "try")
      Diags.error(S->Range, "exceptions are not allowed in device code ('" + S->Label + "')");
    else
      Diags.error(S->Range, "'" + S->Label + "' is not supported in device code yet; use if/else");
    return nullptr;
  }
  return nullptr;
}

kir::Stmt* Sema::buildLoop(const Stmt* S, std::vector<std::string> Labels) {
  pushScope(); // for-init variables
  std::vector<kir::Stmt*> Init;
  if (S->K == Stmt::Kind::For)
    for (const Stmt* I : S->Body) {
      if (I->K == Stmt::Kind::ExprStmt && !isStatementExpression(I->Cond)) {
        Diags.error(I->Cond->Range, "this expression is not a statement (its value is unused)");
        continue;
      }
      if (kir::Stmt* K = buildStmt(I))
        Init.push_back(K);
    }
  kir::Stmt* L = M->newStmt(kir::Stmt::Kind::Loop, loc(S->Range));
  L->LoopId = NextLoopId++;
  L->TestAtEnd = S->K == Stmt::Kind::DoWhile;
  const char* What = S->K == Stmt::Kind::For ? "'for'" : (L->TestAtEnd ? "'do-while'" : "'while'");
  if (S->Cond && !L->TestAtEnd)
    L->E = buildCondition(S->Cond, What);
  Loops.push_back({L->LoopId, std::move(Labels)});
  pushScope();
  kir::Stmt* Body = buildStmt(S->Then);
  popScope();
  Loops.pop_back();
  L->LoopBody = Body ? Body : makeBlock({}, S->Range);
  if (S->Cond && L->TestAtEnd)
    L->E = buildCondition(S->Cond, What); // the body's locals are out of scope here, as in Java
  if (S->K == Stmt::Kind::For && !S->Updates.empty()) {
    std::vector<kir::Stmt*> Step;
    for (const Expr* U : S->Updates) {
      if (!isStatementExpression(U)) {
        Diags.error(U->Range, "this expression is not a statement (its value is unused)");
        continue;
      }
      if (Value V = buildExpr(U))
        Step.push_back(evalStmt(materialize(V), U->Range));
    }
    L->Step = makeBlock(std::move(Step), S->Range);
  }
  popScope();
  if (Init.empty())
    return L;
  Init.push_back(L);
  return makeBlock(std::move(Init), S->Range);
}

kir::Stmt* Sema::buildForRange(const Stmt* S, std::vector<std::string> Labels) {
  // for (i, T v : buf.range(n)) body   ==>
  // { N i = (N) globalIdX; N $stride = (N) globalSizeX; $n = n;
  //   loop (i < $n) { T v = buf[i]; body } step i += $stride }
  if (!S->Cond || !S->Extra)
    return nullptr;
  kir::Expr* Buf = buildBufferOperand(S->Cond);
  Value N = buildExpr(S->Extra);
  auto ElemTy = resolveType(S->VarType, false, "a loop variable");
  if (!Buf || !N || !ElemTy)
    return nullptr;
  Type IndexTy = N.Lit == Value::IntLit ? Type::scalar(kir::ScalarType::U32) : N.E->Ty;
  if (!IndexTy.isInteger()) {
    Diags.error(S->Extra->Range,
                "the count of a grid-stride loop must be an integer, found " +
                    (N.Lit == Value::FloatLit ? std::string("a float constant") : IndexTy.str()));
    return nullptr;
  }
  kir::Expr* Count = convert(N, IndexTy, S->Extra->Range, "the count");
  if (!Count)
    return nullptr;
  Type ElemOfBuf = Type::scalar(Buf->Ty.Elem);
  if (!isWidening(ElemOfBuf, *ElemTy)) {
    Diags.error(S->VarType.Range, "the loop variable has type " + ElemTy->str() +
                                      " but the buffer holds " + ElemOfBuf.str());
    return nullptr;
  }
  SourceRange R = S->Range;
  kir::SourceLoc L = loc(R);
  auto geometry = [&](kir::IntrinsicOp Op) {
    kir::Expr* G = M->newExpr(kir::Expr::Kind::Intrinsic, Type::scalar(kir::ScalarType::U32), L);
    G->IOp = Op;
    G->Dim = 0;
    return castTo(G, IndexTy);
  };
  pushScope();
  uint32_t CountLocal = newTemp(IndexTy);
  uint32_t Stride = newTemp(IndexTy);
  uint32_t I = declareLocal(S->Vars[0].Name, IndexTy, S->Vars[0].Range);
  auto assign = [&](uint32_t Local, kir::Expr* V) {
    kir::Expr* A = M->newExpr(kir::Expr::Kind::Assign, Fn().Locals[Local].Ty, L);
    A->Index = Local;
    A->Ops = {V};
    return evalStmt(A, R);
  };
  auto read = [&](uint32_t Local) {
    kir::Expr* E = M->newExpr(kir::Expr::Kind::Local, Fn().Locals[Local].Ty, L);
    E->Index = Local;
    return E;
  };
  std::vector<kir::Stmt*> Out;
  Out.push_back(assign(CountLocal, Count));
  Out.push_back(assign(Stride, geometry(kir::IntrinsicOp::GlobalSize)));
  Out.push_back(assign(I, geometry(kir::IntrinsicOp::GlobalId)));
  kir::Stmt* Loop = M->newStmt(kir::Stmt::Kind::Loop, L);
  Loop->LoopId = NextLoopId++;
  Loop->GridStride = true;
  Loop->E =
      binary(kir::BinaryOp::Lt, Type::scalar(kir::ScalarType::Bool), read(I), read(CountLocal), R);
  pushScope();
  uint32_t V = declareLocal(S->Vars[1].Name, *ElemTy, S->Vars[1].Range);
  kir::Expr* Load = M->newExpr(kir::Expr::Kind::Load, ElemOfBuf, L);
  Load->Ops = {Buf, read(I)};
  std::vector<kir::Stmt*> Body;
  Body.push_back(assign(V, castTo(Load, *ElemTy)));
  Loops.push_back({Loop->LoopId, std::move(Labels)});
  if (kir::Stmt* B = buildStmt(S->Then))
    Body.push_back(B);
  Loops.pop_back();
  popScope();
  Loop->LoopBody = makeBlock(std::move(Body), R);
  Loop->Step = assign(I, binary(kir::BinaryOp::Add, IndexTy, read(I), read(Stride), R));
  Out.push_back(Loop);
  popScope();
  return makeBlock(std::move(Out), R);
}

kir::Stmt* Sema::buildJump(const Stmt* S) {
  bool IsBreak = S->K == Stmt::Kind::Break;
  const char* Word = IsBreak ? "break" : "continue";
  if (Loops.empty()) {
    Diags.error(S->Range, std::string("'") + Word + "' outside a loop");
    return nullptr;
  }
  uint32_t Target = Loops.back().Id;
  if (!S->Label.empty()) {
    bool Found = false;
    for (auto It = Loops.rbegin(); It != Loops.rend() && !Found; ++It)
      for (const std::string& L : It->Labels)
        if (L == S->Label) {
          Target = It->Id;
          Found = true;
        }
    if (!Found) {
      Diags.error(S->Range, "no enclosing loop is labeled '" + S->Label + "'");
      return nullptr;
    }
  }
  kir::Stmt* K =
      M->newStmt(IsBreak ? kir::Stmt::Kind::Break : kir::Stmt::Kind::Continue, loc(S->Range));
  K->LoopId = Target;
  return K;
}

kir::Stmt* Sema::buildReturn(const Stmt* S) {
  kir::Function& F = *Current->Fn;
  kir::Stmt* K = M->newStmt(kir::Stmt::Kind::Return, loc(S->Range));
  if (F.ReturnType.isVoid()) {
    if (S->Cond) {
      Diags.error(S->Cond->Range, F.IsKernel ? "a kernel cannot return a value"
                                             : "'" + F.Name + "' returns void; remove the value");
      buildExpr(S->Cond);
    }
    return K;
  }
  if (!S->Cond) {
    Diags.error(S->Range, "'" + F.Name + "' must return a value of type " + F.ReturnType.str());
    return K;
  }
  Value V = buildExpr(S->Cond);
  if (V)
    K->E = convert(V, F.ReturnType, S->Cond->Range, "the returned value");
  return K;
}

bool Sema::canCompleteNormally(const kir::Stmt* S) const {
  if (!S)
    return true;
  switch (S->K) {
  case kir::Stmt::Kind::Return:
    return false;
  case kir::Stmt::Kind::Block:
    for (const kir::Stmt* C : S->Body)
      if (!canCompleteNormally(C))
        return false;
    return true;
  case kir::Stmt::Kind::If:
    return !S->Else || canCompleteNormally(S->Then) || canCompleteNormally(S->Else);
  case kir::Stmt::Kind::Loop: {
    // `while (true)` / `for (;;)` / `do ... while (true)` are endless, as in Java.
    bool Endless =
        !S->E || (S->E->K == kir::Expr::Kind::Const && S->E->Ty.isBool() && S->E->IntValue != 0);
    if (!Endless)
      return true;
    // An endless loop completes only through a break that targets it.
    std::function<bool(const kir::Stmt*)> Breaks = [&](const kir::Stmt* X) -> bool {
      if (!X)
        return false;
      if (X->K == kir::Stmt::Kind::Break && X->LoopId == S->LoopId)
        return true;
      for (const kir::Stmt* C : X->Body)
        if (Breaks(C))
          return true;
      return Breaks(X->Then) || Breaks(X->Else) || Breaks(X->LoopBody) || Breaks(X->Step);
    };
    return Breaks(S->LoopBody) || Breaks(S->Step);
  }
  default:
    return true;
  }
}

} // namespace cajeta::frontend
