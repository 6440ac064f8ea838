// The energy policy beside the throughput policy: the same launches of a compute-bound kernel
// (the spin kernel's chain of dependent FMAs) at each policy, on the cuda backend. An energy
// launch runs on the fewest SMs on which no SM runs more of its workgroups than on the whole
// device (RightSizing); what it saves is the SMs it leaves idle (capacity for other work) at the
// cost of any slowdown, and the energy the GPU's counter (NVML) says the batches used.
#include "GpuWorkloads.h"
#include "NvmlEnergy.h"

#include <algorithm>

namespace cajeta::gpubench {

namespace {

struct PolicyRun {
  double Ms = 0;     // per launch, median of the batches
  double Joules = 0; // per launch, median of the batches; 0 where NVML cannot say
  unsigned Units = 0;
};

PolicyRun timePolicy(GpuBenchContext& C, NvmlEnergy& Energy, xpu::Kernel& Spin,
                     xpu::KernelBuffer<float>& Out, xpu::Policy Policy, uint32_t Groups,
                     uint32_t Block, uint32_t Rounds, int Batch) {
  xpu::KernelStream& S = C.Cuda.stream();
  PolicyRun Run;
  std::vector<double> Ms, Joules;
  for (int R = -C.Options.Warmup; R < C.Options.Reps; ++R) {
    std::optional<uint64_t> E0 = Energy.millijoules();
    double T0 = nowMs();
    for (int I = 0; I < Batch; ++I)
      Run.Units = Spin.launch(xpu::KernelSubmission(S).policy(Policy), xpu::grid(Groups),
                              xpu::block(Block))(Out, 1.0f, 0.0f, -1.0f, Rounds)
                      .computeUnits;
    S.sync();
    double T1 = nowMs();
    std::optional<uint64_t> E1 = Energy.millijoules();
    if (R < 0)
      continue;
    Ms.push_back((T1 - T0) / Batch);
    if (E0 && E1)
      Joules.push_back(double(*E1 - *E0) / 1000.0 / Batch);
  }
  Run.Ms = median(Ms);
  Run.Joules = Joules.empty() ? 0 : median(Joules);
  return Run;
}

} // namespace

void runEnergyPolicyBench(GpuBenchContext& C) {
  if (!C.Options.wants("energy"))
    return;
  xpu::Device& D = C.Cuda.device();
  // A grid of more workgroups than SMs is right-sized only once its class is known: measure
  // the device first (or read its record).
  double T0 = nowMs();
  xpu::DeviceCalibration Cal = xpu::DeviceCalibration::current(D);
  std::printf("\n## the energy policy beside the throughput policy (spin: dependent FMAs)\n\n"
              "calibration: %.1f s, ridge %s\n",
              (nowMs() - T0) / 1000,
              Cal.ridge() ? std::to_string(*Cal.ridge()).c_str()
                          : Cal.absentReason("ridge").c_str());
  NvmlEnergy Energy;
  if (!Energy.millijoules())
    std::printf("no energy counter: %s\n", Energy.why().c_str());
  xpu::Program P = C.Cuda.load("spin");
  xpu::Kernel Spin = P.kernel("GpuBench.spin");
  xpu::KernelBuffer<float> Out = C.Cuda.buffer(1);
  const unsigned Sms = D.computeUnits();
  struct Case {
    uint32_t Groups, Block;
  };
  // Half a wave of one workgroup per SM; one and a half; the same with workgroups of 1024
  // work-items (two fill an SM's 2048 threads, so SMs running two are slower than SMs running
  // one); two and a half.
  const Case Cases[] = {
      {Sms / 2, 256}, {Sms + Sms / 2, 256}, {Sms + Sms / 2, 1024}, {2 * Sms + Sms / 2, 1024}};
  const uint32_t Rounds = C.Options.Smoke ? 20000 : 400000;
  const int Batch = C.Options.Smoke ? 4 : 40;
  std::printf("\n| grid x block | throughput ms | energy ms | energy / throughput time | SMs "
              "(energy) | SMs left idle | J per launch (throughput) | J per launch (energy) |\n"
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (const Case& K : Cases) {
    PolicyRun Whole =
        timePolicy(C, Energy, Spin, Out, xpu::Policy::Throughput, K.Groups, K.Block, Rounds, Batch);
    PolicyRun Sized =
        timePolicy(C, Energy, Spin, Out, xpu::Policy::Energy, K.Groups, K.Block, Rounds, Batch);
    std::printf("| %u x %u | %.3f | %.3f | %.3f | %u | %.0f %% | %.3f | %.3f |\n", K.Groups,
                K.Block, Whole.Ms, Sized.Ms, Sized.Ms / Whole.Ms, Sized.Units,
                100.0 * (1.0 - double(Sized.Units) / Sms), Whole.Joules, Sized.Joules);
  }
}

} // namespace cajeta::gpubench
