// The latency policy beside best-effort work: an empty kernel submitted with Policy::Latency on
// one stream while another stream's filler (many waves of short workgroups) holds the GPU, beside
// the same probe at the default policy. Priority orders the workgroups waiting for an SM and
// never preempts resident ones, so the probe waits about one filler block, not the filler.
#include "GpuWorkloads.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace cajeta::gpubench {

namespace {

double percentile(std::vector<double> V, double P) {
  std::sort(V.begin(), V.end());
  return V.empty() ? 0.0 : V[std::min(V.size() - 1, size_t(P * double(V.size())))];
}

} // namespace

void runLatencyPolicyBench(GpuBenchContext& C) {
  if (!C.Options.wants("latency"))
    return;
  xpu::Program Spin = C.Cuda.load("spin");
  xpu::Program EmptyProgram = C.Cuda.load("empty");
  xpu::Kernel Filler = Spin.kernel("GpuBench.spin");
  xpu::Kernel Empty = EmptyProgram.kernel("GpuBench.empty");
  xpu::KernelStream Busy(C.Cuda.device());
  xpu::KernelStream& Probe = C.Cuda.stream();
  xpu::KernelBuffer<float> Out = C.Cuda.buffer(1);
  const uint32_t Block = 256;
  // 200 waves of the H200's 1,056 resident groups (8 per SM at 256 work-items).
  const uint32_t Groups = 200 * 8 * C.Cuda.device().computeUnits();
  auto fill = [&](uint32_t Rounds) {
    Filler.launch(Busy, xpu::grid(Groups), xpu::block(Block))(Out, 1.0f, 0.0f, -1.0f, Rounds);
  };
  // Rounds for a filler of about 40 ms: workgroups of about 200 us.
  uint32_t Rounds = 256;
  for (;;) {
    double T0 = nowMs();
    fill(Rounds);
    Busy.sync();
    double Ms = nowMs() - T0;
    if (Ms >= 20 || Rounds >= (1u << 24)) {
      Rounds = uint32_t(std::min(double(1u << 24), Rounds * 40.0 / std::max(Ms, 1e-3)));
      break;
    }
    Rounds *= 4;
  }
  double FillerMs = 0;
  auto probeOnce = [&](xpu::Policy Policy, bool Beside) {
    double F0 = nowMs();
    if (Beside) {
      fill(Rounds);
      std::this_thread::sleep_for(std::chrono::milliseconds(2)); // the filler is resident
    }
    double T0 = nowMs();
    Empty.launch(xpu::KernelSubmission(Probe).policy(Policy), xpu::grid(1), xpu::block(32))();
    Probe.sync();
    double Ms = nowMs() - T0;
    Busy.sync();
    if (Beside)
      FillerMs = nowMs() - F0;
    return Ms;
  };
  std::vector<double> Idle, Default, Latency;
  for (int I = 0; I < C.Options.Warmup; ++I) {
    probeOnce(xpu::Policy::Throughput, true);
    probeOnce(xpu::Policy::Latency, true);
  }
  const int Samples = std::max(20, C.Options.Reps);
  for (int I = 0; I < Samples; ++I) {
    Idle.push_back(probeOnce(xpu::Policy::Latency, false));
    Default.push_back(probeOnce(xpu::Policy::Throughput, true));
    Latency.push_back(probeOnce(xpu::Policy::Latency, true));
  }
  char Note[320];
  std::snprintf(Note, sizeof(Note),
                "probe round trip p50/p99: latency policy %.1f/%.1f us, default %.1f/%.1f us, "
                "idle %.1f/%.1f us; filler %u groups x %u, %.1f ms (%d samples)",
                percentile(Latency, 0.5) * 1e3, percentile(Latency, 0.99) * 1e3,
                percentile(Default, 0.5) * 1e3, percentile(Default, 0.99) * 1e3,
                percentile(Idle, 0.5) * 1e3, percentile(Idle, 0.99) * 1e3, Groups, Block, FillerMs,
                Samples);
  C.Table.add(ResultRow{"empty probe beside a filler, Policy::Latency (p50)",
                        "ours, the same probe at the default policy", percentile(Latency, 0.5),
                        percentile(Default, 0.5), 0, 1, 1, "M launches/s", 0, Note});
}

} // namespace cajeta::gpubench
