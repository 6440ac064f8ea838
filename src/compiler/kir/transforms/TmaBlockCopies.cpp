// Block copies through the tensor memory accelerator (TmaBlockCopies.h).
#include "compiler/kir/transforms/TmaBlockCopies.h"

#include "compiler/kir/Builder.h"
#include "compiler/kir/Clone.h"
#include "compiler/kir/GroupUniformity.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/AsyncBlockCopyLowering.h"

#include <set>

namespace cajeta::kir {
namespace {

bool isIntrinsic(const Stmt* S, IntrinsicOp Op) {
  return S && S->K == Stmt::Kind::Eval && S->E && S->E->K == Expr::Kind::Intrinsic &&
         S->E->IOp == Op;
}

bool isCopyStep(const Stmt* S) {
  return isIntrinsic(S, IntrinsicOp::AsyncCopyBlock) || isIntrinsic(S, IntrinsicOp::AsyncCommit) ||
         isIntrinsic(S, IntrinsicOp::AsyncWait);
}

/// Whether function F, or one it calls, commits or waits for copies.
bool commitsOrWaits(const Module& M, const Function& F, std::set<const Function*>& Seen) {
  if (!Seen.insert(&F).second)
    return false;
  bool Found = false;
  forEachStmt(F.Body, [&](const Stmt* S) {
    Found |= isIntrinsic(S, IntrinsicOp::AsyncCommit) || isIntrinsic(S, IntrinsicOp::AsyncWait);
  });
  forEachExprIn(F.Body, [&](const Expr* E) {
    if (E->K == Expr::Kind::Call && E->Index < M.Functions.size())
      Found |= commitsOrWaits(M, *M.Functions[E->Index], Seen);
    if (E->K == Expr::Kind::Dispatch)
      for (uint32_t T : E->Targets)
        Found |= T < M.Functions.size() && commitsOrWaits(M, *M.Functions[T], Seen);
  });
  return Found;
}

/// What E reads where that is known at launch: E itself (a constant or a scalar parameter), or
/// the one value a local is ever assigned, if that is (Sema's copy of a parameter); else null.
const Expr* launchValue(const Function& F, const Expr* E) {
  if (E->K == Expr::Kind::Local) {
    const Expr* Value = nullptr;
    unsigned Assigned = 0;
    forEachExprIn(F.Body, [&](const Expr* X) {
      if (X->K == Expr::Kind::Assign && X->Index == E->Index && ++Assigned == 1)
        Value = X->Ops[0];
    });
    if (Assigned != 1)
      return nullptr;
    E = Value;
  }
  return E->K == Expr::Kind::Const || (E->K == Expr::Kind::Param && E->Ty.isScalar()) ? E : nullptr;
}

/// The extent copy operand E (a constant or a parameter since addEntry) gives.
bundle::TensorMapExtent extentOf(const Expr* E) {
  bundle::TensorMapExtent X;
  if (E->K == Expr::Kind::Param)
    X.Param = int32_t(E->Index);
  else
    X.Value = uint64_t(E->IntValue);
  return X;
}

/// Whether kernel F's copies can be the accelerator's (TmaBlockCopies.h).
bool qualifies(const Module& M, const Function& F) {
  bool Any = false, Ok = true;
  forEachStmt(F.Body, [&](const Stmt* S) {
    Ok &= S->K != Stmt::Kind::Return;
    if (!isIntrinsic(S, IntrinsicOp::AsyncCopyBlock))
      return;
    Any = true;
    const Expr* E = S->E;
    Ok &= E->Ops[2]->K == Expr::Kind::Param && launchValue(F, E->Ops[5]) &&
          launchValue(F, E->Ops[6]) && launchValue(F, E->Ops[7]);
  });
  if (!Any || !Ok)
    return false;
  // No loop around a copy step that some work-items might leave or skip a turn of.
  forEachStmt(F.Body, [&](const Stmt* S) {
    if (S->K != Stmt::Kind::Loop)
      return;
    bool Steps = false, Jumps = false;
    for (const Stmt* C : {S->LoopBody, S->Step})
      forEachStmt(C, [&](const Stmt* X) {
        Steps |= isCopyStep(X);
        Jumps |= X->K == Stmt::Kind::Break || X->K == Stmt::Kind::Continue;
      });
    Ok &= !(Steps && Jumps);
  });
  GroupUniformity U(F);
  forEachStmt(F.Body, [&](const Stmt* S) { Ok &= !isCopyStep(S) || U.isUnderUniformControl(S); });
  // Commits and waits in helpers would close groups the kernel's ring never sees.
  forEachExprIn(F.Body, [&](const Expr* E) {
    std::set<const Function*> Seen;
    if (E->K == Expr::Kind::Call && E->Index < M.Functions.size())
      Ok &= !commitsOrWaits(M, *M.Functions[E->Index], Seen);
    if (E->K == Expr::Kind::Dispatch)
      for (uint32_t T : E->Targets)
        Ok &= T >= M.Functions.size() || !commitsOrWaits(M, *M.Functions[T], Seen);
  });
  return Ok;
}

/// One box of a block copy: its first element's offsets from the block's in the array (elements)
/// and in the matrix (in its map's rows), and its map among the plan's.
struct Box {
  uint32_t Dst, Col, Row, Map;
};

/// How a block copy goes as boxes of tensor maps, given its array's layout.
struct BoxPlan {
  std::vector<bundle::TensorMapRecipe> Maps;
  std::vector<Box> Boxes;
  uint32_t Align = 0;    // bytes the destination must be a multiple of
  bool HalfRows = false; // maps of every other row: the block's first row must be even
};

bool planBoxes(const Function& F, const Expr* E, BoxPlan& P) {
  const SharedArray& A = F.SharedArrays[E->Ops[0]->Index];
  const uint32_t Size = bundle::scalarTypeSize(A.Elem), Rows = E->Index;
  const uint32_t Cols = uint32_t(E->Ops[8]->IntValue), RowBytes = Cols * Size;
  for (size_t I : {5, 6, 7})
    if (E->Ops[I]->K != Expr::Kind::Param && E->Ops[I]->K != Expr::Kind::Const)
      return false;
  bundle::TensorMapRecipe Map;
  Map.BufferParam = E->Ops[2]->Index;
  Map.Height = extentOf(E->Ops[5]);
  Map.Width = extentOf(E->Ops[6]);
  Map.Stride = extentOf(E->Ops[7]);
  Map.ElemBytes = Size;
  Map.Swizzle128 = A.Swizzle128;
  Map.BoxCols = Cols;
  Map.BoxRows = Rows;
  P.Maps = {Map};
  if (!A.Swizzle128) {
    // Rows one after another: one box, its rows the 16-byte multiple the accelerator writes.
    if (RowBytes % 16 != 0)
      return false;
    P.Boxes = {{0, 0, 0, 0}};
    P.Align = 128;
    return true;
  }
  if (A.RowAtoms == 1 && RowBytes == 128) {
    P.Boxes = {{0, 0, 0, 0}};
    P.Align = 1024;
    return true;
  }
  const uint32_t AtomCols = 128 / Size;
  if (A.RowAtoms == 2 && RowBytes == 256 && Rows % 8 == 0) {
    // Blocks of 8 rows, each stored atom by atom: a box of 8 rows of one atom per atom.
    P.Maps[0].BoxCols = AtomCols;
    P.Maps[0].BoxRows = 8;
    for (uint32_t Blk = 0; Blk < Rows / 8; ++Blk)
      for (uint32_t Atom = 0; Atom < 2; ++Atom)
        P.Boxes.push_back({(Blk * 2 + Atom) * 1024 / Size, Atom * AtomCols, Blk * 8, 0});
    P.Align = 2048;
    return true;
  }
  if (A.RowAtoms == 2 && RowBytes == 128 && Rows % 16 == 0) {
    // Rows of one atom in an array of two-atom rows (an a block beside b's in one array): each
    // array row holds two block rows, so a block of 8 array rows stores the even rows of 16
    // block rows, then the odd ones: a box of 8 rows of the map of even rows, then of odd.
    P.Maps[0].BoxRows = 8;
    P.Maps[0].RowStep = 2;
    P.Maps.push_back(P.Maps[0]);
    P.Maps[1].RowOffset = 1;
    for (uint32_t Blk = 0; Blk < Rows / 16; ++Blk)
      for (uint32_t Odd = 0; Odd < 2; ++Odd)
        P.Boxes.push_back({(Blk * 2 + Odd) * 1024 / Size, 0, Blk * 8, Odd});
    P.Align = 2048;
    P.HalfRows = true;
    return true;
  }
  return false;
}

bool sameMap(const bundle::TensorMapRecipe& A, const bundle::TensorMapRecipe& B) {
  auto Same = [](const bundle::TensorMapExtent& X, const bundle::TensorMapExtent& Y) {
    return X.Param == Y.Param && X.Value == Y.Value;
  };
  return A.BufferParam == B.BufferParam && Same(A.Height, B.Height) && Same(A.Width, B.Width) &&
         Same(A.Stride, B.Stride) && A.ElemBytes == B.ElemBytes && A.BoxCols == B.BoxCols &&
         A.BoxRows == B.BoxRows && A.Swizzle128 == B.Swizzle128 && A.RowStep == B.RowStep &&
         A.RowOffset == B.RowOffset;
}

class Lowering {
public:
  Lowering(Module& M, Function& F) : F(F), B(M, F) {}

