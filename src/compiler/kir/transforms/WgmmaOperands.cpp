// The b tiles the sm_90a tier reads from shared memory (WgmmaOperands.h).
#include "compiler/kir/transforms/WgmmaOperands.h"

#include "compiler/kir/GroupUniformity.h"
#include "compiler/kir/RangeDisjointness.h"
#include "compiler/kir/Walk.h"

#include <algorithm>
#include <optional>

namespace cajeta::kir {

using tiles::Role;

namespace {

/// The rows of a b tile's swizzle atom: 128 bytes of 16-bit elements. A 16-bit b tile is one atom
/// wide or two (wgmma's n = 64 or 128), its rows as wide as the tile.
constexpr uint64_t RowElements = 64;
/// An 8-bit b tile is read K-major (wgmma takes no other for 8-bit inputs): loaded column by
/// column, each of its columns a row of the array one atom (128 bytes of K) long.
constexpr uint64_t KMajorRow = 128;
/// An a tile read from shared memory is one wave's 16 rows of a warpgroup's 64-row block.
constexpr uint64_t ARows = 16;

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
      : F(F), Roles(Roles), MaxAtoms(std::min(MaxAtoms, 4u)), Uniform(F), Defs(F) {}

  WgmmaOperands run() {
    WgmmaOperands Out;
    for (const auto& [L, R] : Roles) {
      if (R == Role::B && shapeFits(F.Locals[L].Ty))
        Candidates[L] = UINT32_MAX; // its array, once a load names one
      if (R == Role::A && aShapeFits(F.Locals[L].Ty))
        ACandidates[L] = UINT32_MAX;
    }
    bool Leaves = false;
    forEachStmt(F.Body, [&](const Stmt* S) {
      Leaves |= S->K == Stmt::Kind::Return || S->K == Stmt::Kind::Break;
    });
    if (Leaves)
      return Out;
    forEachExprIn(F.Body, [&](const Expr* E) { checkUse(E); });
    walk(F.Body, true);
    // An array passed to a function keeps its layout: its tiles stay in registers.
    std::set<uint32_t> Passed;
    forEachExprIn(F.Body, [&](const Expr* E) {
      if (E->K == Expr::Kind::Call || E->K == Expr::Kind::Dispatch)
        for (const Expr* O : E->Ops)
          if (O->K == Expr::Kind::SharedRef)
            Passed.insert(O->Index);
    });
    for (auto& [L, Array] : Candidates)
      if (Passed.count(Array))
        Array = UINT32_MAX - 1;
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
    // a tiles: each of their macs' b read from shared memory too, their rows as wide as the
    // array's.
    for (const auto& [L, Array] : ACandidates) {
      if (Array >= F.SharedArrays.size() || Passed.count(Array))
        continue;
      bool Ok = !AMacs[L].empty();
      for (uint32_t Bt : AMacs[L])
        Ok &= Out.Tiles.count(Bt) != 0;
      const uint32_t Atoms =
          uint32_t(AStride.at(L) * bundle::scalarTypeSize(F.Locals[L].Ty.Elem) / 128);
      auto It = Out.Arrays.find(Array);
      if (!Ok || (It != Out.Arrays.end() && It->second != Atoms))
        continue;
      Out.ATiles.insert(L);
      Out.Arrays[Array] = uint8_t(Atoms);
    }
    return Out;
  }

private:
  /// 16-bit: rows of 64, 128 or 256 columns (1, 2 or 4 atoms: a swizzle block's rows are a power
  /// of two atoms), 16 deep steps. 8-bit (K-major): 32 deep steps within one atom's 128 bytes of
  /// K, n a multiple of 16 up to 256 (wgmma's m64nNk32).
  bool shapeFits(Type T) const {
    if (eightBit(T.Elem))
      return T.Rows % 32 == 0 && T.Rows > 0 && T.Rows <= KMajorRow && T.Cols % 16 == 0 &&
             T.Cols > 0 && T.Cols <= 256;
    const uint64_t Atoms = T.Cols / RowElements;
    return (T.Elem == ScalarType::F16 || T.Elem == ScalarType::BF16) && T.Cols % RowElements == 0 &&
           (Atoms == 1 || Atoms == 2 || Atoms == 4) && Atoms <= MaxAtoms && T.Rows % 16 == 0 &&
           T.Rows > 0;
  }
  /// The 128-byte atoms of each row of candidate L's array.
  uint32_t rowAtoms(uint32_t L) const {
    const Type T = F.Locals[L].Ty;
    return eightBit(T.Elem) ? 1 : uint32_t(T.Cols / RowElements);
  }
  /// a: one wave's 16 rows, at most one atom of K in whole steps (16-bit: k16, 8-bit: k32).
  bool aShapeFits(Type T) const {
    const bool Bytes = eightBit(T.Elem);
    if (!Bytes && T.Elem != ScalarType::F16 && T.Elem != ScalarType::BF16)
      return false;
    const uint64_t Step = Bytes ? 32 : 16;
    return T.Rows == ARows && T.Cols % Step == 0 && T.Cols > 0 &&
           T.Cols * bundle::scalarTypeSize(T.Elem) <= 128;
  }
  void drop(uint32_t L) {
    Candidates.erase(L);
    ACandidates.erase(L);
  }

