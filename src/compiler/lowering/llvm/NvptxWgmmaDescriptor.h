// A wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"; 128-byte
// swizzle, mode 1): bits 0-13 the start address >> 4, 16-29 the leading offset >> 4, 32-45 the
// stride offset >> 4, 62-63 the swizzle. A K-step issues one product per 16 elements of K and
// per operand, each at a constant distance from the step's tile; built from the address as a
// whole, each descriptor cost eight instructions (a 64-bit add, shift, two masks and the moves
// to uniform registers). Built here from the address's variable part, shifted once and shared
// by the products at constant distances from it, plus their distance >> 4 in 32 bits: two.
#pragma once

#include <cstdint>

#include <llvm/IR/IRBuilder.h>

namespace cajeta::lowering {

class NvptxWgmmaDescriptor {
public:
  /// The descriptor of the tile at shared-memory pointer Tile (16-byte aligned), with leading
  /// and stride offsets Lead and Stride in bytes.
  static llvm::Value* emit(llvm::IRBuilder<>& B, llvm::Value* Tile, uint64_t Lead, uint64_t Stride);
};

} // namespace cajeta::lowering
