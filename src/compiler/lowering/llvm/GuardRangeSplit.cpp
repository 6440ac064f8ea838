// Splitting work-item loops at the edges of their guards (GuardRangeSplit.h).
#include "compiler/lowering/llvm/GuardRangeSplit.h"

#include "compiler/lowering/llvm/LoopIds.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/TargetTransformInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace cajeta::lowering {

namespace {

namespace PM = llvm::PatternMatch;

/// The loop's count: an i64 variable from Start up by one, its latch testing the next value
/// against End (operand EndOperand of Test).
struct Counted {
  llvm::PHINode* IV = nullptr;
  llvm::Value* Start = nullptr;
  llvm::ICmpInst* Test = nullptr;
  unsigned EndOperand = 1;
  llvm::Value* End = nullptr;
};

std::optional<Counted> countedLoop(llvm::Loop& L) {
  llvm::BasicBlock* Pre = L.getLoopPreheader();
  llvm::BasicBlock* Latch = L.getLoopLatch();
  llvm::BasicBlock* Exit = L.getExitBlock();
  if (!Pre || !Latch || !Exit || L.getExitingBlock() != Latch || !Exit->phis().empty())
    return std::nullopt;

  auto* Br = llvm::dyn_cast<llvm::BranchInst>(Latch->getTerminator());
  if (!Br || !Br->isConditional())
    return std::nullopt;
  auto* Test = llvm::dyn_cast<llvm::ICmpInst>(Br->getCondition());
  if (!Test || !Test->getOperand(0)->getType()->isIntegerTy(64))
    return std::nullopt;
  bool BackOnTrue = Br->getSuccessor(0) == L.getHeader();
  llvm::ICmpInst::Predicate P = Test->getPredicate();
  if (!((P == llvm::ICmpInst::ICMP_ULT && BackOnTrue) ||
        (P == llvm::ICmpInst::ICMP_NE && BackOnTrue) ||
        (P == llvm::ICmpInst::ICMP_EQ && !BackOnTrue)))
    return std::nullopt;
  Counted C;
  C.Test = Test;
  for (llvm::PHINode& Phi : L.getHeader()->phis()) {
    if (Phi.getNumIncomingValues() != 2 || !Phi.getType()->isIntegerTy(64))
      continue;
    llvm::Value* Next = Phi.getIncomingValueForBlock(Latch);
    if (!PM::match(Next, PM::m_Add(PM::m_Specific(&Phi), PM::m_One())))
      continue;
    unsigned EndOp = Test->getOperand(0) == Next ? 1 : Test->getOperand(1) == Next ? 0 : 2;
    if (EndOp == 2 || (P == llvm::ICmpInst::ICMP_ULT && EndOp != 1) ||
        !L.isLoopInvariant(Test->getOperand(EndOp)))
      continue;
    C.IV = &Phi;
    C.Start = Phi.getIncomingValueForBlock(Pre);
    C.EndOperand = EndOp;
    C.End = Test->getOperand(EndOp);
    break;
  }
  if (!C.IV)
    return std::nullopt;
  // Nothing the loop computes is used after it.
  for (llvm::BasicBlock* BB : L.blocks())
    for (llvm::Instruction& I : *BB)
      for (llvm::User* U : I.users())
        if (auto* UI = llvm::dyn_cast<llvm::Instruction>(U); !UI || !L.contains(UI))
          return std::nullopt;
  return C;
}

/// A compare of (IV mod 2^32) + K against an invariant value, and the range of IV where it has
/// one value: [Lo, Hi) as i64 values computed before the loop.
struct Guard {
  llvm::ICmpInst* Cmp = nullptr;
  bool Value = false;
  llvm::Value* Lo = nullptr;
  llvm::Value* Hi = nullptr;
};

/// Whether V is IV's low 32 bits plus a constant (K, sign-extended).
bool matchX(llvm::Value* V, llvm::PHINode* IV, int64_t& K) {
  llvm::Value* X = nullptr;
  const llvm::APInt* C = nullptr;
  if (PM::match(V, PM::m_c_Add(PM::m_Value(X), PM::m_APInt(C))))
    K = C->getSExtValue();
  else {
    X = V;
    K = 0;
  }
  return PM::match(X, PM::m_Trunc(PM::m_Specific(IV)));
}

/// Whether V is IV's low 32 bits plus a value L does not change (W): the grid-stride step
/// form's `i = start + t * stride` across the work-items of a step.
bool matchXPlus(llvm::Value* V, llvm::PHINode* IV, llvm::Loop& L, llvm::Value*& W) {
  llvm::Value *A = nullptr, *C = nullptr;
  if (!PM::match(V, PM::m_Add(PM::m_Value(A), PM::m_Value(C))))
    return false;
  if (PM::match(C, PM::m_Trunc(PM::m_Specific(IV))))
    std::swap(A, C);
  if (!PM::match(A, PM::m_Trunc(PM::m_Specific(IV))) || !L.isLoopInvariant(C))
    return false;
  W = C;
  return true;
}

/// A compare below a bound of X plus an unsigned W the loop does not change: true for the X
/// below Bound - W where X + W does not wrap (X < 2^32 - W), in i64.
std::optional<Guard> guardOfSum(llvm::ICmpInst* Cmp, llvm::ICmpInst::Predicate P, llvm::Value* W,
                                llvm::Value* V, llvm::IRBuilder<>& B) {
  if (P != llvm::ICmpInst::ICMP_ULT && P != llvm::ICmpInst::ICMP_ULE)
    return std::nullopt;
  llvm::Type* I64 = B.getInt64Ty();
  llvm::Value* Wide = B.CreateZExt(W, I64);
  llvm::Value* Bound = B.CreateSub(B.CreateZExt(V, I64), Wide);
  Guard G;
  G.Cmp = Cmp;
  G.Value = true;
  G.Lo = B.getInt64(0);
  G.Hi = B.CreateBinaryIntrinsic(llvm::Intrinsic::smin,
                                 P == llvm::ICmpInst::ICMP_ULT ? Bound
                                                               : B.CreateAdd(Bound, B.getInt64(1)),
                                 B.CreateSub(B.getInt64(int64_t(1) << 32), Wide));
  return G;
}

std::optional<Guard> guardOf(llvm::ICmpInst* Cmp, llvm::Loop& L, llvm::PHINode* IV,
                             llvm::IRBuilder<>& B) {
  if (!Cmp->getOperand(0)->getType()->isIntegerTy(32))
    return std::nullopt;
  int64_t K = 0;
  llvm::ICmpInst::Predicate P = Cmp->getPredicate();
  llvm::Value* V = nullptr;
  llvm::Value* W = nullptr;
  if (matchX(Cmp->getOperand(0), IV, K))
    V = Cmp->getOperand(1);
  else if (matchX(Cmp->getOperand(1), IV, K)) {
    V = Cmp->getOperand(0);
    P = llvm::ICmpInst::getSwappedPredicate(P);
  } else if (matchXPlus(Cmp->getOperand(0), IV, L, W))
    V = Cmp->getOperand(1);
  else if (matchXPlus(Cmp->getOperand(1), IV, L, W)) {
    V = Cmp->getOperand(0);
    P = llvm::ICmpInst::getSwappedPredicate(P);
  } else
    return std::nullopt;
  if (!L.isLoopInvariant(V)) // then it is defined before the preheader's terminator
    return std::nullopt;
  if (W)
    return guardOfSum(Cmp, P, W, V, B);
  // Where X + K does not wrap: [NwLo, NwHi), and there X + K compares as X does against V - K.
  const int64_t NwLo = K < 0 ? -K : 0, NwHi = (int64_t(1) << 32) - (K > 0 ? K : 0);
  llvm::Type* I64 = B.getInt64Ty();
  auto Const = [&](int64_t N) { return llvm::ConstantInt::getSigned(I64, N); };
  Guard G;
  G.Cmp = Cmp;
  if (P == llvm::ICmpInst::ICMP_EQ || P == llvm::ICmpInst::ICMP_NE) {
    auto* C = llvm::dyn_cast<llvm::ConstantInt>(V);
    if (!C)
      return std::nullopt;
    // Equal at one X: a range on one side of it only where it is an end of [NwLo, NwHi).
    const int64_t At = int64_t(C->getZExtValue()) - K;
    G.Value = P == llvm::ICmpInst::ICMP_NE;
    if (At < NwLo || At >= NwHi)
      G.Lo = Const(NwLo), G.Hi = Const(NwHi);
    else if (At == NwLo)
      G.Lo = Const(NwLo + 1), G.Hi = Const(NwHi);
    else if (At == NwHi - 1)
      G.Lo = Const(NwLo), G.Hi = Const(NwHi - 1);
    else
      return std::nullopt;
    return G;
  }
  llvm::Value* Bound = B.CreateSub(B.CreateZExt(V, I64), Const(K)); // V - K, exact in i64
  llvm::Value* One = Const(1);
  // Below a bound: true from NwLo. Above a constant (x > 0): true up to NwHi. Above a value
  // (x >= n, an early return's test): false from NwLo.
  switch (P) {
  case llvm::ICmpInst::ICMP_ULT:
  case llvm::ICmpInst::ICMP_ULE:
    G.Value = true;
    G.Lo = Const(NwLo);
    G.Hi = P == llvm::ICmpInst::ICMP_ULT ? Bound : B.CreateAdd(Bound, One);
    break;
  case llvm::ICmpInst::ICMP_UGT:
  case llvm::ICmpInst::ICMP_UGE: {
    llvm::Value* Edge = P == llvm::ICmpInst::ICMP_UGT ? B.CreateAdd(Bound, One) : Bound;
    G.Value = llvm::isa<llvm::Constant>(V);
    G.Lo = G.Value ? Edge : Const(NwLo);
    G.Hi = G.Value ? Const(NwHi) : Edge;
    break;
  }
  default:
    return std::nullopt;
  }
  // Within [NwLo, NwHi): beyond it X + K wraps (and an x past 2^32 is not its low bits).
  G.Lo = B.CreateBinaryIntrinsic(llvm::Intrinsic::smax, G.Lo, Const(NwLo));
  G.Hi = B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, G.Hi, Const(NwHi));
  return G;
}

