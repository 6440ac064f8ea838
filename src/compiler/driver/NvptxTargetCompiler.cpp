// The NVPTX target over NvptxPayloadBuilder.
#include "compiler/driver/NvptxTargetCompiler.h"

#include "compiler/kir/transforms/TileLowering.h"
#include "compiler/kir/transforms/TmaBlockCopies.h"
#include "compiler/lowering/llvm/NvptxPayloadBuilder.h"

namespace cajeta::driver {

namespace {

lowering::NvptxBuildOptions nvptxOptions(const std::string& Sm, const TargetOptions& O) {
  lowering::NvptxBuildOptions N;
  N.Sm = Sm;
  N.CheckBounds = O.CheckBounds;
  N.ReadFootprint = O.GpuFootprint;
  N.WaveTier = O.WaveTier;
  N.TileTier = O.TileTier;
  N.Trace = O.Trace;
  return N;
}

} // namespace

std::string NvptxTargetCompiler::nativeTiles(const TargetOptions&) const {
  if (lowering::NvptxPayloadBuilder::hasWgmma(Sm))
    return std::string("wgmma.m64n64k16") +
           (lowering::NvptxPayloadBuilder::wgmmaAtoms() > 1 ? " or m64n128k16" : "") +
           " for b tiles read from 128-byte swizzled shared rows in groups of whole warpgroups "
           "(m64nNk32 for 8-bit b read K-major), mma.sync for the rest: float16 or bfloat16 into "
           "float32, int8 or uint8 into int32";
  return lowering::NvptxPayloadBuilder::hasMmaSync(Sm)
             ? "mma.sync: float16 or bfloat16 into float32, "
               "int8 or uint8 into int32"
             : std::string();
}

bool NvptxTargetCompiler::buildsFor(const kir::Module& M, kir::ImplTier TileTier) const {
  // sm_90a code runs on compute capability 9.0 alone, beside the sm_90 payload: only for
  // programs whose native tiles it changes, or whose block copies it gives a TMA entry.
  return !lowering::NvptxPayloadBuilder::hasWgmma(Sm) ||
         (TileTier == kir::ImplTier::Native &&
          kir::TileLowering::usesWgmma(M, lowering::NvptxPayloadBuilder::wgmmaAtoms())) ||
         kir::TmaBlockCopies::appliesTo(M);
}

bool NvptxTargetCompiler::knowsArch(const std::string& Sm, std::string& Why) {
  return lowering::NvptxPayloadBuilder::knowsArch(Sm, Why);
}

TargetOutput NvptxTargetCompiler::build(const kir::Module& M, const TargetOptions& O,
                                        Diagnostics& Diags) const {
  TargetOutput Out;
  lowering::NvptxBuildResult R = lowering::NvptxPayloadBuilder::build(M, nvptxOptions(Sm, O));
  if (!R.Ok) {
    reportFailure(Diags, Stage::Llvm, "NVPTX code generation for " + Sm + " failed: ", R.Error);
    return Out;
  }
  // The notes (approximate math without libdevice, ...) are the same for every architecture.
  for (const std::string& Note : R.Notes)
    Diags.reportOnce(Severity::Note, Stage::Llvm, Note);
  for (const std::string& Why : R.Dropped)
    Diags.report(Severity::Warning, Stage::Llvm, "no " + Sm + " code for " + Why);
  for (const auto& [Kernel, Manifest] : R.Manifests)
    Out.Manifests[Kernel][R.Payload.Target] = Manifest;
  Out.Payloads.push_back(std::move(R.Payload));
  Out.Ok = true;
  return Out;
}

bool NvptxTargetCompiler::emit(const kir::Module& M, const TargetOptions& O, bool /*Optimized*/,
                               std::string& Text, std::string& Error) const {
  return lowering::NvptxPayloadBuilder::emitPtx(M, nvptxOptions(Sm, O), Text, Error);
}

} // namespace cajeta::driver
