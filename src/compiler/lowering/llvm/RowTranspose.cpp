// Row walks vectorized across their work-items with transposed loads (RowTranspose.h).
#include "compiler/lowering/llvm/RowTranspose.h"

#include "compiler/lowering/llvm/ColumnCache.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

namespace cajeta::lowering {

namespace {

bool isF32(const llvm::Type* T) {
  return T->isFloatTy();
}

/// The float arithmetic a row may hold.
bool isRowArithmetic(const llvm::Instruction& I) {
  switch (I.getOpcode()) {
  case llvm::Instruction::FAdd:
  case llvm::Instruction::FSub:
  case llvm::Instruction::FMul:
  case llvm::Instruction::FDiv:
  case llvm::Instruction::FNeg:
    return isF32(I.getType());
  default:
    break;
  }
  if (auto* II = llvm::dyn_cast<llvm::IntrinsicInst>(&I))
    return (II->getIntrinsicID() == llvm::Intrinsic::fmuladd ||
            II->getIntrinsicID() == llvm::Intrinsic::fma) &&
           isF32(I.getType());
  return false;
}

/// Where a load reads in iteration t of its loop: Base[Start + t], the index 64 bits wide or, when
/// Narrow, 32 bits wide (uint32 arithmetic, zero-extended: the vector loop runs only where no
/// lane's index wraps).
struct RowAccess {
  llvm::Value* Base = nullptr;
  llvm::Value* Index = nullptr; // in the loop: Start + t (32 or 64 bits)
  const llvm::SCEV* Start = nullptr;
  bool Narrow = false;
};

/// Whether Ld reads float32 elements of one array one after another in L's iterations.
bool rowAccess(const llvm::LoadInst& Ld, const llvm::Loop& L, llvm::ScalarEvolution& SE,
               RowAccess& A) {
  if (!isF32(Ld.getType()) || !Ld.isSimple())
    return false;
  auto* GEP =
      llvm::dyn_cast<llvm::GetElementPtrInst>(const_cast<llvm::Value*>(Ld.getPointerOperand()));
  if (!GEP || GEP->getNumIndices() != 1 || !GEP->getSourceElementType()->isFloatTy() ||
      !L.isLoopInvariant(GEP->getPointerOperand()))
    return false;
  llvm::Value* Index = GEP->getOperand(1);
  A.Narrow = false;
  if (auto* Z = llvm::dyn_cast<llvm::ZExtInst>(Index); Z && Z->getSrcTy()->isIntegerTy(32)) {
    Index = Z->getOperand(0);
    A.Narrow = true;
  } else if (!Index->getType()->isIntegerTy(64)) {
    return false;
  }
  auto* AR = llvm::dyn_cast<llvm::SCEVAddRecExpr>(SE.getSCEV(Index));
  if (!AR || AR->getLoop() != &L || !AR->isAffine())
    return false;
  auto* Step = llvm::dyn_cast<llvm::SCEVConstant>(AR->getStepRecurrence(SE));
  if (!Step || !Step->getValue()->isOne())
    return false;
  A.Base = GEP->getPointerOperand();
  A.Index = Index;
  A.Start = AR->getStart();
  return true;
}

/// Whether I is something the vector loop recomputes or leaves to the scalar loop: the counter's
/// and the addresses' integer arithmetic and the exit test.
bool isBookkeeping(const llvm::Instruction& I) {
  return llvm::isa<llvm::GetElementPtrInst>(I) || llvm::isa<llvm::BranchInst>(I) ||
         llvm::isa<llvm::ICmpInst>(I) || llvm::isa<llvm::CastInst>(I) ||
         (I.isBinaryOp() && I.getType()->isIntegerTy());
}

/// One jammed row loop, read as Lanes copies of a template (copy 0).
class JammedRow {
public:
  JammedRow(llvm::Loop& L, llvm::ScalarEvolution& SE, unsigned Lanes, RowTranspose::Options Opts)
      : L(L), SE(SE), H(L.getHeader()), Lanes(Lanes), Opts(Opts) {}

