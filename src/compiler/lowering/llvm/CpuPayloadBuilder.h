// The public entry of the CPU backend for the driver: KIR -> optimised LLVM IR -> object ->
// shared object payload, plus the per-kernel target manifests.
#pragma once

#include "bundle/Manifest.h"
#include "compiler/kir/Kir.h"
#include "compiler/lowering/LoweringTarget.h"

#include <map>
#include <string>

namespace cajeta::kir {
struct PipelineTrace;
} // namespace cajeta::kir

namespace cajeta::lowering {

struct CpuBuildOptions {
  std::string Cpu = "native"; // "native" = the host CPU and its features; else an LLVM CPU name
  bool CheckBounds = false;   // --check-bounds
  /// The tile tier the driver chose: Native = AVX512-BF16 dot products (CpuTargetCompiler).
  ImplTier TileTier = ImplTier::Portable;
  /// The wave tier the driver chose: Native = waves as vectors of the work-item loop
  /// (kir::WaveSteps), Portable = shared-memory exchanges (CAJETA_GPU_WAVE_IMPL=software).
  ImplTier WaveTier = ImplTier::Native;
  /// `cajeta emit --print-after...`: passed to kir::runPipeline (not owned; may be null).
  const kir::PipelineTrace* Trace = nullptr;
};

struct CpuBuildResult {
  bool Ok = false;
  std::string Error;
  /// Target "cpu-x86_64", Format "elf-shared-object", Attributes {"triple", "cpu", "features"}
  /// (features: the enabled target features, "+avx2,+fma,...").
  bundle::Payload Payload;
  /// Key: kir Function::Name of each kernel available on the CPU (@Backend). Symbol =
  /// Function::Symbol, CodeHash = hash64 of the kernel's optimised IR text, StaticSharedBytes =
  /// the bytes of its fixed-size shared arrays.
  std::map<std::string, bundle::TargetManifest> Manifests;
};

class CpuPayloadBuilder {
public:
  static CpuBuildResult build(const kir::Module& M, const CpuBuildOptions& O);

  /// The module's LLVM IR (`cajeta emit --target=llvm`), before or after the O3 pipeline. On a
  /// failure the text is a single comment line "; error: <message>".
  static std::string emitLlvmIr(const kir::Module& M, const CpuBuildOptions& O, bool Optimized);

  /// As above, reporting a failure through Error instead. Returns false on failure.
  static bool emitLlvmIr(const kir::Module& M, const CpuBuildOptions& O, bool Optimized,
                         std::string& Ir, std::string& Error);
};

} // namespace cajeta::lowering
