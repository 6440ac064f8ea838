// Parses cajeta_gpu_bench's command line.
#include "GpuBenchOptions.h"

#include "PolyBenchSuite.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

namespace cajeta::gpubench {

namespace {

const char* const Workloads[] = {"saxpy",    "triad",  "reduce",     "wavesum",  "matmul",
                                 "tilegemm", "launch", "chain",      "raytrace", "polybench",
                                 "latency",  "corun",  "throughput", "streams",  "energy"};

bool parseUnsigned(const std::string& Text, uint64_t Max, uint64_t& Out) {
  if (Text.empty() || Text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  errno = 0;
  unsigned long long V = std::strtoull(Text.c_str(), nullptr, 10);
  if (errno || V == 0 || V > Max)
    return false;
  Out = V;
  return true;
}

} // namespace

bool GpuBenchOptions::wants(const std::string& Workload) const {
  return Only.empty() || std::find(Only.begin(), Only.end(), Workload) != Only.end();
}

bool GpuBenchOptions::wantsPolyBench(const std::string& Case) const {
  return wants("polybench") ||
         std::find(Only.begin(), Only.end(), "polybench:" + Case) != Only.end();
}

const char* GpuBenchOptions::usage() {
  return "usage: cajeta_gpu_bench [options]\n"
         "  --bundles DIR    folder with saxpy/triad/reduce/wavereduce/matmul/empty/polybench.cjx\n"
         "                   (and tilegemm.cjx: without it tilegemm is skipped)\n"
         "  --n N            saxpy/triad/copy elements (default 268435456)\n"
         "  --reduce-n N     sum elements, both sums (default 268435456)\n"
         "  --matmul N       square matrix size (default 4096)\n"
         "  --tilegemm LIST  comma list of square GEMM sizes, float16 and bfloat16 (default "
         "4096,8192)\n"
         "  --tilegemm-shared BYTES  dynamic shared memory per tilegemm CUDA launch (default:\n"
         "                   what tilegemm.cj's kernels need), for another build of that bundle\n"
         "  --ray-leaf N     raytrace: the host build's most primitives per leaf (default: the\n"
         "                   builder's, 4)\n"
         "  --reps N         timed batches per side, median reported (default 20)\n"
         "  --warmup N       untimed batches per side (default 3)\n"
         "  --batch N        launches per timed batch (default 10)\n"
         "  --launches N     empty launches per launch-cost sample (default 10000)\n"
         "  --only LIST      comma list of "
         "saxpy,triad,reduce,wavesum,matmul,tilegemm,launch,chain,raytrace,latency,corun,"
         "throughput,streams,energy,\n"
         "                   polybench (all its kernels) or polybench:K for kernel K (2mm 3mm\n"
         "                   atax bicg corr covar gemm gesummv gramschm mvt syr2k syrk 2dconv\n"
         "                   3dconv fdtd2d jacobi2d)\n"
         "  --smoke          tiny sizes and 3 reps: runs and cross-checks everything\n"
         "  --no-cupti       do not measure our kernels' GPU time with CUPTI (libcupti)\n"
         "  --no-vulkan      run our kernels on the cuda backend only\n"
         "  --vulkan-device I  run the Vulkan side on device I of `cajeta devices` (default:\n"
         "                   the Vulkan device named as the cuda device, never a CPU one)\n"
         "Our kernels run on the cuda device and on the Vulkan device of the same GPU, in one\n"
         "process, beside the nvcc/CUB/driver peers; needs an NVIDIA GPU and its driver.\n";
}

bool GpuBenchOptions::parse(int Argc, char** Argv, GpuBenchOptions& O, std::string& Error) {
  for (int I = 1; I < Argc; ++I) {
    std::string Arg = Argv[I];
    if (Arg == "--help" || Arg == "-h") {
      Error.clear();
      return false;
    }
    if (Arg == "--smoke") {
      O.Smoke = true;
      continue;
    }
    if (Arg == "--no-cupti") {
      O.Cupti = false;
      continue;
    }
    if (Arg == "--no-vulkan") {
      O.Vulkan = false;
      continue;
    }
    if (I + 1 >= Argc) {
      Error = "missing value after " + Arg;
      return false;
    }
    std::string Value = Argv[++I];
    uint64_t V = 0;
    auto number = [&](uint64_t Max) {
      if (parseUnsigned(Value, Max, V))
        return true;
      Error =
          Arg + " wants a whole number from 1 to " + std::to_string(Max) + ", not '" + Value + "'";
      return false;
    };
    if (Arg == "--bundles") {
      O.BundleDir = Value;
    } else if (Arg == "--vulkan-device") {
      // A device index: 0 is valid, unlike the counts below.
      if (Value.empty() || Value.size() > 4 ||
          Value.find_first_not_of("0123456789") != std::string::npos) {
        Error = "--vulkan-device wants a device index (see `cajeta devices`), not '" + Value + "'";
        return false;
      }
      O.VulkanDevice = std::atoi(Value.c_str());
    } else if (Arg == "--n" || Arg == "--reduce-n") {
      if (!number(1u << 30))
        return false;
      (Arg == "--n" ? O.StreamN : O.ReduceN) = uint32_t(V);
    } else if (Arg == "--matmul") {
      if (!number(16384))
        return false;
      O.MatN = uint32_t(V);
    } else if (Arg == "--tilegemm") {
      O.TileGemmSizes.clear();
      std::stringstream List(Value);
      for (std::string Size; std::getline(List, Size, ',');) {
        if (!parseUnsigned(Size, 32768, V)) {
          Error = "--tilegemm wants sizes from 1 to 32768, not '" + Size + "'";
          return false;
        }
        O.TileGemmSizes.push_back(uint32_t(V));
      }
      if (O.TileGemmSizes.empty()) {
        Error = "--tilegemm wants at least one size";
        return false;
      }
    } else if (Arg == "--ray-leaf") {
      if (!number(16))
        return false;
      O.RayLeafSize = uint32_t(V);
    } else if (Arg == "--tilegemm-shared") {
      if (!number(227 * 1024))
        return false;
      O.TileGemmSharedBytes = uint32_t(V);
    } else if (Arg == "--reps" || Arg == "--warmup" || Arg == "--batch" || Arg == "--launches") {
      if (!number(1000000))
        return false;
      int& Field = Arg == "--reps"     ? O.Reps
                   : Arg == "--warmup" ? O.Warmup
                   : Arg == "--batch"  ? O.Batch
                                       : O.Launches;
      Field = int(V);
    } else if (Arg == "--only") {
      std::stringstream List(Value);
      for (std::string W; std::getline(List, W, ',');) {
        const std::vector<std::string>& Cases = polybench::caseNames();
        bool PolyCase = W.rfind("polybench:", 0) == 0 &&
                        std::find(Cases.begin(), Cases.end(), W.substr(10)) != Cases.end();
        if (!PolyCase &&
            std::find(std::begin(Workloads), std::end(Workloads), W) == std::end(Workloads)) {
          Error = "--only: unknown workload '" + W +
                  "' (saxpy, triad, reduce, wavesum, matmul, tilegemm, launch, chain, raytrace, "
                  "latency, corun, throughput, streams, energy, polybench, polybench:<kernel>)";
          return false;
        }
        O.Only.push_back(W);
      }
    } else {
      Error = "unknown option " + Arg;
      return false;
    }
  }
  if (O.Smoke) {
    O.StreamN = std::min<uint32_t>(O.StreamN, 100003);
    O.ReduceN = std::min<uint32_t>(O.ReduceN, 1000003);
    O.MatN = std::min<uint32_t>(O.MatN, 200);
    O.TileGemmSizes = {1024};
    O.RayImage = std::min<uint32_t>(O.RayImage, 256);
    O.RayGrid = std::min<uint32_t>(O.RayGrid, 64);
    O.Reps = std::min(O.Reps, 3);
    O.Warmup = 1;
    O.Batch = std::min(O.Batch, 2);
    O.Launches = std::min(O.Launches, 100);
    O.PolySizes = polybench::Sizes{67, 131, 131, 19, 67, 3};
  }
  return true;
}

} // namespace cajeta::gpubench
