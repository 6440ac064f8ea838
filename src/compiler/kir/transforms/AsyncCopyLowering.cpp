// Asynchronous copies as plain copies (AsyncCopyLowering.h).
#include "compiler/kir/transforms/AsyncCopyLowering.h"

#include "compiler/kir/Builder.h"
#include "compiler/kir/Walk.h"

namespace cajeta::kir {
namespace {

bool isAsync(const Expr* E) {
  return E && E->K == Expr::Kind::Intrinsic && E->IOp >= IntrinsicOp::AsyncCopy &&
         E->IOp <= IntrinsicOp::AsyncWait;
}

/// dst[di + j] = j < valid ? src[si + j] : 0 for j < count, unrolled (count <= 16).
Stmt* plainCopy(Builder& B, Function& F, const Expr* E) {
  Type U32 = Type::scalar(ScalarType::U32);
  Type Elem = Type::scalar(E->Ops[0]->Ty.Elem);
  std::vector<Stmt*> Out;
  uint32_t Di = B.local("async.dst", U32), Si = B.local("async.src", U32),
           Valid = B.local("async.valid", U32);
  Out.push_back(B.eval(B.assign(Di, E->Ops[1])));
  Out.push_back(B.eval(B.assign(Si, E->Ops[3])));
  Out.push_back(B.eval(B.assign(Valid, E->Ops[4])));
  for (uint32_t J = 0; J < E->Index; ++J) {
    Expr* Src = B.loadAt(B.shallowCopy(E->Ops[2]), B.bin(BinaryOp::Add, B.l(Si), B.u32(J)));
    Expr* V = B.select(B.bin(BinaryOp::Lt, B.u32(J), B.l(Valid)), Src, B.zero(Elem));
    Out.push_back(
        B.eval(B.storeAt(B.shallowCopy(E->Ops[0]), B.bin(BinaryOp::Add, B.l(Di), B.u32(J)), V)));
  }
  return B.block(Out);
}

/// if (valid == count && si % count == 0) the copy as a leaf of valid = count, else plainCopy.
Stmt* wholeOrPlainCopy(Builder& B, Function& F, Expr* E) {
  Type U32 = Type::scalar(ScalarType::U32);
  uint32_t Di = B.local("async.dst", U32), Si = B.local("async.src", U32),
           Valid = B.local("async.valid", U32);
  std::vector<Stmt*> Out = {B.eval(B.assign(Di, E->Ops[1])), B.eval(B.assign(Si, E->Ops[3])),
                            B.eval(B.assign(Valid, E->Ops[4]))};
  Expr* Whole =
      B.bin(BinaryOp::LogicalAnd, B.bin(BinaryOp::Eq, B.l(Valid), B.u32(E->Index)),
            B.bin(BinaryOp::Eq, B.bin(BinaryOp::And, B.l(Si), B.u32(E->Index - 1)), B.u32(0)));
  Expr* Leaf = B.intrinsic(
      IntrinsicOp::AsyncCopy, Type::voidTy(),
      {B.shallowCopy(E->Ops[0]), B.l(Di), B.shallowCopy(E->Ops[2]), B.l(Si), B.u32(E->Index)});
  Leaf->Index = E->Index;
  E->Ops[1] = B.l(Di);
  E->Ops[3] = B.l(Si);
  E->Ops[4] = B.l(Valid);
  Out.push_back(B.ifThen(Whole, B.eval(Leaf), plainCopy(B, F, E)));
  return B.block(Out);
}

Stmt* rewrite(Builder& B, Function& F, Stmt* S, bool WholeCopies) {
  if (!S)
    return nullptr;
  if (S->K == Stmt::Kind::Eval && isAsync(S->E)) {
    B.setLoc(S->E->Loc);
    if (S->E->IOp != IntrinsicOp::AsyncCopy)
      return B.block({});
    // Elements of 1, 2 or 4 bytes (not bool) split a loaded word; the rest copy element-wise.
    ScalarType Elem = S->E->Ops[0]->Ty.Elem;
    unsigned Size = bundle::scalarTypeSize(Elem);
    bool Splits = Elem != ScalarType::Bool && Size <= 4;
    return WholeCopies && Splits ? wholeOrPlainCopy(B, F, S->E) : plainCopy(B, F, S->E);
  }
  for (Stmt*& C : S->Body)
    C = rewrite(B, F, C, WholeCopies);
  S->Then = rewrite(B, F, S->Then, WholeCopies);
  S->Else = rewrite(B, F, S->Else, WholeCopies);
  S->LoopBody = rewrite(B, F, S->LoopBody, WholeCopies);
  S->Step = rewrite(B, F, S->Step, WholeCopies);
  return S;
}

} // namespace

bool AsyncCopyLowering::uses(const Function& F) {
  bool Found = false;
  forEachExprIn(F.Body, [&](const Expr* E) { Found = Found || isAsync(E); });
  return Found;
}

void AsyncCopyLowering::run(Module& M, Function& F, bool WholeCopies) {
  if (!uses(F))
    return;
  Builder B(M, F);
  F.Body = rewrite(B, F, F.Body, WholeCopies);
}

} // namespace cajeta::kir
