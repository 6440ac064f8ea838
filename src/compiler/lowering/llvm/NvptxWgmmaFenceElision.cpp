// Redundant wgmma fences dropped (NvptxWgmmaFenceElision.h).
#include "compiler/lowering/llvm/NvptxWgmmaFenceElision.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>

namespace cajeta::lowering {
namespace {

llvm::StringRef asmText(const llvm::Instruction& I) {
  const auto* Call = llvm::dyn_cast<llvm::CallInst>(&I);
  if (!Call)
    return {};
  const auto* Asm = llvm::dyn_cast<llvm::InlineAsm>(Call->getCalledOperand());
  return Asm ? llvm::StringRef(Asm->getAsmString()) : llvm::StringRef();
}

bool isFence(const llvm::Instruction& I) {
  return asmText(I) == "wgmma.fence.sync.aligned;";
}
bool isProduct(const llvm::Instruction& I) {
  return asmText(I).starts_with("wgmma.mma_async.");
}

/// Whether the registers product W reads (its accumulators and a fragments: every operand but the
/// 64-bit descriptors) were written before the fence at position Fence, or by products: each
/// comes from outside the block, from before the fence, or out of a product, and nothing but
/// products reads it between the fence and W (a read there would need W to wait for it).
bool orderedBy(const llvm::CallInst& W, unsigned Fence, unsigned At,
               const llvm::DenseMap<const llvm::Instruction*, unsigned>& Position) {
  for (const llvm::Use& Arg : W.args()) {
    const llvm::Value* V = Arg.get();
    if (V->getType()->isIntegerTy(64))
      continue; // a shared-memory descriptor
    const auto* Def = llvm::dyn_cast<llvm::Instruction>(V);
    auto DefAt = Def ? Position.find(Def) : Position.end();
    if (DefAt != Position.end() && DefAt->second > Fence) {
      const auto* Out = llvm::dyn_cast<llvm::ExtractValueInst>(Def);
      const auto* From =
          Out ? llvm::dyn_cast<llvm::Instruction>(Out->getAggregateOperand()) : nullptr;
      if (!From || !isProduct(*From))
        return false;
    }
    for (const llvm::User* U : V->users()) {
      const auto* UI = llvm::dyn_cast<llvm::Instruction>(U);
      auto UseAt = UI ? Position.find(UI) : Position.end();
      if (UseAt != Position.end() && UseAt->second > Fence && UseAt->second < At && !isProduct(*UI))
        return false;
    }
  }
  return true;
}

} // namespace

bool NvptxWgmmaFenceElision::run(llvm::Function& F) {
  bool Changed = false;
  for (llvm::BasicBlock& BB : F) {
    llvm::DenseMap<const llvm::Instruction*, unsigned> Position;
    llvm::SmallVector<llvm::Instruction*, 16> Order;
    for (llvm::Instruction& I : BB) {
      Position[&I] = Order.size();
      Order.push_back(&I);
    }
    // A fence is redundant where every product up to the next fence is ordered by the last kept
    // one.
    llvm::SmallVector<llvm::Instruction*, 4> Redundant;
    int Kept = -1;
    for (unsigned I = 0; I < Order.size(); ++I) {
      if (!isFence(*Order[I]))
        continue;
      bool Ordered = Kept >= 0;
      for (unsigned J = I + 1; Ordered && J < Order.size() && !isFence(*Order[J]); ++J)
        if (isProduct(*Order[J]))
          Ordered = orderedBy(*llvm::cast<llvm::CallInst>(Order[J]), unsigned(Kept), J, Position);
      if (Ordered)
        Redundant.push_back(Order[I]);
      else
        Kept = int(I);
    }
    for (llvm::Instruction* I : Redundant)
      I->eraseFromParent();
    Changed |= !Redundant.empty();
  }
  return Changed;
}

} // namespace cajeta::lowering
