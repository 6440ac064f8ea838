// Co-running admission (spec 17.8: "admits co-runners by footprint and complementarity,
// reserves compute as the precondition for co-running"): a throughput submission's compute-unit
// budget confines it to a slice of the device; a memory-bound and a compute-bound stream with
// work queued side by side share the device on a slice and its complement, cut where the
// device's calibration predicts both finish soonest (always under CoRunning::Always; under Auto
// only where that is predicted to gain, which depends on the device's measurements); two streams
// of one class are never cut.
// Where the device cannot confine a launch (Vulkan, the CPU) every launch reports the whole
// device, and the results are the same everywhere.
#include "ConformanceSupport.h"
#include "ReservationSetAside.h"

#include <cajeta/xpu/Calibration.hpp>
#include <cajeta/xpu/Scheduler.hpp>

#include <algorithm>
#include <map>

namespace conformance {
namespace {

constexpr uint32_t Block = 256;

TEST(CoRunning, ABudgetConfinesAThroughputLaunchToASlice) {
  xpu::Device D = xpu::defaultDevice();
  ReservationSetAside Aside(D);
  xpu::Program P = compileProgram("CoRun");
  constexpr uint32_t N = 1 << 16;
  std::vector<float> Data(N);
  for (uint32_t I = 0; I < N; ++I)
    Data[I] = float(I) * 0.25f;
  auto Src = toDevice(Data);
  auto Dst = toDevice(std::vector<float>(N, 0));
  xpu::KernelStream S;
  const unsigned Quarter = std::max(1u, D.computeUnits() / 4);
  xpu::ResourceDescriptor R = P.kernel("CoRun.copy")
                                  .launch(xpu::KernelSubmission(S).computeUnits(Quarter),
                                          xpu::grid(N / Block), xpu::block(Block))(Dst, Src, N);
  S.sync();
  expectSame(fromDevice(Dst), Data, "a copy on a slice");
  if (slicesDevice(D)) {
    EXPECT_EQ(R.placement, xpu::Placement::Slice);
    EXPECT_GE(R.computeUnits, Quarter);
    EXPECT_LT(R.computeUnits, D.computeUnits());
  } else {
    expectWholeDevice(R, D);
  }
  // The plain launch after it runs on the whole device.
  xpu::ResourceDescriptor Plain =
      P.kernel("CoRun.copy")
          .launch(xpu::KernelSubmission(S), xpu::grid(N / Block), xpu::block(Block))(Src, Dst, N);
  S.sync();
  expectWholeDevice(Plain, D);
}

struct Placements {
  std::map<xpu::Placement, int> Count;
  unsigned SliceUnits = 0, ComplementUnits = 0;
  void add(const xpu::ResourceDescriptor& R) {
    ++Count[R.placement];
    if (R.placement == xpu::Placement::Slice)
      SliceUnits = R.computeUnits;
    if (R.placement == xpu::Placement::SliceComplement)
      ComplementUnits = R.computeUnits;
  }
};

/// Sets the co-running mode for a test and restores the one before.
class CoRunningMode {
public:
  explicit CoRunningMode(xpu::Scheduler::CoRunning M) : Before(xpu::Scheduler::coRunning(M)) {}
  ~CoRunningMode() { xpu::Scheduler::coRunning(Before); }

private:
  xpu::Scheduler::CoRunning Before;
};

/// A copy stream and a burn stream, balanced where the device is calibrated, 24 launches each
/// side by side; checks the results and returns where each launch was placed.
class CopiesBesideBurns {
public:
  explicit CopiesBesideBurns(xpu::Device& D) : D(D), P(compileProgram("CoRun")) {
    if (slicesDevice(D)) {
      xpu::DeviceCalibration C = xpu::DeviceCalibration::current(D);
      Planned =
          C.fact("read-bandwidth-half-slice").has_value() && C.copyBandwidth() && C.fp32Flops();
      EXPECT_TRUE(Planned) << "a device that cuts slices measures their bandwidth: "
                           << C.absentReason("read-bandwidth-half-slice");
      if (Planned) {
        CopyBandwidth = *C.copyBandwidth();
        Flops = *C.fp32Flops();
      }
    }
  }

  bool planned() const { return Planned; }

