// The CPU tile tier's product on AMX tiles (CpuAmxDot.h).
#include "compiler/lowering/llvm/CpuAmxDot.h"

#include "compiler/lowering/llvm/CountedLoop.h"
#include "compiler/lowering/llvm/DepthInterleave.h"

#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>

#include <array>
#include <cstdlib>
#include <string>
#include <vector>

namespace cajeta::lowering {

namespace {

constexpr unsigned Lanes = 16;    // 32-bit words of a 64-byte tile row
constexpr unsigned RowBytes = 64; // a tile row's most bytes
constexpr unsigned MaxTileRows = 16;
constexpr unsigned CTile = 0, ATile = 4, BTile = 6; // C: tiles 0-3, A: 4-5, B: 6-7

unsigned elementBytes(kir::MmaInput In) {
  return In == kir::MmaInput::BF16 ? 2 : 1;
}

/// The leaf's geometry: tiles of TileRows rows, a depth step of Step elements, blocks of
/// RowTiles x ColTiles accumulator tiles.
struct AmxShape {
  unsigned ElemBytes = 0, Depth = 0; // Depth: elements of A's row per 32-bit word of B's
  unsigned TileRows = 0, Step = 0, RowTiles = 0, ColTiles = 0;
};

bool shapeOf(unsigned M, unsigned N, unsigned K, kir::MmaInput In, AmxShape& S) {
  if (In != kir::MmaInput::BF16 && In != kir::MmaInput::S8 && In != kir::MmaInput::U8)
    return false;
  S.ElemBytes = elementBytes(In);
  S.Depth = 4 / S.ElemBytes;
  S.TileRows = M < MaxTileRows ? M : MaxTileRows;
  const unsigned MostStep = RowBytes / S.ElemBytes;
  S.Step = K < MostStep ? K : MostStep;
  if (M == 0 || N == 0 || K == 0 || M % S.TileRows || N % Lanes || K % S.Step || S.Step % S.Depth)
    return false;
  S.RowTiles = (M / S.TileRows) % 2 == 0 ? 2 : 1;
  S.ColTiles = (N / Lanes) % 2 == 0 ? 2 : 1;
  return true;
}

/// The 64-byte tile configuration (palette 1): bytes 16-47 each tile's row bytes, 48-63 its rows.
llvm::GlobalVariable* tileConfig(llvm::Module& Mod, const AmxShape& S) {
  std::array<uint8_t, 64> Cfg{};
  Cfg[0] = 1;
  auto Set = [&](unsigned Tile, unsigned Rows, unsigned Bytes) {
    Cfg[16 + 2 * Tile] = uint8_t(Bytes);
    Cfg[17 + 2 * Tile] = uint8_t(Bytes >> 8);
    Cfg[48 + Tile] = uint8_t(Rows);
  };
  for (unsigned R = 0; R < S.RowTiles; ++R) {
    for (unsigned C = 0; C < S.ColTiles; ++C)
      Set(CTile + R * S.ColTiles + C, S.TileRows, RowBytes);
    Set(ATile + R, S.TileRows, S.Step * S.ElemBytes);
  }
  for (unsigned C = 0; C < S.ColTiles; ++C)
    Set(BTile + C, S.Step / S.Depth, RowBytes);
  const std::string Name = "amx.cfg." + std::to_string(S.ElemBytes) + "." +
                           std::to_string(S.TileRows) + "." + std::to_string(S.Step) + "." +
                           std::to_string(S.RowTiles) + std::to_string(S.ColTiles);
  if (llvm::GlobalVariable* G = Mod.getGlobalVariable(Name, /*AllowInternal=*/true))
    return G;
  auto* Init = llvm::ConstantDataArray::get(Mod.getContext(), llvm::ArrayRef<uint8_t>(Cfg));
  auto* G = new llvm::GlobalVariable(Mod, Init->getType(), /*isConstant=*/true,
                                     llvm::GlobalValue::PrivateLinkage, Init, Name);
  G->setAlignment(llvm::Align(64));
  return G;
}

/// B packed as AMX reads it: word (kw, j) holds rows Depth kw .. Depth kw + Depth - 1 of column
/// j, the first row in the lowest bits.
llvm::Value* packB(llvm::IRBuilder<>& B, llvm::Value* Bm, unsigned N, unsigned K,
                   const AmxShape& S) {
  llvm::Function* F = B.GetInsertBlock()->getParent();
  llvm::Type* I32 = B.getInt32Ty();
  llvm::Type* Elem = B.getIntNTy(8 * S.ElemBytes);
  auto* Row = llvm::FixedVectorType::get(Elem, Lanes);
  auto* Words = llvm::FixedVectorType::get(I32, Lanes);
  llvm::IRBuilder<> Entry(&*F->getEntryBlock().getFirstInsertionPt());
  llvm::AllocaInst* Packed =
      Entry.CreateAlloca(I32, Entry.getInt64(uint64_t(K / S.Depth) * N), "amx.b");
  Packed->setAlignment(llvm::Align(64));
  CountedLoop Kw(B, "amx.pack", K / S.Depth);
  CountedLoop Col(B, "amx.pack.col", N, Lanes);
  std::vector<llvm::Value*> Rows;
  for (unsigned Q = 0; Q < S.Depth; ++Q) {
    llvm::Value* R = B.CreateAdd(B.CreateMul(Kw.iv(), B.getInt64(S.Depth)), B.getInt64(Q));
    llvm::Value* At = B.CreateAdd(B.CreateMul(R, B.getInt64(N)), Col.iv());
    Rows.push_back(
        B.CreateAlignedLoad(Row, B.CreateInBoundsGEP(Elem, Bm, At), llvm::Align(S.ElemBytes)));
  }
  llvm::Value* Word = interleaveRows(B, Rows);
  llvm::Value* At = B.CreateAdd(B.CreateMul(Kw.iv(), B.getInt64(N)), Col.iv());
  B.CreateAlignedStore(B.CreateBitCast(Word, Words), B.CreateInBoundsGEP(I32, Packed, At),
                       llvm::Align(64));
  Col.end();
  Kw.end();
  return Packed;
}

} // namespace

bool cpuAmxAllowed() {
  const char* V = std::getenv("CAJETA_CPU_AMX");
  return !V || std::string(V) != "0";
}

bool cpuAmxDotFits(unsigned M, unsigned N, unsigned K, kir::MmaInput In) {
  AmxShape S;
  return shapeOf(M, N, K, In, S);
}

void emitCpuAmxDot(llvm::IRBuilder<>& B, llvm::Value* C, llvm::Value* A, llvm::Value* Bm,
                   unsigned M, unsigned N, unsigned K, kir::MmaInput In) {
  AmxShape S;
  if (!shapeOf(M, N, K, In, S))
    return;
  llvm::Module* Mod = B.GetInsertBlock()->getModule();
  auto Intrinsic = [&](llvm::Intrinsic::ID Id) { return llvm::Intrinsic::getDeclaration(Mod, Id); };
  llvm::Function* Load = Intrinsic(llvm::Intrinsic::x86_tileloadd64);
  llvm::Function* Store = Intrinsic(llvm::Intrinsic::x86_tilestored64);
  llvm::Function* Dot = Intrinsic(In == kir::MmaInput::BF16 ? llvm::Intrinsic::x86_tdpbf16ps
                                  : In == kir::MmaInput::S8 ? llvm::Intrinsic::x86_tdpbssd
                                                            : llvm::Intrinsic::x86_tdpbuud);
  llvm::Value* Packed = packB(B, Bm, N, K, S);
  B.CreateCall(Intrinsic(llvm::Intrinsic::x86_ldtilecfg), {tileConfig(*Mod, S)});

  llvm::Type* I8 = B.getInt8Ty();
  const uint64_t CStride = uint64_t(N) * 4, AStride = uint64_t(K) * S.ElemBytes;
  auto Tile = [&](unsigned T) { return B.getInt8(uint8_t(T)); };
  auto Bytes = [&](llvm::Value* Base, llvm::Value* Offset) {
    return B.CreateInBoundsGEP(I8, Base, Offset);
  };
  CountedLoop Rows(B, "amx.rows", M, uint64_t(S.TileRows) * S.RowTiles);
  CountedLoop Cols(B, "amx.cols", N, uint64_t(Lanes) * S.ColTiles);
  // Byte offsets of accumulator tile (R, Col) in C, of A's tile R, of B's tile Col.
  auto COffset = [&](unsigned R, unsigned Col) {
    llvm::Value* Row = B.CreateAdd(Rows.iv(), B.getInt64(uint64_t(R) * S.TileRows));
    llvm::Value* Column = B.CreateAdd(Cols.iv(), B.getInt64(uint64_t(Col) * Lanes));
    return B.CreateAdd(B.CreateMul(Row, B.getInt64(CStride)), B.CreateMul(Column, B.getInt64(4)));
  };
  for (unsigned R = 0; R < S.RowTiles; ++R)
    for (unsigned Col = 0; Col < S.ColTiles; ++Col)
      B.CreateCall(Load, {Tile(CTile + R * S.ColTiles + Col), Bytes(C, COffset(R, Col)),
                          B.getInt64(CStride)});
  {
    CountedLoop Depth(B, "amx.depth", K, S.Step);
    for (unsigned R = 0; R < S.RowTiles; ++R) {
      llvm::Value* Row = B.CreateAdd(Rows.iv(), B.getInt64(uint64_t(R) * S.TileRows));
      llvm::Value* Offset = B.CreateAdd(B.CreateMul(Row, B.getInt64(AStride)),
                                        B.CreateMul(Depth.iv(), B.getInt64(S.ElemBytes)));
      B.CreateCall(Load, {Tile(ATile + R), Bytes(A, Offset), B.getInt64(AStride)});
    }
    for (unsigned Col = 0; Col < S.ColTiles; ++Col) {
      // Word row Depth.iv() / Depth of the packed B, columns from this tile's first.
      llvm::Value* Word =
          B.CreateAdd(B.CreateMul(B.CreateUDiv(Depth.iv(), B.getInt64(S.Depth)), B.getInt64(N)),
                      B.CreateAdd(Cols.iv(), B.getInt64(uint64_t(Col) * Lanes)));
      B.CreateCall(Load, {Tile(BTile + Col), Bytes(Packed, B.CreateMul(Word, B.getInt64(4))),
                          B.getInt64(CStride)});
    }
    for (unsigned R = 0; R < S.RowTiles; ++R)
      for (unsigned Col = 0; Col < S.ColTiles; ++Col)
        B.CreateCall(Dot, {Tile(CTile + R * S.ColTiles + Col), Tile(ATile + R), Tile(BTile + Col)});
    Depth.end();
  }
  for (unsigned R = 0; R < S.RowTiles; ++R)
    for (unsigned Col = 0; Col < S.ColTiles; ++Col)
      B.CreateCall(Store, {Tile(CTile + R * S.ColTiles + Col), Bytes(C, COffset(R, Col)),
                           B.getInt64(CStride)});
  Cols.end();
  Rows.end();
  B.CreateCall(Intrinsic(llvm::Intrinsic::x86_tilerelease), {});
}

} // namespace cajeta::lowering
