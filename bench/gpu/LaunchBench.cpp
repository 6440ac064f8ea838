// Host cost of launching an empty kernel: ours through the C++ API beside raw cuLaunchKernel, and
// ours on the Vulkan backend beside the cuda backend.
#include "GpuWorkloads.h"

namespace cajeta::gpubench {

void runLaunchBench(GpuBenchContext& C) {
  if (!C.Options.wants("launch"))
    return;
  xpu::Program P = C.Cuda.load("empty");
  xpu::Kernel Empty = P.kernel("GpuBench.empty");
  xpu::KernelStream& Stream = C.Cuda.stream();
  const int Count = C.Options.Launches;
  // One sample: Count launches of grid 1 x block 1, then one sync; per launch, the host time of
  // the launch calls alone and of the whole loop including the sync.
  auto sampleOn = [&](xpu::KernelStream& On, double& LaunchNs, double& SyncNs) {
    double T0 = nowMs();
    for (int I = 0; I < Count; ++I)
      Empty.launch(On, xpu::grid(1), xpu::block(1))();
    double T1 = nowMs();
    On.sync();
    double T2 = nowMs();
    LaunchNs = (T1 - T0) * 1e6 / Count;
    SyncNs = (T2 - T0) * 1e6 / Count;
  };
  auto oursSample = [&](double& LaunchNs, double& SyncNs) { sampleOn(Stream, LaunchNs, SyncNs); };
  // The same on a stream made here, which has seen no copies (the shared one has).
  xpu::KernelStream Fresh(P.device());
  double L = 0, S = 0;
  for (int I = 0; I < C.Options.Warmup; ++I) {
    oursSample(L, S);
    C.Peers.rawLaunchCost(Count, L, S);
    C.Peers.runtimeLaunchCost(Count, L, S);
    C.Peers.rawLaunchCostWithPointer(Count, L, S);
    C.Peers.rawLaunchCostOfPtx(Count, L, S);
  }
  std::vector<double> OursL, OursS, RawL, RawS, RtL, RtS, PtrL, PtrS, PtxL, PtxS, FreshS;
  for (int I = 0; I < C.Options.Reps; ++I) {
    oursSample(L, S);
    OursL.push_back(L);
    OursS.push_back(S);
    sampleOn(Fresh, L, S);
    FreshS.push_back(S);
    C.Peers.rawLaunchCost(Count, L, S);
    RawL.push_back(L);
    RawS.push_back(S);
    C.Peers.runtimeLaunchCost(Count, L, S);
    RtL.push_back(L);
    RtS.push_back(S);
    C.Peers.rawLaunchCostWithPointer(Count, L, S);
    PtrL.push_back(L);
    PtrS.push_back(S);
    C.Peers.rawLaunchCostOfPtx(Count, L, S);
    PtxL.push_back(L);
    PtxS.push_back(S);
  }
  // Work = one launch; the rate column is millions of launches per second of host time.
  auto row = [&](const std::string& What, const std::string& Peer, double Ours, double PeerNs,
                 double Target) {
    char Note[128];
    std::snprintf(Note, sizeof(Note), "%.2f us vs %.2f us per launch (%d launches x %d)",
                  Ours * 1e-3, PeerNs * 1e-3, Count, C.Options.Reps);
    C.Table.add(
        ResultRow{What, Peer, Ours * 1e-6, PeerNs * 1e-6, 0, 1, 1, "M launches/s", Target, Note});
  };
  // The target: every launch is a scheduled submission, and still at least 0.95x raw's rate.
  row("empty launch, host cost incl. final sync", "raw cuLaunchKernel", median(OursS), median(RawS),
      0.95);
  row("empty launch, enqueue calls only", "raw cuLaunchKernel", median(OursL), median(RawL), 0);
  row("empty launch, host cost incl. final sync", "nvcc <<<1,1>>>", median(OursS), median(RtS), 0);
  row("empty launch, host cost incl. final sync", "raw cuLaunchKernel, one pointer parameter",
      median(OursS), median(PtrS), 0);
  row("empty launch, host cost incl. final sync",
      "raw cuLaunchKernel of our PTX (driver JIT), a device pointer", median(OursS), median(PtxS),
      0);
  row("empty launch on a new stream, host cost incl. final sync", "raw cuLaunchKernel",
      median(FreshS), median(RawS), 0);

  // Vulkan beside cuda: Count launches then one sync per batch, alternating; no target (none is
  // set for launch cost).
  compareBackends(C, BackendRow{"empty launch, host cost incl. final sync", "launch", 0},
                  median(OursS) * 1e-6, [&](OursDevice& V, BackendRow& R) {
                    xpu::Kernel VEmpty = V.load("empty").kernel("GpuBench.empty");
                    auto cudaLaunch = [&] { Empty.launch(Stream, xpu::grid(1), xpu::block(1))(); };
                    auto vulkanLaunch = [&] {
                      VEmpty.launch(V.stream(), xpu::grid(1), xpu::block(1))();
                    };
                    vulkanLaunch();
                    V.stream().sync();
                    BackendMedians T = timeBackends(C, Count, cudaLaunch, vulkanLaunch);
                    R.CudaMs = T.CudaMs;
                    R.VulkanMs = T.VulkanMs;
                    char Note[128];
                    std::snprintf(Note, sizeof(Note),
                                  "Vulkan %.2f us vs CUDA %.2f us per launch (%d launches x %d)",
                                  T.VulkanMs * 1e3, T.CudaMs * 1e3, Count, C.Options.Reps);
                    R.Check = "empty kernel, nothing to check";
                    R.Note = Note;
                  });
}

} // namespace cajeta::gpubench