  bool read() {
    if (L.getNumBlocks() != 1 || L.getLoopLatch() != H || !L.getLoopPreheader() ||
        !L.getExitingBlock())
      return false;
    Pre = L.getLoopPreheader();
    BTC = SE.getBackedgeTakenCount(&L);
    if (llvm::isa<llvm::SCEVCouldNotCompute>(BTC) || !SE.isLoopInvariant(BTC, &L) ||
        !BTC->getType()->isIntegerTy() || BTC->getType()->getIntegerBitWidth() > 64)
      return false;
    for (llvm::PHINode& Phi : H->phis()) {
      if (isF32(Phi.getType())) {
        Floats.push_back(&Phi);
        continue;
      }
      auto* AR = llvm::dyn_cast<llvm::SCEVAddRecExpr>(SE.getSCEV(&Phi));
      if (!Phi.getType()->isIntegerTy() || !AR || AR->getLoop() != &L || !AR->isAffine() ||
          !llvm::isa<llvm::SCEVConstant>(AR->getStepRecurrence(SE)))
        return false;
      Counters.push_back(&Phi);
    }
    if (Floats.empty() || Floats.size() % Lanes)
      return false;
    Slots = unsigned(Floats.size() / Lanes);
    for (llvm::Instruction& I : *H)
      if (!llvm::isa<llvm::PHINode>(I) && !isBookkeeping(I) && !isRowArithmetic(I) &&
          !llvm::isa<llvm::LoadInst>(I))
        return false;
    // Copy 0's values, in block order (operands first), and every copy's match.
    Map.assign(Lanes, {});
    for (unsigned J = 0; J < Slots; ++J)
      for (unsigned Q = 0; Q < Lanes; ++Q)
        if (!match(latch(0, J), latch(Q, J), Q))
          return false;
    for (llvm::Instruction& I : *H)
      if (Map[0].count(&I))
        Template.push_back(&I);
    for (llvm::Instruction* I : Template)
      if (llvm::isa<llvm::LoadInst>(I)) {
        Row R;
        for (unsigned Q = 0; Q < Lanes; ++Q) {
          RowAccess A;
          if (!rowAccess(*llvm::cast<llvm::LoadInst>(Map[Q][I]), L, SE, A) ||
              (Q && A.Narrow != R.PerLane[0].Narrow))
            return false;
          R.PerLane.push_back(A);
          R.Shared &= A.Base == R.PerLane[0].Base && A.Start == R.PerLane[0].Start;
        }
        Rows[I] = R;
        AnyTransposed |= !R.Shared;
      }
    return AnyTransposed;
  }

  void rewrite(const llvm::DominatorTree& DT);

private:
  struct Row {
    std::vector<RowAccess> PerLane;
    bool Shared = true; // every lane reads the same elements
  };
  /// Where a vector loop takes its walks' columns from.
  enum class Columns {
    Transpose,        // loads and a transpose
    TransposeAndKeep, // the same, each column then stored in the cache's slot
    Kept,             // loads from the cache's slot
  };

  /// The vector loop from LoopPre (a new block, which it ends) to Done: its body, and the sums it
  /// leaves there.
  std::pair<llvm::BasicBlock*, std::vector<llvm::Value*>>
  emitLoop(llvm::BasicBlock* LoopPre, Columns From, const ColumnCache* Cache);

  llvm::Value* latch(unsigned Lane, unsigned Slot) const {
    return Floats[Lane * Slots + Slot]->getIncomingValueForBlock(H);
  }
  llvm::PHINode* floatPhi(unsigned Lane, unsigned Slot) const {
    return Floats[Lane * Slots + Slot];
  }
  /// The slot of a float phi of copy Lane, or -1.
  int slotOf(const llvm::Value* V, unsigned Lane) const {
    for (unsigned J = 0; J < Slots; ++J)
      if (Floats[Lane * Slots + J] == V)
        return int(J);
    return -1;
  }
  bool inRow(const llvm::Value* V) const {
    auto* I = llvm::dyn_cast<llvm::Instruction>(V);
    return I && I->getParent() == H;
  }

