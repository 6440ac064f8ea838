// Tiles to plain KIR (TileLowering.h): the portable shared-memory tile, the mma.sync register
// fragments and the cooperative-matrix fragments. The fragment shapes are TileFragments', the
// tiers' rules TileTierRules'.
#include "compiler/kir/transforms/TileLowering.h"

#include "compiler/kir/Builder.h"
#include "compiler/kir/Clone.h"
#include "compiler/kir/GroupUniformity.h"
#include "compiler/kir/KnownMultiple.h"
#include "compiler/kir/RangeDisjointness.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/TileFragments.h"
#include "compiler/kir/transforms/TileTierRules.h"
#include "compiler/kir/transforms/WgmmaOperands.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

namespace cajeta::kir {

using namespace tiles;

namespace {

Type u32Ty() {
  return Type::scalar(ScalarType::U32);
}

// ---- the rewriter ----------------------------------------------------------------------------

class Lowerer {
public:
  Lowerer(Module& M, Function& F, const TileLoweringConfig& C)
      : M(M), F(F), C(C), B(M, F), Known(F) {}

  bool doesNotFit() const { return DoesNotFit; }

  bool run(std::string& Error) {
    if (portable() && C.ScratchSizedAtLaunch) {
      Waves = 1; // per wave: SharedArray::PerWave
    } else if (portable()) {
      uint64_t Own = 0;
      for (const SharedArray& S : F.SharedArrays)
        Own += uint64_t(S.Count) * bundle::scalarTypeSize(S.Elem);
      uint32_t PerWave = TileLowering::portableBytesPerWave(F);
      uint64_t Left = C.SharedBudget > Own ? C.SharedBudget - Own : 0;
      Waves = uint32_t(std::min<uint64_t>(C.MaxWaves, Left / PerWave));
      if (Waves == 0) {
        DoesNotFit = true;
        Error = "kernel '" + F.Name + "': its tiles take " + std::to_string(PerWave) +
                " bytes of shared memory per wave in the portable tier, and only " +
                std::to_string(Left) + " of the target's " + std::to_string(C.SharedBudget) +
                " bytes are left beside its own shared arrays; use smaller tiles";
        return false;
      }
      F.TileWaves = Waves;
    }
    if (C.F == TileLoweringConfig::Form::CoopMatrix && !C.ScratchSizedAtLaunch) {
      Error = "internal error: the cooperative-matrix tiles need per-wave scratch sized at launch";
      return false;
    }
    if (!portable()) {
      std::string Why;
      if (!inferRoles(F, Roles, Why)) {
        Error = "tile lowering of '" + F.Name + "': " + Why;
        return false;
      }
    }
    if (C.F == TileLoweringConfig::Form::MmaSync && C.Wgmma) {
      Wgmma = WgmmaOperands::find(F, Roles, C.WgmmaMaxAtoms);
      for (const auto& [A, Atoms] : Wgmma.Arrays) {
        F.SharedArrays[A].Swizzle128 = true;
        F.SharedArrays[A].RowAtoms = Atoms;
      }
    }
    B.setLoc(F.Loc);
    std::vector<Stmt*> Prologue = prologue();
    if (!Wgmma.Tiles.empty()) {
      // Two versions of the body, chosen once: groups of whole warpgroups issue wgmma (a
      // straight line of products and one wait, which ptxas pipelines: a wait it cannot prove
      // taken, or mma.sync on the same registers beside, makes it serialize every product);
      // other groups take mma.sync throughout.
      Stmt* Plain = cloneStmt(F.Body, M);
      freshLoopIds(Plain);
      Ranges = std::make_unique<RangeDisjointness>(F, 32); // wgmma's waves are 32 wide
      F.Body = rewrite(F.Body);
      noteGroupBound();
      SharedAGroups = !Wgmma.ATiles.empty();
      Wgmma.Tiles.clear();
      Wgmma.ATiles.clear();
      F.Body = B.ifThen(wgmmaGroups(), F.Body, rewrite(Plain));
    } else {
      F.Body = rewrite(F.Body);
    }
    if (!Problem.empty()) {
      Error = "tile lowering of '" + F.Name + "': " + Problem;
      return false;
    }
    Prologue.push_back(F.Body);
    F.Body = B.block(Prologue);
    for (Local& L : F.Locals)
      if (L.Ty.isTile()) {
        L.Ty = u32Ty(); // retired: nothing reads it (indices of the other locals keep)
        L.Name += ".tile";
      }
    return true;
  }

private:
  /// A tile read from shared memory where it is multiplied: its load and the load's memory
  /// arguments (memoryArgs).
  using SharedTile = std::pair<Expr*, std::vector<uint32_t>>;

  bool portable() const { return C.F == TileLoweringConfig::Form::Portable; }
  bool matrices() const { return C.F == TileLoweringConfig::Form::CoopMatrix; }

  /// New loop ids for every loop of S (a copy of statements of F), its breaks and continues
  /// following them.
  void freshLoopIds(Stmt* S) {
    std::map<uint32_t, uint32_t> Ids;
    forEachStmt(S, [&](const Stmt* X) {
      if (X->K == Stmt::Kind::Loop)
        Ids[X->LoopId] = B.newLoopId();
    });
    forEachStmt(S, [&](const Stmt* X) {
      if (X->K == Stmt::Kind::Loop || X->K == Stmt::Kind::Break || X->K == Stmt::Kind::Continue)
        if (auto It = Ids.find(X->LoopId); It != Ids.end())
          const_cast<Stmt*>(X)->LoopId = It->second;
    });
  }

  // Per-kernel values, computed once at entry.
  std::vector<Stmt*> prologue() {
    std::vector<Stmt*> Out;
    auto Def = [&](const char* Name, Expr* V) {
      uint32_t L = B.local(Name, u32Ty());
      Out.push_back(B.eval(B.assign(L, V)));
      return L;
    };
    Expr* Lane = B.wave(WaveOp::LaneId, u32Ty());
    if (portable() || matrices()) {
      // linear = x + dimX * (y + dimY * z); the wave is linear / width.
      Expr* Linear = B.bin(BinaryOp::Add, B.geom(IntrinsicOp::LocalId, 0),
                           B.bin(BinaryOp::Mul, B.geom(IntrinsicOp::GroupDim, 0),
                                 B.bin(BinaryOp::Add, B.geom(IntrinsicOp::LocalId, 1),
                                       B.bin(BinaryOp::Mul, B.geom(IntrinsicOp::GroupDim, 1),
                                             B.geom(IntrinsicOp::LocalId, 2)))));
      LaneLocal = Def("tile.lane", Lane);
      WidthLocal = Def("tile.width", B.wave(WaveOp::Width, u32Ty()));
      WaveLocal = Def("tile.wave", B.bin(BinaryOp::Div, Linear, B.l(WidthLocal)));
      if (matrices()) {
        matrixLocals();
        return Out;
      }
      for (uint32_t L = 0; L < F.Locals.size(); ++L) {
        const Type T = F.Locals[L].Ty;
        if (!T.isTile())
          continue;
        Scratch[L] = B.shared(F.Locals[L].Name + ".tile", T.Elem, T.Rows * T.Cols * Waves);
        F.SharedArrays[Scratch[L]].PerWave = C.ScratchSizedAtLaunch;
      }
    } else {
      LaneLocal = Def("tile.lane", Lane);
      GroupLocal = Def("tile.g", B.bin(BinaryOp::Div, B.l(LaneLocal), B.u32(4)));
      TLocal = Def("tile.t", B.bin(BinaryOp::Rem, B.l(LaneLocal), B.u32(4)));
      TwiceTLocal = Def("tile.2t", B.bin(BinaryOp::Mul, B.l(TLocal), B.u32(2)));
      FourTLocal = Def("tile.4t", B.bin(BinaryOp::Mul, B.l(TLocal), B.u32(4)));
      for (uint32_t L = 0; L < F.Locals.size(); ++L) {
        const Type T = F.Locals[L].Ty;
        if (!T.isTile())
          continue;
        std::vector<uint32_t>& R = Regs[L];
        const uint32_t P = perRegister(L);
        for (uint32_t J = 0; J < T.Rows * T.Cols / (32 * P); ++J)
          R.push_back(B.local(F.Locals[L].Name + ".r" + std::to_string(J),
                              P > 1 ? u32Ty() : Type::scalar(T.Elem)));
      }
    }
    return Out;
  }

  Stmt* rewrite(Stmt* S) {
    if (!S)
      return nullptr;
    if (S->K == Stmt::Kind::Loop && !Wgmma.Tiles.empty() && C.WgmmaAcrossSteps &&
        InFlight.empty() && !CarryingBody)
      if (std::optional<Carried> Carry = carriedProducts(S))
        return rewriteCarrying(S, *Carry);
    if (S->K == Stmt::Kind::Eval && S->E && S->E->K == Expr::Kind::Tile) {
      B.setLoc(S->E->Loc);
      Lowering = S;
      return lower(S->E);
    }
    // Shared memory that wgmma reads (through the asynchronous proxy) is published by a proxy
    // fence in each writer before the barrier that orders it.
    if (S->K == Stmt::Kind::Barrier && !Wgmma.Tiles.empty())
      return B.block({B.eval(B.intrinsic(IntrinsicOp::ProxyFence, Type::voidTy(), {})), S});
    if (S->E)
      forEachExpr(S->E, [&](const Expr* E) {
        if (E->K == Expr::Kind::Tile && Problem.empty())
          Problem = std::string("tile op '") + tileOpName(E->TOp) + "' at " + at(E->Loc) +
                    " is not a statement of its own";
      });
    if (S->K == Stmt::Kind::Block) {
      // wgmma products stay in flight across the statements of their block that neither touch
      // their accumulators nor let shared memory change (WgmmaOperands' macs, other tiles'
      // loads, scalar work); the wait comes before the first statement that might, and at the
      // block's end at the latest.
      std::vector<Stmt*> Out;
      for (Stmt* Child : S->Body) {
        if (!InFlight.empty()) {
          Unproved = {};
          if (!keepsProductsInFlight(Child)) {
            noteCopyWaits(Child);
            Out.push_back(waitForProducts());
          } else {
            if (Uncommitted && branchesAround(Child)) {
              Out.push_back(B.eval(B.intrinsic(IntrinsicOp::WgmmaCommit, Type::voidTy(), {})));
              Uncommitted = false;
            }
            if (Child->K == Stmt::Kind::If) { // no tile in it: nothing to lower
              Out.push_back(Child);
              continue;
            }
          }
        }
        DeferWait = true;
        Out.push_back(rewrite(Child));
        DeferWait = false;
      }
      if (!InFlight.empty())
        Out.push_back(S == CarryingBody ? waitForLastTurn() : waitForProducts());
      S->Body = Out;
      return S;
    }
    DeferWait = false;
    for (Stmt*& Child : S->Body)
      Child = rewrite(Child);
    S->Then = rewrite(S->Then);
    S->Else = rewrite(S->Else);
    S->LoopBody = rewrite(S->LoopBody);
    S->Step = rewrite(S->Step);
    return S;
  }

