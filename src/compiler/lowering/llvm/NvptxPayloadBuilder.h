// The public entry of the NVIDIA backend for the driver: KIR -> optimised LLVM IR (NVPTX) -> PTX
// payload, plus the per-kernel target manifests.
#pragma once

#include "bundle/Manifest.h"
#include "compiler/kir/Kir.h"
#include "compiler/lowering/LoweringTarget.h"

#include <map>
#include <string>
#include <vector>

namespace cajeta::kir {
struct PipelineTrace;
} // namespace cajeta::kir

namespace cajeta::lowering {

struct NvptxBuildOptions {
  std::string Sm = "sm_90"; // the GPU architecture the PTX targets ("sm_70", "sm_90", ...)
  bool CheckBounds = false; // --check-bounds: reports through the CajetaGpuStatus record
  /// Run `ptxas -v` (when ptxas exists) for the manifests' registers, spills and shared bytes.
  /// Costs a subprocess per build: meant for AOT builds, not JIT.
  bool ReadFootprint = false;
  /// libdevice to link; "auto" = NvptxLibdevice::findPath(), "" = none (approximate math).
  std::string Libdevice = "auto";
  /// The wave-op tier (CAJETA_GPU_WAVE_IMPL): Native = shfl/vote/redux.sync; Portable = the
  /// KIR rewrite over shared memory (PortableWave) before the walk.
  ImplTier WaveTier = ImplTier::Native;
  ImplTier TileTier = ImplTier::Portable; // Native: mma.sync fragments (sm_80+)
  /// `cajeta emit --print-after...`: passed to kir::runPipeline (not owned; may be null).
  const kir::PipelineTrace* Trace = nullptr;
};

struct NvptxBuildResult {
  bool Ok = false;
  std::string Error;
  /// Target "nvptx-sm_90", Format "ptx", Attributes {"sm": "90", "ptx_version": "7.8",
  /// "gpu_abi": "1", "math": "libdevice" | "approximate"}; Bytes = the PTX text.
  bundle::Payload Payload;
  /// Key: kir Function::Name of each kernel available on "cuda". Symbol = its `.entry` name,
  /// CodeHash = hash64 of its optimised IR, Registers/SpillBytes/StaticSharedBytes from
  /// `ptxas -v` when read, else StaticSharedBytes from the IR and the others 0.
  std::map<std::string, bundle::TargetManifest> Manifests;
  std::vector<std::string> Notes; // compiler notes (e.g. approximate math without libdevice)
  /// Kernels left out of this architecture's PTX, and why (kir::runPipeline's Dropped): the
  /// bundle has no code for them there, and a device that needs it refuses to load them.
  std::vector<std::string> Dropped;
};

class NvptxPayloadBuilder {
public:
  static NvptxBuildResult build(const kir::Module& M, const NvptxBuildOptions& O);

  /// Whether Sm ("sm_86") is an architecture LLVM's NVPTX back end can generate PTX for; if not,
  /// Why says so.
  /// Whether Sm ("sm_90") has mma.sync.m16n8k16 with float16 inputs (sm_80 and later).
  static bool hasMmaSync(const std::string& Sm);
  /// Whether Sm is an architecture-specific target with wgmma (sm_90a).
  static bool hasWgmma(const std::string& Sm);
  /// The widest b tile the wgmma tier takes, in 128-byte atoms: 4 (n = 256); 2 (n = 128) with
  /// CAJETA_GPU_WGMMA_WIDE=2, 1 (n = 64) with CAJETA_GPU_WGMMA_WIDE=0 (for comparing the forms;
  /// wider tiles then take mma.sync).
  static unsigned wgmmaAtoms();
  /// Whether the wgmma tier keeps a K-loop turn's products in flight into the next turn
  /// (TileLoweringConfig::WgmmaAcrossSteps): yes, unless CAJETA_GPU_WGMMA_CARRY=0 (to compare
  /// the forms: every turn then waits for its products before it ends).
  static bool wgmmaAcrossSteps();
  /// Whether accumulator tiles are stored a pair of columns at a time
  /// (TileLoweringConfig::PairStores): yes, unless CAJETA_GPU_TILE_PAIR_STORES=0 (to compare:
  /// an element at a time).
  static bool tilePairStores();
  /// Whether runs of AsyncCopy are issued in line under predicates, their other copies left to
  /// later in the block (LoweringTarget::emitAsyncCopiesInLine): only with
  /// CAJETA_GPU_ASYNC_COPY_INLINE=1, until the CUDA conformance suite has run with it (it ran
  /// the H100's mma.sync GEMMs 2-5 % faster than one branch for the run; docs/benchmarks.md).
  static bool asyncCopiesInLine();
  static bool knowsArch(const std::string& Sm, std::string& Why);

  /// The module's PTX (`cajeta emit --target=ptx`). Returns false with Error on failure.
  static bool emitPtx(const kir::Module& M, const NvptxBuildOptions& O, std::string& Ptx,
                      std::string& Error);

  /// The module's NVPTX LLVM IR, before or after the O3 pipeline (for tests and debugging).
  static bool emitLlvmIr(const kir::Module& M, const NvptxBuildOptions& O, bool Optimized,
                         std::string& Ir, std::string& Error);
};

} // namespace cajeta::lowering