  void run(Placements& Copies, Placements& Burns) {
    const uint32_t N = slicesDevice(D) ? (1u << 24) : (1u << 16);
    std::vector<float> Data(N);
    for (uint32_t I = 0; I < N; ++I)
      Data[I] = float(I % 4099);
    auto Src = toDevice(Data);
    auto Dst = toDevice(std::vector<float>(N, 0));
    auto Burnt = toDevice(std::vector<float>(N, 0));
    xpu::Kernel Copy = P.kernel("CoRun.copy"), Burn = P.kernel("CoRun.burn");
    xpu::KernelStream Memory, Compute;
    // The burn's rounds: as long alone as a copy where the device is calibrated, a few
    // elsewhere.
    uint32_t Rounds = 64;
    if (Planned) {
      xpu::ResourceDescriptor One =
          Burn.launch(xpu::KernelSubmission(Compute), xpu::grid(N / Block),
                      xpu::block(Block))(Burnt, 0.5f, Rounds, N);
      Compute.sync();
      EXPECT_TRUE(One.operations && *One.operations > 0);
      double PerRound = One.operations.value_or(0) / Flops / Rounds;
      if (PerRound > 0)
        Rounds = uint32_t(std::clamp(8.0 * N / CopyBandwidth / PerRound, 64.0, 1e6));
    }
    for (int I = 0; I < 24; ++I) {
      Copies.add(Copy.launch(xpu::KernelSubmission(Memory), xpu::grid(N / Block),
                             xpu::block(Block))(Dst, Src, N));
      Burns.add(Burn.launch(xpu::KernelSubmission(Compute), xpu::grid(N / Block),
                            xpu::block(Block))(Burnt, 0.5f, Rounds, N));
    }
    Memory.sync();
    Compute.sync();
    expectSame(fromDevice(Dst), Data, "24 copies beside the burns");
    expectSame(fromDevice(Burnt), std::vector<float>(N, 2.0f), "24 burns beside the copies");
  }

private:
  xpu::Device& D;
  xpu::Program P;
  bool Planned = false;
  double CopyBandwidth = 0, Flops = 0;
};

void expectWhole(Placements& Copies, Placements& Burns) {
  EXPECT_EQ(Copies.Count[xpu::Placement::Whole], 24);
  EXPECT_EQ(Burns.Count[xpu::Placement::Whole], 24);
}

TEST(CoRunning, AMemoryAndAComputeStreamShareTheDeviceOnASliceAndItsComplement) {
  xpu::Device D = xpu::defaultDevice();
  ReservationSetAside Aside(D);
  CoRunningMode Always(xpu::Scheduler::CoRunning::Always);
  CopiesBesideBurns Pair(D);
  Placements Copies, Burns;
  Pair.run(Copies, Burns);
  if (!Pair.planned())
    return expectWhole(Copies, Burns);
  // The first launch of each has nothing to pair with yet, and while the first cut's green
  // contexts are made (milliseconds) the queued work drains; the rest co-run, the copies on the
  // slice and the burns on its complement, never the other way round.
  EXPECT_GE(Copies.Count[xpu::Placement::Slice], 12);
  EXPECT_GE(Burns.Count[xpu::Placement::SliceComplement], 12);
  EXPECT_EQ(Copies.Count[xpu::Placement::SliceComplement], 0);
  EXPECT_EQ(Burns.Count[xpu::Placement::Slice], 0);
  EXPECT_GT(Copies.SliceUnits, 0u);
  EXPECT_LT(Copies.SliceUnits, D.computeUnits());
  EXPECT_GT(Burns.ComplementUnits, 0u);
  EXPECT_LT(Burns.ComplementUnits, D.computeUnits());
}

TEST(CoRunning, AutoCutsOnlyTheRightWayRoundAndOffNever) {
  xpu::Device D = xpu::defaultDevice();
  ReservationSetAside Aside(D);
  CopiesBesideBurns Pair(D);
  {
    CoRunningMode Auto(xpu::Scheduler::CoRunning::Auto);
    Placements Copies, Burns;
    Pair.run(Copies, Burns); // a cut or none, as the device's measurements predict
    EXPECT_EQ(Copies.Count[xpu::Placement::SliceComplement], 0);
    EXPECT_EQ(Burns.Count[xpu::Placement::Slice], 0);
    EXPECT_EQ(Copies.Count[xpu::Placement::Reserved] + Burns.Count[xpu::Placement::Reserved], 0);
  }
  CoRunningMode Off(xpu::Scheduler::CoRunning::Off);
  Placements Copies, Burns;
  Pair.run(Copies, Burns);
  expectWhole(Copies, Burns);
}

TEST(CoRunning, TwoStreamsOfOneClassAreNeverCut) {
  xpu::Device D = xpu::defaultDevice();
  ReservationSetAside Aside(D);
  CoRunningMode Always(xpu::Scheduler::CoRunning::Always);
  xpu::Program P = compileProgram("CoRun");
  const uint32_t N = slicesDevice(D) ? (1u << 24) : (1u << 16);
  std::vector<float> Data(N, 3.5f);
  auto Src = toDevice(Data);
  auto Dst = toDevice(std::vector<float>(N, 0)), Dst2 = toDevice(std::vector<float>(N, 0));
  xpu::Kernel Copy = P.kernel("CoRun.copy");
  xpu::KernelStream First, Second;
  Placements Same;
  for (int I = 0; I < 8; ++I) {
    Same.add(Copy.launch(xpu::KernelSubmission(First), xpu::grid(N / Block),
                         xpu::block(Block))(Dst, Src, N));
    Same.add(Copy.launch(xpu::KernelSubmission(Second), xpu::grid(N / Block),
                         xpu::block(Block))(Dst2, Src, N));
  }
  First.sync();
  Second.sync();
  EXPECT_EQ(Same.Count[xpu::Placement::Whole], 16);
  expectSame(fromDevice(Dst), Data, "copies on the first stream");
  expectSame(fromDevice(Dst2), Data, "copies on the second stream");
}

TEST(CoRunning, TheCApiRefusesAModeThatDoesNotExist) {
  int Before = cajeta_xpu_scheduler_co_running();
  EXPECT_EQ(cajeta_xpu_scheduler_set_co_running(7), -1);
  EXPECT_EQ(cajeta_xpu_scheduler_set_co_running(-1), -1);
  EXPECT_EQ(cajeta_xpu_scheduler_co_running(), Before);
  EXPECT_EQ(cajeta_xpu_scheduler_set_co_running(CAJETA_XPU_CORUN_OFF), Before);
  EXPECT_EQ(cajeta_xpu_scheduler_set_co_running(Before), CAJETA_XPU_CORUN_OFF);
}

} // namespace
} // namespace conformance
