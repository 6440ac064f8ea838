// An element index as a variable part plus the sum of its constant addends, so that accesses at
// constant distances from one another share the work done on the variable part (the swizzle's
// xor in KernelLowering::elementPointer, the shift of a wgmma descriptor).
#pragma once

#include <cstdint>
#include <utility>

namespace llvm {
class Value;
} // namespace llvm

namespace cajeta::lowering {

class IndexAddend {
public:
  /// Index (an integer) as {Var, Addend}: Index == Var + Addend modulo 2^32 (through a zext or
  /// sext of a 32-bit index, or a 64-bit one: an addend of a narrower index may wrap there, so
  /// such an index is left whole), Addend the `add`s of constants peeled off its end.
  static std::pair<llvm::Value*, uint64_t> split(llvm::Value* Index);
};

} // namespace cajeta::lowering