  /// A load's or store's offset, stride, valid rows and valid columns (operands 1-4 of E), each
  /// evaluated once into a local.
  std::vector<uint32_t> memoryArgs(Expr* E, std::vector<Stmt*>& Out) {
    std::vector<uint32_t> Args;
    for (size_t I = 1; I < 5; ++I)
      Args.push_back(temp(E->Ops[I], Out));
    return Args;
  }

  /// A fresh uint32 local holding V (evaluated once).
  uint32_t temp(Expr* V, std::vector<Stmt*>& Out) {
    uint32_t L = B.local("tile.t", V->Ty);
    Out.push_back(B.eval(B.assign(L, V)));
    return L;
  }

  Stmt* lower(Expr* E) {
    return portable() ? lowerPortable(E) : matrices() ? lowerMatrices(E) : lowerFragments(E);
  }

  /// Whether statement S (of a block, after wgmma products into the InFlight tiles were issued)
  /// leaves them in flight: a load into another tile, a mac that issues more of them, work that
  /// touches no tile and writes no memory and calls nothing, the copies' commits and waits, and
  /// a copy into shared memory that the products do not read (a pipeline's next stage). No
  /// barrier: past one, another wave may write what this wave's products still read (except the
  /// one barrier of a loop whose every turn was proved not to: carriedProducts).
  bool keepsProductsInFlight(const Stmt* S) {
    if (S == CarryingBarrier)
      return true;
    if (S->K == Stmt::Kind::If) // a condition and arms that keep them, with no tile in them
      return quiet(S->E) && keepsProductsInFlightIn(S->Then) && keepsProductsInFlightIn(S->Else);
    if (S->K != Stmt::Kind::Eval || !S->E)
      return false;
    if (S->E->K == Expr::Kind::Intrinsic) {
      if (S->E->IOp == IntrinsicOp::AsyncCommit || S->E->IOp == IntrinsicOp::AsyncWait)
        return true;
      if (S->E->IOp == IntrinsicOp::AsyncCopy || S->E->IOp == IntrinsicOp::AsyncCopyBlock)
        return copyMissesProducts(S);
    }
    if (S->E->K == Expr::Kind::Tile)
      return (S->E->TOp == TileOp::Load && !InFlight.count(S->E->Index) &&
              !InFlightA.count(S->E->Index)) ||
             (S->E->TOp == TileOp::Mac && Wgmma.Tiles.count(S->E->Ops[1]->Index));
    return quiet(S->E);
  }
  /// Whether S, kept with products in flight, may branch (an If; a block copy, a loop of chunks
  /// or a TMA entry's choice of box or chunks; the copies' commit and wait, loops on barriers in
  /// a TMA entry; a helper's call, whose body may branch once inlined): their group is committed
  /// before it.
  static bool branchesAround(const Stmt* S) {
    if (S->K != Stmt::Kind::Eval)
      return true;
    bool Calls = false;
    forEachExpr(S->E, [&](const Expr* E) { Calls |= E->K == Expr::Kind::Call; });
    return Calls ||
           (S->E && S->E->K == Expr::Kind::Intrinsic &&
            (S->E->IOp == IntrinsicOp::AsyncCommit || S->E->IOp == IntrinsicOp::AsyncWait ||
             S->E->IOp == IntrinsicOp::AsyncCopyBlock));
  }
  /// The same for an If's arm (null, a block or one statement), its tile statements excluded.
  bool keepsProductsInFlightIn(const Stmt* S) {
    if (!S)
      return true;
    if (S->K == Stmt::Kind::Block) {
      for (const Stmt* C : S->Body)
        if (!keepsProductsInFlightIn(C))
          return false;
      return true;
    }
    return !(S->K == Stmt::Kind::Eval && S->E && S->E->K == Expr::Kind::Tile) &&
           keepsProductsInFlight(S);
  }
  /// Whether evaluating E touches no tile, writes no memory and calls nothing but helpers whose
  /// value is their arguments' (GroupUniformity::argumentsOnly).
  bool quiet(const Expr* Root) const {
    bool Quiet = true;
    forEachExpr(Root, [&](const Expr* E) {
      Quiet &= E->K != Expr::Kind::Store && E->K != Expr::Kind::Atomic &&
               (E->K != Expr::Kind::Call || pureCall(E)) && E->K != Expr::Kind::Dispatch &&
               (E->K != Expr::Kind::Intrinsic || isValueIntrinsic(E->IOp)) &&
               E->K != Expr::Kind::Wave && E->K != Expr::Kind::Tile && E->K != Expr::Kind::RayQuery;
    });
    return Quiet;
  }

  /// A call of a helper whose value is its arguments' alone: no memory, barrier or wave op.
  bool pureCall(const Expr* E) const {
    return E->K == Expr::Kind::Call && E->Index < PureCallees.size() && PureCallees[E->Index];
  }

  /// What copy E (an AsyncCopy, or a TMA entry's AsyncCopyBlock: the same block in every
  /// work-item) at statement At writes of its shared array.
  static RangeDisjointness::Range copyWrite(const Expr* E, const Stmt* At) {
    if (E->IOp == IntrinsicOp::AsyncCopyBlock)
      return {E->Ops[1], At, uint64_t(E->Index) * uint64_t(E->Ops[8]->IntValue)};
    return {E->Ops[1], At, E->Index};
  }

  /// Whether copy S (an AsyncCopy into shared memory) writes none of what the products in flight
  /// read, for every work-item of a group of at most 1024, or of at most a smaller power of two
  /// (then the wgmma version of the body runs only in groups that small: GroupBound).
  bool copyMissesProducts(const Stmt* S) {
    Unproved = {};
    const Expr* Dst = S->E->Ops[0];
    if (Dst->K != Expr::Kind::SharedRef)
      return false;
    const RangeDisjointness::Range Write = copyWrite(S->E, S);
    uint32_t Bound = GroupBound;
    for (const ProductRead& R : Reading) {
      if (R.Array != Dst->Index || R.LastTurn) // the last turn's: proved by carriedProducts
        continue;
      while (Bound >= 128 && !Ranges->disjoint(R.Read, Write, R.Block, Bound))
        Bound /= 2;
      if (Bound < 128) {
        Unproved = R.Mac;
        return false;
      }
    }
    if (Bound < GroupBound)
      BoundBy = S->Loc;
    GroupBound = Bound;
    return true;
  }

  /// Notes that statement S (which the products in flight cannot stay across) is a copy into
  /// shared memory that might write what they read: the kernel may mean it for another stage.
  void noteCopyWaits(const Stmt* S) {
    bool Copy = false;
    forEachStmt(S, [&](const Stmt* X) {
      if (X->K == Stmt::Kind::Eval && X->E && X->E->K == Expr::Kind::Intrinsic &&
          (X->E->IOp == IntrinsicOp::AsyncCopy || X->E->IOp == IntrinsicOp::AsyncCopyBlock))
        Copy = true;
    });
    if (!Copy || !C.Notes || !Unproved.Line)
      return;
    C.Notes->push_back(
        "[wgmma] kernel '" + F.Name + "': the copy at line " + std::to_string(S->Loc.Line) +
        " waits for the products of Group.mac at line " + std::to_string(Unproved.Line) +
        ": it is not proved to miss the b rows they read (a copy into another stage "
        "of a power-of-two ring, `period * ((counter + c) % stages) + rest` with "
        "every rest inside its period, runs beside them)");
  }
  /// Notes that the wgmma version runs only in groups up to GroupBound work-items.
  void noteGroupBound() {
    if (GroupBound >= MaxGroup || !C.Notes)
      return;
    C.Notes->push_back("[wgmma] kernel '" + F.Name + "': wgmma runs in groups of at most " +
                       std::to_string(GroupBound) + " work-items, for which the copy at line " +
                       std::to_string(BoundBy.Line) +
                       " is proved to miss the products in flight; larger groups take mma.sync");
  }

  /// Whether the group is whole warpgroups (128 work-items), wgmma's instructions being issued by
  /// all four waves of one or by none, and no larger than GroupBound. Where a tiles are read from
  /// shared memory, whole warpgroups along x: the waves x / 32 of a warpgroup are consecutive.
  Expr* wgmmaGroups() {
    auto Group = [&] {
      return B.bin(
          BinaryOp::Mul, B.geom(IntrinsicOp::GroupDim, 0),
          B.bin(BinaryOp::Mul, B.geom(IntrinsicOp::GroupDim, 1), B.geom(IntrinsicOp::GroupDim, 2)));
    };
    Expr* Whole =
        B.bin(BinaryOp::Eq,
              B.bin(BinaryOp::Rem, SharedAGroups ? B.geom(IntrinsicOp::GroupDim, 0) : Group(),
                    B.u32(128)),
              B.u32(0));
    if (GroupBound >= MaxGroup)
      return Whole;
    return B.bin(BinaryOp::And, Whole, B.bin(BinaryOp::Le, Group(), B.u32(GroupBound)));
  }

  /// Waits for every wgmma product issued (the accumulators of the InFlight tiles). Only in
  /// the body's version for whole warpgroups (run), whose every wave issues it.
  Stmt* waitForProducts() {
    Stmt* Wait = productsWait();
    InFlight.clear();
    InFlightA.clear();
    Reading.clear();
    return Wait;
  }
  /// At the end of a turn of a loop that carries products (rewriteCarrying): commits this turn's
  /// products and waits for the last turn's, leaving this turn's in flight.
  Stmt* waitForLastTurn() {
    Expr* Wait = B.intrinsic(IntrinsicOp::WgmmaWait, Type::voidTy(), {});
    Wait->Dim = 1; // groups left pending
    Wait->Index = Uncommitted ? 0 : 1;
    Uncommitted = false;
    Reading.erase(std::remove_if(Reading.begin(), Reading.end(),
                                 [](const ProductRead& R) { return R.LastTurn; }),
                  Reading.end());
    return B.eval(Wait);
  }
  /// The wait itself, where only one path waits (the others keep the products in flight).
  Stmt* productsWait() {
    std::vector<Expr*> All;
    for (uint32_t T : InFlight)
      for (uint32_t L : Regs[T])
        All.push_back(B.l(L));
    Expr* Wait = B.intrinsic(IntrinsicOp::WgmmaWait, Type::voidTy(), All);
    Wait->Index = Uncommitted ? 0 : 1;
    Uncommitted = false;
    return B.eval(Wait);
  }

  // ---- portable: shared-memory tiles ----

