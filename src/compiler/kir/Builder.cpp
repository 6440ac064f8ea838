// The KIR builder (Builder.h): thin wrappers over Module::newExpr/newStmt with the types filled in.
#include "compiler/kir/Builder.h"

namespace cajeta::kir {

using bundle::ScalarType;

namespace {
Type scalar(ScalarType T) {
  return Type::scalar(T);
}
} // namespace

uint32_t Builder::function(const std::string& Name, bool IsKernel, Type Ret) {
  auto F = std::make_unique<kir::Function>();
  F->Name = Name;
  F->Symbol = "cj_" + Name;
  for (char& C : F->Symbol)
    if (C == '.')
      C = '_';
  F->IsKernel = IsKernel;
  F->ReturnType = Ret;
  Fn = F.get();
  NextLoopId = 1;
  M.Functions.push_back(std::move(F));
  return uint32_t(M.Functions.size() - 1);
}

uint32_t Builder::param(const std::string& Name, Type T) {
  Param P;
  P.Name = Name;
  P.Ty = T;
  current().Params.push_back(std::move(P));
  return uint32_t(current().Params.size() - 1);
}

uint32_t Builder::local(const std::string& Name, Type T) {
  current().Locals.push_back({Name, T, {}});
  return uint32_t(current().Locals.size() - 1);
}

uint32_t Builder::privateArray(const std::string& Name, ScalarType Elem, uint32_t Count) {
  current().PrivateArrays.push_back({Name, Elem, Count, Loc});
  return uint32_t(current().PrivateArrays.size() - 1);
}

Expr* Builder::privateRef(uint32_t Index) {
  Expr* E =
      expr(Expr::Kind::PrivateRef, Type::privateArray(current().PrivateArrays.at(Index).Elem));
  E->Index = Index;
  return E;
}

uint32_t Builder::shared(const std::string& Name, ScalarType Elem, uint32_t Count) {
  current().SharedArrays.push_back({Name, Elem, Count, {}});
  return uint32_t(current().SharedArrays.size() - 1);
}

void Builder::body(std::initializer_list<Stmt*> Stmts) {
  current().Body = block(Stmts);
}

Expr* Builder::expr(Expr::Kind K, Type T, std::vector<Expr*> Ops) {
  Expr* E = M.newExpr(K, T, Loc);
  E->Ops = std::move(Ops);
  return E;
}

Stmt* Builder::stmt(Stmt::Kind K) {
  return M.newStmt(K, Loc);
}

Expr* Builder::zero(Type T) {
  Expr* E = expr(Expr::Kind::Const, T);
  E->IntValue = 0;
  E->FloatValue = 0;
  return E;
}

Expr* Builder::wave(WaveOp Op, Type Ty, std::vector<Expr*> Ops) {
  Expr* E = expr(Expr::Kind::Wave, Ty, std::move(Ops));
  E->WOp = Op;
  return E;
}

Expr* Builder::intrinsic(IntrinsicOp Op, Type Ty, std::vector<Expr*> Ops, uint8_t Dim) {
  Expr* E = expr(Expr::Kind::Intrinsic, Ty, std::move(Ops));
  E->IOp = Op;
  E->Dim = Dim;
  return E;
}

Expr* Builder::shallowCopy(const Expr* E) {
  Expr* C = M.newExpr(E->K, E->Ty, E->Loc);
  *C = *E;
  return C;
}

Expr* Builder::constInt(ScalarType T, int64_t V) {
  Expr* E = expr(Expr::Kind::Const, scalar(T));
  E->IntValue = uint64_t(V);
  return E;
}

Expr* Builder::constFloat(ScalarType T, double V) {
  Expr* E = expr(Expr::Kind::Const, scalar(T));
  E->FloatValue = V;
  return E;
}

Expr* Builder::constBool(bool V) {
  Expr* E = expr(Expr::Kind::Const, scalar(ScalarType::Bool));
  E->IntValue = V;
  return E;
}

Expr* Builder::p(uint32_t Index) {
  Expr* E = expr(Expr::Kind::Param, current().Params.at(Index).Ty);
  E->Index = Index;
  return E;
}

Expr* Builder::l(uint32_t Index) {
  Expr* E = expr(Expr::Kind::Local, current().Locals.at(Index).Ty);
  E->Index = Index;
  return E;
}

Expr* Builder::bin(BinaryOp Op, Expr* L, Expr* R) {
  bool Bool = Op >= BinaryOp::Eq;
  Expr* E = expr(Expr::Kind::Binary, Bool ? scalar(ScalarType::Bool) : L->Ty, {L, R});
  E->BOp = Op;
  return E;
}

Expr* Builder::un(UnaryOp Op, Expr* A) {
  Expr* E = expr(Expr::Kind::Unary, A->Ty, {A});
  E->UOp = Op;
  return E;
}

Expr* Builder::cast(Type To, Expr* A) {
  return expr(Expr::Kind::Cast, To, {A});
}

Expr* Builder::select(Expr* C, Expr* T, Expr* F) {
  return expr(Expr::Kind::Select, T->Ty, {C, T, F});
}

Expr* Builder::load(uint32_t BufParam, Expr* Index) {
  Expr* B = p(BufParam);
  return expr(Expr::Kind::Load, scalar(B->Ty.Elem), {B, Index});
}

Expr* Builder::store(uint32_t BufParam, Expr* Index, Expr* Value) {
  Expr* B = p(BufParam);
  return expr(Expr::Kind::Store, scalar(B->Ty.Elem), {B, Index, Value});
}

Expr* Builder::assign(uint32_t Local, Expr* Value) {
  Expr* E = expr(Expr::Kind::Assign, current().Locals.at(Local).Ty, {Value});
  E->Index = Local;
  return E;
}

Expr* Builder::seq(std::initializer_list<Expr*> Ops) {
  Type T = Ops.size() ? (*(Ops.end() - 1))->Ty : Type::voidTy();
  return expr(Expr::Kind::Seq, T, Ops);
}

Expr* Builder::call(uint32_t Function, std::initializer_list<Expr*> Args) {
  Expr* E = expr(Expr::Kind::Call, M.Functions.at(Function)->ReturnType, Args);
  E->Index = Function;
  return E;
}

Expr* Builder::geom(IntrinsicOp Op, uint8_t Dim) {
  Expr* E = expr(Expr::Kind::Intrinsic, scalar(ScalarType::U32));
  E->IOp = Op;
  E->Dim = Dim;
  return E;
}

Expr* Builder::linearLocalId() {
  Expr* Y = bin(BinaryOp::Add, geom(IntrinsicOp::LocalId, 1),
                bin(BinaryOp::Mul, geom(IntrinsicOp::GroupDim, 1), geom(IntrinsicOp::LocalId, 2)));
  return bin(BinaryOp::Add, geom(IntrinsicOp::LocalId, 0),
             bin(BinaryOp::Mul, geom(IntrinsicOp::GroupDim, 0), Y));
}

Expr* Builder::math(IntrinsicOp Op, std::initializer_list<Expr*> Ops) {
  Expr* E = expr(Expr::Kind::Intrinsic, (*Ops.begin())->Ty, Ops);
  E->IOp = Op;
  return E;
}

Expr* Builder::length(uint32_t BufParam) {
  Expr* E = expr(Expr::Kind::Intrinsic, scalar(ScalarType::U64), {p(BufParam)});
  E->IOp = IntrinsicOp::BufferLength;
  return E;
}

Expr* Builder::sharedRef(uint32_t Index) {
  Expr* E = expr(Expr::Kind::SharedRef, Type::shared(current().SharedArrays.at(Index).Elem));
  E->Index = Index;
  return E;
}

Expr* Builder::loadAt(Expr* Array, Expr* Index) {
  return expr(Expr::Kind::Load, scalar(Array->Ty.Elem), {Array, Index});
}

Expr* Builder::storeAt(Expr* Array, Expr* Index, Expr* Value) {
  return expr(Expr::Kind::Store, scalar(Array->Ty.Elem), {Array, Index, Value});
}

Expr* Builder::lengthOf(Expr* Array) {
  Expr* E = expr(Expr::Kind::Intrinsic, scalar(ScalarType::U64), {Array});
  E->IOp = IntrinsicOp::BufferLength;
  return E;
}

Expr* Builder::atomic(AtomicOp Op, MemoryOrder Order, std::initializer_list<Expr*> Ops) {
  Expr* E = expr(Expr::Kind::Atomic, scalar((*Ops.begin())->Ty.Elem), Ops);
  E->AOp = Op;
  E->Order = Order;
  return E;
}

Expr* Builder::field(uint32_t PodParam, uint32_t Field) {
  Expr* P = p(PodParam);
  Expr* E = expr(Expr::Kind::Field, scalar(M.Pods.at(P->Ty.PodIndex).Fields.at(Field).Type), {P});
  E->Index = Field;
  return E;
}

Expr* Builder::dispatch(Type Ty, std::vector<uint32_t> Targets, std::initializer_list<Expr*> Ops) {
  Expr* E = expr(Expr::Kind::Dispatch, Ty, Ops);
  E->Targets = std::move(Targets);
  return E;
}

Stmt* Builder::block(std::initializer_list<Stmt*> Stmts) {
  Stmt* S = stmt(Stmt::Kind::Block);
  S->Body = Stmts;
  return S;
}

Stmt* Builder::block(std::vector<Stmt*> Stmts) {
  Stmt* S = stmt(Stmt::Kind::Block);
  S->Body = std::move(Stmts);
  return S;
}

Stmt* Builder::loop(Expr* Cond, Stmt* Body, Stmt* Step) {
  return loop(newLoopId(), Cond, Body, Step);
}

Stmt* Builder::eval(Expr* E) {
  Stmt* S = stmt(Stmt::Kind::Eval);
  S->E = E;
  return S;
}

Stmt* Builder::ifThen(Expr* C, Stmt* Then, Stmt* Else) {
  Stmt* S = stmt(Stmt::Kind::If);
  S->E = C;
  S->Then = Then;
  S->Else = Else;
  return S;
}

Stmt* Builder::loop(uint32_t Id, Expr* Cond, Stmt* Body, Stmt* Step, bool TestAtEnd) {
  Stmt* S = stmt(Stmt::Kind::Loop);
  S->LoopId = Id;
  S->E = Cond;
  S->LoopBody = Body;
  S->Step = Step;
  S->TestAtEnd = TestAtEnd;
  return S;
}

Stmt* Builder::brk(uint32_t Id) {
  Stmt* S = stmt(Stmt::Kind::Break);
  S->LoopId = Id;
  return S;
}

Stmt* Builder::cont(uint32_t Id) {
  Stmt* S = stmt(Stmt::Kind::Continue);
  S->LoopId = Id;
  return S;
}

Stmt* Builder::ret(Expr* E) {
  Stmt* S = stmt(Stmt::Kind::Return);
  S->E = E;
  return S;
}

Stmt* Builder::barrier() {
  current().HasBarrier = true;
  return stmt(Stmt::Kind::Barrier);
}

} // namespace cajeta::kir
