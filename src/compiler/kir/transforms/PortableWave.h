// The portable tier of wave operations: a KIR -> KIR rewrite of every wave op of a kernel into
// workgroup-shared memory, barriers and loops, so a backend with no wave instructions (the CPU)
// or a GPU backend told CAJETA_GPU_WAVE_IMPL=software runs the same kernel with the same results.
#pragma once

#include "compiler/kir/Kir.h"
#include "compiler/kir/transforms/WaveExpand.h"

#include <memory>
#include <string>

namespace cajeta::kir {

class PortableWave {
public:
  /// The most work-items per workgroup a portable-tier kernel supports (the size of its scratch
  /// arrays); the runtime rejects larger launches of kernels that use wave ops.
  static constexpr uint32_t MaxGroupSize = 1024;

  /// The primitives this tier implements over shared memory (WaveExpand builds the rest from
  /// them): ShuffleWord, ballot, votes, and every integer reduction and scan in one exchange.
  static WavePrimitives primitives();

  /// A copy of kernel K of M in which helpers that use wave ops are inlined, the composites are
  /// expanded (WaveExpand over primitives()) and every wave op but Wave.width() is replaced by
  /// statements over per-kernel shared scratch arrays (added to SharedArrays) and barriers
  /// (HasBarrier is set). Lanes are linear work-item indices modulo Wave.width(); the float
  /// reduction and scan orders are those Kir.h defines, so results equal the native tier's bit
  /// for bit. New nodes live in Scratch. Null with Error set when the kernel cannot be
  /// rewritten.
  static std::unique_ptr<kir::Function> expand(const kir::Module& M, const kir::Function& K,
                                               kir::Module& Scratch, std::string& Error);
};

} // namespace cajeta::kir
