// Command-line options of cajeta_gpu_bench: sizes, repetitions, bundle folder, workloads.
#pragma once

#include "PolyBenchSizes.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::gpubench {

struct GpuBenchOptions {
  std::string BundleDir;
  uint32_t StreamN = 1u << 28; // saxpy, triad, copy: float32 elements per array
  uint32_t ReduceN = 1u << 28;
  uint32_t MatN = 4096;                               // square matrices
  std::vector<uint32_t> TileGemmSizes = {4096, 8192}; // tilegemm: square float16 GEMMs
  // tilegemm: dynamic shared bytes per CUDA launch (0: what bench/gpu/kernels/tilegemm.cj's
  // kernels need), for trying another build of the bundle whose kernels stage more.
  uint32_t TileGemmSharedBytes = 0;
  uint32_t RayImage = 4096;      // raytrace: a RayImage^2 camera
  uint32_t RayGrid = 1000;       // raytrace: a RayGrid^2 heightfield, 2 RayGrid^2 triangles
  uint32_t RayLeafSize = 0;      // raytrace: the host build's leaf size (0: the builder's)
  int Reps = 20;                 // timed batches per side (the median is reported)
  int Warmup = 3;                // untimed batches per side first
  int Batch = 10;                // launches per timed batch (matmul: 2)
  int Launches = 10000;          // empty launches per launch-cost sample
  bool Smoke = false;            // tiny sizes, 3 reps: checks that everything runs and agrees
  bool Cupti = true;             // our kernels' GPU time from CUPTI where libcupti loads
  bool Vulkan = true;            // also run our kernels on the Vulkan backend (--no-vulkan: not)
  int VulkanDevice = -1;         // index in xpu::devices() (-1: the one that is the cuda GPU)
  std::vector<std::string> Only; // empty: every workload
  // PolyBench/GPU: PolyBench's standard sizes where the float64 check on the host stays cheap.
  polybench::Sizes PolySizes{1024, 4096, 4096, 256, 2048, 50};

  bool wants(const std::string& Workload) const;
  /// Whether --only selects PolyBench kernel Case ("polybench" or "polybench:<case>").
  bool wantsPolyBench(const std::string& Case) const;
  /// Fills O from argv; on a bad argument returns false with Error set (Error "" for --help).
  static bool parse(int Argc, char** Argv, GpuBenchOptions& O, std::string& Error);
  static const char* usage();
};

} // namespace cajeta::gpubench
