// Drops a `wgmma.fence` that orders nothing the one before it did not. TileLowering puts a fence
// before each Group.mac's wgmma products; where several macs follow one another in a basic block
// with nothing between them but wgmma products and arithmetic that no product's registers come
// from, every fence past the first is redundant (PTX ISA: products of one shape chain on an
// accumulator without a fence). ptxas turns each fence into a WARPGROUP.ARRIVE and closes the
// products before it as a group of their own, so without this a K-step of four macs issued as
// four groups instead of one.
#pragma once

namespace llvm {
class Function;
} // namespace llvm

namespace cajeta::lowering {

class NvptxWgmmaFenceElision {
public:
  /// Erases F's redundant fences; true if it erased any.
  static bool run(llvm::Function& F);
};

} // namespace cajeta::lowering