  /// Whether copy Q's value VQ is copy 0's V0 (recording the match).
  bool match(llvm::Value* V0, llvm::Value* VQ, unsigned Q) {
    if (!inRow(V0) || !inRow(VQ))
      return !inRow(V0) && !inRow(VQ); // from outside the loop: a per-lane operand
    if (auto* P0 = llvm::dyn_cast<llvm::PHINode>(V0)) {
      int J = slotOf(P0, 0);
      return J >= 0 && floatPhi(Q, unsigned(J)) == VQ;
    }
    auto* I0 = llvm::cast<llvm::Instruction>(V0);
    auto* IQ = llvm::cast<llvm::Instruction>(VQ);
    auto [It, New] = Map[Q].emplace(I0, IQ);
    if (!New)
      return It->second == IQ;
    if (I0->getOpcode() != IQ->getOpcode() || I0->getType() != IQ->getType())
      return false;
    if (llvm::isa<llvm::LoadInst>(I0))
      return true; // the addresses are compared through SCEV
    if (!isRowArithmetic(*I0) || I0->getNumOperands() != IQ->getNumOperands())
      return false;
    if (auto* C0 = llvm::dyn_cast<llvm::CallInst>(I0))
      if (C0->getCalledFunction() != llvm::cast<llvm::CallInst>(IQ)->getCalledFunction())
        return false;
    unsigned Args = llvm::isa<llvm::CallInst>(I0) ? llvm::cast<llvm::CallInst>(I0)->arg_size()
                                                  : I0->getNumOperands();
    for (unsigned K = 0; K < Args; ++K)
      if (!match(I0->getOperand(K), IQ->getOperand(K), Q))
        return false;
    return true;
  }

  /// Copy 0's row arithmetic I on vector operands Ops, with I's flags.
  llvm::Value* apply(llvm::IRBuilder<>& B, llvm::Instruction* I,
                     llvm::ArrayRef<llvm::Value*> Ops) const {
    llvm::Value* V = nullptr;
    if (I->getOpcode() == llvm::Instruction::FNeg) {
      V = B.CreateFNeg(Ops[0]);
    } else if (auto* II = llvm::dyn_cast<llvm::IntrinsicInst>(I)) {
      llvm::Function* Decl = llvm::Intrinsic::getDeclaration(I->getModule(), II->getIntrinsicID(),
                                                             {Ops[0]->getType()});
      V = B.CreateCall(Decl, Ops);
    } else {
      V = B.CreateBinOp(llvm::Instruction::BinaryOps(I->getOpcode()), Ops[0], Ops[1]);
    }
    llvm::cast<llvm::Instruction>(V)->copyIRFlags(I);
    return V;
  }

  /// V (integer arithmetic of the loop's counters and values from outside it) as it is in the
  /// loop's first iteration, computed where B stands: the counters at their starts.
  llvm::Value* atStart(llvm::IRBuilder<>& B, llvm::Value* V) {
    if (!inRow(V))
      return V;
    if (auto* Phi = llvm::dyn_cast<llvm::PHINode>(V))
      return Phi->getIncomingValueForBlock(Pre);
    auto* I = llvm::cast<llvm::Instruction>(V);
    llvm::Instruction* C = I->clone();
    for (unsigned K = 0; K < C->getNumOperands(); ++K)
      C->setOperand(K, atStart(B, C->getOperand(K)));
    return B.Insert(C);
  }

