// Asynchronous copies as plain copies (AsyncCopyLowering.h).
#include "compiler/kir/transforms/AsyncCopyLowering.h"

#include "compiler/kir/Builder.h"
#include "compiler/kir/Walk.h"

#include <algorithm>
#include <cassert>

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

/// The staged form's state: per copy statement (site) its words, destination, whether they
/// are still to be stored and the group they belong to; per kernel the groups committed.
class Stager {
public:
  // The group counter exists before the rewrite builds commits and waits on it, and so does
  // every copy's site: a wait that comes before a copy in the kernel's text (a loop that waits at
  // its top for the copies at its bottom) flushes that copy's words too.
  Stager(Builder& B, Function& F) : B(B), F(F), Groups(B.local("async.groups", u32())) {
    forEachStmt(F.Body, [&](const Stmt* S) {
      if (S->K == Stmt::Kind::Eval && isAsync(S->E) && S->E->IOp == IntrinsicOp::AsyncCopy)
        addSite(S->E);
    });
  }

  std::vector<Stmt*> prologue() {
    std::vector<Stmt*> Out = {B.eval(B.assign(Groups, B.u32(0)))};
    for (const Site& S : Sites)
      Out.push_back(B.eval(B.assign(S.Pending, B.constBool(false))));
    return Out;
  }

  Stmt* rewrite(Stmt* S) {
    return rewriteStmts(S, [&](Stmt* X) -> Stmt* {
      if (X->K != Stmt::Kind::Eval || !isAsync(X->E))
        return nullptr;
      B.setLoc(X->E->Loc);
      switch (X->E->IOp) {
      case IntrinsicOp::AsyncCopy:
        return copy(X->E);
      case IntrinsicOp::AsyncCommit:
        return B.eval(B.assign(Groups, B.bin(BinaryOp::Add, B.l(Groups), B.u32(1))));
      default:
        return wait(X->E->Index);
      }
    });
  }

private:
  struct Site {
    const Expr* Copy = nullptr; // the AsyncCopy this site stages
    const Expr* Shared = nullptr;
    std::vector<uint32_t> Words;
    uint32_t Dst = 0, Pending = 0, Group = 0;
  };
  static Type u32() { return Type::scalar(ScalarType::U32); }

  /// Site I's words to shared memory, if still pending.
  Stmt* flush(const Site& S) {
    std::vector<Expr*> Ops = {B.shallowCopy(S.Shared), B.l(S.Dst)};
    for (uint32_t W : S.Words)
      Ops.push_back(B.l(W));
    Expr* Store = B.intrinsic(IntrinsicOp::StoreWords, Type::voidTy(), Ops);
    Store->Index = uint32_t(S.Words.size());
    return B.ifThen(B.l(S.Pending),
                    B.block({B.eval(Store), B.eval(B.assign(S.Pending, B.constBool(false)))}));
  }

  void addSite(const Expr* E) {
    const unsigned Size = bundle::scalarTypeSize(E->Ops[0]->Ty.Elem);
    const unsigned Words = E->Index * Size / 4;
    Site S;
    S.Copy = E;
    S.Shared = E->Ops[0];
    for (unsigned W = 0; W < Words; ++W)
      S.Words.push_back(B.local("async.w", u32()));
    S.Dst = B.local("async.at", u32());
    S.Pending = B.local("async.pending", Type::scalar(ScalarType::Bool));
    S.Group = B.local("async.group", u32());
    Sites.push_back(S);
  }

