// The NVPTX target for one GPU architecture: PTX for the CUDA backend (NvptxPayloadBuilder).
#pragma once

#include "compiler/driver/TargetCompiler.h"

namespace cajeta::driver {

class NvptxTargetCompiler : public TargetCompiler {
public:
  explicit NvptxTargetCompiler(std::string Sm) : Sm(std::move(Sm)) {}

  /// Whether LLVM can generate PTX for Sm ("sm_86"); if not, Why says so.
  static bool knowsArch(const std::string& Sm, std::string& Why);

  std::string name() const override { return "nvptx-" + Sm; }
  const char* emitName() const override { return "ptx"; }
  const char* backend() const override { return "cuda"; }
  kir::ImplTier bestWaveTier() const override { return kir::ImplTier::Native; }
  const char* nativeWaveOps() const override {
    return "shfl.sync, vote.sync, redux.sync on sm_80+";
  }
  std::string nativeTiles(const TargetOptions& O) const override;
  bool buildsFor(const kir::Module& M, kir::ImplTier TileTier) const override;
  TargetOutput build(const kir::Module& M, const TargetOptions& O,
                     Diagnostics& Diags) const override;
  bool emit(const kir::Module& M, const TargetOptions& O, bool Optimized, std::string& Text,
            std::string& Error) const override;

private:
  std::string Sm;
};

} // namespace cajeta::driver
