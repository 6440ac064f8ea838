// The CPU tile tier's 8-bit product (CpuInt8Dot.h).
#include "compiler/lowering/llvm/CpuInt8Dot.h"

#include "compiler/lowering/llvm/CountedLoop.h"
#include "compiler/lowering/llvm/DepthInterleave.h"
#include "compiler/lowering/llvm/RegisterBlockedDot.h"

#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>

#include <vector>

namespace cajeta::lowering {

namespace {

constexpr unsigned Lanes = RegisterBlockedDot::Lanes; // int32 lanes of a 512-bit vector
constexpr uint32_t TopBits = 0x80808080u;             // the top bit of each byte of a quad

} // namespace

void emitCpuInt8Dot(llvm::IRBuilder<>& B, llvm::Value* C, llvm::Value* A, llvm::Value* Bm,
                    unsigned M, unsigned N, unsigned K, kir::MmaInput In) {
  llvm::Function* F = B.GetInsertBlock()->getParent();
  llvm::Module* Mod = F->getParent();
  const bool Signed = In == kir::MmaInput::S8;
  llvm::Type* I8 = B.getInt8Ty();
  llvm::Type* I32 = B.getInt32Ty();
  auto* Bytes = llvm::FixedVectorType::get(I8, Lanes);
  auto* Words = llvm::FixedVectorType::get(I32, Lanes);
  llvm::Function* Dot =
      llvm::Intrinsic::getDeclaration(Mod, llvm::Intrinsic::x86_avx512_vpdpbusd_512);
  llvm::Type* QuadArg = Dot->getFunctionType()->getParamType(1);
  auto dot = [&](llvm::Value* Acc, llvm::Value* U, llvm::Value* S) {
    return B.CreateCall(Dot, {Acc, B.CreateBitCast(U, QuadArg), B.CreateBitCast(S, QuadArg)});
  };
  const llvm::Align Unaligned(1), WordAlign(4), VectorAlign(64);
  llvm::Value* Flip = B.CreateVectorSplat(Lanes, B.getInt32(TopBits));

  // B packed: word (kq, j) = B[4 kq + q][j] in byte q (uint8 moved to int8 by flipping the top
  // bits). For int8, ColFix[j] = 128 * sum_k B[k][j], by the same instruction against 0x80s.
  llvm::IRBuilder<> Entry(&*F->getEntryBlock().getFirstInsertionPt());
  llvm::AllocaInst* Packed = Entry.CreateAlloca(I32, Entry.getInt64(uint64_t(K / 4) * N), "s8.b");
  Packed->setAlignment(VectorAlign);
  llvm::AllocaInst* ColFix = Entry.CreateAlloca(I32, Entry.getInt64(N), "s8.colfix");
  ColFix->setAlignment(VectorAlign);
  {
    CountedLoop Col(B, "s8.pack.col", N, Lanes);
    llvm::BasicBlock* Before = B.GetInsertBlock();
    CountedLoop Kq(B, "s8.pack", K / 4);
    llvm::PHINode* Sum = B.CreatePHI(Words, 2, "s8.colsum");
    Sum->addIncoming(llvm::Constant::getNullValue(Words), Before);
    std::vector<llvm::Value*> Rows;
    for (unsigned Q = 0; Q < 4; ++Q) {
      llvm::Value* Row = B.CreateAdd(B.CreateMul(Kq.iv(), B.getInt64(4)), B.getInt64(Q));
      llvm::Value* At = B.CreateAdd(B.CreateMul(Row, B.getInt64(N)), Col.iv());
      Rows.push_back(B.CreateAlignedLoad(Bytes, B.CreateInBoundsGEP(I8, Bm, At), Unaligned));
    }
    llvm::Value* Word = B.CreateBitCast(interleaveRows(B, Rows), Words);
    if (!Signed)
      Word = B.CreateXor(Word, Flip);
    llvm::Value* At = B.CreateAdd(B.CreateMul(Kq.iv(), B.getInt64(N)), Col.iv());
    B.CreateAlignedStore(Word, B.CreateInBoundsGEP(I32, Packed, At), VectorAlign);
    llvm::Value* Next = Signed ? static_cast<llvm::Value*>(dot(Sum, Flip, Word)) : Sum;
    Sum->addIncoming(Next, B.GetInsertBlock());
    Kq.end();
    B.CreateAlignedStore(Next, B.CreateInBoundsGEP(I32, ColFix, Col.iv()), VectorAlign);
    Col.end();
  }
  // For int8, A with its top bits flipped (uint8), so the depth loop broadcasts each quad straight
  // from memory.
  if (Signed) {
    llvm::AllocaInst* Flipped =
        Entry.CreateAlloca(I32, Entry.getInt64(uint64_t(M) * (K / 4)), "s8.a");
    Flipped->setAlignment(VectorAlign);
    CountedLoop Word(B, "s8.pack.a", uint64_t(M) * (K / 4));
    llvm::Value* W = B.CreateAlignedLoad(I32, B.CreateInBoundsGEP(I32, A, Word.iv()), Unaligned);
    B.CreateAlignedStore(B.CreateXor(W, B.getInt32(TopBits)),
                         B.CreateInBoundsGEP(I32, Flipped, Word.iv()), WordAlign);
    Word.end();
    A = Flipped;
  }
  // For uint8, RowFix[i] = 128 * sum_k A[i][k].
  llvm::AllocaInst* RowFix = Entry.CreateAlloca(I32, Entry.getInt64(M), "s8.rowfix");
  if (!Signed) {
    CountedLoop Row(B, "s8.rowsum", M);
    llvm::BasicBlock* Before = B.GetInsertBlock();
    CountedLoop Kk(B, "s8.rowsum.k", K);
    llvm::PHINode* Sum = B.CreatePHI(I32, 2, "s8.rowsum.acc");
    Sum->addIncoming(B.getInt32(0), Before);
    llvm::Value* At = B.CreateAdd(B.CreateMul(Row.iv(), B.getInt64(K)), Kk.iv());
    llvm::Value* V = B.CreateZExt(B.CreateLoad(I8, B.CreateInBoundsGEP(I8, A, At)), I32);
    llvm::Value* Next = B.CreateAdd(Sum, V);
    Sum->addIncoming(Next, B.GetInsertBlock());
    Kk.end();
    B.CreateStore(B.CreateShl(Next, B.getInt32(7)), B.CreateInBoundsGEP(I32, RowFix, Row.iv()));
    Row.end();
  }

  // C in blocks of 4 rows x up to 4 vectors, kept in registers over the whole depth, starting
  // from C with the correction applied.
  RegisterBlockedDot Loop;
  Loop.Name = "s8";
  Loop.M = M;
  Loop.N = N;
  Loop.Steps = K / 4;
  auto CAt = [&](llvm::Value* Row, llvm::Value* Col) {
    return B.CreateInBoundsGEP(I32, C, B.CreateAdd(B.CreateMul(Row, B.getInt64(N)), Col));
  };
  Loop.Start = [&](llvm::Value* Row, llvm::Value* Col) -> llvm::Value* {
    llvm::Value* Start = B.CreateAlignedLoad(Words, CAt(Row, Col), WordAlign);
    if (Signed)
      return B.CreateSub(
          Start, B.CreateAlignedLoad(Words, B.CreateInBoundsGEP(I32, ColFix, Col), VectorAlign));
    llvm::Value* Fix = B.CreateLoad(I32, B.CreateInBoundsGEP(I32, RowFix, Row));
    return B.CreateAdd(Start, B.CreateVectorSplat(Lanes, Fix));
  };
  Loop.AOperand = [&](llvm::Value* Row, llvm::Value* Kq) {
    llvm::Value* At = B.CreateAdd(B.CreateMul(Row, B.getInt64(K)), B.CreateMul(Kq, B.getInt64(4)));
    llvm::Value* Quad = B.CreateAlignedLoad(I32, B.CreateInBoundsGEP(I8, A, At), Unaligned);
    return B.CreateVectorSplat(Lanes, Quad);
  };
  Loop.BOperand = [&](llvm::Value* Col, llvm::Value* Kq) {
    llvm::Value* At = B.CreateAdd(B.CreateMul(Kq, B.getInt64(N)), Col);
    return B.CreateAlignedLoad(Words, B.CreateInBoundsGEP(I32, Packed, At), VectorAlign);
  };
  Loop.Dot = dot;
  Loop.Finish = [&](llvm::Value* Acc, llvm::Value* Row, llvm::Value* Col) {
    B.CreateAlignedStore(Acc, CAt(Row, Col), WordAlign);
  };
  Loop.emit(B);
}

} // namespace cajeta::lowering
