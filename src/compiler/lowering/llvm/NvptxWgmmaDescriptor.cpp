#include "compiler/lowering/llvm/NvptxWgmmaDescriptor.h"

#include "compiler/lowering/llvm/IndexAddend.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

namespace cajeta::lowering {
namespace {

/// Tile's shared-memory address as Var + Bytes in 32 bits: Bytes the constant addends of its
/// element index that are whole 16-byte units, Var the rest. Everything is modulo 2^32, which
/// keeps the address's low 18 bits (the descriptor's) whatever the index's width and wrap.
std::pair<llvm::Value*, uint32_t> splitConstantBytes(llvm::IRBuilder<>& B, llvm::Value* Tile) {
  auto Address = [&](llvm::Value* P) {
    return B.CreateTrunc(B.CreatePtrToInt(P, B.getInt64Ty()), B.getInt32Ty());
  };
  auto* Gep = llvm::dyn_cast<llvm::GetElementPtrInst>(Tile);
  if (!Gep || Gep->getNumIndices() != 1)
    return {Address(Tile), 0};
  const llvm::DataLayout& DL = Gep->getModule()->getDataLayout();
  const uint64_t Size = DL.getTypeAllocSize(Gep->getSourceElementType());
  auto [Var, Addend] = IndexAddend::split(Gep->getOperand(1));
  // The index in 32 bits, so that the address's arithmetic stays there (built from the 64-bit
  // pointer, it took a 64-bit add and shift a descriptor).
  const uint32_t AddendBytes = uint32_t(Addend * Size), Units = AddendBytes & ~15u;
  llvm::Value* Offset =
      B.CreateMul(B.CreateZExtOrTrunc(Var, B.getInt32Ty()), B.getInt32(uint32_t(Size)));
  return {B.CreateAdd(B.CreateAdd(Address(Gep->getPointerOperand()), Offset),
                      B.getInt32(AddendBytes - Units)),
          Units};
}

} // namespace

llvm::Value* NvptxWgmmaDescriptor::emit(llvm::IRBuilder<>& B, llvm::Value* Tile, uint64_t Lead,
                                        uint64_t Stride) {
  auto [Var, Bytes] = splitConstantBytes(B, Tile);
  // (Var >> 4) + (Bytes >> 4) is the address >> 4 modulo 2^28 (both parts are multiples of 16);
  // the mask keeps its 14 bits.
  llvm::Value* Start =
      B.CreateAnd(B.CreateAdd(B.CreateLShr(Var, 4), B.getInt32(Bytes >> 4)), B.getInt32(0x3FFF));
  llvm::Value* Low = B.CreateOr(Start, B.getInt32(uint32_t(Lead >> 4) << 16));
  return B.CreateOr(B.CreateZExt(Low, B.getInt64Ty()),
                    B.getInt64((uint64_t(Stride >> 4) << 32) | (uint64_t(1) << 62)));
}

} // namespace cajeta::lowering