  /// The element e of tile local L in its wave's region.
  Expr* slot(uint32_t L, Expr* Elem) {
    const Type T = F.Locals[L].Ty;
    Expr* Base = B.bin(BinaryOp::Mul, B.l(WaveLocal), B.u32(T.Rows * T.Cols));
    return B.bin(BinaryOp::Add, Base, Elem);
  }
  Expr* read(uint32_t L, Expr* Elem) { return B.loadAt(B.sharedRef(Scratch[L]), slot(L, Elem)); }
  Expr* write(uint32_t L, Expr* Elem, Expr* V) {
    return B.storeAt(B.sharedRef(Scratch[L]), slot(L, Elem), V);
  }

  /// for (e = lane; e < Count; e += width) Body(e, r, c), with r = e / Cols, c = e % Cols; with
  /// OnFirstLane, if (lane == 0) for (r < Rows) for (c < Cols) Body(r * Cols + c, r, c).
  Stmt* eachOwnElement(
      uint32_t Rows, uint32_t Cols,
      const std::function<std::vector<Stmt*>(uint32_t E, uint32_t R, uint32_t C)>& Body) {
    uint32_t E = B.local("tile.e", u32Ty()), R = B.local("tile.r", u32Ty()),
             Col = B.local("tile.c", u32Ty());
    if (C.OnFirstLane) {
      std::vector<Stmt*> In = {B.eval(
          B.assign(E, B.bin(BinaryOp::Add, B.bin(BinaryOp::Mul, B.l(R), B.u32(Cols)), B.l(Col))))};
      for (Stmt* S : Body(E, R, Col))
        In.push_back(S);
      Stmt* Row = countTo(Col, Cols, B.block(In), /*Row=*/true);
      return B.ifThen(B.bin(BinaryOp::Eq, B.l(LaneLocal), B.u32(0)), countTo(R, Rows, Row));
    }
    std::vector<Stmt*> In = {B.eval(B.assign(R, B.bin(BinaryOp::Div, B.l(E), B.u32(Cols)))),
                             B.eval(B.assign(Col, B.bin(BinaryOp::Rem, B.l(E), B.u32(Cols))))};
    for (Stmt* S : Body(E, R, Col))
      In.push_back(S);
    Stmt* Loop = B.loop(B.bin(BinaryOp::Lt, B.l(E), B.u32(Rows * Cols)), B.block(In),
                        B.eval(B.assign(E, B.bin(BinaryOp::Add, B.l(E), B.l(WidthLocal)))));
    return B.block({B.eval(B.assign(E, B.l(LaneLocal))), Loop});
  }

  /// Address of element (r, c) of a tile in memory: offset + r * stride + c (or column-major).
  Expr* address(const std::vector<uint32_t>& Args, Expr* R, Expr* Col, bool ColMajor) {
    Expr* Major = ColMajor ? Col : R;
    Expr* Minor = ColMajor ? R : Col;
    return B.bin(BinaryOp::Add, B.l(Args[0]),
                 B.bin(BinaryOp::Add, B.bin(BinaryOp::Mul, Major, B.l(Args[1])), Minor));
  }
  /// address() for an element of a whole tile: its row (column) is valid as a run, so the
  /// elements' indices follow one another without wrapping (the bounds check sees each as it is),
  /// which lets the run be one vector access.
  Expr* runAddress(const std::vector<uint32_t>& Args, Expr* R, Expr* Col, bool ColMajor) {
    Expr* Major = ColMajor ? Col : R;
    Expr* Minor = ColMajor ? R : Col;
    Expr* Addr =
        B.bin(BinaryOp::Add,
              B.bin(BinaryOp::Add, B.l(Args[0]), B.bin(BinaryOp::Mul, Major, B.l(Args[1]))), Minor);
    Addr->NoWrap = true;
    return Addr;
  }
  /// Whether a tile op's memory arguments cover the whole tile of type Ty at an offset and stride
  /// in whole 16 bytes (what the native tiers' fragment loads and stores take).
  Expr* wholeAlignedTile(const std::vector<uint32_t>& Args, Type Ty) {
    const uint32_t Align = 16 / bundle::scalarTypeSize(Ty.Elem);
    return B.bin(BinaryOp::LogicalAnd,
                 B.bin(BinaryOp::LogicalAnd, B.bin(BinaryOp::Eq, B.l(Args[2]), B.u32(Ty.Rows)),
                       B.bin(BinaryOp::Eq, B.l(Args[3]), B.u32(Ty.Cols))),
                 B.bin(BinaryOp::Eq,
                       B.bin(BinaryOp::And, B.bin(BinaryOp::Or, B.l(Args[0]), B.l(Args[1])),
                             B.u32(Align - 1)),
                       B.u32(0)));
  }
  /// Whether tile load or store E (of a tile of type Ty) is of the whole tile at 16-byte aligned
  /// offsets and strides in every evaluation, by its operands' form: what wholeAlignedTile would
  /// test at run time.
  bool provedWholeAligned(const Expr* E, Type Ty) const {
    const uint64_t Align = 16 / bundle::scalarTypeSize(Ty.Elem);
    auto Is = [](const Expr* V, uint32_t N) {
      return V->K == Expr::Kind::Const && V->IntValue == N;
    };
    return Is(E->Ops[3], Ty.Rows) && Is(E->Ops[4], Ty.Cols) && Known.of(E->Ops[1]) >= Align &&
           Known.of(E->Ops[2]) >= Align;
  }
  Expr* inside(const std::vector<uint32_t>& Args, Expr* R, Expr* Col) {
    return B.bin(BinaryOp::LogicalAnd, B.bin(BinaryOp::Lt, R, B.l(Args[2])),
                 B.bin(BinaryOp::Lt, Col, B.l(Args[3])));
  }

  Stmt* lowerPortable(Expr* E) {
    const uint32_t T = E->Index;
    const Type Ty = F.Locals[T].Ty;
    const Type Elem = Type::scalar(Ty.Elem);
    std::vector<Stmt*> Out;
    switch (E->TOp) {
    case TileOp::Fill:
    case TileOp::Scale: {
      uint32_t V = temp(E->Ops[0], Out);
      bool Fill = E->TOp == TileOp::Fill;
      Out.push_back(eachOwnElement(Ty.Rows, Ty.Cols, [&](uint32_t Ei, uint32_t, uint32_t) {
        Expr* X = Fill ? B.l(V) : B.bin(BinaryOp::Mul, read(T, B.l(Ei)), B.l(V));
        return std::vector<Stmt*>{B.eval(write(T, B.l(Ei), X))};
      }));
      break;
    }
    case TileOp::Load:
    case TileOp::Store: {
      Expr* Array = E->Ops[0];
      std::vector<uint32_t> Args = memoryArgs(E, Out);
      bool Load = E->TOp == TileOp::Load, ColMajor = E->Dim == 1;
      // Each element tested against the valid rows and columns (Guarded), or none (a whole tile).
      auto Copy = [&](bool Guarded) {
        return eachOwnElement(Ty.Rows, Ty.Cols, [&](uint32_t Ei, uint32_t R, uint32_t Col) {
          Expr* In = Guarded ? inside(Args, B.l(R), B.l(Col)) : nullptr;
          Expr* Addr = Guarded ? address(Args, B.l(R), B.l(Col), ColMajor)
                               : runAddress(Args, B.l(R), B.l(Col), ColMajor);
          if (Load) {
            Expr* V = B.loadAt(B.shallowCopy(Array), Addr);
            return std::vector<Stmt*>{
                B.eval(write(T, B.l(Ei), In ? B.select(In, V, B.zero(Elem)) : V))};
          }
          Stmt* St = B.eval(B.storeAt(B.shallowCopy(Array), Addr, read(T, B.l(Ei))));
          return std::vector<Stmt*>{In ? B.ifThen(In, St) : St};
        });
      };
      if (!C.OnFirstLane) {
        Out.push_back(Copy(true));
        break;
      }
      // On the first lane the rows are loops the CPU's compiler vectorizes, which it cannot do
      // across a test per element (each guarded load is a branch): a whole tile, as in the
      // interior of a matrix, copies its rows unguarded.
      Expr* Whole = B.bin(BinaryOp::LogicalAnd, B.bin(BinaryOp::Eq, B.l(Args[2]), B.u32(Ty.Rows)),
                          B.bin(BinaryOp::Eq, B.l(Args[3]), B.u32(Ty.Cols)));
      Out.push_back(B.ifThen(Whole, Copy(false), Copy(true)));
      break;
    }
    case TileOp::Add:
    case TileOp::Convert: {
      uint32_t U = E->Ops[0]->Index;
      bool Add = E->TOp == TileOp::Add;
      Out.push_back(eachOwnElement(Ty.Rows, Ty.Cols, [&](uint32_t Ei, uint32_t, uint32_t) {
        Expr* X = Add ? B.bin(BinaryOp::Add, read(T, B.l(Ei)), read(U, B.l(Ei)))
                      : castIfNeeded(Elem, read(U, B.l(Ei)));
        return std::vector<Stmt*>{B.eval(write(T, B.l(Ei), X))};
      }));
      break;
    }
    case TileOp::Mac: {
      uint32_t A = E->Ops[0]->Index, Bt = E->Ops[1]->Index;
      const uint32_t K = F.Locals[A].Ty.Cols, N = Ty.Cols;
      F.HasBarrier = true;
      Out.push_back(B.barrier()); // every lane's a and b elements are in place
      const ScalarType In = F.Locals[A].Ty.Elem;
      const bool Int8 =
          (In == ScalarType::I8 || In == ScalarType::U8) && Ty.Elem == ScalarType::I32;
      const bool F32Blocks = C.CpuDotF32 && In == ScalarType::F32 && Ty.Elem == ScalarType::F32 &&
                             Ty.Rows % 4 == 0 && N % 16 == 0;
      if ((C.CpuDotBf16 && In == ScalarType::BF16 && Ty.Elem == ScalarType::F32) ||
          (C.CpuDotInt8 && Int8) || F32Blocks) {
        // The CPU's native tier (functionFitsCpuDot checked the shapes): one leaf, run by the
        // wave's first lane like the row loops below.
        auto Base = [&](uint32_t L) {
          const Type LT = F.Locals[L].Ty;
          return B.bin(BinaryOp::Mul, B.l(WaveLocal), B.u32(LT.Rows * LT.Cols));
        };
        Expr* Dot =
            B.intrinsic(IntrinsicOp::TileDot, Type::voidTy(),
                        {B.sharedRef(Scratch[T]), Base(T), B.sharedRef(Scratch[A]), Base(A),
                         B.sharedRef(Scratch[Bt]), Base(Bt), B.u32(Ty.Rows), B.u32(N), B.u32(K)});
        Dot->Index = uint32_t(mmaInputOf(In));
        Out.push_back(B.ifThen(B.bin(BinaryOp::Eq, B.l(LaneLocal), B.u32(0)), B.eval(Dot)));
        Out.push_back(B.barrier());
        break;
      }
      if (C.OnFirstLane) {
        Out.push_back(macByFirstLane(T, A, Bt, Ty.Rows, K, N, Elem));
        Out.push_back(B.barrier()); // the product is in place for every lane
        break;
      }
      Out.push_back(eachOwnElement(Ty.Rows, Ty.Cols, [&](uint32_t Ei, uint32_t R, uint32_t Col) {
        uint32_t Acc = B.local("tile.acc", Elem), Kk = B.local("tile.k", u32Ty());
        Expr* Av = castIfNeeded(
            Elem, read(A, B.bin(BinaryOp::Add, B.bin(BinaryOp::Mul, B.l(R), B.u32(K)), B.l(Kk))));
        Expr* Bv = castIfNeeded(
            Elem,
            read(Bt, B.bin(BinaryOp::Add, B.bin(BinaryOp::Mul, B.l(Kk), B.u32(N)), B.l(Col))));
        Stmt* Step = B.eval(B.assign(Kk, B.bin(BinaryOp::Add, B.l(Kk), B.u32(1))));
        Stmt* KLoop = B.loop(
            B.bin(BinaryOp::Lt, B.l(Kk), B.u32(K)),
            B.eval(B.assign(Acc, B.bin(BinaryOp::Add, B.l(Acc), B.bin(BinaryOp::Mul, Av, Bv)))),
            Step);
        return std::vector<Stmt*>{B.eval(B.assign(Acc, read(T, B.l(Ei)))),
                                  B.eval(B.assign(Kk, B.u32(0))), KLoop,
                                  B.eval(write(T, B.l(Ei), B.l(Acc)))};
      }));
      Out.push_back(B.barrier()); // a and b may be overwritten after every lane has read them
      break;
    }
    }
    return B.block(Out);
  }