  void run() {
    // Only copies with a box form make the entry worth having.
    bool Any = false;
    forEachStmt(F.Body, [&](const Stmt* S) {
      BoxPlan P;
      Any |= isIntrinsic(S, IntrinsicOp::AsyncCopyBlock) && S->E->Dim == 1 && planBoxes(F, S->E, P);
    });
    if (!Any) {
      F.Backends = {"none"};
      return;
    }
    const Type U32 = Type::scalar(ScalarType::U32);
    B.setLoc(F.Loc);
    Bars = B.shared("tma.barriers", ScalarType::U64, 2 * TmaBlockCopies::Slots);
    Issued = B.local("tma.issued", U32);
    Waited = B.local("tma.waited", U32);
    F.Body = rewrite(F.Body);
    // Before: the ring's barriers made by work-item 0 and published by a barrier. After: the
    // last group closed and every group waited for.
    B.setLoc(F.Loc);
    std::vector<Stmt*> Init;
    auto Group = [&] {
      return B.bin(
          BinaryOp::Mul, B.geom(IntrinsicOp::GroupDim, 0),
          B.bin(BinaryOp::Mul, B.geom(IntrinsicOp::GroupDim, 1), B.geom(IntrinsicOp::GroupDim, 2)));
    };
    for (uint32_t S = 0; S < 2 * TmaBlockCopies::Slots; ++S)
      Init.push_back(B.eval(B.intrinsic(
          IntrinsicOp::MbarrierInit, Type::voidTy(),
          {B.sharedRef(Bars), B.u32(S), S < TmaBlockCopies::Slots ? B.u32(1) : Group()})));
    std::vector<Stmt*> Body = {B.eval(B.assign(Issued, B.u32(0))),
                               B.eval(B.assign(Waited, B.u32(0))),
                               B.ifThen(firstItem(), B.block(Init)), B.barrier(), F.Body};
    for (Stmt* S : closeGroup(/*ReuseSlot=*/false))
      Body.push_back(S);
    Body.push_back(drain(B.bin(BinaryOp::Lt, B.l(Waited), B.l(Issued))));
    F.Body = B.block(Body);
  }

private:
  Stmt* rewrite(Stmt* S) {
    if (!S)
      return nullptr;
    if (isIntrinsic(S, IntrinsicOp::AsyncCopyBlock) && S->E->Dim == 1)
      return copy(S->E);
    if (isIntrinsic(S, IntrinsicOp::AsyncCommit)) {
      B.setLoc(S->Loc);
      std::vector<Stmt*> Out = {S};
      for (Stmt* C : closeGroup(/*ReuseSlot=*/true))
        Out.push_back(C);
      return B.block(Out);
    }
    if (isIntrinsic(S, IntrinsicOp::AsyncWait)) {
      // Every group but the youngest n: the chunks' (cp.async) and the accelerator's.
      B.setLoc(S->Loc);
      Expr* Behind =
          B.bin(BinaryOp::Lt, B.bin(BinaryOp::Add, B.l(Waited), B.u32(S->E->Index)), B.l(Issued));
      return B.block({S, drain(Behind)});
    }
    for (Stmt*& C : S->Body)
      C = rewrite(C);
    S->Then = rewrite(S->Then);
    S->Else = rewrite(S->Else);
    S->LoopBody = rewrite(S->LoopBody);
    S->Step = rewrite(S->Step);
    return S;
  }

