// The versioning of loop nests on their bounds checks (BoundsCheckVersioning.h). Per nest: each
// check's index described by SCEV over the nest (a start invariant in the nest plus, per loop of
// the nest it moves in, a step times that loop's backedge count, or its header's exit count less
// one for a check past a header that leaves the loop), one i64 condition per check
// built before the nest from the index's lowest and highest values, the nest cloned, and the
// clone, entered when every condition holds, with those checks folded to "in range" and its
// blocks simplified so the vectorizer sees loops without them.
//
// The nest versioned is the outermost loop all of whose checks can be described that way (a 2D
// kernel's rows of work-items, not each row); a loop with checks that cannot be is versioned
// alone on the checks that can.
#include "compiler/lowering/llvm/BoundsCheckVersioning.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/InstructionSimplify.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/SimpleLoopUnswitch.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

namespace cajeta::lowering {

namespace {

/// A bounds check: Cmp compares Index against Length; true means in range when TrueInRange.
struct Check {
  llvm::ICmpInst* Cmp;
  llvm::Value* Index;
  llvm::Value* Length;
  bool TrueInRange;
};

/// How an index's value moves over a loop nest: Start (invariant in the nest) plus, for each
/// loop of the nest it moves in, Step times an iteration number from 0 to that loop's Taken
/// (one fewer where the check runs only in the loop's body: BodyOnly). The recurrence is
/// computed in Bits (32 or 64) and widened to i64 by How.
struct IndexRange {
  enum class Widen { None, Zero, Sign } How = Widen::None;
  const llvm::SCEV* Start = nullptr;
  struct Term {
    const llvm::SCEV* Step;
    const llvm::SCEV* Taken;
    /// The loop may leave from its header, the check is in another of its blocks, and Taken is
    /// the header's exit count: the check never sees the header's last visit, whose iteration
    /// number is Taken (a loop whose test comes first, as a uniform loop unrolled by four is:
    /// its last visit finds no four more iterations, and the index of that visit is past the
    /// buffer).
    bool BodyOnly;
  };
  std::vector<Term> Terms;
};

/// A nest's versioned copy, cleaned after every nest is versioned (while the dominator tree and
/// loop info still serve the next nest's versioning).
struct Versioned {
  std::vector<llvm::BasicBlock*> Blocks; // the copy's blocks, its preheader first
  std::vector<std::pair<llvm::Instruction*, bool>> Folded;
  /// Values from before the nest that its checks decided (a check of an index the nest does not
  /// change, hoisted out of it, and the selects on it) and what the copy reads instead.
  std::map<llvm::Value*, llvm::Value*> Decided;
};

/// At most this many loops an index may move in (their spans add up below 2^62).
constexpr size_t MaxTerms = 4;

/// Rewrites freeze(X) as X. InstCombine freezes a work-item's coordinate when it merges the
/// guards on it (a && b as one and), and SCEV does not look through a freeze. In the kernels this
/// pass sees (their lengths are marked), X is never poison or undef: the kernel language's
/// integer arithmetic wraps, so the lowering puts no poison-generating flag on it (only on its
/// own loop counters, which their trip counts bound), the parameters and launch sizes are
/// noundef loads, and locals are initialised; freeze(X) is then X itself.
class ThawFreezes : public llvm::SCEVRewriteVisitor<ThawFreezes> {
public:
  explicit ThawFreezes(llvm::ScalarEvolution& SE) : SCEVRewriteVisitor(SE) {}
  const llvm::SCEV* visitUnknown(const llvm::SCEVUnknown* U) {
    auto* Freeze = llvm::dyn_cast<llvm::FreezeInst>(U->getValue());
    if (!Freeze || !Freeze->getType()->isIntegerTy())
      return U;
    return visit(SE.getSCEV(Freeze->getOperand(0)));
  }
};

bool isLength(const llvm::Value* V) {
  const auto* I = llvm::dyn_cast<llvm::Instruction>(V);
  return I && I->getMetadata(BoundsCheckVersioning::LengthMetadata);
}

/// Cmp as a bounds check, if it is one: an unsigned compare of an index with a marked length.
bool asCheck(llvm::ICmpInst* Cmp, Check& Out) {
  using P = llvm::ICmpInst::Predicate;
  llvm::Value* A = Cmp->getOperand(0);
  llvm::Value* B = Cmp->getOperand(1);
  P Pred = Cmp->getPredicate();
  if (!Cmp->getType()->isIntegerTy(1) || !A->getType()->isIntegerTy(64))
    return false;
  // An equality with the length is decided too where every index is proved below it: the loop
  // optimizations rewrite a counter's `j < length` check as its loop's exit `j == length`.
  if (Pred == P::ICMP_EQ || Pred == P::ICMP_NE) {
    if (isLength(A) == isLength(B))
      return false;
    Out = {Cmp, isLength(B) ? A : B, isLength(B) ? B : A, Pred == P::ICMP_NE};
    return true;
  }
  if (isLength(B) && !isLength(A)) {
    // Index < Length (true in range) or Index >= Length (true out of range).
    if (Pred != P::ICMP_ULT && Pred != P::ICMP_UGE)
      return false;
    Out = {Cmp, A, B, Pred == P::ICMP_ULT};
    return true;
  }
  if (isLength(A) && !isLength(B)) {
    // Length > Index or Length <= Index.
    if (Pred != P::ICMP_UGT && Pred != P::ICMP_ULE)
      return false;
    Out = {Cmp, B, A, Pred == P::ICMP_UGT};
    return true;
  }
  return false;
}

class NestVersioner {
public:
  NestVersioner(llvm::Function& F, llvm::LoopInfo& LI, llvm::DominatorTree& DT,
                llvm::ScalarEvolution& SE, llvm::AssumptionCache& AC)
      : F(F), LI(LI), DT(DT), SE(SE), AC(AC) {}