/// Whether running an iteration of L (counted by IV) a second time, after later ones, leaves
/// memory as running it once does: the loop carries nothing but IV, every load reads a buffer the
/// kernel never writes (!invariant.load), and nothing else touches memory but plain stores, whose
/// values are then the same both times. A loop without loads (the fission's flag stores) has no
/// work worth a vector run twice.
bool rerunIsHarmless(const llvm::Loop& L, const llvm::PHINode* IV) {
  for (const llvm::PHINode& Phi : L.getHeader()->phis())
    if (&Phi != IV)
      return false;
  bool Loads = false;
  for (llvm::BasicBlock* BB : L.blocks())
    for (llvm::Instruction& I : *BB) {
      if (auto* Ld = llvm::dyn_cast<llvm::LoadInst>(&I)) {
        if (!Ld->isSimple() || !Ld->hasMetadata(llvm::LLVMContext::MD_invariant_load))
          return false;
        Loads = true;
      } else if (auto* St = llvm::dyn_cast<llvm::StoreInst>(&I)) {
        if (!St->isSimple())
          return false;
      } else if (I.mayReadOrWriteMemory() || I.mayHaveSideEffects()) {
        return false;
      }
    }
  return Loads;
}

/// Splits L (counted as C) around the range where every guard holds its value.
bool split(llvm::Function& F, llvm::Loop& L, const Counted& C, unsigned Lanes,
           llvm::DominatorTree& DT, llvm::LoopInfo& LI) {
  llvm::LLVMContext& Ctx = F.getContext();
  llvm::BasicBlock* Header = L.getHeader();
  llvm::BasicBlock* Exit = L.getExitBlock();
  llvm::BasicBlock* Latch = L.getLoopLatch();
  llvm::BasicBlock* Outer = L.getLoopPreheader();
  llvm::IRBuilder<> B(Outer->getTerminator());
  std::vector<Guard> Guards;
  for (llvm::BasicBlock* BB : L.blocks())
    for (llvm::Instruction& I : *BB)
      if (auto* Cmp = llvm::dyn_cast<llvm::ICmpInst>(&I); Cmp && Cmp != C.Test)
        if (std::optional<Guard> G = guardOf(Cmp, L, C.IV, B))
          Guards.push_back(*G);
  if (Guards.empty())
    return false;
  // The middle part: [A, Bnd) within the loop's x, [Start, max(End, Start + 1)) (it tests at
  // its latch, so it runs at least once); before it and after it, the loop as it is.
  llvm::Value* EndRun =
      B.CreateBinaryIntrinsic(llvm::Intrinsic::smax, C.End, B.CreateAdd(C.Start, B.getInt64(1)));
  llvm::Value* Lo = Guards[0].Lo;
  llvm::Value* Hi = Guards[0].Hi;
  for (size_t I = 1; I < Guards.size(); ++I) {
    Lo = B.CreateBinaryIntrinsic(llvm::Intrinsic::smax, Lo, Guards[I].Lo);
    Hi = B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, Hi, Guards[I].Hi);
  }
  llvm::Value* A = B.CreateBinaryIntrinsic(
      llvm::Intrinsic::smax, C.Start, B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, Lo, EndRun),
      nullptr, "guard.from");
  llvm::Value* Bnd = B.CreateBinaryIntrinsic(
      llvm::Intrinsic::smax, A, B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, Hi, EndRun), nullptr,
      "guard.to");
  // Where an innermost loop's iterations can run twice (rerunIsHarmless) and the middle part
  // holds a whole vector or more, it runs whole vectors [A, Full), then the last vector's worth
  // again, [Bnd - Lanes, Bnd), instead of a scalar remainder of up to Lanes - 1 iterations (as
  // costly as the row's vectors: 3DCONV's 126-wide rows are 15 vectors and 6 scalar iterations).
  bool Overlap = Lanes > 1 && L.isInnermost() && rerunIsHarmless(L, C.IV);
  llvm::Value* MidEnd = Bnd;
  llvm::Value* OverlapRuns = nullptr;
  if (Overlap) {
    llvm::Value* Span = B.CreateSub(Bnd, A);
    llvm::Value* Full =
        B.CreateAdd(A, B.CreateAnd(Span, B.getInt64(-int64_t(Lanes))), "guard.full");
    llvm::Value* Whole = B.CreateICmpSGE(Span, B.getInt64(Lanes));
    MidEnd = B.CreateSelect(Whole, Full, Bnd, "guard.midend");
    OverlapRuns = B.CreateAnd(Whole, B.CreateICmpSLT(Full, Bnd), "guard.overlap");
  }
  llvm::Value* HeadRuns = B.CreateICmpSLT(C.Start, A, "guard.head");
  llvm::Value* MidRuns = B.CreateICmpSLT(A, MidEnd, "guard.mid");
  llvm::Value* TailRuns = B.CreateICmpSLT(Bnd, EndRun, "guard.tail");

  // An empty preheader of the loop's own, so that the copies copy nothing else.
  llvm::BasicBlock* Pre = llvm::SplitEdge(Outer, Header, &DT, &LI);
  llvm::ValueToValueMapTy MidMap, OverlapMap, TailMap;
  llvm::SmallVector<llvm::BasicBlock*, 16> MidBlocks, OverlapBlocks, TailBlocks;
  llvm::cloneLoopWithPreheader(Exit, Pre, &L, MidMap, ".guard.mid", &LI, &DT, MidBlocks);
  llvm::remapInstructionsInBlocks(MidBlocks, MidMap);
  if (Overlap) {
    llvm::cloneLoopWithPreheader(Exit, Pre, &L, OverlapMap, ".guard.overlap", &LI, &DT,
                                 OverlapBlocks);
    llvm::remapInstructionsInBlocks(OverlapBlocks, OverlapMap);
  }
  llvm::cloneLoopWithPreheader(Exit, Pre, &L, TailMap, ".guard.tail", &LI, &DT, TailBlocks);
  llvm::remapInstructionsInBlocks(TailBlocks, TailMap);
  llvm::BasicBlock* MidCheck = llvm::BasicBlock::Create(Ctx, "guard.mid.check", &F, Exit);
  llvm::BasicBlock* OverlapCheck =
      Overlap ? llvm::BasicBlock::Create(Ctx, "guard.overlap.check", &F, Exit) : nullptr;
  llvm::BasicBlock* TailCheck = llvm::BasicBlock::Create(Ctx, "guard.tail.check", &F, Exit);

  // Before [Start, A): the loop itself, entered only when that is not empty.
  C.Test->setOperand(C.EndOperand, A);
  Latch->getTerminator()->replaceSuccessorWith(Exit, MidCheck);
  Header->setName(Header->getName() + ".guard.head"); // not split again
  llvm::Instruction* OuterBr = Outer->getTerminator();
  llvm::IRBuilder<>(OuterBr).CreateCondBr(HeadRuns, Pre, MidCheck);
  OuterBr->eraseFromParent();

  // A copy from From to To, then on to After; a loop id of its own.
  auto Retarget = [&](llvm::ValueToValueMapTy& Map, llvm::Value* From, llvm::Value* To,
                      llvm::BasicBlock* After) {
    auto* IV = llvm::cast<llvm::PHINode>(Map[C.IV]);
    IV->setIncomingValueForBlock(llvm::cast<llvm::BasicBlock>(Map[Pre]), From);
    llvm::cast<llvm::ICmpInst>(Map[C.Test])->setOperand(C.EndOperand, To);
    llvm::Instruction* Back = llvm::cast<llvm::BasicBlock>(Map[Latch])->getTerminator();
    Back->replaceSuccessorWith(Exit, After);
    if (llvm::MDNode* Id = Back->getMetadata(llvm::LLVMContext::MD_loop))
      Back->setMetadata(llvm::LLVMContext::MD_loop, copyLoopId(Id));
  };
  // The copies whose guards are constants: [A, MidEnd), then [Bnd - Lanes, Bnd) again.
  auto FixGuards = [&](llvm::ValueToValueMapTy& Map) {
    for (const Guard& G : Guards) {
      auto* Copy = llvm::cast<llvm::Instruction>(Map[G.Cmp]);
      Copy->replaceAllUsesWith(llvm::ConstantInt::getBool(Ctx, G.Value));
      Copy->eraseFromParent();
    }
  };
  llvm::BasicBlock* AfterMid = Overlap ? OverlapCheck : TailCheck;
  Retarget(MidMap, A, MidEnd, AfterMid);
  FixGuards(MidMap);
  llvm::IRBuilder<>(MidCheck).CreateCondBr(MidRuns, llvm::cast<llvm::BasicBlock>(MidMap[Pre]),
                                           AfterMid);
  if (Overlap) {
    llvm::IRBuilder<> OB(OverlapCheck);
    llvm::Value* From = OB.CreateSub(Bnd, OB.getInt64(Lanes));
    Retarget(OverlapMap, From, Bnd, TailCheck);
    FixGuards(OverlapMap);
    OB.CreateCondBr(OverlapRuns, llvm::cast<llvm::BasicBlock>(OverlapMap[Pre]), TailCheck);
  }
  // [Bnd, End): the other copy.
  Retarget(TailMap, Bnd, C.End, Exit);
  llvm::IRBuilder<>(TailCheck).CreateCondBr(TailRuns, llvm::cast<llvm::BasicBlock>(TailMap[Pre]),
                                            Exit);
  return true;
}

} // namespace

