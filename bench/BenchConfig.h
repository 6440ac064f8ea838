// The benchmark's command line: sizes, repetitions, threads, and which extras to run.
#pragma once

#include <cajeta/xpu/Program.hpp>

#include "PolyBenchSizes.h"

#include <cstdint>
#include <string>

namespace cajeta::bench {

struct BenchConfig {
  bool Smoke = false;         // tiny sizes, one timed run, checks only
  unsigned Warmup = 3;        // untimed runs before timing
  unsigned Reps = 15;         // timed runs per side; the median is reported
  unsigned Rounds = 3;        // the runs are split into this many ours-then-peer rounds
  unsigned Threads = 0;       // 0: the CPU device's compute units
  bool SweepBlocks = true;    // time the stencil with several block shapes
  std::string KernelDir = ""; // where the workloads' .cj kernels live
  std::string Only = "";      // comma-separated workloads to run; empty: all of them
  bool CheckBounds = false;   // compile our kernels with --check-bounds

  uint32_t SaxpyN = 1u << 24;
  uint32_t StencilW = 4096, StencilH = 4096;
  uint32_t StencilBlockX = 128, StencilBlockY = 8; // see docs/benchmarks.md
  uint32_t ReduceN = 1u << 24;
  uint32_t ReduceBlock = 256, ReduceGroups = 64; // partials G = block * groups
  uint32_t ReduceTile = 1024;                    // partials per work-item, tiled variant
  uint32_t MatmulN = 512;                        // n x n matrices, 16x16 tiles
  uint32_t TileGemmN = 1024;                     // n x n matrices, Tile and Group.mac
  uint32_t HistogramN = 1u << 24;                // uint8 inputs, 256 bins
  uint32_t HistogramBlock = 256, HistogramGroups = 64;
  uint32_t WaveN = 1u << 22; // values of the wave workload, in workgroups of WaveBlock
  uint32_t WaveBlock = 256;
  uint32_t RayGrid = 1000;                    // G x G heightfield cells, two triangles each
  uint32_t RayImageW = 1024, RayImageH = 768; // one primary ray per pixel
  unsigned RayBuildReps = 3;                  // builds timed per side (a build is not cheap)
  polybench::Sizes PolySizes;                 // see docs/benchmarks.md
};

/// N for a row's name: "2^k" for a power of two, else the number.
std::string sizeName(uint32_t N);

/// Compiles one of the workloads' kernel files (Config.KernelDir/File) as configured.
xpu::Program compileKernels(const BenchConfig& Config, const std::string& File);

/// Whether the workload Name (saxpy, stencil, reduce, matmul, tilegemm, histogram, jit, raytrace,
/// polybench) is selected by --only; polybench is when any of its kernels is.
bool runsWorkload(const BenchConfig& Config, const std::string& Name);
/// Whether --only selects PolyBench kernel Case: by "polybench", "polybench:<case>" or "<case>".
bool runsPolyBenchCase(const BenchConfig& Config, const std::string& Case);

/// Parses argv; on a bad or --help argument prints usage and sets ExitCode (0 for --help).
bool parseBenchConfig(int Argc, char** Argv, BenchConfig& Config, int& ExitCode);

} // namespace cajeta::bench
