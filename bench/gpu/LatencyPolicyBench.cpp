// The latency policy beside best-effort work: an empty kernel submitted with Policy::Latency on
// one stream while another stream's filler (many waves of short workgroups) holds the GPU, beside
// the same probe at the default policy. Priority orders the workgroups waiting for an SM and
// never preempts resident ones, so the probe waits about one filler block, not the filler. On
// Vulkan the same probe beside the filler the runtime paces (dispatched in pieces).
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

/// The probe's round trips on one side: idle, beside the filler at the default policy, and beside
/// it at the latency policy.
struct ProbeTimes {
  std::vector<double> Idle, Default, Latency;
  uint32_t Groups = 0, Block = 256;
  double FillerMs = 0;
};

ProbeTimes probeBesideFiller(GpuBenchContext& C, OursDevice& Side) {
  xpu::Program Spin = Side.load("spin");
  xpu::Program EmptyProgram = Side.load("empty");
  xpu::Kernel Filler = Spin.kernel("GpuBench.spin");
  xpu::Kernel Empty = EmptyProgram.kernel("GpuBench.empty");
  xpu::KernelStream Busy(Side.device());
  xpu::KernelStream& Probe = Side.stream();
  xpu::KernelBuffer<float> Out = Side.buffer(1);
  ProbeTimes T;
  // 200 waves of the H200's 1,056 resident groups (8 per SM at 256 work-items).
  T.Groups = 200 * 8 * C.Cuda.device().computeUnits();
  auto fill = [&](uint32_t Rounds) {
    Filler.launch(Busy, xpu::grid(T.Groups), xpu::block(T.Block))(Out, 1.0f, 0.0f, -1.0f, Rounds);
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
      T.FillerMs = nowMs() - F0;
    return Ms;
  };
  for (int I = 0; I < C.Options.Warmup; ++I) {
    probeOnce(xpu::Policy::Throughput, true);
    probeOnce(xpu::Policy::Latency, true);
  }
  const int Samples = std::max(20, C.Options.Reps);
  for (int I = 0; I < Samples; ++I) {
    T.Idle.push_back(probeOnce(xpu::Policy::Latency, false));
    T.Default.push_back(probeOnce(xpu::Policy::Throughput, true));
    T.Latency.push_back(probeOnce(xpu::Policy::Latency, true));
  }
  return T;
}

std::string describe(const ProbeTimes& T) {
  char Note[320];
  std::snprintf(Note, sizeof(Note),
                "probe round trip p50/p99: latency policy %.1f/%.1f us, default %.1f/%.1f us, "
                "idle %.1f/%.1f us; filler %u groups x %u, %.1f ms (%zu samples)",
                percentile(T.Latency, 0.5) * 1e3, percentile(T.Latency, 0.99) * 1e3,
                percentile(T.Default, 0.5) * 1e3, percentile(T.Default, 0.99) * 1e3,
                percentile(T.Idle, 0.5) * 1e3, percentile(T.Idle, 0.99) * 1e3, T.Groups, T.Block,
                T.FillerMs, T.Latency.size());
  return Note;
}

} // namespace

void runLatencyPolicyBench(GpuBenchContext& C) {
  if (!C.Options.wants("latency"))
    return;
  ProbeTimes T = probeBesideFiller(C, C.Cuda);
  C.Table.add(ResultRow{"empty probe beside a filler, Policy::Latency (p50)",
                        "ours, the same probe at the default policy", percentile(T.Latency, 0.5),
                        percentile(T.Default, 0.5), 0, 1, 1, "M launches/s", 0, describe(T)});
  // Vulkan: once the probe's stream has submitted latency-class work, the filler's grid is
  // dispatched in pieces (pacing; CAJETA_XPU_VULKAN_PIECE_GROUPS=0 for the whole grid), at both
  // policies of the probe.
  if (C.Vulkan)
    std::printf("\nvulkan %s: %s\n", C.Vulkan->describe().c_str(),
                describe(probeBesideFiller(C, *C.Vulkan)).c_str());
}

} // namespace cajeta::gpubench
