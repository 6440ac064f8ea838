// Host cost of scheduling: a 20-kernel chain replayed through a capture identity beside the same
// launches issued one by one and beside a raw CUDA graph; a submission with its resource
// descriptor beside the bypassed raw launch path.
#include "GpuWorkloads.h"

namespace cajeta::gpubench {

namespace {
constexpr int Links = 20; // kernels per chain
}

void runChainBench(GpuBenchContext& C) {
  if (!C.Options.wants("chain"))
    return;
  xpu::Program P = C.Cuda.load("empty");
  xpu::Kernel Empty = P.kernel("GpuBench.empty");
  xpu::KernelStream& Stream = C.Cuda.stream();
  const int Replays = std::max(1, C.Options.Launches / Links);
  const int Count = Replays * Links;
  // One sample: Count launches, as single launches or as Replays chains, then one sync; host
  // nanoseconds per kernel including the sync.
  auto sample = [&](auto&& LaunchOne) {
    double T0 = nowMs();
    for (int R = 0; R < Replays; ++R) {
      for (int L = 0; L < Links; ++L)
        LaunchOne();
      Stream.endChain(); // one chain per 20 (a no-op for single launches)
    }
    Stream.sync();
    return (nowMs() - T0) * 1e6 / Count;
  };
  xpu::KernelSubmission Chained = xpu::KernelSubmission(Stream).capture(1);
  xpu::KernelSubmission Plain = xpu::KernelSubmission(Stream);
  auto single = [&] { Empty.launch(Stream, xpu::grid(1), xpu::block(1))(); };
  auto chained = [&] { Empty.launch(Chained, xpu::grid(1), xpu::block(1))(); };
  auto submitted = [&] { Empty.launch(Plain, xpu::grid(1), xpu::block(1))(); };
  auto bypassed = [&] {
    bool Was = xpu::Scheduler::bypass(true);
    double Ns = sample(single);
    xpu::Scheduler::bypass(Was);
    return Ns;
  };
  double L = 0, S = 0;
  for (int I = 0; I < C.Options.Warmup; ++I) {
    sample(single);
    sample(chained);
    sample(submitted);
    bypassed();
    C.Peers.graphLaunchCost(Count, Links, L, S);
  }
  std::vector<double> Single, Chain, Submitted, Bypass, Graph;
  for (int I = 0; I < C.Options.Reps; ++I) {
    Single.push_back(sample(single));
    Chain.push_back(sample(chained));
    Submitted.push_back(sample(submitted));
    Bypass.push_back(bypassed());
    C.Peers.graphLaunchCost(Count, Links, L, S);
    Graph.push_back(S);
  }
  auto row = [&](const std::string& What, const std::string& Peer, double Ours, double PeerNs,
                 double Target) {
    char Note[160];
    std::snprintf(Note, sizeof(Note), "%.3f us vs %.3f us per kernel (%d kernels x %d)",
                  Ours * 1e-3, PeerNs * 1e-3, Count, C.Options.Reps);
    C.Table.add(
        ResultRow{What, Peer, Ours * 1e-6, PeerNs * 1e-6, 0, 1, 1, "M launches/s", Target, Note});
  };
  // Targets: a replayed chain at most half the host cost of single launches (ratio >= 2).
  row("20-kernel chain replayed (capture), incl. sync", "ours, single launches", median(Chain),
      median(Single), 2.0);
  row("20-kernel chain replayed (capture), incl. sync", "raw CUDA graph (cudaGraphLaunch)",
      median(Chain), median(Graph), 0);
  // A submission returning its descriptor beside the raw path: at most 1 us more per launch.
  char Note[160];
  std::snprintf(Note, sizeof(Note), "submission %.3f us, bypass %.3f us: +%.3f us per launch",
                median(Submitted) * 1e-3, median(Bypass) * 1e-3,
                (median(Submitted) - median(Bypass)) * 1e-3);
  C.Table.add(ResultRow{"submission + descriptor, empty kernel, incl. sync",
                        "ours, bypass (raw launch path)", median(Submitted) * 1e-6,
                        median(Bypass) * 1e-6, 0, 1, 1, "M launches/s", 0, Note});
}

} // namespace cajeta::gpubench
