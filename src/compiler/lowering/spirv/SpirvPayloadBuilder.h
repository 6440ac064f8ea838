// SPIR-V payloads for a program: one SPIR-V module per Vulkan kernel, as bundle payloads with the
// attributes and manifests that bundle/VulkanKernelAbi.h describes.
#pragma once

#include "bundle/Manifest.h"
#include "compiler/kir/Kir.h"
#include "compiler/kir/transforms/Pipeline.h"
#include "compiler/lowering/spirv/SpirvEmitter.h"

#include <map>
#include <string>
#include <vector>

namespace cajeta::lowering::spirv {

struct SpirvBuildResult {
  std::vector<bundle::Payload> Payloads; // "spirv:<kernel>" (and "spirv-quads:<kernel>")
  std::map<std::string, bundle::TargetManifest> Manifests; // kernel name -> manifest "spirv"
  /// Tile kernels with cooperative matrices too ("spirv-coopmat:<kernel>" payloads): their
  /// manifests for the target "spirv-coopmat".
  std::map<std::string, bundle::TargetManifest> CoopMatrixManifests;
  std::vector<std::string> Errors; // one per kernel that has no SPIR-V (names the kernel)
  std::vector<std::string> Notes;  // at most one: "[vulkan-precision] ..." (Math.fma, exp, ...)
};

class SpirvPayloadBuilder {
public:
  /// The TargetManifest key of every SPIR-V kernel.
  static constexpr const char* ManifestTarget = "spirv";
  static std::string payloadTarget(const std::string& Kernel) { return "spirv:" + Kernel; }
  /// The cooperative-matrix variant of a tile kernel: its manifest target and payload. The
  /// runtime loads it instead of the "spirv" one on a device that lists every shape in the
  /// payload's "cooperative_matrix" attribute.
  static constexpr const char* CoopMatrixManifestTarget = "spirv-coopmat";
  static std::string coopMatrixPayloadTarget(const std::string& Kernel) {
    return "spirv-coopmat:" + Kernel;
  }

  /// An element-wise kernel's quad entry (kir::WorkItemQuads, its loads and stores in whole
  /// 16-byte chunks): its payload; its entry is the "spirv" manifest's QuadSymbol.
  static std::string quadsPayloadTarget(const std::string& Kernel) {
    return "spirv-quads:" + Kernel;
  }

  /// The KIR pipeline the SPIR-V emitter relies on (kir::runPipeline).
  static kir::PipelineConfig pipelineConfig(const SpirvEmitOptions& Options);

  /// Kernel K of M (Sema's module) through the pipeline and the emitter.
  static SpirvKernel emitKernel(const kir::Module& M, const kir::Function& K,
                                const SpirvEmitOptions& Options);

  /// Emits every kernel of M available on "vulkan".
  static SpirvBuildResult build(const kir::Module& M, const SpirvEmitOptions& Options);

  /// `cajeta emit --target=spirv`: the disassembly of every Vulkan kernel's module (each under a
  /// "; kernel <name>" line) when SPIRV-Tools is linked; without it, the binary module of the
  /// program's only Vulkan kernel (an error when there are several). False with Error set when
  /// a kernel cannot be emitted.
  static bool emitText(const kir::Module& M, const SpirvEmitOptions& Options, std::string& Out,
                       std::string& Error);

private:
  /// F's quad entry (unchecked builds): its payload into R, its entry into TM.
  static void addQuads(const kir::Module& M, const kir::Function& F,
                       const SpirvEmitOptions& Options, bundle::TargetManifest& TM,
                       SpirvBuildResult& R);
  /// One form of the program's Vulkan kernels into R: every kernel (the portable tiles), or with
  /// Options.CoopMatrixTiles the tile kernels with cooperative matrices. False when the pipeline
  /// fails for the whole module (R.Errors says why).
  static bool buildVariant(const kir::Module& M, const SpirvEmitOptions& Options,
                           SpirvBuildResult& R, std::vector<std::string>* Imprecise, bool& Fma,
                           bool& Transcendental);
};

} // namespace cajeta::lowering::spirv
