// Loop ids: the distinct metadata node a loop's latch branch carries (!llvm.loop), which names
// itself first and then the loop's properties. Each loop needs its own: what a pass records on
// one id (vectorized, unrolled) would otherwise apply to every loop that shares it.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Metadata.h>

namespace cajeta::lowering {

/// A new loop id with these properties (each an MDNode such as {"llvm.loop.vectorize.enable",
/// true}).
inline llvm::MDNode* newLoopId(llvm::LLVMContext& C, llvm::ArrayRef<llvm::Metadata*> Properties) {
  llvm::TempMDTuple Self = llvm::MDNode::getTemporary(C, {});
  llvm::SmallVector<llvm::Metadata*, 4> Ops = {Self.get()};
  Ops.append(Properties.begin(), Properties.end());
  llvm::MDNode* Id = llvm::MDNode::getDistinct(C, Ops);
  Id->replaceOperandWith(0, Id);
  return Id;
}

/// A new id with the properties of loop id Old, for a copy of its loop.
inline llvm::MDNode* copyLoopId(llvm::MDNode* Old) {
  llvm::SmallVector<llvm::Metadata*, 4> Properties;
  for (unsigned I = 1; I < Old->getNumOperands(); ++I)
    Properties.push_back(Old->getOperand(I));
  return newLoopId(Old->getContext(), Properties);
}

} // namespace cajeta::lowering