  /// Versions the nests of F; returns the copies to clean.
  std::vector<Versioned> run();
  /// Whether a loop with checks was seen (and perhaps brought into simplified form).
  bool touched() const { return Touched; }

private:
  /// Index's movement over the nest L, if SCEV can describe it: its recurrences, or else the
  /// range of its values.
  bool describe(const Check& C, llvm::Loop* L, IndexRange& Out) const;
  bool describeAffine(const Check& C, llvm::Loop* L, IndexRange& Out) const;
  /// The checks in L's blocks (its inner loops' included).
  std::vector<Check> checksIn(llvm::Loop* L) const;
  /// Records in Decided what V reads in range when V, defined before L, is a check or a select
  /// on one.
  static void invariantCheck(llvm::Value* V, llvm::Loop* L,
                             std::map<llvm::Value*, llvm::Value*>& Decided);
  /// Versions L on those of Checks it can describe; false when it describes none.
  bool version(llvm::Loop* L, const std::vector<Check>& Checks, Versioned& Out);
  /// The condition, built at IB's insert point, under which R stays below Length on every
  /// iteration; nullptr for a step too large to bound.
  llvm::Value* inRange(const IndexRange& R, llvm::Value* Length, llvm::IRBuilder<>& IB,
                       llvm::SCEVExpander& X);