llvm::PreservedAnalyses GuardRangeSplit::run(llvm::Function& F, llvm::FunctionAnalysisManager& AM) {
  // The rerun covers a vector of float32 as wide as the target's registers (a multiple of any
  // narrower vector the vectorizer picks).
  const llvm::TargetTransformInfo& TTI = AM.getResult<llvm::TargetIRAnalysis>(F);
  const unsigned Lanes =
      RerunLastVector
          ? unsigned(TTI.getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector)
                         .getFixedValue() /
                     32)
          : 0;
  // Each split changes the function's loops: find the next candidate on fresh analyses, and
  // leave the copies (whose headers carry the suffixes) alone.
  bool Changed = false;
  for (unsigned Round = 0; Round < 8; ++Round) {
    llvm::DominatorTree DT(F);
    llvm::LoopInfo LI(DT);
    bool Done = false;
    for (llvm::Loop* L : LI.getLoopsInPreorder()) {
      // A loop over work-items with a loop inside (a row each work-item walks) splits too: its
      // middle part is what WorkItemJam can take.
      bool Nest = L->getSubLoops().size() == 1 && L->getSubLoops()[0]->isInnermost();
      if (!(L->isInnermost() || Nest) || !isParallelLoop(*L) ||
          L->getHeader()->getName().contains(".guard."))
        continue;
      // A preheader of its own first (a change: the cached analyses must not outlive it).
      if (!L->getLoopPreheader())
        Changed |= llvm::InsertPreheaderForLoop(L, &DT, &LI, nullptr, false) != nullptr;
      std::optional<Counted> C = countedLoop(*L);
      if (!C || !split(F, *L, *C, Lanes, DT, LI))
        continue;
      Changed = Done = true;
      break;
    }
    if (!Done)
      break;
  }
  return Changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

} // namespace cajeta::lowering
