// cajeta_gpu_bench: our kernels on the cuda backend beside nvcc, CUB and raw-driver peers.
#include "GpuWorkloads.h"

#include <cstdlib>
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
  // Our kernels must run on the GPU: force the cuda backend unless the caller chose one.
  setenv("CAJETA_XPU_BACKEND", "cuda", 0);
  try {
    xpu::Device Ours = xpu::defaultDevice();
    if (Ours.backend() != "cuda") {
      std::fprintf(stderr,
                   "cajeta_gpu_bench: our kernels would run on the %s backend ('%s'); run with "
                   "CAJETA_XPU_BACKEND=cuda on a machine with an NVIDIA GPU\n",
                   Ours.backend().c_str(), Ours.name().c_str());
      return 2;
    }
    CudaPeers Peers;
    xpu::KernelStream& Stream = xpu::KernelStream::current();
    GpuResultTable Table;
    GpuBenchContext C{O, Peers, Stream, Table};
    std::unique_ptr<CuptiKernelTimer> Timer;
    if (O.Cupti) {
      Timer = std::make_unique<CuptiKernelTimer>();
      if (Timer->available())
        C.Timer = Timer.get();
    }
    std::printf("cajeta_gpu_bench %s%s\n", utcNow().c_str(),
                O.Smoke ? " (smoke: sizes too small to time)" : "");
    std::printf("device: %s\nours: cuda backend on '%s', bundles %s\n", Peers.deviceDescription(),
                Ours.name().c_str(), O.BundleDir.c_str());
    std::printf("median of %d batches per side after %d warm-up (batch %d; matmul %d), "
                "alternating ours and peer\n",
                O.Reps, O.Warmup, O.Batch, std::max(1, O.Batch / 5));
    std::string GpuTimeSource = "CUPTI kernel records (extra batches after the timed ones)";
    if (!C.Timer)
      GpuTimeSource = O.Cupti ? "none, " + Timer->why() : "none (--no-cupti)";
    std::printf("our GPU time: %s\n\n", GpuTimeSource.c_str());
    std::fflush(stdout);
    runStreamBench(C);
    runReduceBench(C);
    runMatMulBench(C);
    runLaunchBench(C);
    std::fputs(Table.render().c_str(), stdout);
    std::printf("\nratio = our rate / peer rate (= peer time / our time for the same work); "
                "ms are per item, host clock around a batch through its sync, on both sides.\n"
                "GPU ratio: the same on GPU time alone (ours: CUPTI kernel records; peer: CUDA "
                "events around its batch).\n");
    std::vector<std::string> Missed = Table.missedTargets();
    for (const std::string& M : Missed)
      std::printf("target missed: %s\n", M.c_str());
    if (C.Failed) {
      std::printf("FAILED: a cross-check failed (see stderr)\n");
      return 1;
    }
    std::printf("all cross-checks passed; %zu target(s) missed\n", Missed.size());
    return 0;
  } catch (const std::exception& E) {
    std::fprintf(stderr, "cajeta_gpu_bench: %s\n", E.what());
    return 1;
  }
}
