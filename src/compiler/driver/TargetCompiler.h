// One code-generation target of the driver behind one interface (as Halide's CodeGen_GPU_Dev and
// Taichi's KernelCompiler): the CPU, NVPTX for one architecture, SPIR-V. Compiler::compile builds
// a bundle by looping over TargetCompiler::forBundle(), and `cajeta emit` finds its --target in
// the same set, so a new back end is one more TargetCompiler, not another hand-wired block.
#pragma once

#include "bundle/Manifest.h"
#include "compiler/Diagnostics.h"
#include "compiler/kir/Kir.h"
#include "compiler/kir/transforms/TierSelection.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cajeta::kir {
struct PipelineTrace;
} // namespace cajeta::kir

namespace cajeta::driver {

struct TargetOptions {
  bool CheckBounds = false;
  std::string Cpu = "native"; // the CPU target: "native" or an LLVM CPU name
  /// NVPTX: read registers, spills and shared bytes with `ptxas -v` when ptxas exists.
  bool GpuFootprint = false;
  /// The wave tier the driver chose for the target's backend (TierSelection). The CPU has only
  /// the portable one.
  kir::ImplTier WaveTier = kir::ImplTier::Native;
  /// The tile (cooperative-matrix) tier the driver chose for this target.
  kir::ImplTier TileTier = kir::ImplTier::Portable;
  const kir::PipelineTrace* Trace = nullptr; // passed to kir::runPipeline (may be null)
  /// SPIR-V: ray queries as SPV_KHR_ray_query instead of the software walk (emit only).
  bool NativeRayQuery = false;
};

struct TargetOutput {
  bool Ok = false; // false: the whole build fails (the target reported an error)
  std::vector<bundle::Payload> Payloads;
  /// Kernel name -> (manifest target key, e.g. "cpu-x86_64", "nvptx-sm_90", "spirv") -> manifest.
  std::map<std::string, std::map<std::string, bundle::TargetManifest>> Manifests;
};

class TargetCompiler {
public:
  virtual ~TargetCompiler();

  /// "cpu", "nvptx-sm_90", "spirv".
  virtual std::string name() const = 0;
  /// The `cajeta emit --target` value that prints this target's code: "llvm", "ptx", "spirv".
  virtual const char* emitName() const = 0;
  /// The @Backend name of the runtime backend the target serves: "cpu", "cuda", "vulkan".
  virtual const char* backend() const = 0;
  /// The best wave tier the target has and, for a native one, what realises it (for the
  /// [wave-tiering] note).
  virtual kir::ImplTier bestWaveTier() const = 0;
  virtual const char* nativeWaveOps() const = 0;
  /// The native tile (cooperative-matrix) instructions of the target, for the [mma-tiering]
  /// note; empty where it has none (the portable software tile).
  virtual std::string nativeTiles(const TargetOptions& O) const { return {}; }
  /// Whether this target makes a payload for M with tiles in TileTier (an architecture-specific
  /// target only where it changes the code).
  virtual bool buildsFor(const kir::Module& M, kir::ImplTier TileTier) const { return true; }
  /// How the portable software tile runs on the target, for the [mma-tiering] note.
  virtual std::string portableTiles() const {
    return "the software tile: shared memory and barriers";
  }
  /// Whether every tile of M has a form in the native tier (kir::TileLowering::fitsMmaSync by
  /// default); Why names the tile that has none.
  virtual bool nativeTilesFit(const kir::Module& M, const TargetOptions& O, std::string& Why) const;
  /// The tile tier of M's tiles on this target: native where the target has native tiles and
  /// every tile of M has a form there (nativeTilesFit), else the software tile;
  /// Override (CAJETA_GPU_COOPMATRIX_IMPL) may ask for either. The note names the target and,
  /// for a demotion, the tile that caused it.
  kir::TierChoice chooseTileTier(const kir::Module& M, std::optional<kir::ImplTier> Override,
                                 const TargetOptions& O) const;

  /// Payloads and manifests for the kernels of M (Sema's module) available on backend(). Errors,
  /// warnings and notes go to Diags.
  virtual TargetOutput build(const kir::Module& M, const TargetOptions& O,
                             Diagnostics& Diags) const = 0;
  /// `cajeta emit`: the target's code as text (LLVM IR, optimised or not; PTX; SPIR-V
  /// disassembly). False with Error set on failure.
  virtual bool emit(const kir::Module& M, const TargetOptions& O, bool Optimized, std::string& Text,
                    std::string& Error) const = 0;

  static std::unique_ptr<TargetCompiler> cpu();
  static std::unique_ptr<TargetCompiler> nvptx(const std::string& Sm);
  static std::unique_ptr<TargetCompiler> spirv();

  /// The targets of a bundle, in payload order: the CPU; NVPTX for the built-in architectures
  /// and for each of ExtraSms that LLVM can generate PTX for (one it cannot adds a line to
  /// Skipped); SPIR-V.
  static std::vector<std::unique_ptr<TargetCompiler>>
  forBundle(const std::vector<std::string>& ExtraSms, std::vector<std::string>& Skipped);

  /// Reports a payload builder's Error, prefixed by What: as an internal error of Raiser when
  /// the builder calls it one ("internal error: ..." — invalid IR from a lowering, a kernel lost
  /// by the optimiser), else as an error. (The driver reports the host payload's the same way.)
  static void reportFailure(Diagnostics& Diags, Stage Raiser, const std::string& What,
                            const std::string& Error);
};

} // namespace cajeta::driver
