// The test KIR builder: thin wrappers over Module::newExpr/newStmt with the types filled in.
#include "KirBuilder.h"

namespace cajeta::test {

uint32_t KirBuilder::function(const std::string& Name, bool IsKernel, Type Ret) {
  auto F = std::make_unique<kir::Function>();
  F->Name = Name;
  F->Symbol = "cj_" + Name;
  for (char& C : F->Symbol)
    if (C == '.')
      C = '_';
  F->IsKernel = IsKernel;
  F->ReturnType = Ret;
  M.Functions.push_back(std::move(F));
  Cur = uint32_t(M.Functions.size() - 1);
  return Cur;
}

uint32_t KirBuilder::param(const std::string& Name, Type T) {
  current().Params.push_back({Name, T, {}});
  return uint32_t(current().Params.size() - 1);
}

uint32_t KirBuilder::local(const std::string& Name, Type T) {
  current().Locals.push_back({Name, T, {}});
  return uint32_t(current().Locals.size() - 1);
}

uint32_t KirBuilder::shared(const std::string& Name, ScalarType Elem, uint32_t Count) {
  current().SharedArrays.push_back({Name, Elem, Count, {}});
  return uint32_t(current().SharedArrays.size() - 1);
}

void KirBuilder::body(std::initializer_list<Stmt*> Stmts) {
  current().Body = block(Stmts);
}

Expr* KirBuilder::expr(Expr::Kind K, Type T, std::initializer_list<Expr*> Ops) {
  Expr* E = M.newExpr(K, T, {});
  E->Ops = Ops;
  return E;
}

Expr* KirBuilder::constInt(ScalarType T, int64_t V) {
  Expr* E = expr(Expr::Kind::Const, scalar(T));
  E->IntValue = uint64_t(V);
  return E;
}

Expr* KirBuilder::constFloat(ScalarType T, double V) {
  Expr* E = expr(Expr::Kind::Const, scalar(T));
  E->FloatValue = V;
  return E;
}

Expr* KirBuilder::constBool(bool V) {
  Expr* E = expr(Expr::Kind::Const, scalar(ScalarType::Bool));
  E->IntValue = V;
  return E;
}

Expr* KirBuilder::p(uint32_t Index) {
  Expr* E = expr(Expr::Kind::Param, current().Params.at(Index).Ty);
  E->Index = Index;
  return E;
}

Expr* KirBuilder::l(uint32_t Index) {
  Expr* E = expr(Expr::Kind::Local, current().Locals.at(Index).Ty);
  E->Index = Index;
  return E;
}

Expr* KirBuilder::bin(BinaryOp Op, Expr* L, Expr* R) {
  bool Bool = Op >= BinaryOp::Eq;
  Expr* E = expr(Expr::Kind::Binary, Bool ? scalar(ScalarType::Bool) : L->Ty, {L, R});
  E->BOp = Op;
  return E;
}

Expr* KirBuilder::un(UnaryOp Op, Expr* A) {
  Expr* E = expr(Expr::Kind::Unary, A->Ty, {A});
  E->UOp = Op;
  return E;
}

Expr* KirBuilder::cast(Type To, Expr* A) {
  return expr(Expr::Kind::Cast, To, {A});
}

Expr* KirBuilder::select(Expr* C, Expr* T, Expr* F) {
  return expr(Expr::Kind::Select, T->Ty, {C, T, F});
}

Expr* KirBuilder::load(uint32_t BufParam, Expr* Index) {
  Expr* B = p(BufParam);
  return expr(Expr::Kind::Load, scalar(B->Ty.Elem), {B, Index});
}

Expr* KirBuilder::store(uint32_t BufParam, Expr* Index, Expr* Value) {
  Expr* B = p(BufParam);
  return expr(Expr::Kind::Store, scalar(B->Ty.Elem), {B, Index, Value});
}

Expr* KirBuilder::assign(uint32_t Local, Expr* Value) {
  Expr* E = expr(Expr::Kind::Assign, current().Locals.at(Local).Ty, {Value});
  E->Index = Local;
  return E;
}

Expr* KirBuilder::seq(std::initializer_list<Expr*> Ops) {
  Type T = Ops.size() ? (*(Ops.end() - 1))->Ty : Type::voidTy();
  return expr(Expr::Kind::Seq, T, Ops);
}

Expr* KirBuilder::call(uint32_t Function, std::initializer_list<Expr*> Args) {
  Expr* E = expr(Expr::Kind::Call, M.Functions.at(Function)->ReturnType, Args);
  E->Index = Function;
  return E;
}

Expr* KirBuilder::geom(IntrinsicOp Op, uint8_t Dim) {
  Expr* E = expr(Expr::Kind::Intrinsic, scalar(ScalarType::U32));
  E->IOp = Op;
  E->Dim = Dim;
  return E;
}

Expr* KirBuilder::math(IntrinsicOp Op, std::initializer_list<Expr*> Ops) {
  Expr* E = expr(Expr::Kind::Intrinsic, (*Ops.begin())->Ty, Ops);
  E->IOp = Op;
  return E;
}

Expr* KirBuilder::length(uint32_t BufParam) {
  Expr* E = expr(Expr::Kind::Intrinsic, scalar(ScalarType::U64), {p(BufParam)});
  E->IOp = IntrinsicOp::BufferLength;
  return E;
}

Expr* KirBuilder::sharedRef(uint32_t Index) {
  Expr* E = expr(Expr::Kind::SharedRef, Type::shared(current().SharedArrays.at(Index).Elem));
  E->Index = Index;
  return E;
}

Expr* KirBuilder::loadAt(Expr* Array, Expr* Index) {
  return expr(Expr::Kind::Load, scalar(Array->Ty.Elem), {Array, Index});
}

Expr* KirBuilder::storeAt(Expr* Array, Expr* Index, Expr* Value) {
  return expr(Expr::Kind::Store, scalar(Array->Ty.Elem), {Array, Index, Value});
}

Expr* KirBuilder::lengthOf(Expr* Array) {
  Expr* E = expr(Expr::Kind::Intrinsic, scalar(ScalarType::U64), {Array});
  E->IOp = IntrinsicOp::BufferLength;
  return E;
}

Expr* KirBuilder::atomic(kir::AtomicOp Op, kir::MemoryOrder Order,
                         std::initializer_list<Expr*> Ops) {
  Expr* E = expr(Expr::Kind::Atomic, scalar((*Ops.begin())->Ty.Elem), Ops);
  E->AOp = Op;
  E->Order = Order;
  return E;
}

Expr* KirBuilder::field(uint32_t PodParam, uint32_t Field) {
  Expr* P = p(PodParam);
  Expr* E = expr(Expr::Kind::Field, scalar(M.Pods.at(P->Ty.PodIndex).Fields.at(Field).Type), {P});
  E->Index = Field;
  return E;
}

Expr* KirBuilder::dispatch(Type Ty, std::vector<uint32_t> Targets,
                           std::initializer_list<Expr*> Ops) {
  Expr* E = expr(Expr::Kind::Dispatch, Ty, Ops);
  E->Targets = std::move(Targets);
  return E;
}

Stmt* KirBuilder::block(std::initializer_list<Stmt*> Stmts) {
  Stmt* S = M.newStmt(Stmt::Kind::Block, {});
  S->Body = Stmts;
  return S;
}

Stmt* KirBuilder::eval(Expr* E) {
  Stmt* S = M.newStmt(Stmt::Kind::Eval, {});
  S->E = E;
  return S;
}

Stmt* KirBuilder::ifThen(Expr* C, Stmt* Then, Stmt* Else) {
  Stmt* S = M.newStmt(Stmt::Kind::If, {});
  S->E = C;
  S->Then = Then;
  S->Else = Else;
  return S;
}

Stmt* KirBuilder::loop(uint32_t Id, Expr* Cond, Stmt* Body, Stmt* Step, bool TestAtEnd) {
  Stmt* S = M.newStmt(Stmt::Kind::Loop, {});
  S->LoopId = Id;
  S->E = Cond;
  S->LoopBody = Body;
  S->Step = Step;
  S->TestAtEnd = TestAtEnd;
  return S;
}

Stmt* KirBuilder::brk(uint32_t Id) {
  Stmt* S = M.newStmt(Stmt::Kind::Break, {});
  S->LoopId = Id;
  return S;
}

Stmt* KirBuilder::cont(uint32_t Id) {
  Stmt* S = M.newStmt(Stmt::Kind::Continue, {});
  S->LoopId = Id;
  return S;
}

Stmt* KirBuilder::ret(Expr* E) {
  Stmt* S = M.newStmt(Stmt::Kind::Return, {});
  S->E = E;
  return S;
}

} // namespace cajeta::test

namespace cajeta::test {

Stmt* KirBuilder::barrier() {
  current().HasBarrier = true;
  return M.newStmt(Stmt::Kind::Barrier, {});
}

} // namespace cajeta::test
