// The benchmark's workloads: each runs our kernel and its OpenMP peer on the same data, checks
// that the results agree, and adds its rows to the table.
#pragma once

#include "BenchConfig.h"
#include "ResultTable.h"

namespace cajeta::bench {

void runSaxpy(const BenchConfig& Config, ResultTable& Table);
void runStencil(const BenchConfig& Config, ResultTable& Table);
void runReduce(const BenchConfig& Config, ResultTable& Table);
void runMatmul(const BenchConfig& Config, ResultTable& Table);
void runHistogram(const BenchConfig& Config, ResultTable& Table);
/// Kernels made of wave operations (a block scan, butterfly sums, votes) beside OpenMP loops
/// that compute the same values; on the CPU a wave is one vector of the work-item loop.
void runWave(const BenchConfig& Config, ResultTable& Table);
/// C = A * B with Tile and Group.mac beside OpenBLAS's sgemm (float32) and oneDNN's matmul
/// (bfloat16); a row whose peer library is missing says so and is skipped.
void runTileGemm(const BenchConfig& Config, ResultTable& Table);
/// Primary rays through a heightfield beside Embree 3; without Embree it prints why and adds no
/// rows.
void runRayTrace(const BenchConfig& Config, ResultTable& Table);
/// The PolyBench/GPU kernels selected by --only (all by default), each beside its OpenMP peer
/// and checked against float64; prints the geometric mean of the ratios.
void runPolyBench(const BenchConfig& Config, ResultTable& Table);

/// Cold JIT compile of saxpy.cj (cache disabled) and a cache hit, in a private cache folder.
void runJitTiming(const BenchConfig& Config);

} // namespace cajeta::bench
