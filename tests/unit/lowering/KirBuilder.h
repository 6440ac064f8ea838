// A small builder for hand-made KIR modules in the lowering tests.
#pragma once

#include "compiler/kir/Kir.h"

#include <initializer_list>
#include <string>

namespace cajeta::test {

using bundle::ScalarType;
using kir::BinaryOp;
using kir::Expr;
using kir::IntrinsicOp;
using kir::Stmt;
using kir::Type;
using kir::UnaryOp;

inline Type scalar(ScalarType T) {
  return Type::scalar(T);
}
inline Type buffer(ScalarType T) {
  return Type::buffer(T);
}

class KirBuilder {
public:
  explicit KirBuilder(kir::Module& M) : M(M) {}

  /// Starts a function (kernel or helper); later calls add to it. Returns its index.
  uint32_t function(const std::string& Name, bool IsKernel, Type Ret = Type::voidTy());
  uint32_t kernel(const std::string& Name) { return function(Name, true); }
  uint32_t param(const std::string& Name, Type T);
  uint32_t local(const std::string& Name, Type T);
  /// A shared array of the current kernel (Count 0 = the dynamic one).
  uint32_t shared(const std::string& Name, ScalarType Elem, uint32_t Count);
  void body(std::initializer_list<Stmt*> Stmts);
  kir::Function& current() { return *M.Functions[Cur]; }

  // Expressions
  Expr* i32(int64_t V) { return constInt(ScalarType::I32, V); }
  Expr* u32(uint64_t V) { return constInt(ScalarType::U32, int64_t(V)); }
  Expr* constInt(ScalarType T, int64_t V);
  Expr* constFloat(ScalarType T, double V);
  Expr* constBool(bool V);
  Expr* p(uint32_t Index);
  Expr* l(uint32_t Index);
  Expr* bin(BinaryOp Op, Expr* L, Expr* R);
  Expr* un(UnaryOp Op, Expr* A);
  Expr* cast(Type To, Expr* A);
  Expr* select(Expr* C, Expr* T, Expr* F);
  Expr* load(uint32_t BufParam, Expr* Index);
  Expr* store(uint32_t BufParam, Expr* Index, Expr* Value);
  Expr* assign(uint32_t Local, Expr* Value);
  Expr* seq(std::initializer_list<Expr*> Ops);
  Expr* call(uint32_t Function, std::initializer_list<Expr*> Args);
  Expr* geom(IntrinsicOp Op, uint8_t Dim);
  Expr* math(IntrinsicOp Op, std::initializer_list<Expr*> Ops);
  Expr* length(uint32_t BufParam);
  // Arrays named by an expression (a buffer Param or a SharedRef)
  Expr* sharedRef(uint32_t Index);
  Expr* loadAt(Expr* Array, Expr* Index);
  Expr* storeAt(Expr* Array, Expr* Index, Expr* Value);
  Expr* lengthOf(Expr* Array);
  Expr* atomic(kir::AtomicOp Op, kir::MemoryOrder Order, std::initializer_list<Expr*> Ops);
  Expr* field(uint32_t PodParam, uint32_t Field);
  Expr* dispatch(Type Ty, std::vector<uint32_t> Targets, std::initializer_list<Expr*> Ops);

  // Statements
  Stmt* block(std::initializer_list<Stmt*> Stmts);
  Stmt* eval(Expr* E);
  Stmt* ifThen(Expr* C, Stmt* Then, Stmt* Else = nullptr);
  Stmt* loop(uint32_t Id, Expr* Cond, Stmt* Body, Stmt* Step = nullptr, bool TestAtEnd = false);
  Stmt* brk(uint32_t Id);
  Stmt* cont(uint32_t Id);
  Stmt* ret(Expr* E = nullptr);
  Stmt* barrier();

private:
  Expr* expr(Expr::Kind K, Type T, std::initializer_list<Expr*> Ops = {});
  kir::Module& M;
  uint32_t Cur = 0;
};

} // namespace cajeta::test
