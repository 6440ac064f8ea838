// cajeta_gpu_bench: our kernels on the cuda and the Vulkan backend of one NVIDIA GPU, beside nvcc,
// CUB, cuBLAS and raw-driver peers, in one process.
#include "DeviceChoice.h"
#include "GpuWorkloads.h"

#include <ctime>
#include <exception>
#include <memory>

using namespace cajeta::gpubench;

namespace {

std::string utcNow() {
  char Buf[32];
  std::time_t T = std::time(nullptr);
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&T));
  return Buf;
}

/// Runs every workload and prints both tables; the exit status.
int runBench(const GpuBenchOptions& O, const DeviceChoice& Devs) {
  CudaPeers Peers;
  OursDevice Cuda(*Devs.Cuda, O.BundleDir);
  std::unique_ptr<OursDevice> Vulkan;
  if (Devs.Vulkan)
    Vulkan = std::make_unique<OursDevice>(*Devs.Vulkan, O.BundleDir);
  GpuResultTable Table;
  BackendCompareTable Backends;
  GpuBenchContext C{O, Peers, Cuda, Vulkan.get(), Devs.VulkanWhy, Table, Backends};
  std::unique_ptr<CuptiKernelTimer> Timer;
  if (O.Cupti) {
    Timer = std::make_unique<CuptiKernelTimer>();
    if (Timer->available())
      C.Timer = Timer.get();
  }
  std::printf("cajeta_gpu_bench %s%s\n", utcNow().c_str(),
              O.Smoke ? " (smoke: sizes too small to time)" : "");
  std::printf("device: %s\n", Peers.deviceDescription());
  std::printf("devices: %s\n", Devs.Listing.c_str());
  std::printf("ours: %s %s; bundles %s\n", Cuda.describe().c_str(), Devs.CudaIndex.c_str(),
              O.BundleDir.c_str());
  if (Vulkan)
    std::printf("ours on Vulkan: %s %s (%s)\n", Vulkan->describe().c_str(),
                Devs.VulkanIndex.c_str(), Devs.VulkanWhy.c_str());
  else
    std::printf("ours on Vulkan: %s\n", Devs.VulkanWhy.c_str());
  std::printf(
      "median of %d batches per side after %d warm-up (batch %d; matmul, tilegemm, polybench %d), "
      "alternating the two sides\n",
      O.Reps, O.Warmup, O.Batch, std::max(1, O.Batch / 5));
  std::string GpuTimeSource = "CUPTI kernel records (extra batches after the timed ones)";
  if (!C.Timer)
    GpuTimeSource = O.Cupti ? "none, " + Timer->why() : "none (--no-cupti)";
  std::printf("our GPU time: %s\n\n", GpuTimeSource.c_str());
  std::fflush(stdout);
  runStreamBench(C);
  runReduceBench(C);
  runWaveReduceBench(C);
  runMatMulBench(C);
  runTileGemmBench(C);
  runRayTraceBench(C);
  runLaunchBench(C);
  runChainBench(C);
  runTwoStreamsBench(C);
  runEnergyPolicyBench(C);
  runPolyBenchBench(C);
  runLatencyPolicyBench(C);
  runThroughputProfileBench(C);
  runCoRunningBench(C); // last: its reservation lasts for the process
  std::printf("## ours (cuda backend) vs CUDA C++ peers\n\n%s", Table.render().c_str());
  std::printf("\nratio = our rate / peer rate (= peer time / our time for the same work); "
              "ms are per item, host clock around a batch through its sync, on both sides.\n"
              "GPU ratio: the same on GPU time alone (ours: CUPTI kernel records; peer: CUDA "
              "events around its batch).\n\n");
  std::printf("## ours on Vulkan vs ours on cuda (same GPU, same bundles, same data)\n\n%s",
              Backends.render().c_str());
  std::printf("\nVulkan/CUDA = Vulkan time / CUDA time per item, both by the host clock around a "
              "batch through its sync, batches alternating (Vulkan has no CUDA events); the Vulkan "
              "targets: <= %.1fx memory-bound, <= %.1fx barrier-heavy.\n",
              MemoryBoundTarget, BarrierHeavyTarget);
  std::vector<std::string> Missed = Table.missedTargets();
  for (const std::string& M : Backends.missedTargets())
    Missed.push_back(M);
  for (const std::string& M : Missed)
    std::printf("target missed: %s\n", M.c_str());
  if (C.Failed) {
    std::printf("FAILED: a cross-check or a Vulkan run failed (see stderr)\n");
    return 1;
  }
  std::printf("all cross-checks passed; %zu target(s) missed%s\n", Missed.size(),
              Vulkan ? "" : "; Vulkan not measured");
  return 0;
}

} // namespace

int main(int Argc, char** Argv) {
  GpuBenchOptions O;
  O.BundleDir = CAJETA_GPU_BENCH_BUNDLE_DIR;
  std::string Error;
  if (!GpuBenchOptions::parse(Argc, Argv, O, Error)) {
    std::fputs(Error.empty()
                   ? GpuBenchOptions::usage()
                   : ("cajeta_gpu_bench: " + Error + "\n" + GpuBenchOptions::usage()).c_str(),
               Error.empty() ? stdout : stderr);
    return Error.empty() ? 0 : 2;
  }
  try {
    DeviceChoice Devs;
    if (!DeviceChoice::choose(O, Devs, Error)) {
      std::fprintf(stderr, "cajeta_gpu_bench: %s\n", Error.c_str());
      return 2;
    }
    if (!Devs.Cuda) {
      std::fprintf(stderr,
                   "cajeta_gpu_bench: no NVIDIA GPU here: the cuda backend has no device (no "
                   "libcuda.so.1, or no GPU; CAJETA_XPU_DEBUG=1 says why). Devices: %s. The "
                   "bench needs an NVIDIA GPU and its driver (scripts/device-bench.sh).\n",
                   Devs.Listing.c_str());
      return 2;
    }
    return runBench(O, Devs);
  } catch (const std::exception& E) {
    std::fprintf(stderr, "cajeta_gpu_bench: %s\n", E.what());
    return 1;
  }
}