  Expr* castIfNeeded(Type To, Expr* V) { return V->Ty == To ? V : B.cast(To, V); }

  /// for (L = 0; L < Below; L++) Body; a Row loop (the columns of a tile's row on the first
  /// lane) is kept rolled for the CPU's vectorizer (Stmt::KeepRolled).
  Stmt* countTo(uint32_t L, uint32_t Below, Stmt* Body, bool Row = false) {
    Stmt* Step = B.eval(B.assign(L, B.bin(BinaryOp::Add, B.l(L), B.u32(1))));
    Stmt* Loop = B.loop(B.bin(BinaryOp::Lt, B.l(L), B.u32(Below)), Body, Step);
    Loop->KeepRolled = Row;
    return B.block({B.eval(B.assign(L, B.u32(0))), Loop});
  }

  /// for (i < Rows) for (k < K) { a = A[i][k]; for (j < N) C[i][j] += a * B[k][j]; }, run by
  /// lane 0 of the wave: each C[i][j] adds its products in k order, as the lanes' form does.
  Stmt* macByFirstLane(uint32_t Cl, uint32_t Al, uint32_t Bl, uint32_t Rows, uint32_t K, uint32_t N,
                       Type Elem) {
    uint32_t I = B.local("tile.i", u32Ty()), Kk = B.local("tile.k", u32Ty()),
             J = B.local("tile.j", u32Ty()), Av = B.local("tile.a", Elem);
    auto Count = [&](uint32_t L, uint32_t Below, Stmt* Body, bool Row = false) {
      return countTo(L, Below, Body, Row);
    };
    auto At = [&](uint32_t Row, uint32_t Cols, uint32_t Col) {
      return B.bin(BinaryOp::Add, B.bin(BinaryOp::Mul, B.l(Row), B.u32(Cols)), B.l(Col));
    };
    Expr* Cij = read(Cl, At(I, N, J));
    Expr* Bkj = castIfNeeded(Elem, read(Bl, At(Kk, N, J)));
    Stmt* Row = Count(J, N,
                      B.eval(write(Cl, At(I, N, J),
                                   B.bin(BinaryOp::Add, Cij, B.bin(BinaryOp::Mul, B.l(Av), Bkj)))),
                      /*Row=*/true);
    Stmt* KLoop = Count(
        Kk, K, B.block({B.eval(B.assign(Av, castIfNeeded(Elem, read(Al, At(I, K, Kk))))), Row}));
    return B.ifThen(B.bin(BinaryOp::Eq, B.l(LaneLocal), B.u32(0)), Count(I, Rows, KLoop));
  }

  // ---- cooperative matrices: a grid of fragments per tile ----

  /// Tile L's fragment type and the grid's column count.
  Type fragmentOf(uint32_t L) { return fragmentType(Roles[L], F.Locals[L].Ty); }
  uint32_t gridCols(uint32_t L) { return F.Locals[L].Ty.Cols / fragmentOf(L).Cols; }

  /// The fragment locals of every tile, and one per-wave scratch fragment per element type that
  /// a tile is loaded or stored in (the path for partial and unaligned tiles).
  void matrixLocals() {
    for (uint32_t L = 0; L < F.Locals.size(); ++L) {
      const Type T = F.Locals[L].Ty;
      if (!T.isTile())
        continue;
      const Type Frag = fragmentOf(L);
      for (uint32_t J = 0; J < T.Rows * T.Cols / (Frag.Rows * Frag.Cols); ++J)
        Frags[L].push_back(B.local(F.Locals[L].Name + ".m" + std::to_string(J), Frag));
    }
    std::map<ScalarType, uint32_t> Elements; // element type -> the largest fragment moved
    forEachExprIn(F.Body, [&](const Expr* E) {
      if (E->K == Expr::Kind::Tile && (E->TOp == TileOp::Load || E->TOp == TileOp::Store) &&
          !provedWholeAligned(E, F.Locals[E->Index].Ty)) {
        const Type Frag = fragmentOf(E->Index);
        uint32_t& N = Elements[Frag.Elem];
        N = std::max<uint32_t>(N, Frag.Rows * Frag.Cols);
      }
    });
    for (auto [Elem, Count] : Elements) {
      uint32_t S =
          B.shared(std::string("tile.scratch.") + bundle::scalarTypeName(Elem), Elem, Count);
      F.SharedArrays[S].PerWave = true;
      MatrixScratch[Elem] = {S, Count};
    }
  }

  /// The element index of fragment (I, J) of a tile's load or store: offset + row0 * stride +
  /// col0 (or column-major).
  Expr* fragmentStart(const std::vector<uint32_t>& Args, uint32_t Row0, uint32_t Col0,
                      bool ColMajor) {
    return address(Args, B.u32(Row0), B.u32(Col0), ColMajor);
  }

  Stmt* lowerMatrices(Expr* E) {
    const uint32_t T = E->Index;
    const Type Ty = F.Locals[T].Ty;
    const Type Frag = fragmentOf(T);
    const std::vector<uint32_t>& M = Frags[T];
    std::vector<Stmt*> Out;
    auto Each = [&](const std::function<Expr*(size_t J)>& Value) {
      std::vector<uint32_t> V;
      for (size_t J = 0; J < M.size(); ++J)
        V.push_back(temp(Value(J), Out));
      for (size_t J = 0; J < M.size(); ++J)
        Out.push_back(B.eval(B.assign(M[J], B.l(V[J]))));
    };
    switch (E->TOp) {
    case TileOp::Fill:
    case TileOp::Scale: {
      uint32_t V = temp(E->Ops[0], Out);
      bool Fill = E->TOp == TileOp::Fill;
      Each([&](size_t J) {
        return Fill ? B.intrinsic(IntrinsicOp::MatrixFill, Frag, {B.l(V)})
                    : B.intrinsic(IntrinsicOp::MatrixScale, Frag, {B.l(M[J]), B.l(V)});
      });
      break;
    }
    case TileOp::Add:
    case TileOp::Convert: {
      const std::vector<uint32_t>& U = Frags[E->Ops[0]->Index];
      bool Add = E->TOp == TileOp::Add;
      Each([&](size_t J) {
        return Add ? B.intrinsic(IntrinsicOp::MatrixAdd, Frag, {B.l(M[J]), B.l(U[J])})
                   : B.intrinsic(IntrinsicOp::MatrixConvert, Frag, {B.l(U[J])});
      });
      break;
    }
    case TileOp::Mac: {
      const uint32_t A = E->Ops[0]->Index, Bt = E->Ops[1]->Index;
      const uint32_t Mb = Ty.Rows / 16, Nb = Ty.Cols / 16, Kb = gridCols(A);
      for (uint32_t Ki = 0; Ki < Kb; ++Ki)
        for (uint32_t Mi = 0; Mi < Mb; ++Mi)
          for (uint32_t Ni = 0; Ni < Nb; ++Ni) {
            uint32_t Acc = M[Mi * Nb + Ni];
            Expr* D =
                B.intrinsic(IntrinsicOp::MatrixMulAdd, Frag,
                            {B.l(Frags[A][Mi * Kb + Ki]), B.l(Frags[Bt][Ki * Nb + Ni]), B.l(Acc)});
            Out.push_back(B.eval(B.assign(Acc, D)));
          }
      break;
    }
    case TileOp::Load:
    case TileOp::Store: {
      std::vector<uint32_t> Args = memoryArgs(E, Out);
      const bool Load = E->TOp == TileOp::Load, ColMajor = E->Dim == 1;
      const uint32_t Cols = gridCols(T);
      // Whole tiles at 16-byte aligned offsets and strides: one instruction per fragment,
      // decided once per wave (every lane takes part in each), or not at all where the
      // operands' form proves it.
      const bool Proved = provedWholeAligned(E, Ty);
      std::vector<Stmt*> Fast, Slow;
      for (size_t J = 0; J < M.size(); ++J) {
        const uint32_t Row0 = uint32_t(J / Cols) * Frag.Rows, Col0 = uint32_t(J % Cols) * Frag.Cols;
        Expr* Start = fragmentStart(Args, Row0, Col0, ColMajor);
        if (Load)
          Fast.push_back(B.eval(B.assign(
              M[J], B.intrinsic(IntrinsicOp::MatrixLoad, Frag,
                                {B.shallowCopy(E->Ops[0]), Start, B.l(Args[1])}, ColMajor))));
        else
          Fast.push_back(B.eval(
              B.intrinsic(IntrinsicOp::MatrixStore, Type::voidTy(),
                          {B.shallowCopy(E->Ops[0]), Start, B.l(Args[1]), B.l(M[J])}, ColMajor)));
        if (!Proved)
          partialFragment(E, Args, M[J], Frag, Row0, Col0, Slow);
      }
      if (Proved) {
        Out.insert(Out.end(), Fast.begin(), Fast.end());
        break;
      }
      Expr* Whole = wholeAlignedTile(Args, Ty);
      uint32_t WholeL = temp(B.wave(WaveOp::All, Type::scalar(ScalarType::Bool), {Whole}), Out);
      Out.push_back(B.ifThen(B.l(WholeL), B.block(Fast), B.block(Slow)));
      break;
    }
    }
    return B.block(Out);
  }