  Expr* firstItem() { return B.bin(BinaryOp::Eq, B.linearLocalId(), B.u32(0)); }
  Expr* slot(uint32_t Counter) {
    return B.bin(BinaryOp::Rem, B.l(Counter), B.u32(TmaBlockCopies::Slots));
  }
  Expr* parity(Expr* Round) { return B.bin(BinaryOp::And, Round, B.u32(1)); }

  /// Closes the open group (work-item 0 arrives at its full barrier) and makes the next one's
  /// slot free: at most Slots - 1 groups unwaited and, with ReuseSlot, the slot's last group
  /// seen by all.
  std::vector<Stmt*> closeGroup(bool ReuseSlot) {
    std::vector<Stmt*> Out;
    Out.push_back(B.eval(B.intrinsic(IntrinsicOp::MbarrierArrive, Type::voidTy(),
                                     {B.sharedRef(Bars), slot(Issued), firstItem()})));
    Out.push_back(B.eval(B.assign(Issued, B.bin(BinaryOp::Add, B.l(Issued), B.u32(1)))));
    Out.push_back(drain(B.bin(BinaryOp::Ge, B.bin(BinaryOp::Sub, B.l(Issued), B.l(Waited)),
                              B.u32(TmaBlockCopies::Slots))));
    if (!ReuseSlot)
      return Out;
    // Every work-item waits (none is ahead of the others there: no branch for one alone
    // while products may be in flight).
    Expr* Reused = B.bin(BinaryOp::Ge, B.l(Issued), B.u32(TmaBlockCopies::Slots));
    Expr* Round = B.bin(BinaryOp::Sub,
                        B.bin(BinaryOp::Div, B.l(Issued), B.u32(TmaBlockCopies::Slots)), B.u32(1));
    Expr* Empty = B.bin(BinaryOp::Add, slot(Issued), B.u32(TmaBlockCopies::Slots));
    Out.push_back(B.ifThen(Reused, B.eval(B.intrinsic(IntrinsicOp::MbarrierWait, Type::voidTy(),
                                                      {B.sharedRef(Bars), Empty, parity(Round)}))));
    return Out;
  }

