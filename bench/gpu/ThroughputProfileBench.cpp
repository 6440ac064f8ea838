// The throughput profile (spec 17.8's co-running admission): a memory-bound stream (triads over
// 64M float32 elements) and a compute-bound stream (a dependent FMA chain per work-item, the
// spin kernel) submitted side by side, all in one process on the same data, three ways:
// - serial: both kernels' launches on one stream, one after the other;
// - naive concurrent: two streams on the raw launch path (Scheduler::bypass), as two programs
//   sharing a GPU get it;
// - scheduled: two streams through the scheduler, which admits the pair to co-run on a slice of
//   the SMs and its complement (green contexts) where the device's calibration predicts a gain.
// The target: the scheduled time at most the better of the other two. Run with a balanced
// pair (equal time alone) and a lopsided one (the compute stream a quarter of the memory one).
#include "GpuWorkloads.h"

#include <cajeta/xpu/Calibration.hpp>
#include <cajeta/xpu/Scheduler.hpp>

#include <algorithm>
#include <optional>
#include <string>

namespace cajeta::gpubench {

namespace {

struct Mix {
  int Triads = 0, Spins = 0;
};

} // namespace

void runThroughputProfileBench(GpuBenchContext& C) {
  if (!C.Options.wants("throughput"))
    return;
  xpu::Device D = C.Cuda.device();
  std::optional<xpu::DeviceCalibration> Measured;
  try {
    Measured = xpu::DeviceCalibration::current(D);
  } catch (const xpu::Error& E) {
    std::fprintf(stderr, "throughput profile: not run: the device cannot be calibrated: %s\n",
                 E.what());
    return;
  }
  const xpu::DeviceCalibration& Cal = *Measured;
  std::fprintf(stderr,
               "throughput profile: calibration %s; quarter/half/three-quarter slices "
               "read %.0f / %.0f / %.0f GB/s of %.0f\n",
               Cal.source().c_str(), Cal.fact("read-bandwidth-quarter-slice").value_or(0) / 1e9,
               Cal.fact("read-bandwidth-half-slice").value_or(0) / 1e9,
               Cal.fact("read-bandwidth-three-quarter-slice").value_or(0) / 1e9,
               Cal.readBandwidth().value_or(0) / 1e9);
  xpu::Program TriadP = C.Cuda.load("triad"), SpinP = C.Cuda.load("spin");
  xpu::Kernel Triad = TriadP.kernel("GpuBench.triad"), Spin = SpinP.kernel("GpuBench.spin");
  const uint32_t N = 64u << 20;
  xpu::KernelBuffer<float> A = C.Cuda.buffer(N), B = C.Cuda.buffer(std::vector<float>(N, 1.0f)),
                           Cv = C.Cuda.buffer(std::vector<float>(N, 2.0f)), Out = C.Cuda.buffer(1);
  const uint32_t SpinGroups = 32 * D.computeUnits(); // 4 waves of 8 groups of 256 per SM
  xpu::KernelStream First(D), Second(D);
  unsigned SliceUnits = 0;
  int OnSlices = 0; // launches placed on a slice or its complement
  auto triad = [&](xpu::KernelStream& S) {
    xpu::ResourceDescriptor R = Triad.launch(xpu::KernelSubmission(S), xpu::grid(N / 256),
                                             xpu::block(256))(A, B, Cv, 3.0f, N);
    if (R.placement == xpu::Placement::Slice)
      SliceUnits = R.computeUnits, ++OnSlices;
  };
  uint32_t Rounds = 4096;
  auto spin = [&](xpu::KernelStream& S) {
    Spin.launch(xpu::KernelSubmission(S), xpu::grid(SpinGroups), xpu::block(256))(Out, 1.0f, 0.0f,
                                                                                  -1.0f, Rounds);
  };
  auto seconds = [&](const std::function<void()>& Once) {
    double Best = 1e30;
    for (int R = 0; R < 4; ++R) { // the first warms up
      First.sync();
      Second.sync();
      double T0 = nowMs();
      Once();
      First.sync();
      Second.sync();
      if (R)
        Best = std::min(Best, nowMs() - T0);
    }
    return Best;
  };
  const int Alone = 10;
  double TriadMs = seconds([&] {
                     for (int I = 0; I < Alone; ++I)
                       triad(First);
                   }) /
                   Alone;
  double SpinMs = seconds([&] {
                    for (int I = 0; I < Alone; ++I)
                      spin(First);
                  }) /
                  Alone;
  // One spin about as long as 6 triads, so both streams have many launches.
  Rounds = uint32_t(std::max(64.0, Rounds * 6 * TriadMs / SpinMs));
  SpinMs = seconds([&] {
             for (int I = 0; I < Alone; ++I)
               spin(First);
           }) /
           Alone;
  const int Triads = 60;
  const Mix Mixes[] = {{Triads, std::max(1, int(Triads * TriadMs / SpinMs + 0.5))},
                       {Triads, std::max(1, int(Triads * TriadMs / SpinMs / 4 + 0.5))}};
  bool WasBypassed = xpu::Scheduler::bypass(false);
  for (const Mix& M : Mixes) {
    auto interleaved = [&] {
      for (int I = 0, J = 0; I < M.Triads || J < M.Spins;) {
        // Proportionally: each stream's launches spread over the same span of enqueues.
        if (I < M.Triads && (J >= M.Spins || I * M.Spins <= J * M.Triads))
          triad(First), ++I;
        else
          spin(Second), ++J;
      }
    };
    xpu::Scheduler::bypass(false);
    double Serial = seconds([&] {
      for (int I = 0; I < M.Triads; ++I)
        triad(First);
      for (int J = 0; J < M.Spins; ++J)
        spin(First);
    });
    xpu::Scheduler::bypass(true);
    double Naive = seconds(interleaved);
    xpu::Scheduler::bypass(false);
    auto Mode = xpu::Scheduler::coRunning(xpu::Scheduler::CoRunning::Always);
    SliceUnits = 0;
    OnSlices = 0;
    double Forced = seconds(interleaved);
    unsigned ForcedUnits = SliceUnits;
    int ForcedOnSlices = OnSlices;
    xpu::Scheduler::coRunning(xpu::Scheduler::CoRunning::Auto);
    SliceUnits = 0;
    OnSlices = 0;
    double Scheduled = seconds(interleaved);
    xpu::Scheduler::coRunning(Mode);
    double Better = std::min(Serial, Naive);
    char Note[400];
    std::snprintf(Note, sizeof(Note),
                  "serial %.2f ms, naive concurrent %.2f ms, scheduled %.2f ms (%.3f of the "
                  "better); triad alone %.3f ms, spin alone %.3f ms; %d of %d launches on "
                  "slices over 4 runs, %s",
                  Serial, Naive, Scheduled, Scheduled / Better, TriadMs, SpinMs, OnSlices,
                  4 * (M.Triads + M.Spins),
                  SliceUnits ? ("memory side on " + std::to_string(SliceUnits) + " of " +
                                std::to_string(D.computeUnits()) + " SMs")
                                   .c_str()
                             : "not admitted: both on the whole device");
    C.Table.add(ResultRow{"throughput profile, " + std::to_string(M.Triads) + " triads 64M + " +
                              std::to_string(M.Spins) + " spins, scheduled",
                          "the better of serial and naive concurrent", Scheduled, Better, 0, 1, 1,
                          "mixes/s", 1.0, Note});
    std::snprintf(Note, sizeof(Note),
                  "CoRunning::Always: every complementary pair cut at the best cut predicted; "
                  "%d of %d launches on slices over 4 runs, memory side on %u of %u SMs",
                  ForcedOnSlices, 4 * (M.Triads + M.Spins), ForcedUnits, D.computeUnits());
    C.Table.add(ResultRow{"throughput profile, " + std::to_string(M.Triads) + " triads 64M + " +
                              std::to_string(M.Spins) + " spins, always co-run",
                          "the better of serial and naive concurrent", Forced, Better, 0, 1, 1,
                          "mixes/s", 0, Note});
  }
  xpu::Scheduler::bypass(WasBypassed);
}

} // namespace cajeta::gpubench
