// The CPU target: a shared object for the host (CpuPayloadBuilder); a wave is one vector of the
// work-item loop (kir::WaveSteps), the portable tier under the override.
#pragma once

#include "compiler/driver/TargetCompiler.h"

namespace cajeta::driver {

class CpuTargetCompiler : public TargetCompiler {
public:
  std::string name() const override { return "cpu"; }
  const char* emitName() const override { return "llvm"; }
  const char* backend() const override { return "cpu"; }
  kir::ImplTier bestWaveTier() const override { return kir::ImplTier::Native; }
  const char* nativeWaveOps() const override {
    return "SIMD lanes: each wave one vector of the work-item loop (permutes, vector reductions)";
  }
  /// AVX512-BF16 dot products where the target CPU has them.
  std::string nativeTiles(const TargetOptions& O) const override;
  bool nativeTilesFit(const kir::Module& M, const TargetOptions& O,
                      std::string& Why) const override;
  std::string portableTiles() const override {
    return "the software tile: shared memory, each wave's tile ops run as vector rows by its "
           "first lane";
  }
  TargetOutput build(const kir::Module& M, const TargetOptions& O,
                     Diagnostics& Diags) const override;
  bool emit(const kir::Module& M, const TargetOptions& O, bool Optimized, std::string& Text,
            std::string& Error) const override;
};

} // namespace cajeta::driver
