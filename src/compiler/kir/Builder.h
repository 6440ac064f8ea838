// The KIR builder: typed node construction over Module::newExpr/newStmt, used by Sema-free code
// that makes KIR: the KIR -> KIR passes (kir/transforms) and the tests' hand-made modules.
// Nodes get the builder's current source location (setLoc), so a pass's new nodes point at the
// source line they came from.
#pragma once

#include "compiler/kir/Kir.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace cajeta::kir {

class Builder {
public:
  explicit Builder(Module& M) : M(M) {}
  /// A builder that adds to F (a function of M, or a copy whose nodes live in M).
  Builder(Module& M, Function& F) : M(M), Fn(&F) { NextLoopId = maxLoopId(F.Body) + 1; }

  /// The location new nodes get.
  void setLoc(SourceLoc L) { Loc = L; }
  SourceLoc loc() const { return Loc; }
  Module& module() { return M; }

  /// Starts a function (kernel or helper); later calls add to it. Returns its index.
  uint32_t function(const std::string& Name, bool IsKernel, Type Ret = Type::voidTy());
  uint32_t kernel(const std::string& Name) { return function(Name, true); }
  uint32_t param(const std::string& Name, Type T);
  uint32_t local(const std::string& Name, Type T);
  /// A shared array of the current kernel (Count 0 = the dynamic one).
  uint32_t shared(const std::string& Name, ScalarType Elem, uint32_t Count);
  void body(std::initializer_list<Stmt*> Stmts);
  Function& current() { return *Fn; }
  /// A fresh loop id, above every id of the current function's body when the builder began.
  uint32_t newLoopId() { return NextLoopId++; }

  // Expressions
  Expr* i32(int64_t V) { return constInt(ScalarType::I32, V); }
  Expr* u32(uint64_t V) { return constInt(ScalarType::U32, int64_t(V)); }
  Expr* constInt(ScalarType T, int64_t V);
  Expr* constFloat(ScalarType T, double V);
  Expr* constBool(bool V);
  /// The zero of scalar type T (integer, bool or float).
  Expr* zero(Type T);
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
  /// The work-item's linear index in its group, x + dimX * (y + dimY * z): its wave is that
  /// index / Wave.width() and its lane the rest (Kir.h's WaveOp).
  Expr* linearLocalId();
  Expr* math(IntrinsicOp Op, std::initializer_list<Expr*> Ops);
  Expr* length(uint32_t BufParam);
  // Arrays named by an expression (a buffer Param or a SharedRef)
  Expr* sharedRef(uint32_t Index);
  /// A new private array of the current function, and a reference to one.
  uint32_t privateArray(const std::string& Name, ScalarType Elem, uint32_t Count);
  Expr* privateRef(uint32_t Index);
  Expr* loadAt(Expr* Array, Expr* Index);
  Expr* storeAt(Expr* Array, Expr* Index, Expr* Value);
  Expr* lengthOf(Expr* Array);
  Expr* atomic(kir::AtomicOp Op, kir::MemoryOrder Order, std::initializer_list<Expr*> Ops);
  Expr* field(uint32_t PodParam, uint32_t Field);
  Expr* dispatch(Type Ty, std::vector<uint32_t> Targets, std::initializer_list<Expr*> Ops);
  Expr* wave(WaveOp Op, Type Ty, std::vector<Expr*> Ops = {});
  Expr* intrinsic(IntrinsicOp Op, Type Ty, std::vector<Expr*> Ops, uint8_t Dim = 0);
  /// A (deep enough) copy of E: the node itself is new, its operands are shared.
  Expr* shallowCopy(const Expr* E);

  // Statements
  Stmt* block(std::initializer_list<Stmt*> Stmts);
  Stmt* block(std::vector<Stmt*> Stmts);
  Stmt* eval(Expr* E);
  Stmt* ifThen(Expr* C, Stmt* Then, Stmt* Else = nullptr);
  Stmt* loop(uint32_t Id, Expr* Cond, Stmt* Body, Stmt* Step = nullptr, bool TestAtEnd = false);
  Stmt* brk(uint32_t Id);
  Stmt* cont(uint32_t Id);
  Stmt* ret(Expr* E = nullptr);
  /// A loop with a fresh id (newLoopId).
  Stmt* loop(Expr* Cond, Stmt* Body, Stmt* Step = nullptr);
  Stmt* barrier();

  /// A node of kind K and type T with operands Ops, at the current location.
  Expr* expr(Expr::Kind K, Type T, std::vector<Expr*> Ops = {});
  Stmt* stmt(Stmt::Kind K);

private:
  Module& M;
  Function* Fn = nullptr;
  SourceLoc Loc;
  uint32_t NextLoopId = 1;
};

} // namespace cajeta::kir
