// The float32 tile product on the CPU (CpuF32Dot.h).
#include "compiler/lowering/llvm/CpuF32Dot.h"

#include "compiler/lowering/llvm/RegisterBlockedDot.h"

#include <cstdlib>
#include <string>

namespace cajeta::lowering {

bool cpuF32DotAllowed() {
  const char* V = std::getenv("CAJETA_CPU_TILE_F32_DOT");
  return !V || std::string(V) != "0";
}

void emitCpuF32Dot(llvm::IRBuilder<>& B, llvm::Value* C, llvm::Value* A, llvm::Value* Bm,
                   unsigned M, unsigned N, unsigned K) {
  constexpr unsigned Lanes = RegisterBlockedDot::Lanes;
  llvm::Type* F32 = B.getFloatTy();
  auto* Floats = llvm::FixedVectorType::get(F32, Lanes);
  const llvm::Align FloatAlign(4);
  auto At = [&](llvm::Value* Base, llvm::Value* Row, unsigned Cols, llvm::Value* Col) {
    return B.CreateInBoundsGEP(F32, Base, B.CreateAdd(B.CreateMul(Row, B.getInt64(Cols)), Col));
  };
  RegisterBlockedDot Loop;
  Loop.Name = "f32";
  Loop.M = M;
  Loop.N = N;
  Loop.Steps = K;
  Loop.Start = [&](llvm::Value* Row, llvm::Value* Col) {
    return B.CreateAlignedLoad(Floats, At(C, Row, N, Col), FloatAlign);
  };
  Loop.AOperand = [&](llvm::Value* Row, llvm::Value* Step) {
    return B.CreateVectorSplat(Lanes, B.CreateAlignedLoad(F32, At(A, Row, K, Step), FloatAlign));
  };
  Loop.BOperand = [&](llvm::Value* Col, llvm::Value* Step) {
    return B.CreateAlignedLoad(Floats, At(Bm, Step, N, Col), FloatAlign);
  };
  Loop.Dot = [&](llvm::Value* Acc, llvm::Value* Av, llvm::Value* Bv) {
    return B.CreateFAdd(Acc, B.CreateFMul(Av, Bv));
  };
  Loop.Finish = [&](llvm::Value* Acc, llvm::Value* Row, llvm::Value* Col) {
    B.CreateAlignedStore(Acc, At(C, Row, N, Col), FloatAlign);
  };
  Loop.emit(B);
}

} // namespace cajeta::lowering
