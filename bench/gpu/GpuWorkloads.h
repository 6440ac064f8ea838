// The GPU bench's workloads and what they share: options, peers, our stream, the table.
#pragma once

#include "CudaPeers.h"
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
  bool Failed = false; // a cross-check failed

  /// Loads BundleDir/<Name>.cjx.
  xpu::Program load(const std::string& Name) const {
    return xpu::Program::load(Options.BundleDir + "/" + Name + ".cjx");
  }
  void fail(const std::string& Message) {
    std::fprintf(stderr, "cajeta_gpu_bench: %s\n", Message.c_str());
    Failed = true;
  }
};

/// Per-item medians of both sides; peer GPU time from its events.
struct Medians {
  double Ours = 0, PeerWall = 0, PeerGpu = 0;
};

/// Warm-up batches, then Reps timed batches alternating ours and the peer's so that clock and
/// thermal drift fall on both. Ours(Batch) enqueues Batch items on our stream; we time it with
/// the host clock through stream.sync() (the runtime does not expose its CUstream to events).
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
  return Medians{median(O), median(W), median(G)};
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
