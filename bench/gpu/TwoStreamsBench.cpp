// Two streams side by side: the same launches of a kernel that fills half the GPU's SMs (the spin
// kernel), once on one stream and once split over two, on the cuda and the Vulkan backend in one
// process. Where the device runs streams together the split takes about half the time.
#include "GpuWorkloads.h"

#include <algorithm>

namespace cajeta::gpubench {

namespace {

struct SplitTimes {
  double OneStreamMs = 0, TwoStreamsMs = 0;
};

/// Median over Reps of Launches spin launches (Groups workgroups of 256 each) on one stream, all
/// writing one buffer (so each waits for the one before, on Vulkan too, whose batches leave out
/// barriers between launches that share nothing), and of the same launches split over two
/// streams with a buffer each (so the scheduler has nothing to order between them).
SplitTimes timeSplit(GpuBenchContext& C, OursDevice& Side, uint32_t Groups, uint32_t Rounds,
                     int Launches) {
  xpu::Program P = Side.load("spin");
  xpu::Kernel Spin = P.kernel("GpuBench.spin");
  xpu::KernelBuffer<float> OutA = Side.buffer(1), OutB = Side.buffer(1);
  xpu::KernelStream Second(Side.device());
  xpu::KernelStream& First = Side.stream();
  auto launch = [&](xpu::KernelStream& S, xpu::KernelBuffer<float>& Out) {
    Spin.launch(S, xpu::grid(Groups), xpu::block(256))(Out, 1.0f, 0.0f, -1.0f, Rounds);
  };
  std::vector<double> One, Two;
  for (int R = -C.Options.Warmup; R < std::max(3, C.Options.Reps / 4); ++R) {
    double T0 = nowMs();
    for (int I = 0; I < Launches; ++I) // one buffer: each launch after the one before
      launch(First, OutA);
    First.sync();
    double T1 = nowMs();
    for (int I = 0; I < Launches; ++I)
      I % 2 ? launch(Second, OutB) : launch(First, OutA);
    First.sync();
    Second.sync();
    double T2 = nowMs();
    if (R >= 0) {
      One.push_back(T1 - T0);
      Two.push_back(T2 - T1);
    }
  }
  return {median(One), median(Two)};
}

} // namespace

void runTwoStreamsBench(GpuBenchContext& C) {
  if (!C.Options.wants("streams"))
    return;
  // Half the SMs (the cuda device's count; Vulkan does not say), one workgroup each.
  const uint32_t Groups = std::max(1u, C.Cuda.device().computeUnits() / 2);
  const uint32_t Rounds = C.Options.Smoke ? 2000 : 50000;
  const int Launches = C.Options.Smoke ? 8 : 40;
  std::printf("\n## two streams side by side: %d launches of %u workgroups x 256 (spin, %u "
              "rounds)\n\n| backend | concurrent streams | one stream ms | two streams ms | one / "
              "two |\n| --- | --- | ---: | ---: | ---: |\n",
              Launches, Groups, Rounds);
  for (OursDevice* Side : {&C.Cuda, C.Vulkan}) {
    if (!Side)
      continue;
    SplitTimes T = timeSplit(C, *Side, Groups, Rounds, Launches);
    std::printf("| %s | %s | %.3f | %.3f | %.2fx |\n", Side->describe().c_str(),
                Side->device().concurrentStreams() ? "yes" : "no", T.OneStreamMs, T.TwoStreamsMs,
                T.OneStreamMs / T.TwoStreamsMs);
  }
}

} // namespace cajeta::gpubench
