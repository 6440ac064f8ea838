// The GPU bench's workloads and what they share: options, peers, our two backends, the tables.
#pragma once

#include "BackendCompareTable.h"
#include "CudaPeers.h"
#include "CuptiKernelTimer.h"
#include "GpuBenchOptions.h"
#include "GpuResultTable.h"
#include "GpuTiming.h"
#include "OursDevice.h"

#include <cajeta/xpu.hpp>

#include <cstdio>
#include <functional>
#include <string>

namespace cajeta::gpubench {

namespace xpu = cajeta::xpu;

struct GpuBenchContext {
  const GpuBenchOptions& Options;
  CudaPeers& Peers;
  OursDevice& Cuda;                  // ours on the cuda backend (against the peers)
  OursDevice* Vulkan;                // ours on the Vulkan backend of the same GPU (null: none)
  std::string NoVulkan;              // why Vulkan is null
  GpuResultTable& Table;             // ours (cuda) vs the peers
  BackendCompareTable& Backends;     // ours on Vulkan vs ours on cuda
  CuptiKernelTimer* Timer = nullptr; // null: --no-cupti
  bool Failed = false;               // a cross-check failed

  void fail(const std::string& Message) {
    std::fprintf(stderr, "cajeta_gpu_bench: %s\n", Message.c_str());
    Failed = true;
  }
};

/// Per-item medians of both sides; peer GPU time from its events, ours from CUPTI (0: none).
struct Medians {
  double Ours = 0, PeerWall = 0, PeerGpu = 0, OursGpu = 0;
};

/// Warm-up batches, then Reps timed batches alternating ours and the peer's so that clock and
/// thermal drift fall on both. Ours(Batch) enqueues Batch items on our stream; we time it with
/// the host clock through stream.sync() (the runtime does not expose its CUstream to events),
/// and afterwards, with CUPTI where it loads, the GPU time of our kernels alone.
/// Side: where Ours enqueues (null: C.Cuda); CUPTI's GPU time is taken on the cuda side only.
template <class OursF, class PeerF>
Medians measure(GpuBenchContext& C, int Batch, OursF&& Ours, PeerF&& Peer,
                OursDevice* Side = nullptr) {
  xpu::KernelStream& Stream = (Side ? *Side : C.Cuda).stream();
  auto oursBatch = [&] {
    double T0 = nowMs();
    for (int I = 0; I < Batch; ++I)
      Ours();
    Stream.sync();
    return (nowMs() - T0) / Batch;
  };
  for (int I = 0; I < C.Options.Warmup; ++I) {
    oursBatch();
    Peer(Batch);
  }
  std::vector<double> O, W, G;
  for (int I = 0; I < C.Options.Reps; ++I) {
    O.push_back(oursBatch());
    PeerTime P = Peer(Batch);
    W.push_back(P.WallMs);
    G.push_back(P.GpuMs);
  }
  Medians M{median(O), median(W), median(G)};
  // Then, apart so that tracing cannot slow the timed batches, the GPU time of our kernels.
  if (!C.Timer || (Side && Side != &C.Cuda))
    return M;
  if (!C.Timer->begin()) {
    std::fprintf(stderr, "cajeta_gpu_bench: no GPU time for our kernels: %s\n",
                 C.Timer->why().c_str());
    C.Timer = nullptr;
    return M;
  }
  std::vector<double> K;
  for (int I = 0; I < C.Options.Reps; ++I) {
    size_t Count = 0;
    oursBatch();
    double Ms = C.Timer->take("cj_k_", Count);
    if (Count)
      K.push_back(Ms / Batch);
  }
  C.Timer->end();
  M.OursGpu = median(K);
  return M;
}

/// Per-item medians of our two backends, host clock around each batch through its sync.
struct BackendMedians {
  double CudaMs = 0, VulkanMs = 0;
};

/// Warm-up batches, then Reps timed batches alternating CUDA and Vulkan; a batch is Batch items
/// enqueued on that side's stream, then its sync(). Vulkan has no CUDA events, so both sides are
/// timed by the host clock alike. Needs C.Vulkan.
template <class CudaF, class VulkanF>
BackendMedians timeBackends(GpuBenchContext& C, int Batch, CudaF&& CudaItem, VulkanF&& VulkanItem) {
  auto batch = [Batch](auto& Item, xpu::KernelStream& S) {
    double T0 = nowMs();
    for (int I = 0; I < Batch; ++I)
      Item();
    S.sync();
    return (nowMs() - T0) / Batch;
  };
  for (int I = 0; I < C.Options.Warmup; ++I) {
    batch(CudaItem, C.Cuda.stream());
    batch(VulkanItem, C.Vulkan->stream());
  }
  std::vector<double> Cu, Vk;
  for (int I = 0; I < C.Options.Reps; ++I) {
    Cu.push_back(batch(CudaItem, C.Cuda.stream()));
    Vk.push_back(batch(VulkanItem, C.Vulkan->stream()));
  }
  return BackendMedians{median(Cu), median(Vk)};
}

/// Adds Row to the Vulkan-vs-CUDA table. Without a Vulkan device the row says so and shows
/// CudaHostMs (the host-clock median of the ours-vs-peer measurement) as the CUDA time. Else
/// VulkanSide runs the workload on C.Vulkan (its own program, buffers and stream, on the same
/// input data), checks the result against the CUDA side's, and fills Row's times and Check with
/// timeBackends; an exception from it makes the row an ERROR and the run fail.
void compareBackends(GpuBenchContext& C, BackendRow Row, double CudaHostMs,
                     const std::function<void(OursDevice& Vulkan, BackendRow& Row)>& VulkanSide);

/// "bit-exact vs CUDA" when Got and Want (the CUDA side's result) agree bit for bit; else fails
/// the run and says where they differ.
std::string checkAgainstCuda(GpuBenchContext& C, const std::string& What,
                             const std::vector<float>& Got, const std::vector<float>& Want);

/// Adds R with our CUPTI GPU time from M.
inline void addRow(GpuBenchContext& C, const Medians& M, ResultRow R) {
  R.OursGpuMs = M.OursGpu;
  C.Table.add(std::move(R));
}

/// "2^28" for powers of two, else the number.
inline std::string sizeText(uint64_t N) {
  if (N && !(N & (N - 1)))
    return "2^" + std::to_string(__builtin_ctzll(N));
  return std::to_string(N);
}

void runStreamBench(GpuBenchContext& C);        // saxpy, triad, triad vs cuMemcpyDtoD
void runReduceBench(GpuBenchContext& C);        // sum vs CUB
void runMatMulBench(GpuBenchContext& C);        // tiled matmul vs nvcc
void runTileGemmBench(GpuBenchContext& C);      // float16 tile GEMM vs cuBLAS (needs tilegemm.cjx)
void runChainBench(GpuBenchContext& C);         // chain replay and submission cost vs graphs
void runLaunchBench(GpuBenchContext& C);        // empty-kernel launch cost vs raw cuLaunchKernel
void runWaveReduceBench(GpuBenchContext& C);    // sum on wave ops vs CUB, on cuda and Vulkan
void runRayTraceBench(GpuBenchContext& C);      // primary rays vs a hand-written CUDA BVH walk
void runPolyBenchBench(GpuBenchContext& C);     // PolyBench/GPU's kernels vs the same in nvcc
void runLatencyPolicyBench(GpuBenchContext& C); // a latency-policy probe beside a filler
void runThroughputProfileBench(GpuBenchContext& C); // co-running admission: two streams
void runCoRunningBench(GpuBenchContext& C);    // the latency profile: requests beside bulk work
void runTwoStreamsBench(GpuBenchContext& C);   // one stream vs the same launches on two
void runEnergyPolicyBench(GpuBenchContext& C); // the energy policy's right-sizing

/// The Vulkan backend's targets for Vulkan time over CUDA time (docs/benchmarks.md).
constexpr double MemoryBoundTarget = 1.2;
constexpr double BarrierHeavyTarget = 1.5;

} // namespace cajeta::gpubench