  /// while (Cond) { wait for group `waited`; arrive at its empty barrier; waited++ }
  Stmt* drain(Expr* Cond) {
    Expr* Round = B.bin(BinaryOp::Div, B.l(Waited), B.u32(TmaBlockCopies::Slots));
    Stmt* Wait = B.eval(B.intrinsic(IntrinsicOp::MbarrierWait, Type::voidTy(),
                                    {B.sharedRef(Bars), slot(Waited), parity(Round)}));
    Stmt* Seen = B.eval(B.intrinsic(
        IntrinsicOp::MbarrierArrive, Type::voidTy(),
        {B.sharedRef(Bars), B.bin(BinaryOp::Add, slot(Waited), B.u32(TmaBlockCopies::Slots)),
         B.constBool(true)}));
    Stmt* Next = B.eval(B.assign(Waited, B.bin(BinaryOp::Add, B.l(Waited), B.u32(1))));
    return B.loop(Cond, B.block({Wait, Seen, Next}));
  }

  /// A block copy: its boxes by work-item 0 where its destination is aligned for them, else
  /// the chunks.
  Stmt* copy(Expr* E) {
    B.setLoc(E->Loc);
    const Type U32 = Type::scalar(ScalarType::U32);
    BoxPlan P;
    if (!planBoxes(F, E, P)) {
      E->Dim = 0;
      return AsyncBlockCopyLowering::lowerBlock(B, E);
    }
    std::vector<uint32_t> Maps;
    for (const bundle::TensorMapRecipe& R : P.Maps) {
      uint32_t Map = 0;
      while (Map < F.TensorMaps.size() && !sameMap(F.TensorMaps[Map], R))
        ++Map;
      if (Map == F.TensorMaps.size())
        F.TensorMaps.push_back(R);
      Maps.push_back(Map);
    }
    // The operands once (each is read by both forms).
    const uint32_t Dst = B.local("tma.dst", U32), Row = B.local("tma.row", U32),
                   Col = B.local("tma.col", U32);
    std::vector<Stmt*> Out = {B.eval(B.assign(Dst, E->Ops[1])), B.eval(B.assign(Row, E->Ops[3])),
                              B.eval(B.assign(Col, E->Ops[4]))};
    const uint32_t Size = bundle::scalarTypeSize(E->Ops[0]->Ty.Elem);
    std::vector<Stmt*> Boxes;
    for (const Box& X : P.Boxes) {
      const bundle::TensorMapRecipe& R = P.Maps[X.Map];
      Expr* MapRow = P.HalfRows ? B.bin(BinaryOp::Div, B.l(Row), B.u32(2)) : B.l(Row);
      Expr* Load = B.intrinsic(
          IntrinsicOp::TmaLoad, Type::voidTy(),
          {B.shallowCopy(E->Ops[0]), B.bin(BinaryOp::Add, B.l(Dst), B.u32(X.Dst)),
           B.bin(BinaryOp::Add, B.l(Col), B.u32(X.Col)), B.bin(BinaryOp::Add, MapRow, B.u32(X.Row)),
           B.sharedRef(Bars), slot(Issued), firstItem()},
          uint8_t(Maps[X.Map]));
      Load->Index = R.BoxCols * R.BoxRows * Size;
      Boxes.push_back(B.eval(Load));
    }
    F.SharedArrays[E->Ops[0]->Index].BulkCopied = true;
    Expr* Chunks =
        B.intrinsic(IntrinsicOp::AsyncCopyBlock, Type::voidTy(),
                    {B.shallowCopy(E->Ops[0]), B.l(Dst), B.shallowCopy(E->Ops[2]), B.l(Row),
                     B.l(Col), B.shallowCopy(E->Ops[5]), B.shallowCopy(E->Ops[6]),
                     B.shallowCopy(E->Ops[7]), B.shallowCopy(E->Ops[8])});
    Chunks->Index = E->Index;
    Expr* Aligned =
        B.bin(BinaryOp::Eq,
              B.bin(BinaryOp::Rem, B.bin(BinaryOp::Mul, B.l(Dst), B.u32(Size)), B.u32(P.Align)),
              B.u32(0));
    if (P.HalfRows)
      Aligned = B.bin(BinaryOp::LogicalAnd, Aligned,
                      B.bin(BinaryOp::Eq, B.bin(BinaryOp::Rem, B.l(Row), B.u32(2)), B.u32(0)));
    Out.push_back(B.ifThen(Aligned, B.block(Boxes), AsyncBlockCopyLowering::lowerBlock(B, Chunks)));
    return B.block(Out);
  }

