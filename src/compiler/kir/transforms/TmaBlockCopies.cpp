// Block copies through the tensor memory accelerator (TmaBlockCopies.h).
#include "compiler/kir/transforms/TmaBlockCopies.h"

#include "compiler/kir/Builder.h"
#include "compiler/kir/Clone.h"
#include "compiler/kir/GroupUniformity.h"
#include "compiler/kir/KnownMultiple.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/AsyncBlockCopyLowering.h"

#include <algorithm>
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
  GroupUniformity U(F, &M);
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

/// How a block copy goes as one box of a tensor map, given its array's layout.
struct BoxPlan {
  bundle::TensorMapRecipe Map;
  uint32_t Align = 0;     // bytes the destination must be a multiple of
  uint32_t AtomCols = 0;  // Two/FourAtomRows: the block's first column must be a multiple of this
  uint32_t BlockRows = 1; // and its first row one of this (8, or 16 for PairedRows)
};

bool planBox(const Function& F, const Expr* E, BoxPlan& P) {
  const SharedArray& A = F.SharedArrays[E->Ops[0]->Index];
  const uint32_t Size = bundle::scalarTypeSize(A.Elem), Rows = E->Index;
  const uint32_t Cols = uint32_t(E->Ops[8]->IntValue), RowBytes = Cols * Size;
  for (size_t I : {5, 6, 7})
    if (E->Ops[I]->K != Expr::Kind::Param && E->Ops[I]->K != Expr::Kind::Const)
      return false;
  bundle::TensorMapRecipe& Map = P.Map;
  Map.BufferParam = E->Ops[2]->Index;
  Map.Height = extentOf(E->Ops[5]);
  Map.Width = extentOf(E->Ops[6]);
  Map.Stride = extentOf(E->Ops[7]);
  Map.ElemBytes = Size;
  Map.Swizzle128 = A.Swizzle128;
  Map.BoxCols = Cols;
  Map.BoxRows = Rows;
  if (!A.Swizzle128) {
    // Rows one after another, the 16-byte multiples the accelerator writes.
    P.Align = 128;
    return RowBytes % 16 == 0;
  }
  P.Align = 1024u * A.RowAtoms;
  if (A.RowAtoms == 1)
    return RowBytes == 128;
  // Blocks of 8 array rows of two or four atoms stored atom by atom, filled by one box of a 4D
  // view: a block of rows as wide as the array's, or of one-atom rows two to an array row of two
  // atoms (an a block beside b's).
  if (A.RowAtoms != 2 && A.RowAtoms != 4)
    return false;
  if (RowBytes == 128u * A.RowAtoms && Rows % 8 == 0) {
    Map.Blocks = A.RowAtoms == 2 ? bundle::TensorMapRecipe::TwoAtomRows
                                 : bundle::TensorMapRecipe::FourAtomRows;
    Map.BoxCols = P.AtomCols = 128 / Size;
    P.BlockRows = 8;
    return true;
  }
  if (A.RowAtoms == 2 && RowBytes == 128 && Rows % 16 == 0) {
    Map.Blocks = bundle::TensorMapRecipe::PairedRows;
    P.BlockRows = 16;
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
         A.BoxRows == B.BoxRows && A.Swizzle128 == B.Swizzle128 && A.Blocks == B.Blocks;
}

class Lowering {
public:
  Lowering(Module& M, Function& F) : F(F), B(M, F), Known(F) {}

  /// Empty barriers arrived at once a wave, unless CAJETA_GPU_TMA_WAVE_ARRIVALS=0 (once a
  /// work-item, to compare).
  const bool WaveArrivals = [] {
    const char* V = std::getenv("CAJETA_GPU_TMA_WAVE_ARRIVALS");
    return !V || std::string(V) != "0";
  }();

  void run() {
    // Only copies with a box form make the entry worth having.
    bool Any = false;
    forEachStmt(F.Body, [&](const Stmt* S) {
      BoxPlan P;
      Any |= isIntrinsic(S, IntrinsicOp::AsyncCopyBlock) && S->E->Dim == 1 && planBox(F, S->E, P);
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
    // An empty barrier counts the group's waves (32 work-items on sm_90a, the last one
    // partial): drain() arrives once a wave.
    auto Waves = [&] {
      return WaveArrivals
                 ? B.bin(BinaryOp::Div, B.bin(BinaryOp::Add, Group(), B.u32(31)), B.u32(32))
                 : Group();
    };
    for (uint32_t S = 0; S < 2 * TmaBlockCopies::Slots; ++S)
      Init.push_back(B.eval(B.intrinsic(
          IntrinsicOp::MbarrierInit, Type::voidTy(),
          {B.sharedRef(Bars), B.u32(S), S < TmaBlockCopies::Slots ? B.u32(1) : Waves()})));
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
    return rewriteStmts(S, [&](Stmt* X) -> Stmt* {
      if (isIntrinsic(X, IntrinsicOp::AsyncCopyBlock) && X->E->Dim == 1)
        return copy(X->E);
      if (isIntrinsic(X, IntrinsicOp::AsyncCommit)) {
        B.setLoc(X->Loc);
        std::vector<Stmt*> Out = {X};
        for (Stmt* C : closeGroup(/*ReuseSlot=*/true))
          Out.push_back(C);
        return B.block(Out);
      }
      if (isIntrinsic(X, IntrinsicOp::AsyncWait)) {
        // Every group but the youngest n: the chunks' (cp.async) and the accelerator's.
        B.setLoc(X->Loc);
        Expr* Behind =
            B.bin(BinaryOp::Lt, B.bin(BinaryOp::Add, B.l(Waited), B.u32(X->E->Index)), B.l(Issued));
        return B.block({X, drain(Behind)});
      }
      return nullptr;
    });
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
    // Once a wave: a group-wide arrival was 32 shared-memory atomics a warp in a row.
    Expr* Arrive = B.intrinsic(IntrinsicOp::MbarrierArrive, Type::voidTy(),
                               {B.sharedRef(Bars),
                                B.bin(BinaryOp::Add, slot(Waited), B.u32(TmaBlockCopies::Slots)),
                                B.constBool(true)});
    Arrive->Dim = WaveArrivals ? 1 : 0;
    Stmt* Seen = B.eval(Arrive);
    Stmt* Next = B.eval(B.assign(Waited, B.bin(BinaryOp::Add, B.l(Waited), B.u32(1))));
    return B.loop(Cond, B.block({Wait, Seen, Next}));
  }

  /// A block copy: its boxes by work-item 0 where its destination is aligned for them, else
  /// the chunks.
  Stmt* copy(Expr* E) {
    B.setLoc(E->Loc);
    const Type U32 = Type::scalar(ScalarType::U32);
    BoxPlan P;
    if (!planBox(F, E, P)) {
      E->Dim = 0;
      return AsyncBlockCopyLowering::lowerBlock(B, E);
    }
    uint32_t Map = 0;
    while (Map < F.TensorMaps.size() && !sameMap(F.TensorMaps[Map], P.Map))
      ++Map;
    if (Map == F.TensorMaps.size())
      F.TensorMaps.push_back(P.Map);
    // The operands once (each is read by both forms).
    const uint32_t Dst = B.local("tma.dst", U32), Row = B.local("tma.row", U32),
                   Col = B.local("tma.col", U32);
    std::vector<Stmt*> Out = {B.eval(B.assign(Dst, E->Ops[1])), B.eval(B.assign(Row, E->Ops[3])),
                              B.eval(B.assign(Col, E->Ops[4]))};
    const uint32_t Size = bundle::scalarTypeSize(E->Ops[0]->Ty.Elem);
    auto Div = [&](uint32_t L, uint32_t By) { return B.bin(BinaryOp::Div, B.l(L), B.u32(By)); };
    std::vector<Expr*> Coords; // the box's first element in the map's view
    switch (P.Map.Blocks) {
    case bundle::TensorMapRecipe::TwoAtomRows: // {column in the atom, row, atom, block}
    case bundle::TensorMapRecipe::FourAtomRows:
      Coords = {B.u32(0), B.u32(0), Div(Col, P.AtomCols), Div(Row, 8)};
      break;
    case bundle::TensorMapRecipe::PairedRows: // {column, pair, row of the pair, block}
      Coords = {B.l(Col), B.u32(0), B.u32(0), Div(Row, 16)};
      break;
    default:
      Coords = {B.l(Col), B.l(Row)};
    }
    std::vector<Expr*> Ops = {B.shallowCopy(E->Ops[0]), B.l(Dst), B.sharedRef(Bars), slot(Issued),
                              firstItem()};
    Ops.insert(Ops.end(), Coords.begin(), Coords.end());
    Expr* Load = B.intrinsic(IntrinsicOp::TmaLoad, Type::voidTy(), Ops, uint8_t(Map));
    const bool AtomRows = P.Map.Blocks == bundle::TensorMapRecipe::TwoAtomRows ||
                          P.Map.Blocks == bundle::TensorMapRecipe::FourAtomRows;
    Load->Index = P.Map.BoxCols * P.Map.BoxRows * Size *
                  (AtomRows ? bundle::TensorMapRecipe::boxAtoms(P.Map.Blocks) : 1);
    F.SharedArrays[E->Ops[0]->Index].BulkCopied = true;
    // Where the box lands: its destination aligned, and a 4D view's block at whole atoms and
    // blocks of the matrix.
    auto Multiple = [&](Expr* V, uint32_t Of) {
      return B.bin(BinaryOp::Eq, B.bin(BinaryOp::Rem, V, B.u32(Of)), B.u32(0));
    };
    // What the operands' form proves is not tested; where it proves all, no chunks are made
    // (the later compiler may not see through a loop's locals, and the fallback costs
    // registers in the loop).
    Expr* Aligned = nullptr;
    auto Require = [&](const Expr* Operand, uint32_t Local, uint32_t Scale, uint32_t Of) {
      if (Of <= 1 || Known.of(Operand) * Scale % Of == 0)
        return;
      Expr* Test =
          Multiple(Scale == 1 ? B.l(Local) : B.bin(BinaryOp::Mul, B.l(Local), B.u32(Scale)), Of);
      Aligned = Aligned ? B.bin(BinaryOp::LogicalAnd, Aligned, Test) : Test;
    };
    Require(E->Ops[1], Dst, Size, P.Align);
    Require(E->Ops[3], Row, 1, P.BlockRows);
    Require(E->Ops[4], Col, 1, P.AtomCols);
    if (!Aligned) {
      Out.push_back(B.eval(Load));
      return B.block(Out);
    }
    Expr* Chunks =
        B.intrinsic(IntrinsicOp::AsyncCopyBlock, Type::voidTy(),
                    {B.shallowCopy(E->Ops[0]), B.l(Dst), B.shallowCopy(E->Ops[2]), B.l(Row),
                     B.l(Col), B.shallowCopy(E->Ops[5]), B.shallowCopy(E->Ops[6]),
                     B.shallowCopy(E->Ops[7]), B.shallowCopy(E->Ops[8])});
    Chunks->Index = E->Index;
    Out.push_back(B.ifThen(Aligned, B.eval(Load), AsyncBlockCopyLowering::lowerBlock(B, Chunks)));
    return B.block(Out);
  }

  Function& F;
  Builder B;
  const KnownMultiple Known; // of F as it came (its copies' operands)
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
