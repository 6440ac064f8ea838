// How the CPU tile products pack b: each 32-bit word holds two (bfloat16) or four (bytes)
// consecutive rows of one column, the first row in the lowest bits, which is what VPDPBUSD and
// AMX's tile products read. One function for the leaves that pack (CpuInt8Dot, CpuAmxDot).
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <vector>

namespace cajeta::lowering {

/// Rows (two or four vectors of the same width, consecutive rows of b at the same columns)
/// interleaved element by element: r0[0] r1[0] (r2[0] r3[0]) r0[1] ... (bitcast to 32-bit words
/// by the caller).
inline llvm::Value* interleaveRows(llvm::IRBuilder<>& B, const std::vector<llvm::Value*>& Rows) {
  const unsigned Lanes = llvm::cast<llvm::FixedVectorType>(Rows[0]->getType())->getNumElements();
  std::vector<int> Pairs, Quads; // (r0, r1) -> r0[0] r1[0] r0[1] ...; then pairs of pairs
  for (unsigned T = 0; T < Lanes; ++T) {
    Pairs.push_back(int(T));
    Pairs.push_back(int(T + Lanes));
  }
  if (Rows.size() == 2)
    return B.CreateShuffleVector(Rows[0], Rows[1], Pairs);
  for (unsigned T = 0; T < Lanes; ++T)
    for (unsigned H = 0; H < 2; ++H) {
      Quads.push_back(int(2 * T + 2 * Lanes * H));
      Quads.push_back(int(2 * T + 2 * Lanes * H + 1));
    }
  return B.CreateShuffleVector(B.CreateShuffleVector(Rows[0], Rows[1], Pairs),
                               B.CreateShuffleVector(Rows[2], Rows[3], Pairs), Quads);
}

} // namespace cajeta::lowering
