// The b tiles the sm_90a tier reads from shared memory (WgmmaOperands.h).
#include "compiler/kir/transforms/WgmmaOperands.h"

#include "compiler/kir/GroupUniformity.h"
#include "compiler/kir/Walk.h"

#include <algorithm>

namespace cajeta::kir {

using tiles::Role;

namespace {

/// The rows of a b tile's swizzle atom: 128 bytes of 16-bit elements. A 16-bit b tile is one atom
/// wide or two (wgmma's n = 64 or 128), its rows as wide as the tile.
constexpr uint64_t RowElements = 64;
/// An 8-bit b tile is read K-major (wgmma takes no other for 8-bit inputs): loaded column by
/// column, each of its columns a row of the array one atom (128 bytes of K) long.
constexpr uint64_t KMajorRow = 128;

bool eightBit(ScalarType T) {
  return T == ScalarType::I8 || T == ScalarType::U8;
}

bool isConst(const Expr* E, uint64_t V) {
  return E && E->K == Expr::Kind::Const && uint64_t(E->IntValue) == V;
}

const Expr* tileOpOf(const Stmt* S) {
  return S && S->K == Stmt::Kind::Eval && S->E && S->E->K == Expr::Kind::Tile ? S->E : nullptr;
}

class Finder {
public:
  Finder(const Function& F, const std::map<uint32_t, Role>& Roles, unsigned MaxAtoms)
      : F(F), Roles(Roles), MaxAtoms(std::min(MaxAtoms, 2u)), Uniform(F) {}

  WgmmaOperands run() {
    WgmmaOperands Out;
    for (const auto& [L, R] : Roles)
      if (R == Role::B && shapeFits(F.Locals[L].Ty))
        Candidates[L] = UINT32_MAX; // its array, once a load names one
    bool Leaves = false;
    forEachStmt(F.Body, [&](const Stmt* S) {
      Leaves |= S->K == Stmt::Kind::Return || S->K == Stmt::Kind::Break;
    });
    if (Leaves)
      return Out;
    forEachExprIn(F.Body, [&](const Expr* E) { checkUse(E); });
    walk(F.Body, true);
    // An array passed to a function keeps its layout: its tiles stay in registers.
    forEachExprIn(F.Body, [&](const Expr* E) {
      if (E->K != Expr::Kind::Call && E->K != Expr::Kind::Dispatch)
        return;
      for (const Expr* O : E->Ops)
        if (O->K == Expr::Kind::SharedRef)
          for (auto& [L, Array] : Candidates)
            if (Array == O->Index)
              Array = UINT32_MAX - 1;
    });
    // An array's rows are one width: the tiles of a width other than its first lose it.
    std::map<uint32_t, uint32_t> Atoms;
    for (auto& [L, Array] : Candidates)
      if (Array < F.SharedArrays.size() &&
          Atoms.emplace(Array, rowAtoms(L)).first->second != rowAtoms(L))
        Array = UINT32_MAX - 1;
    for (const auto& [L, Array] : Candidates)
      if (Array < F.SharedArrays.size()) {
        Out.Tiles.insert(L);
        Out.Arrays[Array] = uint8_t(rowAtoms(L));
      }
    return Out;
  }

private:
  /// 16-bit: rows of 64 or 128 columns, 16 deep steps. 8-bit (K-major): 32 deep steps within
  /// one atom's 128 bytes of K, n a multiple of 16 up to 256 (wgmma's m64nNk32).
  bool shapeFits(Type T) const {
    if (eightBit(T.Elem))
      return T.Rows % 32 == 0 && T.Rows > 0 && T.Rows <= KMajorRow && T.Cols % 16 == 0 &&
             T.Cols > 0 && T.Cols <= 256;
    return (T.Elem == ScalarType::F16 || T.Elem == ScalarType::BF16) && T.Cols % RowElements == 0 &&
           T.Cols / RowElements >= 1 && T.Cols / RowElements <= MaxAtoms && T.Rows % 16 == 0 &&
           T.Rows > 0;
  }
  /// The 128-byte atoms of each row of candidate L's array.
  uint32_t rowAtoms(uint32_t L) const {
    const Type T = F.Locals[L].Ty;
    return eightBit(T.Elem) ? 1 : uint32_t(T.Cols / RowElements);
  }
  void drop(uint32_t L) { Candidates.erase(L); }

