// The energy policy (spec 17.8: a submission's policy is one of throughput, latency, frameBudget
// or energy): an energy submission runs on the fewest compute units that finish it as soon as
// the whole device would, the rest left idle or to other work. A grid of at most one workgroup
// per unit takes as many units (rounded up to the device's step); a compute-bound grid of more
// takes the fewest on which no unit runs more workgroups than on the whole device; a
// memory-bound one keeps the whole device, whose bandwidth it needs. Where the device cannot
// confine a launch (Vulkan, the CPU) every launch reports the whole device; the results are the
// same everywhere.
#include "ConformanceSupport.h"
#include "ReservationSetAside.h"

#include <cajeta/xpu/Calibration.hpp>
#include <cajeta/xpu/Scheduler.hpp>

namespace conformance {
namespace {

constexpr uint32_t Block = 256;

/// CoRun.burn over Groups workgroups under Policy; checks every work-item's result and returns
/// where the launch ran.
xpu::ResourceDescriptor burn(xpu::Program& P, xpu::Policy Policy, uint32_t Groups,
                             uint32_t Rounds) {
  const uint32_t N = Groups * Block;
  auto Out = toDevice(std::vector<float>(N, 0));
  xpu::KernelStream S;
  xpu::ResourceDescriptor R =
      P.kernel("CoRun.burn")
          .launch(xpu::KernelSubmission(S).policy(Policy), xpu::grid(Groups),
                  xpu::block(Block))(Out, 0.5f, Rounds, N);
  S.sync();
  expectSame(fromDevice(Out), std::vector<float>(N, 2.0f), "the burn's results");
  return R;
}

TEST(EnergyPolicy, AGridOfFewerWorkgroupsThanUnitsRunsOnTheUnitsThatHoldIt) {
  xpu::Device D = xpu::defaultDevice();
  ReservationSetAside Aside(D);
  xpu::Program P = compileProgram("CoRun");
  const uint32_t Groups = std::max(1u, D.computeUnits() / 2);
  xpu::ResourceDescriptor Energy = burn(P, xpu::Policy::Energy, Groups, 64);
  EXPECT_EQ(Energy.policy, xpu::Policy::Energy);
  if (slicesDevice(D) && Groups + 16 <= D.computeUnits()) {
    EXPECT_EQ(Energy.placement, xpu::Placement::Slice);
    EXPECT_GE(Energy.computeUnits, Groups);
    EXPECT_LT(Energy.computeUnits, D.computeUnits());
  } else {
    expectWholeDevice(Energy, D);
  }
  // The same grid at the throughput policy takes the whole device.
  xpu::ResourceDescriptor Throughput = burn(P, xpu::Policy::Throughput, Groups, 64);
  expectWholeDevice(Throughput, D);
}

TEST(EnergyPolicy, AMemoryBoundGridOfMoreWorkgroupsThanUnitsKeepsTheWholeDevice) {
  xpu::Device D = xpu::defaultDevice();
  ReservationSetAside Aside(D);
  xpu::Program P = compileProgram("CoRun");
  const uint32_t Groups = D.computeUnits() * 3 / 2 + 1, N = Groups * Block;
  std::vector<float> Data(N);
  for (uint32_t I = 0; I < N; ++I)
    Data[I] = float(I % 977) * 0.5f;
  auto Src = toDevice(Data);
  auto Dst = toDevice(std::vector<float>(N, 0));
  xpu::KernelStream S;
  xpu::ResourceDescriptor R = P.kernel("CoRun.copy")
                                  .launch(xpu::KernelSubmission(S).policy(xpu::Policy::Energy),
                                          xpu::grid(Groups), xpu::block(Block))(Dst, Src, N);
  S.sync();
  expectSame(fromDevice(Dst), Data, "an energy copy");
  expectWholeDevice(R, D);
}

TEST(EnergyPolicy, AComputeBoundGridRunsWhereNoUnitTakesMoreWorkgroupsThanOnTheWholeDevice) {
  xpu::Device D = xpu::defaultDevice();
  ReservationSetAside Aside(D);
  xpu::Program P = compileProgram("CoRun");
  // One and a half workgroups per unit: some units of the whole device run two.
  const unsigned Units = D.computeUnits();
  const uint32_t Groups = Units + Units / 2;
  const uint32_t Rounds = 512; // 1024 operations per 4 bytes written: above any ridge
  if (!slicesDevice(D)) {
    xpu::ResourceDescriptor R = burn(P, xpu::Policy::Energy, Groups, Rounds);
    EXPECT_EQ(R.placement, xpu::Placement::Whole);
    return;
  }
  // The class needs the device's measurements.
  xpu::DeviceCalibration C = xpu::DeviceCalibration::current(D);
  ASSERT_TRUE(C.ridge().has_value()) << C.absentReason("ridge");
  xpu::ResourceDescriptor R = burn(P, xpu::Policy::Energy, Groups, Rounds);
  EXPECT_EQ(R.arithmeticClass, xpu::ArithmeticClass::ComputeBound);
  const uint32_t Turns = (Groups + Units - 1) / Units;
  EXPECT_EQ(R.placement, xpu::Placement::Slice);
  EXPECT_GE(R.computeUnits, (Groups + Turns - 1) / Turns);
  EXPECT_LT(R.computeUnits, Units);
}

} // namespace
} // namespace conformance
