// Unroll-and-jam of work-item loops around row walks (WorkItemJam.h).
#include "compiler/lowering/llvm/WorkItemJam.h"

#include "compiler/lowering/llvm/LoopIds.h"
#include "compiler/lowering/llvm/RowTranspose.h"

#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/OptimizationRemarkEmitter.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/LoopSimplify.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/UnrollLoop.h>

#include <functional>
#include <map>
#include <set>

namespace cajeta::lowering {

namespace {

/// Loop simplify form, rotated, one exit block and one exiting block, as the jam needs.
bool plainForm(const llvm::Loop& L) {
  return L.isLoopSimplifyForm() && L.isRotatedForm() && L.getExitBlock() && L.getExitingBlock() &&
         !L.getHeader()->hasAddressTaken();
}

/// Whether the row loop carries a floating-point value from one iteration to the next.
bool carriesFloatChain(const llvm::Loop& Row) {
  for (const llvm::PHINode& Phi : Row.getHeader()->phis())
    if (Phi.getType()->isFloatingPointTy())
      return true;
  return false;
}

/// Whether the blocks of Outer split as the jam copies them: blocks before the row loop that only
/// lead to it, and one block after it (the latch). The values the header's phis take from the
/// latch must be computable before the row loop (the jam moves them there): nothing on their way
/// in the after block reads memory, has side effects or is a phi.
bool jamShape(const llvm::Loop& Outer, const llvm::Loop& Row, const llvm::DominatorTree& DT) {
  llvm::BasicBlock* RowLatch = Row.getLoopLatch();
  llvm::BasicBlock* RowPre = Row.getLoopPreheader();
  std::set<const llvm::BasicBlock*> Fore, Aft;
  for (llvm::BasicBlock* BB : Outer.blocks())
    if (!Row.contains(BB))
      (DT.dominates(RowLatch, BB) ? Aft : Fore).insert(BB);
  if (Aft.size() != 1)
    return false;
  for (const llvm::BasicBlock* BB : Fore)
    if (BB != RowPre)
      for (const llvm::BasicBlock* Succ : llvm::successors(BB))
        if (!Fore.count(Succ))
          return false;
  std::set<const llvm::Instruction*> Seen;
  std::function<bool(const llvm::Instruction*)> Movable = [&](const llvm::Instruction* I) {
    if (!Seen.insert(I).second)
      return true;
    if (Row.contains(I->getParent()))
      return false;
    if (!Aft.count(I->getParent()))
      return true;
    if (llvm::isa<llvm::PHINode>(I) || I->mayHaveSideEffects() || I->mayReadOrWriteMemory())
      return false;
    for (const llvm::Use& Op : I->operands())
      if (auto* OpI = llvm::dyn_cast<llvm::Instruction>(Op.get()); OpI && !Movable(OpI))
        return false;
    return true;
  };
  for (const llvm::PHINode& Phi : Outer.getHeader()->phis())
    if (auto* I =
            llvm::dyn_cast<llvm::Instruction>(Phi.getIncomingValueForBlock(Outer.getLoopLatch()));
        I && !Movable(I))
      return false;
  return true;
}

/// The row loop of Outer when Outer is a loop over work-items around one innermost loop that runs
/// as many times for every work-item and carries a floating-point chain, small enough to copy.
llvm::Loop* rowWalk(llvm::Loop& Outer, llvm::ScalarEvolution& SE) {
  if (!isParallelLoop(Outer) || !Outer.isAnnotatedParallel() || Outer.getSubLoops().size() != 1)
    return nullptr;
  // A private array (a ray query's stack) is one alloca that each work-item reuses in turn:
  // work-items interleaved would share it.
  for (llvm::BasicBlock* BB : Outer.blocks())
    for (llvm::Instruction& I : *BB)
      if (llvm::Value* Ptr = llvm::getLoadStorePointerOperand(&I);
          Ptr && llvm::isa<llvm::AllocaInst>(llvm::getUnderlyingObject(Ptr)))
        return nullptr;
  llvm::Loop* Row = Outer.getSubLoops()[0];
  if (!Row->isInnermost() || !carriesFloatChain(*Row))
    return nullptr;
  unsigned Size = 0;
  for (llvm::BasicBlock* BB : Row->blocks())
    for (const llvm::Instruction& I : *BB) {
      if (I.mayThrow())
        return nullptr;
      ++Size;
    }
  if (Size > WorkItemJam::MaxRowInstructions || !llvm::hasIterationCountInvariantInParent(Row, SE))
    return nullptr;
  return Row;
}

/// Adds {Name} to the properties in L's loop id (a new id when it has none).
void addLoopProperty(llvm::Loop& L, const char* Name) {
  llvm::LLVMContext& C = L.getHeader()->getContext();
  llvm::SmallVector<llvm::Metadata*, 4> Properties;
  if (llvm::MDNode* Old = L.getLoopID())
    for (unsigned I = 1; I < Old->getNumOperands(); ++I)
      Properties.push_back(Old->getOperand(I));
  Properties.push_back(llvm::MDNode::get(C, {llvm::MDString::get(C, Name)}));
  L.setLoopID(newLoopId(C, Properties));
}

/// Each jammed copy of the row loop brings its own counter, all equal: one for all, so their
/// shared loads (x[j]) become one.
void mergeCongruentCounters(llvm::Loop& Row, llvm::ScalarEvolution& SE) {
  std::map<const llvm::SCEV*, llvm::PHINode*> First;
  for (llvm::PHINode& Phi : llvm::make_early_inc_range(Row.getHeader()->phis())) {
    if (!SE.isSCEVable(Phi.getType()))
      continue;
    const llvm::SCEV* S = SE.getSCEV(&Phi);
    if (!llvm::isa<llvm::SCEVAddRecExpr>(S))
      continue;
    auto [It, New] = First.emplace(S, &Phi);
    if (New)
      continue;
    SE.forgetValue(&Phi);
    Phi.replaceAllUsesWith(It->second);
    Phi.eraseFromParent();
  }
}

/// Jams Outer (around Row) by Factor and unrolls the jammed row loop by RowUnroll (Unroll). The
/// jammed row loop's header goes to Jammed.
bool jam(llvm::Loop* Outer, unsigned Factor, bool Unroll, llvm::LoopInfo& LI,
         llvm::ScalarEvolution& SE, llvm::DominatorTree& DT, llvm::AssumptionCache& AC,
         const llvm::TargetTransformInfo& TTI, llvm::OptimizationRemarkEmitter& ORE,
         llvm::BasicBlock*& Jammed, llvm::Loop** Remainder = nullptr) {
  // The work-items past a multiple of Factor first, in a remainder loop: made here because the
  // jam's own would refuse a trip count of the guard split's min and max as too costly (it is
  // computed once per row of workgroups).
  if (!llvm::UnrollRuntimeLoopRemainder(Outer, Factor,
                                        /*AllowExpensiveTripCount=*/true,
                                        /*UseEpilogRemainder=*/true, /*UnrollRemainder=*/false,
                                        /*ForgetAllSCEV=*/false, &LI, &SE, &DT, &AC, &TTI,
                                        /*PreserveLCSSA=*/true, Remainder))
    return false;
  llvm::UnrollAndJamLoop(Outer, Factor, /*TripCount=*/0,
                         /*TripMultiple=*/Factor, /*UnrollRemainder=*/false, &LI, &SE, &DT, &AC,
                         &TTI, &ORE);
  if (Outer->getSubLoops().size() == 1) {
    llvm::Loop* Row = Outer->getSubLoops()[0];
    mergeCongruentCounters(*Row, SE);
    Jammed = Row->getHeader();
    if (!Unroll)
      return true;
    llvm::UnrollLoopOptions Options{WorkItemJam::RowUnroll,
                                    /*Force=*/false,
                                    /*Runtime=*/true,
                                    /*AllowExpensiveTripCount=*/false,
                                    /*UnrollRemainder=*/false,
                                    /*ForgetAllSCEV=*/false};
    llvm::UnrollLoop(Row, Options, &LI, &SE, &DT, &AC, &TTI, &ORE, /*PreserveLCSSA=*/true);
  }
  return true;
}

} // namespace

llvm::PreservedAnalyses WorkItemJam::run(llvm::Function& F, llvm::FunctionAnalysisManager& AM) {
  auto& LI = AM.getResult<llvm::LoopAnalysis>(F);
  auto& DT = AM.getResult<llvm::DominatorTreeAnalysis>(F);
  auto& SE = AM.getResult<llvm::ScalarEvolutionAnalysis>(F);
  auto& AC = AM.getResult<llvm::AssumptionAnalysis>(F);
  auto& TTI = AM.getResult<llvm::TargetIRAnalysis>(F);
  llvm::OptimizationRemarkEmitter ORE(&F);

  // Loops over work-items do not nest, so the candidates are disjoint nests: each jam leaves the
  // others' loops as they are.
  llvm::SmallVector<llvm::Loop*, 4> Nests;
  for (llvm::Loop* L : LI.getLoopsInPreorder())
    if (isParallelLoop(*L) && L->getSubLoops().size() == 1)
      Nests.push_back(L);
  bool Changed = false, Jammed = false;
  const unsigned VectorBits = unsigned(
      TTI.getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector).getFixedValue());
  std::vector<std::pair<llvm::BasicBlock*, unsigned>> ToTranspose; // jammed rows' headers, lanes
  for (llvm::Loop* L : Nests) {
    llvm::Loop* Row = rowWalk(*L, SE);
    if (!Row)
      continue;
    if (P == Phase::KeepRowsWhole) {
      addLoopProperty(*Row, "llvm.loop.unroll.runtime.disable");
      Changed = true;
      continue;
    }
    Changed |= llvm::simplifyLoop(L, &DT, &LI, &SE, &AC, nullptr, /*PreserveLCSSA=*/false);
    Changed |= llvm::formLCSSARecursively(*L, DT, &LI, &SE);
    if (!plainForm(*L) || !plainForm(*Row) || !jamShape(*L, *Row, DT))
      continue;
    const unsigned Walks = Transpose ? RowTranspose::fits(*Row, *L, SE) : 0;
    const bool Transposed = Walks != 0;
    const unsigned Lanes = RowTranspose::lanesFor(VectorBits, Walks);
    llvm::BasicBlock* Header = nullptr;
    llvm::Loop* Rest = nullptr;
    llvm::MDNode* OuterId = L->getLoopID();
    if (!jam(L, Transposed ? Lanes : Factor, !Transposed, LI, SE, DT, AC, TTI, ORE, Header, &Rest))
      continue;
    Jammed = true;
    if (!Transposed || !Header)
      continue;
    ToTranspose.push_back({Header, Lanes});
    // The work-items past a multiple of the vector's width (all of a group narrower than it)
    // still run their rows Factor at a time. Their loop's id, made by the remainder's unroll,
    // lost the work-item loop's properties; its iterations are that loop's, in any order.
    if (Rest)
      Rest->setLoopID(copyLoopId(OuterId));
    llvm::Loop* RestRow = Rest ? rowWalk(*Rest, SE) : nullptr;
    if (!RestRow)
      continue;
    llvm::simplifyLoop(Rest, &DT, &LI, &SE, &AC, nullptr, /*PreserveLCSSA=*/false);
    llvm::formLCSSARecursively(*Rest, DT, &LI, &SE);
    llvm::BasicBlock* RestHeader = nullptr;
    if (plainForm(*Rest) && plainForm(*RestRow) && jamShape(*Rest, *RestRow, DT))
      jam(Rest, Factor, true, LI, SE, DT, AC, TTI, ORE, RestHeader);
  }
  // Each jammed row that fits as vectors, on analyses of the function as it is by then.
  for (auto [Header, Lanes] : ToTranspose) {
    llvm::DominatorTree FreshDT(F);
    llvm::LoopInfo FreshLI(FreshDT);
    llvm::ScalarEvolution FreshSE(F, AM.getResult<llvm::TargetLibraryAnalysis>(F), AC, FreshDT,
                                  FreshLI);
    if (llvm::Loop* Row = FreshLI.getLoopFor(Header); Row && Row->getHeader() == Header)
      RowTranspose::vectorize(*Row, FreshDT, FreshSE, Lanes, Rows);
  }
  if (!Jammed)
    return Changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
  // After the pipeline's last cleanups: the jammed copies' shared loads (x[j]) once, their index
  // arithmetic folded, in the functions jammed only.
  AM.invalidate(F, llvm::PreservedAnalyses::none());
  llvm::FunctionPassManager Cleanup;
  Cleanup.addPass(llvm::EarlyCSEPass(/*UseMemorySSA=*/true));
  Cleanup.addPass(llvm::InstCombinePass());
  Cleanup.addPass(llvm::SimplifyCFGPass());
  Cleanup.run(F, AM);
  return llvm::PreservedAnalyses::none();
}

} // namespace cajeta::lowering