  /// Every tile op that touches a candidate: only whole uniform loads from one shared array
  /// (16-bit: row-major, as wide as the rows; 8-bit: column-major from rows of one atom), and
  /// macs into float32 (16-bit) or int32 (8-bit) that read it as b.
  void checkUse(const Expr* E) {
    if (E->K != Expr::Kind::Tile)
      return;
    const uint32_t T = E->Index;
    if (E->TOp == TileOp::Mac) {
      const uint32_t At = E->Ops[0]->Index, Bt = E->Ops[1]->Index;
      const ScalarType Acc = eightBit(F.Locals[Bt].Ty.Elem) ? ScalarType::I32 : ScalarType::F32;
      if (Candidates.count(Bt) && F.Locals[T].Ty.Elem != Acc)
        drop(Bt);
      if (ACandidates.count(At)) {
        if (F.Locals[At].Ty.Elem != F.Locals[Bt].Ty.Elem)
          drop(At);
        else
          AMacs[At].insert(Bt);
      }
      return;
    }
    for (const Expr* O : E->Ops) // add / convertFrom read the other tile element by element
      if (O->K == Expr::Kind::Local)
        drop(O->Index);
    if (ACandidates.count(T))
      return checkALoad(E);
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

  /// An a candidate's load: whole, row-major, from one shared array in rows of its stride (one
  /// or two atoms for 16-bit, one for 8-bit), always the same stride. Its offset is checked where
  /// the macs find the load (checkMac).
  void checkALoad(const Expr* E) {
    const uint32_t T = E->Index;
    const Type Ty = F.Locals[T].Ty;
    const Expr* Stride = E->Ops[2];
    const uint64_t RowBytes = Stride->K == Expr::Kind::Const
                                  ? uint64_t(Stride->IntValue) * bundle::scalarTypeSize(Ty.Elem)
                                  : 0;
    const bool Width =
        eightBit(Ty.Elem)
            ? RowBytes == 128
            : (RowBytes == 128 || RowBytes == 256 || RowBytes == 512) && RowBytes / 128 <= MaxAtoms;
    uint32_t& Array = ACandidates[T];
    if (E->TOp != TileOp::Load || E->Dim != 0 || E->Ops[0]->K != Expr::Kind::SharedRef || !Width ||
        !isConst(E->Ops[3], Ty.Rows) || !isConst(E->Ops[4], Ty.Cols) ||
        (Array != UINT32_MAX && Array != E->Ops[0]->Index) ||
        (AStride.count(T) && AStride[T] != uint64_t(Stride->IntValue)))
      return drop(T);
    Array = E->Ops[0]->Index;
    AStride[T] = uint64_t(Stride->IntValue);
  }

  /// E as u + Slope * (x / width) modulo 2^32, u uniform across the group and x the work-item's
  /// x index, where statement At evaluates it: the Slope, or nothing where E is not of that form.
  std::optional<uint32_t> waveSlope(const Expr* E, const Stmt* At, unsigned Depth = 0) const {
    if (Depth > 32 || !E->Ty.isScalar() || E->Ty.Elem != ScalarType::U32)
      return std::nullopt;
    if (Uniform.isUniform(E))
      return 0u;
    if (E->K == Expr::Kind::Local) {
      const Expr* D = Defs.definitionAt(E->Index, At);
      return D ? waveSlope(D, At, Depth + 1) : std::nullopt;
    }
    if (isWaveIndex(E, At))
      return 1u;
    if (E->K != Expr::Kind::Binary)
      return std::nullopt;
    auto X = waveSlope(E->Ops[0], At, Depth + 1), Y = waveSlope(E->Ops[1], At, Depth + 1);
    if (!X || !Y)
      return std::nullopt;
    auto Constant = [&](const Expr* O) -> std::optional<uint32_t> {
      O = resolve(O, At);
      if (O->K == Expr::Kind::Const)
        return uint32_t(O->IntValue);
      return std::nullopt;
    };
    switch (E->BOp) {
    case BinaryOp::Add:
      return *X + *Y;
    case BinaryOp::Sub:
      return *X - *Y;
    case BinaryOp::Mul:
      if (!*X && !*Y)
        return 0u;
      if (auto C = Constant(E->Ops[1]); C && !*Y)
        return *X * *C;
      if (auto C = Constant(E->Ops[0]); C && !*X)
        return *Y * *C;
      return std::nullopt;
    case BinaryOp::Shl:
      if (auto C = Constant(E->Ops[1]); C && !*Y && *C < 32)
        return *X << *C;
      return std::nullopt;
    default:
      // Other operations of uniform values are uniform.
      return !*X && !*Y ? std::optional<uint32_t>(0u) : std::nullopt;
    }
  }
  /// E through the definitions of the locals it is (at statement At).
  const Expr* resolve(const Expr* E, const Stmt* At) const {
    for (unsigned I = 0; I < 32 && E->K == Expr::Kind::Local; ++I) {
      const Expr* D = Defs.definitionAt(E->Index, At);
      if (!D)
        break;
      E = D;
    }
    return E;
  }
  /// Whether E is the work-item's wave along x: x / width (or x >> 5; the width is 32 where
  /// wgmma exists).
  bool isWaveIndex(const Expr* E, const Stmt* At) const {
    if (E->K != Expr::Kind::Binary)
      return false;
    const Expr* X = resolve(E->Ops[0], At);
    const Expr* W = resolve(E->Ops[1], At);
    const bool ByWidth = E->BOp == BinaryOp::Div &&
                         (isConst(W, 32) || (W->K == Expr::Kind::Wave && W->WOp == WaveOp::Width));
    const bool Shift = (E->BOp == BinaryOp::Shr || E->BOp == BinaryOp::UShr) && isConst(W, 5);
    return (ByWidth || Shift) && X->K == Expr::Kind::Intrinsic && X->IOp == IntrinsicOp::LocalId &&
           X->Dim == 0;
  }

  /// Whether S may change shared array A, or let another wave change it, or leave the block.
  bool mayChange(const Stmt* S, uint32_t A) const {
    if (S->K != Stmt::Kind::Eval)
      return true; // a barrier, a branch, a loop: not a straight line
    bool Changes = false;
    forEachExpr(S->E, [&](const Expr* E) {
      const bool Writes =
          E->K == Expr::Kind::Store || E->K == Expr::Kind::Atomic ||
          (E->K == Expr::Kind::Tile && E->TOp == TileOp::Store) ||
          (E->K == Expr::Kind::Intrinsic &&
           (E->IOp == IntrinsicOp::AsyncCopy || E->IOp == IntrinsicOp::AsyncCopyBlock ||
            E->IOp == IntrinsicOp::StoreWords));
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
        if (E && E->TOp == TileOp::Mac) {
          checkMac(S->Body, I, E->Ops[1]->Index, UniformControl, Candidates);
          checkMac(S->Body, I, E->Ops[0]->Index, UniformControl, ACandidates);
          continue;
        }
        walk(S->Body[I], UniformControl);
      }
      return;
    case Stmt::Kind::Eval:
      // A mac outside a block (the one statement of an arm): no load of its operands before it
      // in its block.
      if (const Expr* E = tileOpOf(S); E && E->TOp == TileOp::Mac) {
        drop(E->Ops[0]->Index);
        drop(E->Ops[1]->Index);
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

  /// Tile T (a candidate of Of) read by the mac at Block[At]. An a tile's load also puts each
  /// wave's rows 16 rows after the previous wave's.
  void checkMac(const std::vector<Stmt*>& Block, size_t At, uint32_t T, bool UniformControl,
                std::map<uint32_t, uint32_t>& Of) {
    auto It = Of.find(T);
    if (It == Of.end())
      return;
    if (!UniformControl || It->second == UINT32_MAX)
      return drop(T);
    for (size_t I = At; I-- > 0;) {
      const Expr* E = tileOpOf(Block[I]);
      if (E && E->TOp == TileOp::Load && E->Index == T) { // the load it reads
        if (&Of == &ACandidates && waveSlope(E->Ops[1], Block[I]) != uint32_t(ARows * AStride[T]))
          drop(T);
        return;
      }
      if (mayChange(Block[I], It->second))
        return drop(T);
    }
    drop(T); // no load of it before the mac in its block
  }

  const Function& F;
  const std::map<uint32_t, Role>& Roles;
  const unsigned MaxAtoms;
  GroupUniformity Uniform;
  RangeDisjointness Defs;                       // the locals' definitions
  std::map<uint32_t, uint32_t> Candidates;      // b tile local -> its shared array
  std::map<uint32_t, uint32_t> ACandidates;     // a tile local -> its shared array
  std::map<uint32_t, uint64_t> AStride;         // a tile local -> its loads' stride
  std::map<uint32_t, std::set<uint32_t>> AMacs; // a tile local -> the b tiles it meets
};

} // namespace

WgmmaOperands WgmmaOperands::find(const Function& F, const std::map<uint32_t, Role>& Roles,
                                  unsigned MaxAtoms) {
  return Finder(F, Roles, MaxAtoms).run();
}

} // namespace cajeta::kir