  /// Fragment Frag (local M, at Row0, Col0 of the tile) of a partial or unaligned load or store
  /// through the wave's scratch fragment: the lanes move the elements inside the tile's valid
  /// rows and columns (zeros for the rest on a load), the fragment is loaded from or stored to
  /// the scratch, and the wave meets before and after.
  void partialFragment(Expr* E, const std::vector<uint32_t>& Args, uint32_t M, Type Frag,
                       uint32_t Row0, uint32_t Col0, std::vector<Stmt*>& Out) {
    const bool Load = E->TOp == TileOp::Load, ColMajor = E->Dim == 1;
    const auto [Scratch, Count] = MatrixScratch.at(Frag.Elem);
    const uint32_t Elements = Count;
    auto Base = [&] { return B.bin(BinaryOp::Mul, B.l(WaveLocal), B.u32(Elements)); };
    auto Slot = [&](uint32_t Ei) { return B.bin(BinaryOp::Add, Base(), B.l(Ei)); };
    Stmt* Barrier = B.eval(B.intrinsic(IntrinsicOp::WaveBarrier, Type::voidTy(), {}));
    Stmt* Moves = eachOwnElement(Frag.Rows, Frag.Cols, [&](uint32_t Ei, uint32_t R, uint32_t Col) {
      auto Row = [&] { return B.bin(BinaryOp::Add, B.u32(Row0), B.l(R)); };
      auto Column = [&] { return B.bin(BinaryOp::Add, B.u32(Col0), B.l(Col)); };
      Expr* In = inside(Args, Row(), Column());
      Expr* Addr = address(Args, Row(), Column(), ColMajor);
      if (Load)
        return std::vector<Stmt*>{
            B.eval(B.storeAt(B.sharedRef(Scratch), Slot(Ei),
                             B.select(In, B.loadAt(B.shallowCopy(E->Ops[0]), Addr),
                                      B.zero(Type::scalar(Frag.Elem)))))};
      return std::vector<Stmt*>{
          B.ifThen(In, B.eval(B.storeAt(B.shallowCopy(E->Ops[0]), Addr,
                                        B.loadAt(B.sharedRef(Scratch), Slot(Ei)))))};
    });
    if (Load) {
      Out.push_back(Moves);
      Out.push_back(Barrier);
      Out.push_back(
          B.eval(B.assign(M, B.intrinsic(IntrinsicOp::MatrixLoad, Frag,
                                         {B.sharedRef(Scratch), Base(), B.u32(Frag.Cols)}))));
    } else {
      Out.push_back(B.eval(B.intrinsic(IntrinsicOp::MatrixStore, Type::voidTy(),
                                       {B.sharedRef(Scratch), Base(), B.u32(Frag.Cols), B.l(M)})));
      Out.push_back(Barrier);
      Out.push_back(Moves);
    }
    Out.push_back(B.eval(B.intrinsic(IntrinsicOp::WaveBarrier, Type::voidTy(), {})));
  }

  // ---- mma.sync: per-lane fragment registers ----

  /// Row and column of a fragment element of tile L.
  std::pair<Expr*, Expr*> coords(uint32_t L, const FragmentElement& FE) {
    Expr* G = B.l(GroupLocal);
    Expr* Tp = B.l(FE.TScale == 4 ? FourTLocal : TwiceTLocal);
    Expr* R = B.bin(BinaryOp::Add, B.u32(FE.RowConst), FE.RowFromLaneGroup ? G : Tp);
    Expr* Col = B.bin(BinaryOp::Add, B.u32(FE.ColConst), FE.RowFromLaneGroup ? Tp : G);
    return {R, Col};
  }

  /// How many elements each fragment register of tile T holds: the a and b operands keep two
  /// 16-bit or four 8-bit inputs in a uint32 local (mma.sync and ldmatrix take them so), the
  /// accumulators one element each.
  uint32_t perRegister(uint32_t T) const {
    auto It = Roles.find(T);
    return It != Roles.end() && It->second != Role::Acc ? inputsPerRegister(F.Locals[T].Ty.Elem)
                                                        : 1;
  }
  /// The unsigned integer type of tile T's element width (its bits in a packed register).
  Type bitsTy(uint32_t T) const {
    return Type::scalar(bundle::scalarTypeSize(F.Locals[T].Ty.Elem) == 1 ? ScalarType::U8
                                                                         : ScalarType::U16);
  }
  /// Values (one register's worth of tile T's elements) as one uint32, the first lowest.
  Expr* pack(uint32_t T, const std::vector<Expr*>& Values) {
    const Type Bits = bitsTy(T);
    const bool Bytes = Bits.Elem == ScalarType::U8;
    Expr* Word = nullptr;
    for (size_t I = 0; I < Values.size(); ++I) {
      // 16-bit floats keep their bits; 8-bit integers are the same bits as uint8.
      Expr* V = B.cast(u32Ty(), Bytes ? castIfNeeded(Bits, Values[I])
                                      : B.intrinsic(IntrinsicOp::Bitcast, Bits, {Values[I]}));
      if (I)
        V = B.bin(BinaryOp::Shl, V, B.u32(uint32_t(I * (Bytes ? 8 : 16))));
      Word = Word ? B.bin(BinaryOp::Or, Word, V) : V;
    }
    return Word;
  }
  /// Fragment element J of tile T.
  Expr* element(uint32_t T, size_t J) {
    const uint32_t P = perRegister(T);
    if (P == 1)
      return B.l(Regs[T][J]);
    const Type Bits = bitsTy(T), Elem = Type::scalar(F.Locals[T].Ty.Elem);
    Expr* Word = B.l(Regs[T][J / P]);
    if (J % P)
      Word = B.bin(BinaryOp::UShr, Word, B.u32(uint32_t(J % P) * (32 / P)));
    Expr* Low = B.cast(Bits, Word);
    if (Bits.Elem == ScalarType::U8)
      return castIfNeeded(Elem, Low);
    return B.intrinsic(IntrinsicOp::Bitcast, Elem, {Low});
  }
  /// Sets every fragment element J of tile T to Value(J) (each evaluated once).
  void setElements(uint32_t T, const std::function<Expr*(size_t J)>& Value,
                   std::vector<Stmt*>& Out) {
    const Type Ty = F.Locals[T].Ty;
    size_t Count = size_t(Ty.Rows) * Ty.Cols / 32;
    const uint32_t P = perRegister(T);
    if (P == 1) {
      std::vector<uint32_t> V;
      for (size_t J = 0; J < Count; ++J)
        V.push_back(temp(Value(J), Out));
      for (size_t J = 0; J < Count; ++J)
        Out.push_back(B.eval(B.assign(Regs[T][J], B.l(V[J]))));
      return;
    }
    std::vector<uint32_t> V;
    for (size_t J = 0; J < Count; J += P) {
      std::vector<Expr*> Values;
      for (size_t I = 0; I < P; ++I)
        Values.push_back(Value(J + I));
      V.push_back(temp(pack(T, Values), Out));
    }
    for (size_t P = 0; P < V.size(); ++P)
      Out.push_back(B.eval(B.assign(Regs[T][P], B.l(V[P]))));
  }

  /// ldmatrix.x4 (x2 for an odd last B block) of every block of tile T from shared memory. Each
  /// 8x8 matrix of 16-bit elements is 8 lines (runs of 16 contiguous bytes), lanes 8q..8q+7 giving
  /// matrix q's line starts, and lane 4i + j receives elements 2j, 2j+1 of line i (transposed:
  /// element i of lines 2j, 2j+1). So:
  /// - A (row-major): lane l gives row (l % 8) + 8 ((l / 8) & 1), column w (l / 16) of its
  ///   block, w = the inputs in 16 bytes (8 or 16); matrix q is pair register q (rows g / g+8,
  ///   columns from P t / P t + K/2). An 8-bit A is the same load, each 16-bit element two inputs.
  /// - B (row-major, 16-bit only): the same lane offsets, transposed; matrix q is register q % 2
  ///   of 16x8 block q / 2. An 8-bit B has no row-major form (.trans moves 16-bit elements, and
  ///   its registers hold four rows of one column).
  /// - B (column-major, lines are columns): lane l gives column (l % 8) + 8 (l / 16), row
  ///   w ((l / 8) & 1); matrix q is again register q % 2 of block q / 2, for 16-bit and 8-bit
  ///   inputs alike (a register holds P consecutive rows of one column).
  std::vector<Stmt*> matrixLoad(Expr* E, uint32_t T, const std::vector<uint32_t>& Args) {
    const Type Ty = F.Locals[T].Ty;
    const std::vector<uint32_t>& R = Regs[T];
    const bool ColMajor = E->Dim == 1;
    std::vector<Stmt*> Out;
    Expr* Mid = B.bin(BinaryOp::And, B.bin(BinaryOp::Div, B.l(LaneLocal), B.u32(8)), B.u32(1));
    Expr* Hi = B.bin(BinaryOp::Div, B.l(LaneLocal), B.u32(16));
    const uint32_t W = 8 * inputsPerRegister(Ty.Elem) / 2; // inputs in 16 bytes: 8 or 16
    uint32_t LineOff = temp(B.bin(BinaryOp::Add, B.bin(BinaryOp::Rem, B.l(LaneLocal), B.u32(8)),
                                  B.bin(BinaryOp::Mul, ColMajor ? Hi : Mid, B.u32(8))),
                            Out);
    uint32_t RunOff = temp(B.bin(BinaryOp::Mul, ColMajor ? Mid : Hi, B.u32(W)), Out);
    // One ldmatrix at block (Row0, Col0) of Count matrices; matrix q goes to pair register
    // Place(q).
    auto Load = [&](uint32_t Row0, uint32_t Col0, unsigned Count, bool Trans,
                    const std::function<uint32_t(unsigned)>& Place) {
      Expr* Row = B.bin(BinaryOp::Add, B.u32(Row0), B.l(ColMajor ? RunOff : LineOff));
      Expr* Col = B.bin(BinaryOp::Add, B.u32(Col0), B.l(ColMajor ? LineOff : RunOff));
      uint32_t Start = temp(address(Args, Row, Col, ColMajor), Out);
      for (unsigned Q = 0; Q < Count; ++Q) {
        Expr* X = B.intrinsic(IntrinsicOp::LdMatrix, u32Ty(),
                              {B.shallowCopy(E->Ops[0]), B.l(Start)}, uint8_t(Q));
        X->Index = Count | (Trans ? 8 : 0);
        Out.push_back(B.eval(B.assign(R[Place(Q)], X)));
      }
    };
    const uint32_t K = 2 * W; // the block's depth: 16 (16-bit inputs) or 32 (8-bit)
    if (Roles[T] == Role::A) {
      const uint32_t Kb = Ty.Cols / K;
      for (uint32_t Mi = 0; Mi < Ty.Rows / 16; ++Mi)
        for (uint32_t Ki = 0; Ki < Kb; ++Ki)
          Load(16 * Mi, K * Ki, 4, false, [&](unsigned Q) { return (Mi * Kb + Ki) * 4 + Q; });
    } else {
      const uint32_t Nb = Ty.Cols / 8;
      for (uint32_t Ki = 0; Ki < Ty.Rows / K; ++Ki)
        for (uint32_t Ni = 0; Ni < Nb; Ni += 2) {
          unsigned Count = Ni + 1 < Nb ? 4 : 2;
          Load(K * Ki, 8 * Ni, Count, !ColMajor,
               [&](unsigned Q) { return (Ki * Nb + Ni + Q / 2) * 2 + Q % 2; });
        }
    }
    return Out;
  }