  Stmt* copy(Expr* E) {
    auto It = std::find_if(Sites.begin(), Sites.end(), [&](const Site& S) { return S.Copy == E; });
    assert(It != Sites.end() && "every copy's site is made before the rewrite");
    const Site S = *It;
    const unsigned Words = unsigned(S.Words.size());
    uint32_t Di = B.local("async.dst", u32()), Si = B.local("async.src", u32()),
             Valid = B.local("async.valid", u32());
    // This site's earlier copy first: the program sees copies in order.
    std::vector<Stmt*> Out = {flush(S), B.eval(B.assign(Di, E->Ops[1])),
                              B.eval(B.assign(Si, E->Ops[3])), B.eval(B.assign(Valid, E->Ops[4]))};
    // Whole, with source and destination at a multiple of the chunk (the destination's for
    // targets that store the words as one vector: SpirvEmitOptions::SharedPool).
    auto Aligned = [&](uint32_t Local) {
      return B.bin(BinaryOp::Eq, B.bin(BinaryOp::And, B.l(Local), B.u32(E->Index - 1)), B.u32(0));
    };
    Expr* Whole = B.bin(BinaryOp::LogicalAnd, B.bin(BinaryOp::Eq, B.l(Valid), B.u32(E->Index)),
                        B.bin(BinaryOp::LogicalAnd, Aligned(Si), Aligned(Di)));
    std::vector<Stmt*> Stage;
    uint32_t Chunk = B.local("async.chunk", u32());
    Stage.push_back(B.eval(B.assign(Chunk, B.bin(BinaryOp::Div, B.l(Si), B.u32(E->Index)))));
    for (unsigned W = 0; W < Words; ++W) {
      Expr* Load =
          B.intrinsic(IntrinsicOp::LoadWord, u32(), {B.shallowCopy(E->Ops[2]), B.l(Chunk)}, W);
      Load->Index = Words;
      Stage.push_back(B.eval(B.assign(S.Words[W], Load)));
    }
    Stage.push_back(B.eval(B.assign(S.Dst, B.l(Di))));
    Stage.push_back(B.eval(B.assign(S.Group, B.l(Groups))));
    Stage.push_back(B.eval(B.assign(S.Pending, B.constBool(true))));
    E->Ops[1] = B.l(Di);
    E->Ops[3] = B.l(Si);
    E->Ops[4] = B.l(Valid);
    Out.push_back(B.ifThen(Whole, B.block(Stage), plainCopy(B, F, E)));
    return B.block(Out);
  }

  /// wait(n): every staged copy of a group older than the newest n (group < groups - n).
  Stmt* wait(uint32_t N) {
    std::vector<Stmt*> Out;
    for (const Site& S : Sites) {
      Expr* Old = B.bin(BinaryOp::Lt, B.bin(BinaryOp::Add, B.l(S.Group), B.u32(N)), B.l(Groups));
      Out.push_back(B.ifThen(Old, flush(S)));
    }
    return B.block(Out);
  }

  Builder& B;
  Function& F;
  uint32_t Groups;
  std::vector<Site> Sites; // every copy of the kernel, in the order of its text
};

Stmt* rewrite(Builder& B, Function& F, Stmt* S) {
  return rewriteStmts(S, [&](Stmt* X) -> Stmt* {
    if (X->K != Stmt::Kind::Eval || !isAsync(X->E))
      return nullptr;
    B.setLoc(X->E->Loc);
    return X->E->IOp == IntrinsicOp::AsyncCopy ? plainCopy(B, F, X->E) : B.block({});
  });
}

/// Whether the staged form applies to F: a kernel whose copies all split into words (elements
/// of 1, 2 or 4 bytes, not bool) and whose helpers have no async op (the state is the kernel's).
bool stageable(const Module& M, const Function& F) {
  if (!F.IsKernel)
    return false;
  bool Ok = true;
  forEachExprIn(F.Body, [&](const Expr* E) {
    if (E->K == Expr::Kind::Call && E->Index < M.Functions.size() &&
        AsyncCopyLowering::uses(*M.Functions[E->Index]))
      Ok = false;
    if (E->K == Expr::Kind::Dispatch)
      for (uint32_t T : E->Targets)
        if (T < M.Functions.size() && AsyncCopyLowering::uses(*M.Functions[T]))
          Ok = false;
    if (E->K == Expr::Kind::Intrinsic && E->IOp == IntrinsicOp::AsyncCopy) {
      ScalarType Elem = E->Ops[0]->Ty.Elem;
      if (Elem == ScalarType::Bool || bundle::scalarTypeSize(Elem) > 4)
        Ok = false;
    }
  });
  return Ok;
}

} // namespace

bool AsyncCopyLowering::uses(const Function& F) {
  bool Found = false;
  forEachExprIn(F.Body, [&](const Expr* E) { Found = Found || isAsync(E); });
  return Found;
}

void AsyncCopyLowering::run(Module& M, Function& F, bool Staged) {
  if (!uses(F))
    return;
  Builder B(M, F);
  if (!Staged || !stageable(M, F)) {
    F.Body = rewrite(B, F, F.Body);
    return;
  }
  Stager S(B, F);
  Stmt* Body = S.rewrite(F.Body);
  B.setLoc(F.Loc);
  std::vector<Stmt*> All = S.prologue();
  All.push_back(Body);
  F.Body = B.block(All);
}

} // namespace cajeta::kir