  /// Lane values V0 (copy 0's operand from outside the loop) and its copies, as one vector.
  llvm::Value* laneVector(llvm::IRBuilder<>& B, llvm::Instruction* User0, unsigned Operand) {
    auto Key = std::make_pair(User0, Operand);
    if (auto It = Outside.find(Key); It != Outside.end())
      return It->second;
    llvm::Value* V0 = User0->getOperand(Operand);
    bool Same = true;
    std::vector<llvm::Value*> Values;
    for (unsigned Q = 0; Q < Lanes; ++Q) {
      llvm::Value* V = Q ? Map[Q][User0]->getOperand(Operand) : V0;
      Values.push_back(V);
      Same &= V == V0;
    }
    llvm::Value* Vec = nullptr;
    if (Same) {
      Vec = B.CreateVectorSplat(Lanes, V0);
    } else {
      Vec = llvm::PoisonValue::get(llvm::FixedVectorType::get(V0->getType(), Lanes));
      for (unsigned Q = 0; Q < Lanes; ++Q)
        Vec = B.CreateInsertElement(Vec, Values[Q], B.getInt32(Q));
    }
    return Outside[Key] = Vec;
  }

  llvm::Loop& L;
  llvm::ScalarEvolution& SE;
  llvm::BasicBlock* H;
  unsigned Lanes;
  RowTranspose::Options Opts;
  llvm::BasicBlock* Pre = nullptr;
  const llvm::SCEV* BTC = nullptr;
  std::vector<llvm::PHINode*> Floats, Counters;
  unsigned Slots = 0;
  std::vector<std::map<llvm::Instruction*, llvm::Instruction*>> Map; // per lane: copy 0's -> its
  std::vector<llvm::Instruction*> Template;                          // copy 0's, block order
  std::map<llvm::Instruction*, Row> Rows;                            // copy 0's loads
  std::map<std::pair<llvm::Instruction*, unsigned>, llvm::Value*> Outside;
  bool AnyTransposed = false;
  // Made by rewrite, for the vector loops.
  llvm::FixedVectorType* VecTy = nullptr;
  llvm::BasicBlock* Check = nullptr;
  llvm::BasicBlock* Done = nullptr;
  llvm::Value* VecIters = nullptr;
  std::vector<llvm::Instruction*> Walks; // the loads that differ between lanes, block order
  std::map<llvm::Instruction*, std::vector<std::pair<llvm::Value*, llvm::Value*>>> Starts;
};

/// The columns of the N x N block whose rows are R (lane q's N elements): column c holds element
/// c of every row, lane q from row q. log2(N) rounds of two-input shuffles: round d pairs rows r
/// and r + d and interleaves their blocks of d elements.
std::vector<llvm::Value*> transpose(llvm::IRBuilder<>& B, std::vector<llvm::Value*> R) {
  const unsigned N = unsigned(R.size());
  for (unsigned D = 1; D < N; D *= 2) {
    std::vector<llvm::Value*> Next(N);
    for (unsigned Row = 0; Row < N; ++Row) {
      if (Row & D)
        continue;
      for (unsigned Half = 0; Half < 2; ++Half) {
        llvm::SmallVector<int, 16> Mask;
        for (unsigned J = 0; J < N / (2 * D); ++J)
          for (unsigned From = 0; From < 2; ++From)
            for (unsigned E = 0; E < D; ++E)
              Mask.push_back(int(From * N + (2 * J + Half) * D + E));
        Next[Row + Half * D] = B.CreateShuffleVector(R[Row], R[Row + D], Mask);
      }
    }
    R = std::move(Next);
  }
  return R;
}

void JammedRow::rewrite(const llvm::DominatorTree& DT) {
  llvm::Function& F = *H->getParent();
  llvm::LLVMContext& C = F.getContext();
  const llvm::DataLayout& DL = F.getParent()->getDataLayout();
  llvm::Type* I64 = llvm::Type::getInt64Ty(C);
  llvm::Type* FloatTy = llvm::Type::getFloatTy(C);
  VecTy = llvm::FixedVectorType::get(FloatTy, Lanes);

  // The walks (rows that differ between lanes), and whether later rows of the group can reuse
  // their transposed blocks: asked before the blocks below change the loop's shape.
  std::vector<llvm::Value*> Bases;
  std::vector<std::vector<const llvm::SCEV*>> StartsOf;
  bool OneBase = true;
  for (llvm::Instruction* I : Template)
    if (auto It = Rows.find(I); It != Rows.end() && !It->second.Shared) {
      Walks.push_back(I);
      Bases.push_back(It->second.PerLane[0].Base);
      StartsOf.emplace_back();
      for (const RowAccess& A : It->second.PerLane) {
        OneBase &= A.Base == Bases.back();
        StartsOf.back().push_back(A.Start);
      }
    }
  std::unique_ptr<ColumnCache> Cache;
  if (OneBase && Opts.KeepColumns)
    if (llvm::Loop* RowsOfGroup = ColumnCache::rowsLoop(L, DT, Bases, StartsOf))
      Cache = std::make_unique<ColumnCache>(*RowsOfGroup, SE, unsigned(Walks.size()), Lanes);

  Check = llvm::BasicBlock::Create(C, "rowt.check", &F, H);
  auto* Lookup = Cache ? llvm::BasicBlock::Create(C, "rowt.cache.lookup", &F, H) : nullptr;
  auto* PlainPre = llvm::BasicBlock::Create(C, "rowt.plain", &F, H);
  auto* FillPre = Cache ? llvm::BasicBlock::Create(C, "rowt.fill", &F, H) : nullptr;
  auto* UsePre = Cache ? llvm::BasicBlock::Create(C, "rowt.use", &F, H) : nullptr;
  Done = llvm::BasicBlock::Create(C, "rowt.done", &F, H);
  auto* Rest = llvm::BasicBlock::Create(C, "rowt.rest", &F, H);
  Pre->getTerminator()->replaceUsesOfWith(H, Check);

  // The check: how many iterations the vector loop runs (a multiple of Lanes, below the trip
  // count), each row's per-lane start, and the lanes' values from outside the loop.
  llvm::IRBuilder<> B(Check);
  llvm::Instruction* CheckEnd = B.CreateUnreachable();
  B.SetInsertPoint(CheckEnd);
  llvm::SCEVExpander Exp(SE, DL, "rowt");
  llvm::Value* Count = Exp.expandCodeFor(BTC, BTC->getType(), CheckEnd);
  Count = B.CreateZExt(Count, I64);
  VecIters = B.CreateAnd(Count, B.getInt64(~uint64_t(Lanes - 1)), "rowt.n");
  // Each lane's row: its base and its first index (64 bits); a 32-bit index that would wrap
  // before the loop's last iteration sends the whole loop to the scalar copies.
  llvm::Value* NoWrap = B.getTrue();
  for (llvm::Instruction* Ld : Template)
    if (auto It = Rows.find(Ld); It != Rows.end())
      for (unsigned Q = 0; Q < (It->second.Shared ? 1 : Lanes); ++Q) {
        const RowAccess& A = It->second.PerLane[Q];
        llvm::Value* First = B.CreateZExt(atStart(B, A.Index), I64);
        if (A.Narrow)
          NoWrap = B.CreateAnd(
              NoWrap, B.CreateICmpULE(B.CreateAdd(First, Count), B.getInt64(0xFFFFFFFFull)));
        Starts[Ld].emplace_back(A.Base, First);
      }
  for (llvm::Instruction* I : Template)
    if (!llvm::isa<llvm::LoadInst>(I))
      for (unsigned K = 0; K < I->getNumOperands(); ++K)
        if (!inRow(I->getOperand(K)) && !llvm::isa<llvm::Function>(I->getOperand(K)))
          laneVector(B, I, K);
  B.CreateCondBr(B.CreateAnd(B.CreateICmpNE(VecIters, B.getInt64(0)), NoWrap),
                 Cache ? Lookup : PlainPre, Rest);
  CheckEnd->eraseFromParent();

  // The cache's key: each walk's base and its lanes' first indices.
  if (Cache) {
    B.SetInsertPoint(Lookup);
    std::vector<llvm::Value*> Firsts;
    for (llvm::Instruction* Ld : Walks) {
      llvm::Value* Key = llvm::PoisonValue::get(llvm::FixedVectorType::get(I64, Lanes));
      for (unsigned Q = 0; Q < Lanes; ++Q)
        Key = B.CreateInsertElement(Key, Starts[Ld][Q].second, B.getInt32(Q));
      Firsts.push_back(Key);
    }
    Cache->lookup(B, Bases, Firsts, VecIters, UsePre, FillPre, PlainPre);
  }

  // The vector loops, all to Done with their lanes' sums.
  std::vector<std::pair<llvm::BasicBlock*, std::vector<llvm::Value*>>> Ends;
  Ends.push_back(emitLoop(PlainPre, Columns::Transpose, nullptr));
  if (Cache) {
    Ends.push_back(emitLoop(FillPre, Columns::TransposeAndKeep, Cache.get()));
    Ends.push_back(emitLoop(UsePre, Columns::Kept, Cache.get()));
  }

  // Each lane's sums, then the scalar loop from where the vector loop stopped.
  B.SetInsertPoint(Done);
  std::vector<llvm::Value*> Lane(Floats.size());
  std::vector<llvm::Value*> Sums = Ends[0].second;
  for (unsigned J = 0; J < Slots && Ends.size() > 1; ++J) {
    llvm::PHINode* Phi = B.CreatePHI(VecTy, unsigned(Ends.size()), "rowt.out");
    for (auto& [From, Cur] : Ends)
      Phi->addIncoming(Cur[J], From);
    Sums[J] = Phi;
  }
  for (unsigned J = 0; J < Slots; ++J)
    for (unsigned Q = 0; Q < Lanes; ++Q)
      Lane[Q * Slots + J] = B.CreateExtractElement(Sums[J], B.getInt32(Q));
  B.CreateBr(Rest);
  B.SetInsertPoint(Rest);
  for (size_t P = 0; P < Floats.size(); ++P) {
    llvm::PHINode* Start = B.CreatePHI(FloatTy, 2, "rowt.sum");
    Start->addIncoming(Floats[P]->getIncomingValueForBlock(Pre), Check);
    Start->addIncoming(Lane[P], Done);
    Floats[P]->setIncomingValueForBlock(Pre, Start);
  }
  for (llvm::PHINode* Phi : Counters) {
    auto* AR = llvm::cast<llvm::SCEVAddRecExpr>(SE.getSCEV(Phi));
    llvm::Value* Init = Phi->getIncomingValueForBlock(Pre);
    llvm::Value* Step = llvm::ConstantInt::get(
        Phi->getType(), llvm::cast<llvm::SCEVConstant>(AR->getStepRecurrence(SE))->getAPInt());
    llvm::IRBuilder<> D(Done->getTerminator());
    llvm::Value* Advanced =
        D.CreateAdd(Init, D.CreateMul(D.CreateZExtOrTrunc(VecIters, Phi->getType()), Step));
    llvm::PHINode* Start = B.CreatePHI(Phi->getType(), 2, "rowt.iv");
    Start->addIncoming(Init, Check);
    Start->addIncoming(Advanced, Done);
    Phi->setIncomingValueForBlock(Pre, Start);
  }
  B.CreateBr(H);
  for (llvm::PHINode& Phi : H->phis())
    Phi.replaceIncomingBlockWith(Pre, Rest);
}

std::pair<llvm::BasicBlock*, std::vector<llvm::Value*>>
JammedRow::emitLoop(llvm::BasicBlock* LoopPre, Columns From, const ColumnCache* Cache) {
  llvm::Function& F = *H->getParent();
  llvm::Type* FloatTy = VecTy->getElementType();
  const llvm::Align ColumnAlign(uint64_t(Lanes) * 4);
  llvm::IRBuilder<> B(LoopPre);
  std::vector<llvm::Value*> Kept; // per walk: where the slot keeps its columns
  if (Cache)
    for (unsigned W = 0; W < Walks.size(); ++W)
      Kept.push_back(From == Columns::Kept ? Cache->hitColumns(B, W) : Cache->claimedColumns(B, W));
  // The sums' vectors as the loop starts, built here and not once for the three loops: a vector
  // made before the cache lookup lived through it, and the register allocator then kept the
  // kept-column loop's sum on the stack (a reload and a spill a trip, on its chain of adds).
  std::vector<llvm::Value*> Inits;
  for (unsigned J = 0; J < Slots; ++J) {
    llvm::Value* V = llvm::PoisonValue::get(VecTy);
    for (unsigned Q = 0; Q < Lanes; ++Q)
      V = B.CreateInsertElement(V, floatPhi(Q, J)->getIncomingValueForBlock(Pre), B.getInt32(Q));
    Inits.push_back(V);
  }
  auto* Body = llvm::BasicBlock::Create(F.getContext(), "rowt.body", &F, Done);
  B.CreateBr(Body);

  // Lanes iterations per trip, one step at a time.
  B.SetInsertPoint(Body);
  llvm::PHINode* Iv = B.CreatePHI(B.getInt64Ty(), 2, "rowt.k");
  std::vector<llvm::PHINode*> Acc;
  for (unsigned J = 0; J < Slots; ++J)
    Acc.push_back(B.CreatePHI(VecTy, 2, "rowt.acc"));

  std::map<llvm::Instruction*, std::vector<llvm::Value*>> Cols; // per walk: step kk's vector
  // The rows every lane shares: one vector per trip, element kk for step kk, broadcast at each
  // step (a broadcast of a loaded element is a load of it: no shuffle). Arithmetic of them stays
  // per step: computed once per trip and broadcast from a register, it took shuffles and ran
  // SYRK and SYR2K 10-20 % slower.
  std::map<llvm::Instruction*, llvm::Value*> Shared;
  for (llvm::Instruction* Ld : Template) {
    auto It = Rows.find(Ld);
    if (It == Rows.end())
      continue;
    const Row& R = It->second;
    const unsigned W = unsigned(std::find(Walks.begin(), Walks.end(), Ld) - Walks.begin());
    auto Column = [&](unsigned K) {
      return B.CreateGEP(FloatTy, Kept[W],
                         B.CreateMul(B.CreateAdd(Iv, B.getInt64(K)), B.getInt64(Lanes)));
    };
    if (!R.Shared && From == Columns::Kept) {
      for (unsigned K = 0; K < Lanes; ++K)
        Cols[Ld].push_back(B.CreateAlignedLoad(VecTy, Column(K), ColumnAlign));
      continue;
    }
    std::vector<llvm::Value*> Loaded(R.Shared ? 1 : Lanes);
    for (unsigned Q = 0; Q < (R.Shared ? 1 : Lanes); ++Q) {
      auto [Base, First] = Starts[Ld][Q];
      llvm::Value* Ptr = B.CreateGEP(FloatTy, Base, B.CreateAdd(First, Iv));
      Loaded[Q] = B.CreateAlignedLoad(VecTy, Ptr, llvm::Align(4));
      if (Opts.Prefetch && !R.Shared && Walks.size() > 1) {
        llvm::Value* Ahead = B.CreateGEP(FloatTy, Ptr, B.getInt64(RowTranspose::PrefetchAhead));
        B.CreateIntrinsic(llvm::Intrinsic::prefetch, {Ahead->getType()},
                          {Ahead, B.getInt32(0), B.getInt32(3), B.getInt32(1)});
      }
    }
    if (R.Shared) {
      Shared[Ld] = Loaded[0];
      continue;
    }
    Cols[Ld] = transpose(B, Loaded);
    if (From == Columns::TransposeAndKeep)
      for (unsigned K = 0; K < Lanes; ++K)
        B.CreateAlignedStore(Cols[Ld][K], Column(K), ColumnAlign);
  }
  std::vector<llvm::Value*> Cur(Acc.begin(), Acc.end());
  for (unsigned K = 0; K < Lanes; ++K) {
    std::map<llvm::Instruction*, llvm::Value*> Val;
    auto Operand = [&](llvm::Instruction* I, unsigned Op) -> llvm::Value* {
      llvm::Value* V = I->getOperand(Op);
      if (int J = slotOf(V, 0); J >= 0)
        return Cur[unsigned(J)];
      if (inRow(V))
        return Val.at(llvm::cast<llvm::Instruction>(V));
      return Outside.at({I, Op});
    };
    for (llvm::Instruction* I : Template) {
      if (auto It = Shared.find(I); It != Shared.end())
        Val[I] = B.CreateShuffleVector(It->second, llvm::SmallVector<int, 16>(Lanes, int(K)));
      else if (llvm::isa<llvm::LoadInst>(I))
        Val[I] = Cols[I][K];
      else if (I->getOpcode() == llvm::Instruction::FNeg)
        Val[I] = apply(B, I, {Operand(I, 0)});
      else if (llvm::isa<llvm::IntrinsicInst>(I))
        Val[I] = apply(B, I, {Operand(I, 0), Operand(I, 1), Operand(I, 2)});
      else
        Val[I] = apply(B, I, {Operand(I, 0), Operand(I, 1)});
    }
    // Every slot's next value from this step's values (a phi may take another's).
    std::vector<llvm::Value*> Next(Slots);
    for (unsigned J = 0; J < Slots; ++J) {
      llvm::Value* Latch = latch(0, J);
      if (int S = slotOf(Latch, 0); S >= 0)
        Next[J] = Cur[unsigned(S)];
      else if (inRow(Latch))
        Next[J] = Val.at(llvm::cast<llvm::Instruction>(Latch));
      else
        Next[J] = B.CreateVectorSplat(Lanes, Latch);
    }
    Cur = std::move(Next);
  }
  llvm::Value* IvNext = B.CreateAdd(Iv, B.getInt64(Lanes));
  B.CreateCondBr(B.CreateICmpULT(IvNext, VecIters), Body, Done);
  Iv->addIncoming(B.getInt64(0), LoopPre);
  Iv->addIncoming(IvNext, Body);
  for (unsigned J = 0; J < Slots; ++J) {
    Acc[J]->addIncoming(Inits[J], LoopPre);
    Acc[J]->addIncoming(Cur[J], Body);
  }
  return {Body, Cur};
}

} // namespace

unsigned RowTranspose::fits(const llvm::Loop& Row, const llvm::Loop& Outer,
                            llvm::ScalarEvolution& SE) {
  if (Row.getNumBlocks() != 1 || Row.getHeader() != Row.getLoopLatch())
    return 0;
  unsigned Walks = 0;
  bool AnyFloatPhi = false;
  for (const llvm::Instruction& I : *Row.getHeader()) {
    if (auto* Phi = llvm::dyn_cast<llvm::PHINode>(&I)) {
      AnyFloatPhi |= isF32(Phi->getType());
      if (!isF32(Phi->getType()) && !Phi->getType()->isIntegerTy())
        return 0;
      continue;
    }
    if (auto* Ld = llvm::dyn_cast<llvm::LoadInst>(&I)) {
      RowAccess A;
      if (!rowAccess(*Ld, Row, SE, A))
        return 0;
      Walks += !SE.isLoopInvariant(A.Start, &Outer) || !Outer.isLoopInvariant(A.Base);
      continue;
    }
    if (!isBookkeeping(I) && !isRowArithmetic(I))
      return 0;
    // Integer and address arithmetic feeds the loads and the exit test only.
    if (isBookkeeping(I) && I.getType()->isFloatingPointTy())
      return 0;
  }
  return AnyFloatPhi ? Walks : 0;
}

bool RowTranspose::vectorize(llvm::Loop& L, const llvm::DominatorTree& DT,
                             llvm::ScalarEvolution& SE, unsigned Lanes, Options Opts) {
  JammedRow J(L, SE, Lanes, Opts);
  if (!J.read())
    return false;
  J.rewrite(DT);
  return true;
}

} // namespace cajeta::lowering
