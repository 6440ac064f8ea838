// The SPIR-V target over SpirvPayloadBuilder.
#include "compiler/driver/SpirvTargetCompiler.h"

#include "compiler/kir/transforms/TileLowering.h"
#include "compiler/lowering/spirv/SpirvPayloadBuilder.h"

#include <cstdlib>
#include <string>

namespace cajeta::driver {

namespace {

lowering::spirv::SpirvEmitOptions spirvOptions(const TargetOptions& O) {
  lowering::spirv::SpirvEmitOptions S;
  S.CheckBounds = O.CheckBounds;
  S.PortableWaveOps = O.WaveTier == kir::ImplTier::Portable;
  S.NativeRayQuery = O.NativeRayQuery;
  S.CoopMatrixTiles = O.TileTier == kir::ImplTier::Native;
  // CAJETA_GPU_VULKAN_SHARED_POOL: 0 never, all in every variant, else (default) in the
  // cooperative-matrix variant.
  const char* Pool = std::getenv("CAJETA_GPU_VULKAN_SHARED_POOL");
  const std::string PoolValue = Pool ? Pool : "";
  S.SharedPool = PoolValue != "0";
  S.SharedPoolEverywhere = PoolValue == "all";
  S.Trace = O.Trace;
  return S;
}

} // namespace

bool SpirvTargetCompiler::nativeTilesFit(const kir::Module& M, const TargetOptions&,
                                         std::string& Why) const {
  return kir::TileLowering::fitsCoopMatrix(M, Why);
}

TargetOutput SpirvTargetCompiler::build(const kir::Module& M, const TargetOptions& O,
                                        Diagnostics& Diags) const {
  TargetOutput Out;
  // Float atomic adds are compare-exchange loops (any device).
  lowering::spirv::SpirvBuildResult R =
      lowering::spirv::SpirvPayloadBuilder::build(M, spirvOptions(O));
  for (const std::string& E : R.Errors)
    Diags.report(Severity::Warning, Stage::Spirv, "no Vulkan code for " + E);
  for (const std::string& Note : R.Notes)
    Diags.report(Severity::Note, Stage::Spirv, Note);
  for (const auto& [Kernel, Manifest] : R.Manifests)
    Out.Manifests[Kernel][lowering::spirv::SpirvPayloadBuilder::ManifestTarget] = Manifest;
  for (const auto& [Kernel, Manifest] : R.CoopMatrixManifests)
    Out.Manifests[Kernel][lowering::spirv::SpirvPayloadBuilder::CoopMatrixManifestTarget] =
        Manifest;
  Out.Payloads = std::move(R.Payloads);
  Out.Ok = true;
  return Out;
}

bool SpirvTargetCompiler::emit(const kir::Module& M, const TargetOptions& O, bool /*Optimized*/,
                               std::string& Text, std::string& Error) const {
  return lowering::spirv::SpirvPayloadBuilder::emitText(M, spirvOptions(O), Text, Error);
}

} // namespace cajeta::driver