  Function& F;
  Builder B;
  uint32_t Bars = 0, Issued = 0, Waited = 0;
};

} // namespace

bool TmaBlockCopies::appliesTo(const Module& M) {
  for (const auto& F : M.Functions)
    if (F->IsKernel && F->TmaEntryOf.empty() && qualifies(M, *F))
      return true;
  return false;
}

void TmaBlockCopies::addEntry(Module& M, size_t I) {
  const Function& F = *M.Functions[I];
  if (!F.IsKernel || !F.TmaEntryOf.empty() || !qualifies(M, F))
    return;
  std::unique_ptr<Function> T = cloneFunction(F, M);
  T->TmaEntryOf = F.Name;
  T->Name += "_tma";
  T->Symbol += "_tma";
  // The matrix's extents as the parameters or constants they are (later passes may copy the
  // locals that hold them).
  Builder B(M, *T);
  forEachStmt(T->Body, [&](const Stmt* S) {
    if (!isIntrinsic(S, IntrinsicOp::AsyncCopyBlock))
      return;
    S->E->Dim = 1;
    for (size_t I : {5, 6, 7})
      S->E->Ops[I] = B.shallowCopy(launchValue(*T, S->E->Ops[I]));
  });
  M.Functions.push_back(std::move(T));
}

void TmaBlockCopies::lower(Module& M, Function& F) {
  if (F.TmaEntryOf.empty())
    return;
  Lowering(M, F).run();
}

} // namespace cajeta::kir