  llvm::Function& F;
  llvm::LoopInfo& LI;
  llvm::DominatorTree& DT;
  llvm::ScalarEvolution& SE;
  llvm::AssumptionCache& AC;
  bool Touched = false;
};

bool NestVersioner::describe(const Check& C, llvm::Loop* L, IndexRange& Out) const {
  if (describeAffine(C, L, Out))
    return true;
  // An index the nest does not move affinely whose values SCEV still bounds (a byte widened,
  // a masked or reduced value: a histogram's bin) is in range wherever its largest value is.
  llvm::ConstantRange Values = SE.getUnsignedRange(ThawFreezes(SE).visit(SE.getSCEV(C.Index)));
  if (Values.isFullSet() || Values.getUnsignedMax().ugt(uint64_t(1) << 62))
    return false;
  Out = IndexRange{};
  Out.Start = SE.getConstant(C.Index->getType(), Values.getUnsignedMax().getZExtValue());
  return true;
}

bool NestVersioner::describeAffine(const Check& C, llvm::Loop* L, IndexRange& Out) const {
  const llvm::SCEV* S = ThawFreezes(SE).visit(SE.getSCEV(C.Index));
  Out = IndexRange{};
  if (const auto* Z = llvm::dyn_cast<llvm::SCEVZeroExtendExpr>(S)) {
    S = Z->getOperand();
    Out.How = IndexRange::Widen::Zero;
  } else if (const auto* Sx = llvm::dyn_cast<llvm::SCEVSignExtendExpr>(S)) {
    S = Sx->getOperand();
    Out.How = IndexRange::Widen::Sign;
  }
  unsigned Bits = S->getType()->getIntegerBitWidth();
  if (Out.How == IndexRange::Widen::None ? Bits != 64 : Bits != 32)
    return false;
  // Peel recurrences of loops inside L until what is left does not move in L.
  while (!SE.isLoopInvariant(S, L)) {
    const auto* Rec = llvm::dyn_cast<llvm::SCEVAddRecExpr>(S);
    if (!Rec || !Rec->isAffine() || !L->contains(Rec->getLoop()) || Out.Terms.size() == MaxTerms)
      return false;
    const llvm::SCEV* Step = Rec->getStepRecurrence(SE);
    const llvm::Loop* RL = Rec->getLoop();
    const llvm::BasicBlock* Header = RL->getHeader();
    // A check after a header that leaves the loop never sees the header's last visit: the
    // header's own exit count, less one, bounds its iterations whatever the other exits do.
    const llvm::SCEV* HeaderExits =
        RL->contains(C.Cmp->getParent()) && C.Cmp->getParent() != Header &&
                RL->isLoopExiting(Header)
            ? SE.getExitCount(RL, Header, llvm::ScalarEvolution::SymbolicMaximum)
            : nullptr;
    bool BodyOnly = HeaderExits && !llvm::isa<llvm::SCEVCouldNotCompute>(HeaderExits);
    const llvm::SCEV* Taken =
        BodyOnly ? HeaderExits : SE.getSymbolicMaxBackedgeTakenCount(Rec->getLoop());
    if (!SE.isLoopInvariant(Step, L) || llvm::isa<llvm::SCEVCouldNotCompute>(Taken) ||
        !SE.isLoopInvariant(Taken, L) || Taken->getType()->getIntegerBitWidth() > 64)
      return false;
    Out.Terms.push_back({Step, Taken, BodyOnly});
    S = Rec->getStart();
  }
  Out.Start = S;
  llvm::Instruction* At = L->getLoopPreheader() ? L->getLoopPreheader()->getTerminator() : nullptr;
  if (!At)
    return false;
  llvm::SCEVExpander X(SE, F.getDataLayout(), "bounds.probe");
  if (!X.isSafeToExpandAt(Out.Start, At))
    return false;
  for (const IndexRange::Term& T : Out.Terms)
    if (!X.isSafeToExpandAt(T.Step, At) || !X.isSafeToExpandAt(T.Taken, At))
      return false;
  return true;
}

llvm::Value* NestVersioner::inRange(const IndexRange& R, llvm::Value* Length, llvm::IRBuilder<>& IB,
                                    llvm::SCEVExpander& X) {
  using W = IndexRange::Widen;
  llvm::Type* I64 = IB.getInt64Ty();
  llvm::Instruction* At = &*IB.GetInsertPoint();
  auto K = [&](uint64_t V) { return llvm::ConstantInt::get(I64, V); };
  auto Widened = [&](const llvm::SCEV* S) {
    llvm::Value* V = X.expandCodeFor(S, S->getType(), At);
    return R.How == W::Sign ? IB.CreateSExt(V, I64) : IB.CreateZExtOrTrunc(V, I64);
  };
  // Every quantity is bounded below (Start by 2^62, each span by 2^59) before the sums are
  // trusted: the conditions are ANDed, so a sum that wrapped only matters where a bound failed.
  llvm::Value* Start = Widened(R.Start);
  llvm::Value* Cond =
      R.How == W::None ? IB.CreateICmpULE(Start, K(uint64_t(1) << 62)) : IB.getTrue();
  auto And = [&](llvm::Value* V) { Cond = IB.CreateAnd(Cond, V); };
  llvm::Value* Lo = Start;
  llvm::Value* Hi = Start;
  for (const IndexRange::Term& T : R.Terms) {
    const llvm::SCEV* StepS = T.Step;
    llvm::Value* Taken =
        IB.CreateZExtOrTrunc(X.expandCodeFor(T.Taken, T.Taken->getType(), At), I64);
    And(IB.CreateICmpULE(Taken, K(uint64_t(1) << 31)));
    if (T.BodyOnly) // iterations 0 to Taken - 1 (none when Taken is 0: 0 is then safe to use)
      Taken = IB.CreateSelect(IB.CreateICmpEQ(Taken, K(0)), K(0), IB.CreateSub(Taken, K(1)));
    if (const auto* C = llvm::dyn_cast<llvm::SCEVConstant>(StepS)) {
      int64_t V = C->getAPInt().getSExtValue();
      uint64_t Mag = uint64_t(V < 0 ? -V : V);
      if (Mag > (uint64_t(1) << 28))
        return nullptr;
      llvm::Value* Span = IB.CreateMul(Taken, K(Mag));
      if (V < 0)
        Lo = IB.CreateSub(Lo, Span);
      else
        Hi = IB.CreateAdd(Hi, Span);
      continue;
    }
    // A step known only at run time counts as rising; a negative one fails the bound.
    llvm::Value* Step = Widened(StepS);
    And(IB.CreateICmpULE(Step, K(uint64_t(1) << 28)));
    Hi = IB.CreateAdd(Hi, IB.CreateMul(Taken, Step));
  }
  And(IB.CreateICmpSGE(Lo, K(0)));
  switch (R.How) {
  case W::None:
    break;
  case W::Zero: // u32 values: none past 2^32 - 1 (none below 0: Lo)
    And(IB.CreateICmpULE(Hi, K(0xFFFFFFFFu)));
    break;
  case W::Sign: // i32 values: none past 2^31 - 1
    And(IB.CreateICmpSLE(Hi, K(0x7FFFFFFF)));
    break;
  }
  And(IB.CreateICmpULT(Hi, Length));
  return Cond;
}

std::vector<Check> NestVersioner::checksIn(llvm::Loop* L) const {
  std::vector<Check> Checks;
  for (llvm::BasicBlock* BB : L->blocks())
    for (llvm::Instruction& I : *BB)
      if (auto* Cmp = llvm::dyn_cast<llvm::ICmpInst>(&I)) {
        Check C;
        if (asCheck(Cmp, C))
          Checks.push_back(C);
      }
  return Checks;
}

void NestVersioner::invariantCheck(llvm::Value* V, llvm::Loop* L,
                                   std::map<llvm::Value*, llvm::Value*>& Decided) {
  auto* I = llvm::dyn_cast<llvm::Instruction>(V);
  if (!I || L->contains(I) || Decided.count(V))
    return;
  Check C;
  if (auto* Cmp = llvm::dyn_cast<llvm::ICmpInst>(I); Cmp && asCheck(Cmp, C)) {
    Decided[V] = llvm::ConstantInt::getBool(V->getContext(), C.TrueInRange);
    return;
  }
  auto* Sel = llvm::dyn_cast<llvm::SelectInst>(I);
  auto* Cmp = Sel ? llvm::dyn_cast<llvm::ICmpInst>(Sel->getCondition()) : nullptr;
  if (Cmp && !L->contains(Cmp) && asCheck(Cmp, C)) {
    Decided[Cmp] = llvm::ConstantInt::getBool(V->getContext(), C.TrueInRange);
    Decided[V] = C.TrueInRange ? Sel->getTrueValue() : Sel->getFalseValue();
  }
}

bool NestVersioner::version(llvm::Loop* L, const std::vector<Check>& Checks, Versioned& Out) {
  llvm::BasicBlock* Preheader = L->getLoopPreheader();
  if (!Preheader || !L->hasDedicatedExits())
    return false;
  std::vector<std::pair<const Check*, IndexRange>> Described;
  for (const Check& C : Checks) {
    IndexRange R;
    if (describe(C, L, R))
      Described.push_back({&C, R});
  }
  // Checks of indices the nest does not change, hoisted out of it: their compare is its own
  // proof, and the copy reads their in-range value (and the in-range arm of selects on them).
  std::map<llvm::Value*, llvm::Value*> Decided;
  for (llvm::BasicBlock* BB : L->blocks())
    for (llvm::Instruction& I : *BB)
      for (llvm::Value* Op : I.operands())
        invariantCheck(Op, L, Decided);
  if (Described.empty() && Decided.empty())
    return false;
  llvm::formLCSSARecursively(*L, DT, &LI, &SE);

  // The conditions, in the preheader (which becomes the test block).
  llvm::IRBuilder<> IB(Preheader->getTerminator());
  llvm::SCEVExpander X(SE, F.getDataLayout(), "bounds.range");
  llvm::Value* All = nullptr;
  std::vector<std::pair<llvm::Instruction*, bool>> Proved;
  for (auto& [C, R] : Described) {
    llvm::Value* Cond = inRange(R, C->Length, IB, X);
    if (!Cond)
      continue;
    All = All ? IB.CreateAnd(All, Cond) : Cond;
    Proved.push_back({C->Cmp, C->TrueInRange});
  }
  for (auto [V, InRange] : Decided)
    if (llvm::isa<llvm::ICmpInst>(V)) {
      llvm::Value* Cond = llvm::cast<llvm::ConstantInt>(InRange)->isOne() ? V : IB.CreateNot(V);
      All = All ? IB.CreateAnd(All, Cond) : Cond;
    }
  if (!All)
    return false;             // what was expanded is dead; later passes remove it
  All = IB.CreateFreeze(All); // a poison length must not become undefined behaviour

  // The nest's own preheader after the test; the copy gets one of its own.
  llvm::BasicBlock* Test = Preheader;
  llvm::BasicBlock* SlowPreheader = llvm::SplitBlock(Test, Test->getTerminator(), &DT, &LI, nullptr,
                                                     L->getHeader()->getName() + ".bounds.checked");
  llvm::ValueToValueMapTy VMap;
  llvm::SmallVector<llvm::BasicBlock*, 16> Blocks;
  llvm::Loop* Fast = llvm::cloneLoopWithPreheader(SlowPreheader, Test, L, VMap, ".bounds.inrange",
                                                  &LI, &DT, Blocks);
  llvm::remapInstructionsInBlocks(Blocks, VMap);
  llvm::Instruction* OldBr = Test->getTerminator();
  llvm::BranchInst::Create(Fast->getLoopPreheader(), SlowPreheader, All, OldBr->getIterator());
  OldBr->eraseFromParent();
  // Values the nest passes out (its LCSSA phis) come from either copy.
  llvm::SmallVector<llvm::BasicBlock*, 4> Exits;
  L->getUniqueExitBlocks(Exits);
  for (llvm::BasicBlock* Exit : Exits)
    for (llvm::PHINode& Phi : Exit->phis()) {
      llvm::SmallVector<std::pair<llvm::Value*, llvm::BasicBlock*>, 4> Copies;
      for (unsigned I = 0; I != Phi.getNumIncomingValues(); ++I) {
        llvm::BasicBlock* From = Phi.getIncomingBlock(I);
        if (!L->contains(From))
          continue;
        llvm::Value* V = Phi.getIncomingValue(I);
        auto It = VMap.find(V);
        Copies.push_back({It != VMap.end() ? static_cast<llvm::Value*>(It->second) : V,
                          llvm::cast<llvm::BasicBlock>(VMap[From])});
      }
      for (auto [V, From] : Copies)
        Phi.addIncoming(V, From);
    }
  // The exits (and what they reach) now have two ways in.
  DT.recalculate(F);
  SE.forgetLoop(L);
  Out.Blocks.assign(Blocks.begin(), Blocks.end());
  for (auto [Cmp, InRange] : Proved)
    Out.Folded.push_back({llvm::cast<llvm::Instruction>(VMap[Cmp]), InRange});
  Out.Decided = std::move(Decided);
  return true;
}

std::vector<Versioned> NestVersioner::run() {
  // The loops with checks, inner ones included, each brought into simplified form once.
  std::vector<llvm::Loop*> WithChecks;
  std::map<llvm::Loop*, std::vector<Check>> Checks;
  for (llvm::Loop* L : LI.getLoopsInPreorder()) {
    std::vector<Check> C = checksIn(L);
    if (C.empty())
      continue;
    Touched = true;
    // Preheaders and dedicated exits only: the checks stay in the blocks they are in.
    llvm::simplifyLoop(L, &DT, &LI, &SE, &AC, nullptr, /*PreserveLCSSA=*/false);
    WithChecks.push_back(L);
    Checks[L] = std::move(C);
  }
  // A nest whose every check it describes, outermost first; then, for each innermost loop not
  // inside one, the loop alone.
  auto Whole = [&](llvm::Loop* L) {
    for (const Check& C : Checks[L]) {
      IndexRange R;
      if (!describe(C, L, R))
        return false;
    }
    return true;
  };
  std::vector<llvm::Loop*> Chosen;
  auto Covered = [&](llvm::Loop* L) {
    for (llvm::Loop* N : Chosen)
      if (N->contains(L))
        return true;
    return false;
  };
  for (llvm::Loop* L : WithChecks) // preorder: parents before children
    if (!Covered(L) && Whole(L))
      Chosen.push_back(L);
  // Innermost loops inside a chosen nest are versioned again on their own, inside the nest's
  // checked copy: where the nest's one test fails for a few of its iterations (an edge row, the
  // work-items a triangular loop has parked), each entry of the inner loop still takes the
  // unchecked copy when its own indices are in range.
  std::vector<llvm::Loop*> Inner;
  for (llvm::Loop* L : WithChecks)
    if (L->isInnermost())
      (Covered(L) ? Inner : Chosen).push_back(L);
  std::vector<Versioned> Done;
  for (llvm::Loop* L : Chosen) {
    Versioned V;
    if (version(L, Checks[L], V))
      Done.push_back(std::move(V));
  }
  for (llvm::Loop* L : Inner) {
    if (std::find(Chosen.begin(), Chosen.end(), L) != Chosen.end())
      continue;
    Versioned V;
    if (version(L, checksIn(L), V))
      Done.push_back(std::move(V));
  }
  return Done;
}

/// Folds the copy's proved checks and cleans its blocks: branches on them become jumps, blocks
/// no longer reached go, and the selects and reductions that recorded failures simplify away.
void clean(Versioned& V) {
  for (llvm::BasicBlock* BB : V.Blocks)
    for (llvm::Instruction& I : *BB)
      for (llvm::Use& Op : I.operands())
        if (auto It = V.Decided.find(Op.get()); It != V.Decided.end())
          Op.set(It->second);
  for (auto [Cmp, InRange] : V.Folded) {
    llvm::Constant* C = llvm::ConstantInt::getBool(Cmp->getContext(), InRange);
    llvm::replaceAndRecursivelySimplify(Cmp, C);
  }
  for (llvm::BasicBlock* BB : V.Blocks)
    llvm::ConstantFoldTerminator(BB, /*DeleteDeadConditions=*/true);
  // What the folded branches no longer reach: the copy's blocks without a path from its entry.
  llvm::SmallPtrSet<llvm::BasicBlock*, 32> Reached;
  std::vector<llvm::BasicBlock*> Work{V.Blocks.front()};
  llvm::SmallPtrSet<llvm::BasicBlock*, 32> Mine(V.Blocks.begin(), V.Blocks.end());
  while (!Work.empty()) {
    llvm::BasicBlock* BB = Work.back();
    Work.pop_back();
    if (!Reached.insert(BB).second)
      continue;
    for (llvm::BasicBlock* S : llvm::successors(BB))
      if (Mine.count(S))
        Work.push_back(S);
  }
  std::vector<llvm::BasicBlock*> Dead, Live;
  for (llvm::BasicBlock* BB : V.Blocks)
    (Reached.count(BB) ? Live : Dead).push_back(BB);
  llvm::DeleteDeadBlocks(Dead);
  for (llvm::BasicBlock* BB : Live)
    llvm::SimplifyInstructionsInBlock(BB);
  for (llvm::BasicBlock* BB : Live)
    if (BB != V.Blocks.front())
      llvm::MergeBlockIntoPredecessor(BB);
}

} // namespace

void BoundsCheckVersioning::markLength(llvm::Instruction& Length) {
  Length.setMetadata(LengthMetadata, llvm::MDNode::get(Length.getContext(), {}));
}

llvm::PreservedAnalyses BoundsCheckVersioning::run(llvm::Function& F,
                                                   llvm::FunctionAnalysisManager& AM) {
  bool Marked = false;
  for (llvm::Instruction& I : F.getEntryBlock())
    Marked |= isLength(&I);
  if (!Marked)
    return llvm::PreservedAnalyses::all();
  NestVersioner NV(
      F, AM.getResult<llvm::LoopAnalysis>(F), AM.getResult<llvm::DominatorTreeAnalysis>(F),
      AM.getResult<llvm::ScalarEvolutionAnalysis>(F), AM.getResult<llvm::AssumptionAnalysis>(F));
  std::vector<Versioned> Done = NV.run();
  if (Done.empty())
    return NV.touched() ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
  for (Versioned& V : Done)
    clean(V);
  // The copies without checks are small again: a branch on a value their loops do not change
  // (a row's `i == 0`) leaves them as it left the unchecked kernel's loops earlier in the
  // pipeline, so each loop vectorizes without masks.
  AM.invalidate(F, llvm::PreservedAnalyses::none());
  llvm::FunctionPassManager Unswitch;
  Unswitch.addPass(llvm::createFunctionToLoopPassAdaptor(
      llvm::SimpleLoopUnswitchPass(/*NonTrivial=*/true), /*UseMemorySSA=*/true));
  Unswitch.run(F, AM);
  return llvm::PreservedAnalyses::none();
}

} // namespace cajeta::lowering