  /// Every tile op that touches a candidate: only whole uniform loads from one shared array
  /// (16-bit: row-major, as wide as the rows; 8-bit: column-major from rows of one atom), and
  /// macs into float32 (16-bit) or int32 (8-bit) that read it as b.
  void checkUse(const Expr* E) {
    if (E->K != Expr::Kind::Tile)
      return;
    const uint32_t T = E->Index;
    if (E->TOp == TileOp::Mac) {
      const uint32_t Bt = E->Ops[1]->Index;
      const ScalarType Acc = eightBit(F.Locals[Bt].Ty.Elem) ? ScalarType::I32 : ScalarType::F32;
      if (Candidates.count(Bt) && F.Locals[T].Ty.Elem != Acc)
        drop(Bt);
      return;
    }
    for (const Expr* O : E->Ops) // add / convertFrom read the other tile element by element
      if (O->K == Expr::Kind::Local)
        drop(O->Index);
    auto It = Candidates.find(T);
    if (It == Candidates.end())
      return;
    const Type Ty = F.Locals[T].Ty;
    const bool KMajor = eightBit(Ty.Elem);
    if (E->TOp != TileOp::Load || E->Dim != (KMajor ? 1u : 0u) ||
        E->Ops[0]->K != Expr::Kind::SharedRef ||
        !isConst(E->Ops[2], KMajor ? KMajorRow : Ty.Cols) || !isConst(E->Ops[3], Ty.Rows) ||
        !isConst(E->Ops[4], Ty.Cols) || !Uniform.isUniform(E->Ops[1]) ||
        (It->second != UINT32_MAX && It->second != E->Ops[0]->Index))
      return drop(T);
    It->second = E->Ops[0]->Index;
  }

  /// Whether S may change shared array A, or let another wave change it, or leave the block.
  bool mayChange(const Stmt* S, uint32_t A) const {
    if (S->K != Stmt::Kind::Eval)
      return true; // a barrier, a branch, a loop: not a straight line
    bool Changes = false;
    forEachExpr(S->E, [&](const Expr* E) {
      const bool Writes = E->K == Expr::Kind::Store || E->K == Expr::Kind::Atomic ||
                          (E->K == Expr::Kind::Tile && E->TOp == TileOp::Store) ||
                          (E->K == Expr::Kind::Intrinsic &&
                           (E->IOp == IntrinsicOp::AsyncCopy || E->IOp == IntrinsicOp::StoreWords));
      Changes |= E->K == Expr::Kind::Call || E->K == Expr::Kind::Dispatch ||
                 (Writes && !E->Ops.empty() && E->Ops[0]->K == Expr::Kind::SharedRef &&
                  E->Ops[0]->Index == A);
    });
    return Changes;
  }

  /// Each mac reading a candidate: under uniform control, after a load of it in its block with
  /// nothing between that may change the array.
  void walk(const Stmt* S, bool UniformControl) {
    if (!S)
      return;
    switch (S->K) {
    case Stmt::Kind::Block:
      for (size_t I = 0; I < S->Body.size(); ++I) {
        const Expr* E = tileOpOf(S->Body[I]);
        if (E && E->TOp == TileOp::Mac)
          checkMac(S->Body, I, E->Ops[1]->Index, UniformControl);
        walk(S->Body[I], UniformControl);
      }
      return;
    case Stmt::Kind::If:
      walk(S->Then, UniformControl && Uniform.isUniform(S->E));
      walk(S->Else, UniformControl && Uniform.isUniform(S->E));
      return;
    case Stmt::Kind::Loop:
      walk(S->LoopBody, UniformControl && Uniform.isUniformLoop(S));
      walk(S->Step, UniformControl && Uniform.isUniformLoop(S));
      return;
    default:
      for (const Stmt* C : S->Body)
        walk(C, false);
      walk(S->Then, false);
      walk(S->Else, false);
      return;
    }
  }

  void checkMac(const std::vector<Stmt*>& Block, size_t At, uint32_t Bt, bool UniformControl) {
    auto It = Candidates.find(Bt);
    if (It == Candidates.end())
      return;
    if (!UniformControl || It->second == UINT32_MAX)
      return drop(Bt);
    for (size_t I = At; I-- > 0;) {
      const Expr* E = tileOpOf(Block[I]);
      if (E && E->TOp == TileOp::Load && E->Index == Bt)
        return; // the load it reads
      if (mayChange(Block[I], It->second))
        return drop(Bt);
    }
    drop(Bt); // no load of it before the mac in its block
  }

  const Function& F;
  const std::map<uint32_t, Role>& Roles;
  const unsigned MaxAtoms;
  GroupUniformity Uniform;
  std::map<uint32_t, uint32_t> Candidates; // tile local -> its shared array
};

} // namespace

WgmmaOperands WgmmaOperands::find(const Function& F, const std::map<uint32_t, Role>& Roles,
                                  unsigned MaxAtoms) {
  return Finder(F, Roles, MaxAtoms).run();
}

} // namespace cajeta::kir