  Stmt* lowerFragments(Expr* E) {
    const uint32_t T = E->Index;
    const Type Ty = F.Locals[T].Ty;
    const Type Elem = Type::scalar(Ty.Elem);
    const size_t Count = size_t(Ty.Rows) * Ty.Cols / 32;
    std::vector<Stmt*> Out;
    switch (E->TOp) {
    case TileOp::Fill:
    case TileOp::Scale: {
      uint32_t V = temp(E->Ops[0], Out);
      bool Fill = E->TOp == TileOp::Fill;
      setElements(
          T, [&](size_t J) { return Fill ? B.l(V) : B.bin(BinaryOp::Mul, element(T, J), B.l(V)); },
          Out);
      break;
    }
    case TileOp::Load:
    case TileOp::Store: {
      std::vector<uint32_t> Args = memoryArgs(E, Out);
      if (E->TOp == TileOp::Load && (Wgmma.Tiles.count(T) || Wgmma.ATiles.count(T))) {
        SharedTiles[T] = {E, Args}; // read where it is multiplied (WgmmaOperands)
        SharedTileAt[T] = Lowering;
        break;
      }
      if (E->TOp == TileOp::Load) {
        loadFragments(E, T, Args, Out);
        break;
      }
      if (storesPairs(E, T)) {
        storePairs(E, T, Args, Out);
        break;
      }
      std::vector<FragmentElement> Layout =
          fragmentLayout(Roles[T], Ty.Rows, Ty.Cols, inputsPerRegister(Ty.Elem));
      for (size_t J = 0; J < Count; ++J) {
        auto [Row, Col] = coords(T, Layout[J]);
        uint32_t RowL = temp(Row, Out), ColL = temp(Col, Out);
        Expr* In = inside(Args, B.l(RowL), B.l(ColL));
        Expr* Addr = address(Args, B.l(RowL), B.l(ColL), E->Dim == 1);
        Out.push_back(
            B.ifThen(In, B.eval(B.storeAt(B.shallowCopy(E->Ops[0]), Addr, element(T, J)))));
      }
      break;
    }
    case TileOp::Add:
    case TileOp::Convert: {
      uint32_t U = E->Ops[0]->Index;
      bool Add = E->TOp == TileOp::Add;
      setElements(
          T,
          [&](size_t J) {
            return Add ? B.bin(BinaryOp::Add, element(T, J), element(U, J))
                       : castIfNeeded(Elem, element(U, J));
          },
          Out);
      break;
    }
    case TileOp::Mac: {
      const uint32_t A = E->Ops[0]->Index, Bt = E->Ops[1]->Index;
      if (!Wgmma.Tiles.count(Bt)) {
        mmaSync(T, A, Bt, Out);
        break;
      }
      // b is still in shared memory: wgmma where the tile sits at the swizzle's period (in the
      // body's version for whole warpgroups), else b's fragments and mma.sync. wgmma reads the
      // array as the last barrier published it (the proxy fence before each barrier): what
      // other work-items wrote needs that barrier anyway, and a fence here would also wait
      // for this work-item's copies in flight.
      const auto& [Load, Args] = SharedTiles.at(Bt);
      const SharedTile* SharedA = Wgmma.ATiles.count(A) ? &SharedTiles.at(A) : nullptr;
      const bool Defer = DeferWait;
      std::vector<Stmt*> Fast, Slow;
      // Products of an earlier mac may still write this tile's registers: mma.sync waits for
      // them, wgmma keeps them in flight (in order on one accumulator) and what they read.
      if (!InFlight.empty())
        Slow.push_back(productsWait());
      wgmmaProduct(T, A, SharedA, Load->Ops[0], Args[0], Fast);
      Uncommitted = true;
      InFlight.insert(T);
      if (!SharedA)
        InFlightA.insert(A);
      for (uint32_t Read : {Bt, A})
        if (Read == Bt || SharedA) {
          Reading.push_back(productRead(SharedTiles.at(Read).first, Read));
          Reading.back().Mac = E->Loc;
        }
      if (!Defer)
        Fast.push_back(waitForProducts());
      if (SharedA)
        loadFragments(SharedA->first, A, SharedA->second, Slow);
      loadFragments(Load, Bt, Args, Slow);
      mmaSync(T, A, Bt, Slow);
      Expr* Ready = B.intrinsic(IntrinsicOp::WgmmaReady, Type::scalar(ScalarType::Bool),
                                {B.shallowCopy(Load->Ops[0]), B.l(Args[0])});
      Ready->Dim = Load->Dim ? F.Locals[Bt].Ty.Rows : 0; // a K-major b's depth in its atom
      if (SharedA) { // and a (K-major) at a block's first row with its depth in the atom
        const Type ATy = F.Locals[A].Ty;
        Expr* AReady =
            B.intrinsic(IntrinsicOp::WgmmaReady, Type::scalar(ScalarType::Bool),
                        {B.shallowCopy(SharedA->first->Ops[0]), B.l(SharedA->second[0])});
        AReady->Dim = uint8_t(ATy.Cols * bundle::scalarTypeSize(ATy.Elem));
        Ready = B.bin(BinaryOp::LogicalAnd, Ready, AReady);
      }
      Out.push_back(B.ifThen(Ready, B.block(Fast), B.block(Slow)));
      break;
    }
    }
    return B.block(Out);
  }

  /// Whether the store E of tile T goes a pair of columns at a time (storePairs): an accumulator
  /// of 4-byte elements stored row-major to a buffer.
  bool storesPairs(const Expr* E, uint32_t T) const {
    return C.PairStores && Roles.at(T) == Role::Acc && E->Dim == 0 &&
           E->Ops[0]->K == Expr::Kind::Param && bundle::scalarTypeSize(F.Locals[T].Ty.Elem) == 4;
  }

  /// Accumulator tile T stored as E says, its memory arguments in Args: each lane holds columns
  /// 2t + c and 2t + c + 1 of its rows (c a multiple of 8), which go as one 8-byte store
  /// (StoreWords of the buffer's two-element chunk) where the offset and stride are even (the
  /// pair then starts at an even element of an allocation) and both lie inside the valid
  /// block; element by element elsewhere. A wave's store then fills whole 32-byte sectors (four
  /// lanes' pairs in each of eight rows) with half the instructions. Everything a row's stores
  /// need apart from c is computed once a row (its first chunk, whether it is inside) or once a
  /// store (the columns left from 2t), so each store is a compare and an address with constants:
  /// nothing a column for the optimizer to keep in registers across the kernel's loops. A chunk
  /// is its row's first plus a constant; an index past 2^32 (an offset, row and stride whose
  /// element index wraps) is then not wrapped as the element form wraps it.
  void storePairs(Expr* E, uint32_t T, const std::vector<uint32_t>& Args, std::vector<Stmt*>& Out) {
    const Type Ty = F.Locals[T].Ty;
    const Type U32 = Type::scalar(ScalarType::U32);
    std::vector<FragmentElement> Layout = fragmentLayout(Role::Acc, Ty.Rows, Ty.Cols, 1);
    uint32_t Even =
        temp(B.bin(BinaryOp::Eq,
                   B.bin(BinaryOp::And, B.bin(BinaryOp::Or, B.l(Args[0]), B.l(Args[1])), B.u32(1)),
                   B.u32(0)),
             Out);
    uint32_t ColsLeft =
        temp(B.select(B.bin(BinaryOp::Gt, B.l(Args[3]), B.l(TwiceTLocal)),
                      B.bin(BinaryOp::Sub, B.l(Args[3]), B.l(TwiceTLocal)), B.u32(0)),
             Out);
    struct RowPlace {
      uint32_t Inside, Pairs, First, Chunk; // row < rows; and even; offset + row * stride + 2t
    };
    std::map<uint32_t, RowPlace> Rows; // by the fragment row's RowConst
    auto Bits = [&](size_t J) {
      Expr* V = element(T, J);
      return V->Ty == U32 ? V : B.intrinsic(IntrinsicOp::Bitcast, U32, {V});
    };
    for (size_t J = 0; J + 1 < Layout.size(); J += 2) {
      const FragmentElement& FE = Layout[J]; // Layout[J + 1]: the same row, the next column
      auto [It, New] = Rows.try_emplace(FE.RowConst);
      RowPlace& R = It->second;
      if (New) {
        uint32_t Row = temp(B.bin(BinaryOp::Add, B.u32(FE.RowConst), B.l(GroupLocal)), Out);
        R.Inside = temp(B.bin(BinaryOp::Lt, B.l(Row), B.l(Args[2])), Out);
        R.Pairs = temp(B.bin(BinaryOp::LogicalAnd, B.l(Even), B.l(R.Inside)), Out);
        auto Start = [&] { // offset + row * stride, a tree of its own each time
          return B.bin(BinaryOp::Add, B.l(Args[0]), B.bin(BinaryOp::Mul, B.l(Row), B.l(Args[1])));
        };
        R.First = temp(B.bin(BinaryOp::Add, Start(), B.l(TwiceTLocal)), Out);
        R.Chunk =
            temp(B.bin(BinaryOp::Add, B.bin(BinaryOp::Div, Start(), B.u32(2)), B.l(TLocal)), Out);
      }
      const uint32_t Col = FE.ColConst;
      Expr* Chunk = B.bin(BinaryOp::Add, B.l(R.Chunk), B.u32(Col / 2));
      Chunk->NoWrap = true; // at most 2^31 + 2^31 - 1
      Expr* Pair = B.intrinsic(IntrinsicOp::StoreWords, Type::voidTy(),
                               {B.shallowCopy(E->Ops[0]), Chunk, Bits(J), Bits(J + 1)});
      Pair->Index = 2;
      auto ColInside = [&](uint32_t C) { return B.bin(BinaryOp::Lt, B.u32(C), B.l(ColsLeft)); };
      std::vector<Stmt*> Single;
      for (uint32_t I = 0; I < 2; ++I) {
        Expr* Addr = B.bin(BinaryOp::Add, B.l(R.First), B.u32(Col + I));
        Single.push_back(
            B.ifThen(B.bin(BinaryOp::LogicalAnd, B.l(R.Inside), ColInside(Col + I)),
                     B.eval(B.storeAt(B.shallowCopy(E->Ops[0]), Addr, element(T, J + I)))));
      }
      Out.push_back(B.ifThen(B.bin(BinaryOp::LogicalAnd, B.l(R.Pairs), ColInside(Col + 1)),
                             B.eval(Pair), B.block(Single)));
    }
  }

