// The GPU bench's workloads and what they share: options, peers, our stream, the table.
#pragma once

#include "CudaPeers.h"
#include "CuptiKernelTimer.h"
#include "GpuBenchOptions.h"
#include "GpuResultTable.h"
#include "GpuTiming.h"

#include <cajeta/xpu.hpp>

#include <cstdio>
#include <string>

namespace cajeta::gpubench {

namespace xpu = cajeta::xpu;

struct GpuBenchContext {
  const GpuBenchOptions& Options;
  CudaPeers& Peers;
  xpu::KernelStream& Stream; // ours
  GpuResultTable& Table;
  CuptiKernelTimer* Timer = nullptr; // null: --no-cupti
  bool Failed = false;               // a cross-check failed

  /// Loads BundleDir/<Name>.cjx.
  xpu::Program load(const std::string& Name) const {
    return xpu::Program::load(Options.BundleDir + "/" + Name + ".cjx");
  }
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
template <class OursF, class PeerF>
Medians measure(GpuBenchContext& C, int Batch, OursF&& Ours, PeerF&& Peer) {
  auto oursBatch = [&] {
    double T0 = nowMs();
    for (int I = 0; I < Batch; ++I)
      Ours();
    C.Stream.sync();
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
  if (!C.Timer)
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

void runStreamBench(GpuBenchContext& C); // saxpy, triad, triad vs cuMemcpyDtoD
void runReduceBench(GpuBenchContext& C); // sum vs CUB
void runMatMulBench(GpuBenchContext& C); // tiled matmul vs nvcc
void runLaunchBench(GpuBenchContext& C); // empty-kernel launch cost vs raw cuLaunchKernel

} // namespace cajeta::gpubench
