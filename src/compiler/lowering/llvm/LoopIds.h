// Loop ids: the distinct metadata node a loop's latch branch carries (!llvm.loop), which names
// itself first and then the loop's properties. Each loop needs its own: what a pass records on
// one id (vectorized, unrolled) would otherwise apply to every loop that shares it.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/LoopInfo.h>
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

/// Whether L's loop id holds the property Name.
inline bool hasLoopProperty(const llvm::Loop& L, llvm::StringRef Name) {
  llvm::MDNode* Id = L.getLoopID();
  if (!Id)
    return false;
  for (const llvm::MDOperand& Op : Id->operands())
    if (auto* N = llvm::dyn_cast_or_null<llvm::MDNode>(Op.get());
        N && N != Id && N->getNumOperands() > 0)
      if (auto* S = llvm::dyn_cast<llvm::MDString>(N->getOperand(0)); S && S->getString() == Name)
        return true;
  return false;
}

/// The property the CPU target gives a loop over a workgroup's rows of work-items (local y),
/// which holds no barrier: a region's loops over work-items are inside it.
inline constexpr const char* GroupRowsProperty = "cajeta.loop.group_rows";

/// The loop id of such a loop.
inline llvm::MDNode* groupRowsLoopId(llvm::LLVMContext& C) {
  return newLoopId(C, {llvm::MDNode::get(C, {llvm::MDString::get(C, GroupRowsProperty)})});
}

inline bool isGroupRowsLoop(const llvm::Loop& L) {
  return hasLoopProperty(L, GroupRowsProperty);
}

/// Whether the CPU target marked L as a loop over work-items (llvm.loop.parallel_accesses in
/// its id): its iterations may run in any order.
inline bool isParallelLoop(const llvm::Loop& L) {
  return hasLoopProperty(L, "llvm.loop.parallel_accesses");
}

} // namespace cajeta::lowering