  /// Tile T's fragments loaded as E (a Tile.load) says, its memory arguments in Args.
  void loadFragments(Expr* E, uint32_t T, const std::vector<uint32_t>& Args,
                     std::vector<Stmt*>& Out) {
    const Type Ty = F.Locals[T].Ty;
    const Type Elem = Type::scalar(Ty.Elem);
    std::vector<Stmt*> Scalar;
    std::vector<FragmentElement> Layout =
        fragmentLayout(Roles[T], Ty.Rows, Ty.Cols, inputsPerRegister(Ty.Elem));
    setElements(
        T,
        [&](size_t J) {
          auto [Row, Col] = coords(T, Layout[J]);
          uint32_t RowL = temp(Row, Scalar), ColL = temp(Col, Scalar);
          Expr* In = inside(Args, B.l(RowL), B.l(ColL));
          Expr* Addr = address(Args, B.l(RowL), B.l(ColL), E->Dim == 1);
          return B.select(In, B.loadAt(B.shallowCopy(E->Ops[0]), Addr), B.zero(Elem));
        },
        Scalar);
    const uint32_t Size = bundle::scalarTypeSize(Ty.Elem);
    // ldmatrix reads lines of 16 bytes: A's rows, B's columns, or (16-bit B) B's rows.
    bool Matrix = perRegister(T) > 1 && E->Ops[0]->K == Expr::Kind::SharedRef &&
                  (Roles[T] == Role::A ? E->Dim == 0 : E->Dim == 1 || Size == 2);
    if (!Matrix) {
      Out.insert(Out.end(), Scalar.begin(), Scalar.end());
      return;
    }
    // A whole tile from 16-byte aligned shared rows (offset and stride in whole 16 bytes):
    // ldmatrix, decided once per wave (every lane must take part); edges and unaligned rows
    // take the element loads. Where the operands' form proves it, only ldmatrix.
    if (provedWholeAligned(E, Ty)) {
      std::vector<Stmt*> Lines = matrixLoad(E, T, Args);
      Out.insert(Out.end(), Lines.begin(), Lines.end());
      return;
    }
    Expr* Whole = wholeAlignedTile(Args, Ty);
    uint32_t WholeL = temp(B.wave(WaveOp::All, Type::scalar(ScalarType::Bool), {Whole}), Out);
    Out.push_back(B.ifThen(B.l(WholeL), B.block(matrixLoad(E, T, Args)), B.block(Scalar)));
  }

  /// T += A . Bt in mma.sync products, block by block.
  void mmaSync(uint32_t T, uint32_t Al, uint32_t Bt, std::vector<Stmt*>& Out) {
    const Type Ty = F.Locals[T].Ty;
    const Type Elem = Type::scalar(Ty.Elem);
    const std::vector<uint32_t>& A = Regs[Al];
    const std::vector<uint32_t>& Bv = Regs[Bt];
    const std::vector<uint32_t>& R = Regs[T];
    const ScalarType In = F.Locals[Al].Ty.Elem;
    const uint32_t Mb = Ty.Rows / 16, Nb = Ty.Cols / 8,
                   Kb = F.Locals[Al].Ty.Cols / (8 * inputsPerRegister(In));
    for (uint32_t Ki = 0; Ki < Kb; ++Ki)
      for (uint32_t Mi = 0; Mi < Mb; ++Mi)
        for (uint32_t Ni = 0; Ni < Nb; ++Ni) {
          std::vector<Expr*> Ops;
          for (uint32_t I = 0; I < 4; ++I)
            Ops.push_back(B.l(A[(Mi * Kb + Ki) * 4 + I]));
          for (uint32_t I = 0; I < 2; ++I)
            Ops.push_back(B.l(Bv[(Ki * Nb + Ni) * 2 + I]));
          for (uint32_t I = 0; I < 4; ++I)
            Ops.push_back(B.l(R[(Mi * Nb + Ni) * 4 + I]));
          std::vector<uint32_t> D;
          for (uint8_t I = 0; I < 4; ++I) {
            std::vector<Expr*> Copy;
            for (Expr* O : Ops)
              Copy.push_back(B.shallowCopy(O));
            Expr* Mma = B.intrinsic(IntrinsicOp::MmaSync, Elem, Copy, I);
            Mma->Index = uint32_t(mmaInputOf(In));
            D.push_back(temp(Mma, Out));
          }
          for (uint32_t I = 0; I < 4; ++I)
            Out.push_back(B.eval(B.assign(R[(Mi * Nb + Ni) * 4 + I], B.l(D[I]))));
        }
  }

  /// T += A . b with wgmma, b the K x N tile at element Offset of shared array Array (128-byte
  /// swizzled; 16-bit b row-major, 8-bit b K-major): each wave's 16-row blocks of a and of T take
  /// part, one block at a time, in a product the warpgroup issues together (the wave's rows are its
  /// own: each wave supplies them from its registers, or, with SharedA (a's load), each wave's
  /// 16 rows of a follow the previous wave's in shared memory, and the four read as one block
  /// from the first wave's). The caller waits for them.
  void wgmmaProduct(uint32_t T, uint32_t Al, const SharedTile* SharedA, Expr* Array,
                    uint32_t Offset, std::vector<Stmt*>& Out) {
    const Type Ty = F.Locals[T].Ty;
    const std::vector<uint32_t>& A = Regs[Al];
    const std::vector<uint32_t>& R = Regs[T];
    // 16-bit: k16 steps down b's rows; 8-bit: k32 steps along its K-major rows (32 bytes).
    const bool KMajor = perRegister(Al) == 4;
    const uint32_t Depth = KMajor ? 32 : 16;
    const uint32_t Mb = Ty.Rows / 16, Nb = Ty.Cols / 8, Kb = F.Locals[Al].Ty.Cols / Depth;
    uint32_t ABlock = 0;
    if (SharedA) { // the warpgroup's block: this wave's rows less 16 rows per wave before it
      const uint32_t Stride = uint32_t(SharedA->first->Ops[2]->IntValue);
      Expr* WaveInGroup =
          B.bin(BinaryOp::Rem, B.bin(BinaryOp::Div, B.geom(IntrinsicOp::LocalId, 0), B.u32(32)),
                B.u32(4));
      ABlock = temp(B.bin(BinaryOp::Sub, B.l(SharedA->second[0]),
                          B.bin(BinaryOp::Mul, WaveInGroup, B.u32(16 * Stride))),
                    Out);
    }
    Out.push_back(B.eval(B.intrinsic(IntrinsicOp::WgmmaFence, Type::voidTy(), {})));
    for (uint32_t Ki = 0; Ki < Kb; ++Ki)
      for (uint32_t Mi = 0; Mi < Mb; ++Mi) {
        const uint32_t Step = KMajor ? Ki * Depth : Ki * Depth * Ty.Cols;
        std::vector<Expr*> Ops = {B.shallowCopy(Array),
                                  B.bin(BinaryOp::Add, B.l(Offset), B.u32(Step))};
        if (SharedA) { // a's 16 rows are the tile (Mb 1); k steps along its K-major rows
          Ops.push_back(B.shallowCopy(SharedA->first->Ops[0]));
          Ops.push_back(B.bin(BinaryOp::Add, B.l(ABlock), B.u32(Ki * Depth)));
        } else {
          for (uint32_t I = 0; I < 4; ++I)
            Ops.push_back(B.l(A[(Mi * Kb + Ki) * 4 + I]));
        }
        for (uint32_t I = 0; I < Nb * 4; ++I)
          Ops.push_back(B.l(R[Mi * Nb * 4 + I]));
        Expr* W = B.intrinsic(IntrinsicOp::Wgmma, Type::voidTy(), Ops, uint8_t(Nb));
        W->Index = uint32_t(mmaInputOf(F.Locals[Al].Ty.Elem));
        Out.push_back(B.eval(W));
      }
  }

  /// What a wgmma product reads until it is waited for: b's (or a's) rows at Load's offset, as
  /// evaluated where the tile was loaded (every work-item's offset: a's reach the warpgroup's
  /// block).
  struct ProductRead {
    uint32_t Array;
    RangeDisjointness::Range Read;
    uint64_t Block;        // elements the array's layout permutes among (its swizzle's blocks)
    SourceLoc Mac;         // the Group.mac that issued the product
    bool LastTurn = false; // issued in the last turn of the loop being rewritten (Carried)
  };
  ProductRead productRead(const Expr* Load, uint32_t Bt) {
    return productRead(Load, Bt, SharedTileAt.at(Bt));
  }
  ProductRead productRead(const Expr* Load, uint32_t Bt, const Stmt* At) {
    const Type Ty = F.Locals[Bt].Ty; // b or a
    const SharedArray& SA = F.SharedArrays[Load->Ops[0]->Index];
    const Expr* Stride = Load->Ops[2];
    uint64_t Length = 0; // unknown stride: nothing is proved disjoint
    const uint64_t Lines = Load->Dim ? Ty.Cols : Ty.Rows, Line = Load->Dim ? Ty.Rows : Ty.Cols;
    if (Stride->K == Expr::Kind::Const && Stride->IntValue > 0)
      Length = (Lines - 1) * uint64_t(Stride->IntValue) + Line;
    const uint64_t Block = SA.Swizzle128 ? 1024u * SA.RowAtoms / scalarTypeSize(SA.Elem) : 1;
    return {Load->Ops[0]->Index, {Load->Ops[1], At, Length}, Block, {}};
  }

  /// What a turn of a loop leaves in flight for the next one (rewriteCarrying).
  struct Carried {
    std::set<uint32_t> Tiles;       // the accumulators
    std::set<uint32_t> ATiles;      // a tiles in registers the products read
    std::vector<ProductRead> Reads; // what the products read in shared memory (LastTurn)
    const Stmt* Barrier = nullptr;  // the body's one barrier
    uint32_t Bound = MaxGroup;      // the largest group the proof holds for
    SourceLoc BoundBy;              // the copy that set Bound
  };

