// Transposed row blocks kept for the next vector of work-items that walks them (ColumnCache.h).
#include "compiler/lowering/llvm/ColumnCache.h"

#include "compiler/lowering/llvm/LoopIds.h"

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

namespace cajeta::lowering {

namespace {

/// Whether S may differ from one iteration of Rows to the next: it holds a recurrence of Rows or
/// a value computed inside it.
bool variesIn(const llvm::SCEV* S, const llvm::Loop& Rows) {
  return llvm::SCEVExprContains(S, [&](const llvm::SCEV* E) {
    if (auto* AR = llvm::dyn_cast<llvm::SCEVAddRecExpr>(E))
      return AR->getLoop() == &Rows;
    if (auto* U = llvm::dyn_cast<llvm::SCEVUnknown>(E))
      if (auto* I = llvm::dyn_cast<llvm::Instruction>(U->getValue()))
        return Rows.contains(I);
    return false;
  });
}

/// Whether I may order work-items' memory accesses, or write memory we cannot see: an atomic, a
/// fence, or a call (not an intrinsic) that may write memory.
bool maySynchronize(const llvm::Instruction& I) {
  if (I.isAtomic())
    return true;
  if (auto* Call = llvm::dyn_cast<llvm::CallBase>(&I))
    return !llvm::isa<llvm::IntrinsicInst>(Call) && Call->mayWriteToMemory();
  return false;
}

/// Whether the work-items in Rows read their row (local or global y): where none does (a 1D
/// kernel), groups are one row high in practice, and a cache would never be filled.
bool readsItsRow(const llvm::Loop& Rows) {
  for (const llvm::PHINode& Phi : Rows.getHeader()->phis())
    for (const llvm::User* U : Phi.users())
      if (auto* I = llvm::dyn_cast<llvm::Instruction>(U);
          I && I->getParent() != Rows.getLoopLatch())
        return true;
  return false;
}

} // namespace

llvm::Loop* ColumnCache::rowsLoop(llvm::Loop& Row, const llvm::DominatorTree& DT,
                                  llvm::ArrayRef<llvm::Value*> Bases,
                                  const std::vector<std::vector<const llvm::SCEV*>>& Starts) {
  llvm::Loop* Items = Row.getParentLoop();
  llvm::Loop* Rows = Items ? Items->getParentLoop() : nullptr;
  if (!Rows || !isGroupRowsLoop(*Rows) || !Rows->getLoopPreheader() || !readsItsRow(*Rows))
    return nullptr;
  llvm::BasicBlock* RowLatch = Row.getLoopLatch();
  for (llvm::BasicBlock* BB : Items->blocks())
    if (!Row.contains(BB) && !DT.dominates(RowLatch, BB))
      for (const llvm::Instruction& I : *BB)
        if (I.mayWriteToMemory())
          return nullptr;
  for (const llvm::BasicBlock& BB : *Row.getHeader()->getParent())
    for (const llvm::Instruction& I : BB)
      if (maySynchronize(I))
        return nullptr;
  for (size_t W = 0; W < Bases.size(); ++W) {
    if (!Rows->isLoopInvariant(Bases[W]))
      return nullptr;
    for (const llvm::SCEV* S : Starts[W])
      if (variesIn(S, *Rows))
        return nullptr;
  }
  return Rows;
}

ColumnCache::ColumnCache(llvm::Loop& Rows, llvm::ScalarEvolution& SE, unsigned Walks,
                         unsigned Lanes)
    : Walks(Walks), Lanes(Lanes) {
  llvm::Function& F = *Rows.getHeader()->getParent();
  llvm::IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
  llvm::Type* I64 = B.getInt64Ty();
  llvm::Type* KeyTy = llvm::FixedVectorType::get(I64, Lanes);
  auto Array = [&](llvm::Type* T, unsigned N, const char* Name) {
    llvm::AllocaInst* A = B.CreateAlloca(llvm::ArrayType::get(T, N), nullptr, Name);
    A->setAlignment(llvm::Align(64));
    return A;
  };
  Arena = Array(B.getFloatTy(), Bytes / 4, "rowt.cache");
  KeyStarts = Array(KeyTy, Walks * Slots, "rowt.cache.starts");
  KeyBases = Array(B.getPtrTy(), Walks * Slots, "rowt.cache.bases");
  KeySteps = Array(I64, Slots, "rowt.cache.steps");
  KeyAt = Array(I64, Slots, "rowt.cache.at");
  Used = Array(I64, 1, "rowt.cache.used");
  Top = Array(I64, 1, "rowt.cache.top");
  Cursor = Array(I64, 1, "rowt.cache.cursor");

  // Emptied where the rows' loop starts, its cursor back to the first slot at each row; filled
  // only where the loop runs more than once.
  llvm::BasicBlock* Pre = Rows.getLoopPreheader();
  B.SetInsertPoint(Pre->getTerminator());
  B.CreateStore(B.getInt64(0), Used);
  B.CreateStore(B.getInt64(0), Top);
  const llvm::SCEV* BTC = SE.getBackedgeTakenCount(&Rows);
  llvm::SCEVExpander Exp(SE, F.getParent()->getDataLayout(), "rowt");
  if (llvm::isa<llvm::SCEVCouldNotCompute>(BTC) || !BTC->getType()->isIntegerTy() ||
      !Exp.isSafeToExpandAt(BTC, Pre->getTerminator())) {
    ManyRows = B.getTrue();
  } else {
    llvm::Value* N = Exp.expandCodeFor(BTC, BTC->getType(), Pre->getTerminator());
    B.SetInsertPoint(Pre->getTerminator());
    ManyRows = B.CreateICmpNE(N, llvm::ConstantInt::get(N->getType(), 0), "rowt.cache.rows");
  }
  B.SetInsertPoint(&*Rows.getHeader()->getFirstInsertionPt());
  B.CreateStore(B.getInt64(0), Cursor);
}

void ColumnCache::lookup(llvm::IRBuilder<>& B, llvm::ArrayRef<llvm::Value*> Bases,
                         llvm::ArrayRef<llvm::Value*> Firsts, llvm::Value* Steps,
                         llvm::BasicBlock* Use, llvm::BasicBlock* Fill, llvm::BasicBlock* Plain) {
  llvm::Function& F = *B.GetInsertBlock()->getParent();
  llvm::LLVMContext& C = F.getContext();
  llvm::Type* I64 = B.getInt64Ty();
  llvm::Type* KeyTy = llvm::FixedVectorType::get(I64, Lanes);
  VecSteps = Steps;
  auto* Compare = llvm::BasicBlock::Create(C, "rowt.cache.compare", &F, Fill);
  auto* Claim = llvm::BasicBlock::Create(C, "rowt.cache.claim", &F, Fill);
  auto* Take = llvm::BasicBlock::Create(C, "rowt.cache.take", &F, Fill);
  auto KeyOf = [&](llvm::Value* Array, llvm::Type* T, unsigned W, llvm::Value* Slot) {
    return B.CreateGEP(T, Array, B.CreateAdd(B.getInt64(uint64_t(W) * Slots), Slot));
  };
  llvm::Value* Slot = B.CreateLoad(I64, Cursor, "rowt.cache.slot");
  B.CreateStore(B.CreateAdd(Slot, B.getInt64(1)), Cursor);
  llvm::Value* Taken = B.CreateLoad(I64, Used, "rowt.cache.taken");
  B.CreateCondBr(B.CreateICmpULT(Slot, Taken), Compare, Claim);

  // A slot taken by an earlier row: the same walks, or (another shape) the plain loop.
  B.SetInsertPoint(Compare);
  llvm::Value* Same = B.CreateICmpEQ(B.CreateLoad(I64, B.CreateGEP(I64, KeySteps, Slot)), Steps);
  for (unsigned W = 0; W < Walks; ++W) {
    llvm::Value* Base = B.CreateLoad(B.getPtrTy(), KeyOf(KeyBases, B.getPtrTy(), W, Slot));
    Same = B.CreateAnd(Same, B.CreateICmpEQ(Base, Bases[W]));
    llvm::Value* Lanewise =
        B.CreateICmpEQ(B.CreateLoad(KeyTy, KeyOf(KeyStarts, KeyTy, W, Slot)), Firsts[W]);
    Same = B.CreateAnd(Same, B.CreateAndReduce(Lanewise));
  }
  Hit = B.CreateLoad(I64, B.CreateGEP(I64, KeyAt, Slot), "rowt.cache.hit");
  B.CreateCondBr(Same, Use, Plain);

  // The next slot of the first row, where the arena has room for it and later rows will come.
  B.SetInsertPoint(Claim);
  llvm::Value* At = B.CreateLoad(I64, Top, "rowt.cache.free");
  llvm::Value* Need = B.CreateMul(Steps, B.getInt64(uint64_t(Walks) * Lanes));
  llvm::Value* Room = B.CreateAnd(
      B.CreateAnd(B.CreateICmpEQ(Slot, Taken), B.CreateICmpULT(Taken, B.getInt64(Slots))),
      B.CreateICmpULE(Need, B.CreateSub(B.getInt64(Bytes / 4), At)));
  B.CreateCondBr(B.CreateAnd(Room, ManyRows), Take, Plain);
  B.SetInsertPoint(Take);
  Claimed = At;
  B.CreateStore(Steps, B.CreateGEP(I64, KeySteps, Slot));
  B.CreateStore(At, B.CreateGEP(I64, KeyAt, Slot));
  for (unsigned W = 0; W < Walks; ++W) {
    B.CreateStore(Bases[W], KeyOf(KeyBases, B.getPtrTy(), W, Slot));
    B.CreateStore(Firsts[W], KeyOf(KeyStarts, KeyTy, W, Slot));
  }
  B.CreateStore(B.CreateAdd(Taken, B.getInt64(1)), Used);
  B.CreateStore(B.CreateAdd(At, Need), Top);
  B.CreateBr(Fill);
}

llvm::Value* ColumnCache::columns(llvm::IRBuilder<>& B, llvm::Value* At, unsigned Walk) const {
  llvm::Value* Offset = B.CreateAdd(At, B.CreateMul(VecSteps, B.getInt64(uint64_t(Walk) * Lanes)));
  return B.CreateGEP(B.getFloatTy(), Arena, Offset, "rowt.cache.cols");
}

} // namespace cajeta::lowering
