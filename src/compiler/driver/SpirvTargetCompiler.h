// The SPIR-V target: one Vulkan compute module per kernel (SpirvPayloadBuilder).
#pragma once

#include "compiler/driver/TargetCompiler.h"

namespace cajeta::driver {

class SpirvTargetCompiler : public TargetCompiler {
public:
  std::string name() const override { return "spirv"; }
  const char* emitName() const override { return "spirv"; }
  const char* backend() const override { return "vulkan"; }
  kir::ImplTier bestWaveTier() const override { return kir::ImplTier::Native; }
  const char* nativeWaveOps() const override { return "GroupNonUniform operations"; }
  std::string nativeTiles(const TargetOptions&) const override {
    return "VK_KHR_cooperative_matrix fragments, on the devices that list every shape the "
           "program multiplies; the software tile on the others";
  }
  bool nativeTilesFit(const kir::Module& M, const TargetOptions& O,
                      std::string& Why) const override;
  /// A kernel the emitter cannot express gets a warning and no payload; the build goes on.
  TargetOutput build(const kir::Module& M, const TargetOptions& O,
                     Diagnostics& Diags) const override;
  bool emit(const kir::Module& M, const TargetOptions& O, bool Optimized, std::string& Text,
            std::string& Error) const override;
};

} // namespace cajeta::driver