  /// Whether loop L may leave each turn's wgmma products in flight into the next turn, to be
  /// waited for at that turn's end (`wgmma.wait_group 1`) instead of their own: the products
  /// cross the barrier that starts the next turn, and the tensor pipe is not drained once a turn.
  /// L's body must be a block of statements that write nothing, one barrier, then the rest, which
  /// holds every Group.mac (at the block's level, each b a wgmma candidate, its shared tiles
  /// loaded in the same turn): no other barrier, loop or jump, no tile in the test or the
  /// step, no call but of helpers whose value is their arguments' (GroupUniformity::
  /// argumentsOnly), and no store into an array the products read. While a turn's products are in
  /// flight, the writes that may run are the rest of their own turn's (another wave's would race
  /// with the read in the source too; this wave's are checked as the block is rewritten) and the
  /// next turn's: every copy of the body is proved, one turn later, to miss what they read
  /// (RangeDisjointness::disjointNextTurn), for groups up to Bound work-items.
  std::optional<Carried> carriedProducts(const Stmt* L) {
    const Stmt* Body = L->LoopBody;
    if (!Body || Body->K != Stmt::Kind::Block || (L->E && !quiet(L->E)))
      return std::nullopt;
    bool Ok = true;
    auto Plain = [&](const Stmt* S, bool TilesToo) { // no barrier, loop, jump or nested tile
      forEachStmt(S, [&](const Stmt* X) {
        Ok &= X->K != Stmt::Kind::Barrier && X->K != Stmt::Kind::Loop &&
              X->K != Stmt::Kind::Break && X->K != Stmt::Kind::Continue &&
              X->K != Stmt::Kind::Return && X->K != Stmt::Kind::Try;
        if (X != S || !TilesToo)
          forEachExpr(X->E, [&](const Expr* E) { Ok &= E->K != Expr::Kind::Tile; });
      });
    };
    Plain(L->Step, false);
    Carried Carry;
    std::map<uint32_t, const Stmt*> LoadedAt; // shared tile -> its latest load in the turn
    for (const Stmt* Child : Body->Body) {
      if (Child->K == Stmt::Kind::Barrier) {
        Ok &= !Carry.Barrier;
        Carry.Barrier = Child;
        continue;
      }
      Plain(Child, true);
      const Expr* E = Child->K == Stmt::Kind::Eval ? Child->E : nullptr;
      if (!Carry.Barrier) { // before the barrier: nothing written
        Ok &= E &&
              (quiet(E) || (E->K == Expr::Kind::Intrinsic && (E->IOp == IntrinsicOp::AsyncWait ||
                                                              E->IOp == IntrinsicOp::AsyncCommit)));
        continue;
      }
      if (!E || E->K != Expr::Kind::Tile)
        continue;
      if (E->TOp == TileOp::Load) {
        LoadedAt[E->Index] = Child;
        continue;
      }
      if (E->TOp != TileOp::Mac)
        continue;
      const uint32_t A = E->Ops[0]->Index, Bt = E->Ops[1]->Index;
      if (!Wgmma.Tiles.count(Bt))
        return std::nullopt;
      Carry.Tiles.insert(E->Index);
      if (!Wgmma.ATiles.count(A))
        Carry.ATiles.insert(A);
      for (uint32_t Read : {Bt, A}) {
        if (Read == A && !Wgmma.ATiles.count(A))
          continue;
        auto It = LoadedAt.find(Read);
        if (It == LoadedAt.end())
          return std::nullopt;
        Carry.Reads.push_back(productRead(It->second->E, Read, It->second));
        Carry.Reads.back().Mac = E->Loc;
        Carry.Reads.back().LastTurn = true;
      }
    }
    if (!Ok || !Carry.Barrier || Carry.Tiles.empty())
      return std::nullopt;
    std::set<uint32_t> Arrays;
    for (const ProductRead& R : Carry.Reads)
      Arrays.insert(R.Array);
    forEachStmt(Body, [&](const Stmt* X) {
      forEachExpr(X->E, [&](const Expr* E) {
        const bool Copy = E->K == Expr::Kind::Intrinsic && (E->IOp == IntrinsicOp::AsyncCopy ||
                                                            E->IOp == IntrinsicOp::AsyncCopyBlock);
        if ((E->K == Expr::Kind::Call && !pureCall(E)) || E->K == Expr::Kind::Dispatch ||
            E->K == Expr::Kind::RayQuery ||
            (E->K == Expr::Kind::Intrinsic && !isValueIntrinsic(E->IOp) && !Copy &&
             E->IOp != IntrinsicOp::AsyncWait && E->IOp != IntrinsicOp::AsyncCommit))
          Ok = false;

        const Expr* Dst = E->Ops.empty() ? nullptr : E->Ops[0];
        const bool IntoRead = Dst && Dst->K == Expr::Kind::SharedRef && Arrays.count(Dst->Index);
        if ((E->K == Expr::Kind::Store || E->K == Expr::Kind::Atomic) && IntoRead)
          Ok = false;
        if (!Copy || !IntoRead)
          return;
        const RangeDisjointness::Range Write = copyWrite(E, X);
        for (const ProductRead& R : Carry.Reads) {
          if (R.Array != Dst->Index)
            continue;
          const uint32_t Before = Carry.Bound;
          while (Carry.Bound >= 128 &&
                 !Ranges->disjointNextTurn(R.Read, Write, L, R.Block, Carry.Bound))
            Carry.Bound /= 2;
          if (Carry.Bound < Before)
            Carry.BoundBy = X->Loc;
          Ok &= Carry.Bound >= 128;
        }
      });
    });
    if (!Ok)
      return std::nullopt;
    return Carry;
  }

  /// Loop L's body with each turn's products in flight until the next turn's end
  /// (carriedProducts), and a wait for the last turn's after the loop.
  Stmt* rewriteCarrying(Stmt* L, const Carried& Carry) {
    if (Carry.Bound < GroupBound) {
      GroupBound = Carry.Bound;
      BoundBy = Carry.BoundBy;
    }
    InFlight = Carry.Tiles; // as a turn starts, the last turn's products may be in flight
    Uncommitted = false;    // and committed
    InFlightA = Carry.ATiles;
    Reading = Carry.Reads;
    CarryingBody = L->LoopBody;
    CarryingBarrier = Carry.Barrier;
    L->LoopBody = rewrite(L->LoopBody);
    CarryingBody = CarryingBarrier = nullptr;
    if (InFlight.empty())
      return L;
    return B.block({L, waitForProducts()});
  }

  static constexpr uint32_t MaxGroup = 1024; // work-items in a CUDA block

  Module& M;
  Function& F;
  const TileLoweringConfig& C;
  Builder B;
  const KnownMultiple Known; // of F as it came (the tile operations' operands)
  const std::vector<bool> PureCallees = GroupUniformity::argumentsOnly(M);
  std::string Problem;
  std::map<uint32_t, Role> Roles;
  std::map<uint32_t, uint32_t> Scratch;            // tile local -> shared array (portable)
  std::map<uint32_t, std::vector<uint32_t>> Regs;  // tile local -> fragment locals (mma.sync)
  std::map<uint32_t, std::vector<uint32_t>> Frags; // tile local -> matrix locals, row-major grid
  std::map<ScalarType, std::pair<uint32_t, uint32_t>> MatrixScratch; // -> (array, elements)
  WgmmaOperands Wgmma;                   // mma.sync form on sm_90a: b tiles read from shared memory
  std::set<uint32_t> InFlight;           // tiles whose wgmma products are issued and not waited for
  std::set<uint32_t> InFlightA;          // a tiles in registers that those products read
  const Stmt* CarryingBody = nullptr;    // the body of the loop rewriteCarrying is rewriting
  const Stmt* CarryingBarrier = nullptr; // and its one barrier
  bool DeferWait = false;                // the statement being lowered is in a block (rewrite)
  bool Uncommitted = false; // products issued since the last commit (on some path to here)
  std::map<uint32_t, SharedTile> SharedTiles;   // read from shared memory -> (its load, args)
  std::map<uint32_t, const Stmt*> SharedTileAt; // -> the statement that loaded it
  bool SharedAGroups = false;                // the wgmma version reads a tiles from shared memory
  const Stmt* Lowering = nullptr;            // the tile statement being lowered
  std::unique_ptr<RangeDisjointness> Ranges; // over the body before the wgmma rewrite
  std::vector<ProductRead> Reading;          // what the InFlight products read
  uint32_t GroupBound = MaxGroup;            // the wgmma body's largest group (copyMissesProducts)
  SourceLoc BoundBy;                         // the copy that set GroupBound
  SourceLoc Unproved;      // the mac whose products the last copy refused was not proved to miss
  bool DoesNotFit = false; // the portable scratch does not fit the target
  uint32_t Waves = 0;      // portable: the scratch's waves per group
  uint32_t LaneLocal = 0, WidthLocal = 0, WaveLocal = 0, GroupLocal = 0, TLocal = 0,
           TwiceTLocal = 0, FourTLocal = 0;
};

} // namespace

bool TileLowering::usesTiles(const Module& M) {
  for (const auto& F : M.Functions)
    for (const Local& L : F->Locals)
      if (L.Ty.isTile())
        return true;
  return false;
}

bool TileLowering::run(Module& M, Function& F, const TileLoweringConfig& C, std::string& Error,
                       bool& DoesNotFit) {
  DoesNotFit = false;
  bool Has = false;
  for (const Local& L : F.Locals)
    Has = Has || L.Ty.isTile();
  if (!Has)
    return true;
  std::string Why;
  if (C.F == TileLoweringConfig::Form::MmaSync && !functionFitsMmaSync(&F, Why)) {
    Error = "tile lowering of '" + F.Name + "': no mma.sync form: " + Why;
    return false;
  }
  if (C.F == TileLoweringConfig::Form::CoopMatrix && !functionFitsCoopMatrix(&F, Why)) {
    // Tiered per kernel: this one keeps the portable form (its other variant).
    Error = "kernel '" + F.Name + "' keeps the software tile: " + Why;
    DoesNotFit = true;
    return false;
  }
  Lowerer L(M, F, C);
  bool Ok = L.run(Error);
  DoesNotFit = !Ok && L.doesNotFit();
  return Ok;
}

bool TileLowering::usesWgmma(const Module& M, unsigned MaxAtoms) {
  std::string Why;
  if (!usesTiles(M) || !fitsMmaSync(M, Why))
    return false;
  for (const auto& F : M.Functions) {
    std::map<uint32_t, Role> Roles;
    if (F->IsKernel && inferRoles(*F, Roles, Why) &&
        !WgmmaOperands::find(*F, Roles, MaxAtoms).Tiles.empty())
      return true;
  }
  return false;
}

uint32_t TileLowering::portableBytesPerWave(const Function& F) {
  uint32_t Bytes = 0;
  for (const Local& L : F.Locals)
    if (L.Ty.isTile())
      Bytes += L.Ty.Rows * L.Ty.Cols * bundle::scalarTypeSize(L.Ty.Elem);
  return Bytes;
}

} // namespace cajeta::kir
