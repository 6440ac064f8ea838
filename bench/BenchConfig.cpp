// Command-line parsing for cajeta_bench.
#include "BenchConfig.h"

#include "PolyBenchSuite.h"

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace cajeta::bench {
namespace {

void printUsage(const char* Argv0) {
  std::printf(
      "usage: %s [--smoke] [--reps N] [--warmup N] [--rounds N] [--threads N]\n"
      "          [--no-sweep] [--check-bounds] [--stencil-block XxY] [--kernels DIR]\n"
      "          [--only LIST]\n"
      "          [--ray-grid G] [--ray-image WxH]\n"
      "  --smoke          tiny sizes, one run each, verify results only (for ctest)\n"
      "  --reps N         timed runs per measurement, median reported (default 15)\n"
      "  --rounds N       split the runs into N rounds of ours-then-peer (default 3)\n"
      "  --warmup N       untimed runs at the start of each block (default 3)\n"
      "  --threads N      threads for the OpenMP peers (default: the CPU device's\n"
      "                   compute units, which is what the runtime's pool uses)\n"
      "  --no-sweep       skip the stencil block-shape sweep\n"
      "  --check-bounds   compile our kernels with bounds checks (the peers have none)\n"
      "  --stencil-block  block shape of the stencil's main row (default 128x8)\n"
      "  --kernels DIR    folder with the .cj kernels (default: the source tree's)\n"
      "  --only LIST      run only these workloads, comma-separated: saxpy, stencil,\n"
      "                   reduce, matmul, tilegemm, histogram, wave, jit, raytrace, polybench\n"
      "                   (default: all); polybench:gemm,atax runs only those of its\n"
      "                   kernels (2mm 3mm atax bicg corr covar gemm gesummv gramschm\n"
      "                   mvt syr2k syrk 2dconv 3dconv fdtd2d jacobi2d)\n"
      "  --ray-grid G     raytrace: G x G heightfield, 2 G^2 triangles (default 1000)\n"
      "  --ray-image WxH  raytrace: image size, one ray per pixel (default 1024x768)\n",
      Argv0);
}

bool parseUnsigned(const char* Text, unsigned& Out) {
  char* End = nullptr;
  unsigned long V = std::strtoul(Text, &End, 10);
  if (!*Text || *End || V == 0 || V > 1000000)
    return false;
  Out = unsigned(V);
  return true;
}

bool isPolyBenchCase(const std::string& Name) {
  for (const std::string& Case : polybench::caseNames())
    if (Name == Case)
      return true;
  return false;
}

} // namespace

bool runsWorkload(const BenchConfig& Config, const std::string& Name) {
  if (Config.Only.empty())
    return true;
  std::string List = "," + Config.Only + ",";
  if (List.find("," + Name + ",") != std::string::npos)
    return true;
  if (Name != "polybench")
    return false;
  for (const std::string& Case : polybench::caseNames())
    if (runsPolyBenchCase(Config, Case))
      return true;
  return false;
}

bool runsPolyBenchCase(const BenchConfig& Config, const std::string& Case) {
  if (Config.Only.empty())
    return true;
  std::string List = "," + Config.Only + ",";
  return List.find(",polybench,") != std::string::npos ||
         List.find(",polybench:" + Case + ",") != std::string::npos ||
         List.find("," + Case + ",") != std::string::npos;
}

bool parseBenchConfig(int Argc, char** Argv, BenchConfig& Config, int& ExitCode) {
  Config.KernelDir = CAJETA_BENCH_KERNEL_DIR;
  ExitCode = 2;
  for (int I = 1; I < Argc; ++I) {
    std::string Arg = Argv[I];
    const char* Value = I + 1 < Argc ? Argv[I + 1] : nullptr;
    auto needValue = [&](unsigned& Out) {
      if (!Value || !parseUnsigned(Value, Out)) {
        std::fprintf(stderr, "cajeta_bench: %s needs a positive number\n", Arg.c_str());
        return false;
      }
      ++I;
      return true;
    };
    if (Arg == "--help" || Arg == "-h") {
      printUsage(Argv[0]);
      ExitCode = 0;
      return false;
    }
    if (Arg == "--smoke") {
      Config.Smoke = true;
    } else if (Arg == "--no-sweep") {
      Config.SweepBlocks = false;
    } else if (Arg == "--check-bounds") {
      Config.CheckBounds = true;
    } else if (Arg == "--reps") {
      if (!needValue(Config.Reps))
        return false;
    } else if (Arg == "--rounds") {
      if (!needValue(Config.Rounds))
        return false;
    } else if (Arg == "--warmup") {
      if (!needValue(Config.Warmup))
        return false;
    } else if (Arg == "--threads") {
      if (!needValue(Config.Threads))
        return false;
    } else if (Arg == "--kernels" && Value) {
      Config.KernelDir = Value;
      ++I;
    } else if (Arg == "--only" && Value) {
      Config.Only = Value;
      std::string Rest = Config.Only + ",";
      for (size_t At = 0, Comma; (Comma = Rest.find(',', At)) != std::string::npos;
           At = Comma + 1) {
        std::string Name = Rest.substr(At, Comma - At);
        // "polybench:gemm,atax": the prefix on the first kernel, the rest bare.
        std::string Case = Name.rfind("polybench:", 0) == 0 ? Name.substr(10) : Name;
        if (Name != "saxpy" && Name != "stencil" && Name != "reduce" && Name != "matmul" &&
            Name != "tilegemm" && Name != "histogram" && Name != "wave" && Name != "jit" &&
            Name != "raytrace" && Name != "polybench" && !isPolyBenchCase(Case)) {
          std::fprintf(stderr, "cajeta_bench: --only: unknown workload '%s'\n", Name.c_str());
          return false;
        }
      }
      ++I;
    } else if (Arg == "--ray-grid") {
      unsigned G = 0;
      if (!needValue(G))
        return false;
      if (G > 20000) {
        std::fprintf(stderr, "cajeta_bench: --ray-grid wants G <= 20000, got %u\n", G);
        return false;
      }
      Config.RayGrid = G;
    } else if (Arg == "--ray-image" && Value) {
      unsigned X = 0, Y = 0;
      char Tail = 0;
      if (std::sscanf(Value, "%ux%u%c", &X, &Y, &Tail) != 2 || !X || !Y || X > 16384 || Y > 16384) {
        std::fprintf(stderr, "cajeta_bench: --ray-image wants WxH up to 16384x16384, got '%s'\n",
                     Value);
        return false;
      }
      Config.RayImageW = X;
      Config.RayImageH = Y;
      ++I;
    } else if (Arg == "--stencil-block" && Value) {
      unsigned X = 0, Y = 0;
      char Tail = 0;
      if (std::sscanf(Value, "%ux%u%c", &X, &Y, &Tail) != 2 || !X || !Y || X * Y > 1024) {
        std::fprintf(stderr, "cajeta_bench: --stencil-block wants XxY with X*Y <= 1024, got '%s'\n",
                     Value);
        return false;
      }
      Config.StencilBlockX = X;
      Config.StencilBlockY = Y;
      ++I;
    } else {
      std::fprintf(stderr, "cajeta_bench: unknown or incomplete argument '%s'\n", Arg.c_str());
      printUsage(Argv[0]);
      return false;
    }
  }
  if (Config.Smoke) {
    // Odd sizes so that partial workgroups and the vector loops' tails are exercised.
    Config.Warmup = 0;
    Config.Reps = 1;
    Config.Rounds = 1;
    Config.SaxpyN = 4099;
    Config.StencilW = 67;
    Config.StencilH = 35;
    Config.ReduceN = 10007;
    Config.ReduceGroups = 3;
    Config.ReduceTile = 100;
    Config.MatmulN = 67;
    Config.TileGemmN = 67;
    Config.HistogramN = 10007;
    Config.HistogramGroups = 3;
    Config.WaveN = 3 * 256;
    Config.RayGrid = 23;
    Config.RayImageW = 37;
    Config.RayImageH = 29;
    Config.RayBuildReps = 1;
    Config.PolySizes = polybench::Sizes{37, 67, 67, 13, 35, 3};
  }
  return true;
}

std::string sizeName(uint32_t N) {
  if (N && (N & (N - 1)) == 0)
    return "2^" + std::to_string(std::countr_zero(N));
  return std::to_string(N);
}

xpu::Program compileKernels(const BenchConfig& Config, const std::string& File) {
  xpu::CompileOptions Options;
  Options.checkBounds = Config.CheckBounds;
  return xpu::Program::compileFile(Config.KernelDir + "/" + File, Options);
}

} // namespace cajeta::bench
