// cajeta_bench: our CPU backend beside g++ -O3 -march=native OpenMP peers, same data, same
// threads; prints the JIT times and the table (ratio = peer time / our time, > 1: we are faster).
#include "BenchConfig.h"
#include "Workloads.h"

#include <cajeta/xpu.hpp>

#include <cstdio>
#include <exception>
#include <omp.h>

namespace xpu = cajeta::xpu;
using namespace cajeta::bench;

int main(int Argc, char** Argv) {
  BenchConfig Config;
  int ExitCode = 0;
  if (!parseBenchConfig(Argc, Argv, Config, ExitCode))
    return ExitCode;
  try {
    xpu::Device Device = xpu::KernelStream::current().device();
    unsigned Units = Device.computeUnits();
    unsigned Threads = Config.Threads ? Config.Threads : Units;
    omp_set_num_threads(int(Threads));
    std::printf("device: %s (%s backend, %u threads in its pool); OpenMP peers: %u threads\n",
                Device.name().c_str(), Device.backend().c_str(), Units, Threads);
    if (Threads != Units)
      std::printf("warning: --threads %u differs from the runtime's %u: not a like-for-like run\n",
                  Threads, Units);
    std::printf("timing: %u warm-up runs, median of %u (ours: launch + sync)\n\n", Config.Warmup,
                Config.Reps);

    if (runsWorkload(Config, "jit")) {
      runJitTiming(Config);
      std::printf("\n");
    }
    ResultTable Table;
    const struct {
      const char* Name;
      void (*Run)(const BenchConfig&, ResultTable&);
    } Workloads[] = {{"saxpy", runSaxpy},   {"stencil", runStencil},   {"reduce", runReduce},
                     {"matmul", runMatmul}, {"tilegemm", runTileGemm}, {"histogram", runHistogram},
                     {"wave", runWave},     {"raytrace", runRayTrace}, {"polybench", runPolyBench}};
    for (const auto& W : Workloads)
      if (runsWorkload(Config, W.Name))
        W.Run(Config, Table);
    std::printf("\n");
    Table.print(!Config.Smoke);
    if (!Table.allVerified()) {
      std::fprintf(stderr,
                   "cajeta_bench: FAILED: some results are wrong (their check: the table)\n");
      return 1;
    }
    return 0;
  } catch (const std::exception& E) {
    std::fprintf(stderr, "cajeta_bench: %s\n", E.what());
    return 1;
  }
}
