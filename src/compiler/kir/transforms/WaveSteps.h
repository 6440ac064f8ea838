// The CPU's native wave tier in KIR: a wave is one vector of the work-item loop. Every wave
// primitive kir::WaveExpand leaves (WaveSteps::primitives) becomes a statement of its own over
// locals, `r = Wave.op(v[, n])`, which the work-item loop fission (the LLVM walk) runs between
// two regions as one vector operation per wave over the locals' per-work-item slots: a permute
// for a shuffle, a compare and a mask for a ballot or vote, a vector reduction or prefix sum for
// the integer ones. The float orders stay Kir.h's because the composites that need them are
// WaveExpand's, built from ShuffleWord.
#pragma once

#include "compiler/kir/Kir.h"
#include "compiler/kir/transforms/WaveExpand.h"

#include <memory>
#include <string>

namespace cajeta::kir {

class WaveSteps {
public:
  /// What this tier provides, for a wave of Width lanes (the target's vector of 32-bit lanes):
  /// ShuffleWord, ballot, votes, broadcast of a word, and every integer reduction and scan of
  /// 32 or 64 bits, each one vector operation.
  static WavePrimitives primitives(uint32_t Width);

  /// Whether S is a wave step: `local = Wave.op(local[, local])` of a primitive other than
  /// Wave.width() and Wave.laneId().
  static bool isStep(const Stmt* S);

  /// A copy of kernel K of M in which helpers that use wave ops or barriers are inlined and every
  /// wave op is a step (isStep) and Wave.width() the constant Width; HasBarrier is set where a
  /// step or a Wave.laneId() is left (the fission runs the kernel: a lane is the work-item's
  /// index in the fission's loop modulo Width). The composites must be expanded first (WaveExpand
  /// over primitives(Width)). New nodes live in Scratch. Null with Error set when the kernel cannot
  /// be rewritten.
  static std::unique_ptr<Function> expand(const Module& M, const Function& K, Module& Scratch,
                                          uint32_t Width, std::string& Error);
};

} // namespace cajeta::kir
