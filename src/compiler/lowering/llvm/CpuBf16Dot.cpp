// The CPU tile tier's bfloat16 product (CpuBf16Dot.h).
#include "compiler/lowering/llvm/CpuBf16Dot.h"

#include "compiler/lowering/llvm/CountedLoop.h"
#include "compiler/lowering/llvm/RegisterBlockedDot.h"

#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>

#include <vector>

namespace cajeta::lowering {

namespace {

constexpr unsigned Lanes = RegisterBlockedDot::Lanes; // float32 lanes of a 512-bit vector

} // namespace

void emitCpuBf16Dot(llvm::IRBuilder<>& B, llvm::Value* C, llvm::Value* A, llvm::Value* Bm,
                    unsigned M, unsigned N, unsigned K) {
  llvm::Function* F = B.GetInsertBlock()->getParent();
  llvm::Module* Mod = F->getParent();
  llvm::Type* I16 = B.getInt16Ty();
  llvm::Type* I32 = B.getInt32Ty();
  llvm::Type* F32 = B.getFloatTy();
  auto* Halves = llvm::FixedVectorType::get(I16, Lanes);
  auto* Words = llvm::FixedVectorType::get(I32, Lanes);
  auto* Floats = llvm::FixedVectorType::get(F32, Lanes);
  llvm::Function* Dot =
      llvm::Intrinsic::getDeclaration(Mod, llvm::Intrinsic::x86_avx512bf16_dpbf16ps_512);
  llvm::Type* PairArg = Dot->getFunctionType()->getParamType(1); // <32 x bfloat> in LLVM 19
  const llvm::Align Unaligned(2), FloatAlign(4);

  // B packed: word (kp, j) = B[2 kp][j] in the high half, B[2 kp + 1][j] in the low one.
  llvm::IRBuilder<> Entry(&*F->getEntryBlock().getFirstInsertionPt());
  llvm::AllocaInst* Packed = Entry.CreateAlloca(I32, Entry.getInt64(uint64_t(K / 2) * N), "bf16.b");
  Packed->setAlignment(llvm::Align(64));
  std::vector<int> Interleave;
  for (unsigned T = 0; T < Lanes; ++T) {
    Interleave.push_back(int(T + Lanes)); // low half: row k + 1 (the second operand)
    Interleave.push_back(int(T));         // high half: row k
  }
  {
    CountedLoop Kp(B, "bf16.pack", K / 2);
    CountedLoop Col(B, "bf16.pack.col", N, Lanes);
    llvm::Value* Row0 = B.CreateMul(Kp.iv(), B.getInt64(2 * uint64_t(N)));
    llvm::Value* At0 = B.CreateAdd(Row0, Col.iv());
    llvm::Value* At1 = B.CreateAdd(At0, B.getInt64(N));
    llvm::Value* R0 = B.CreateAlignedLoad(Halves, B.CreateInBoundsGEP(I16, Bm, At0), Unaligned);
    llvm::Value* R1 = B.CreateAlignedLoad(Halves, B.CreateInBoundsGEP(I16, Bm, At1), Unaligned);
    llvm::Value* Word = B.CreateAdd(B.CreateMul(Kp.iv(), B.getInt64(N)), Col.iv());
    B.CreateAlignedStore(B.CreateShuffleVector(R0, R1, Interleave),
                         B.CreateInBoundsGEP(I32, Packed, Word), llvm::Align(64));
    Col.end();
    Kp.end();
  }

  // A's pairs as words with 2 kp in the high half (rotated by 16), so that the depth loop
  // broadcasts each straight from memory.
  llvm::AllocaInst* PackedA =
      Entry.CreateAlloca(I32, Entry.getInt64(uint64_t(M) * (K / 2)), "bf16.a");
  PackedA->setAlignment(llvm::Align(64));
  {
    CountedLoop Word(B, "bf16.pack.a", uint64_t(M) * (K / 2));
    llvm::Value* W = B.CreateAlignedLoad(I32, B.CreateInBoundsGEP(I32, A, Word.iv()), Unaligned);
    llvm::Value* Swapped = B.CreateIntrinsic(llvm::Intrinsic::fshl, {I32}, {W, W, B.getInt32(16)});
    B.CreateAlignedStore(Swapped, B.CreateInBoundsGEP(I32, PackedA, Word.iv()), llvm::Align(4));
    Word.end();
  }

  // C in blocks of 4 rows x up to 4 vectors, kept in registers over the whole depth.
  RegisterBlockedDot Loop;
  Loop.Name = "bf16";
  Loop.M = M;
  Loop.N = N;
  Loop.Steps = K / 2;
  auto CAt = [&](llvm::Value* Row, llvm::Value* Col) {
    return B.CreateInBoundsGEP(F32, C, B.CreateAdd(B.CreateMul(Row, B.getInt64(N)), Col));
  };
  Loop.Start = [&](llvm::Value* Row, llvm::Value* Col) {
    return B.CreateAlignedLoad(Floats, CAt(Row, Col), FloatAlign);
  };
  Loop.AOperand = [&](llvm::Value* Row, llvm::Value* Kp) {
    llvm::Value* Index = B.CreateAdd(B.CreateMul(Row, B.getInt64(K / 2)), Kp);
    llvm::Value* Swapped =
        B.CreateAlignedLoad(I32, B.CreateInBoundsGEP(I32, PackedA, Index), llvm::Align(4));
    return B.CreateBitCast(B.CreateVectorSplat(Lanes, Swapped), PairArg);
  };
  Loop.BOperand = [&](llvm::Value* Col, llvm::Value* Kp) {
    llvm::Value* Word = B.CreateAdd(B.CreateMul(Kp, B.getInt64(N)), Col);
    llvm::Value* Loaded =
        B.CreateAlignedLoad(Words, B.CreateInBoundsGEP(I32, Packed, Word), llvm::Align(64));
    return B.CreateBitCast(Loaded, PairArg);
  };
  Loop.Dot = [&](llvm::Value* Acc, llvm::Value* APair, llvm::Value* BPair) {
    return B.CreateCall(Dot, {Acc, APair, BPair});
  };
  Loop.Finish = [&](llvm::Value* Acc, llvm::Value* Row, llvm::Value* Col) {
    B.CreateAlignedStore(Acc, CAt(Row, Col), FloatAlign);
  };
  Loop.emit(B);
}

} // namespace cajeta::lowering
