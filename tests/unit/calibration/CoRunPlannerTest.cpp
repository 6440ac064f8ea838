// Co-running admission's arithmetic: a memory-bound and a compute-bound stream share the device
// only where slices are predicted to finish the pair clearly sooner than one after the other.
#include "runtime/scheduler/CoRunPlanner.h"

#include <gtest/gtest.h>

using cajeta::xpu::rt::BandwidthCurve;
using cajeta::xpu::rt::CoRunPlan;
using cajeta::xpu::rt::CoRunPlanner;

namespace {

// Read bandwidth by SMs as a 132-SM device measured it (GB/s): it needs most SMs to keep enough
// bytes in flight.
BandwidthCurve latencyBound() {
  return BandwidthCurve({{40, 1640e9}, {64, 2430e9}, {92, 3100e9}}, 132, 3690e9);
}
// A device whose bandwidth a quarter of its units already reach.
BandwidthCurve saturatesEarly() {
  return BandwidthCurve({{32, 3500e9}, {64, 3600e9}, {96, 3600e9}}, 128, 3600e9);
}

} // namespace

TEST(CoRunPlanner, CurveInterpolatesBetweenMeasuredPoints) {
  BandwidthCurve C = latencyBound();
  EXPECT_DOUBLE_EQ(C.fractionAt(0), 0);
  EXPECT_DOUBLE_EQ(C.fractionAt(132), 1);
  EXPECT_DOUBLE_EQ(C.fractionAt(200), 1);
  EXPECT_NEAR(C.fractionAt(64), 2430.0 / 3690, 1e-12);
  EXPECT_NEAR(C.fractionAt(52), (1640.0 + 2430.0) / 2 / 3690, 1e-12);
  EXPECT_NEAR(C.fractionAt(20), 820.0 / 3690, 1e-12);
  EXPECT_TRUE(BandwidthCurve().empty());
  EXPECT_TRUE(BandwidthCurve({}, 132, 3690e9).empty()); // no slice was measured
}

TEST(CoRunPlanner, BalancedComplementaryWorkSplitsWhereBothSidesFinishTogether) {
  CoRunPlanner P(132, 8, latencyBound());
  CoRunPlan Plan = P.plan(4.36e-3, 3.76e-3); // 20 triads and 3 FMA kernels, measured alone
  ASSERT_EQ(Plan.MemoryUnits, 64u);
  EXPECT_NEAR(Plan.SerialSeconds, 8.12e-3, 1e-9);
  EXPECT_LT(Plan.PlannedSeconds, 0.95 * Plan.SerialSeconds);
  EXPECT_NEAR(Plan.ComputeSlowdown, 132.0 / 68, 1e-12);
  EXPECT_NEAR(Plan.MemorySlowdown, 3690.0 / 2430, 1e-12);
}

TEST(CoRunPlanner, WhereBandwidthSaturatesEarlyTheMemorySideIsSmall) {
  CoRunPlanner P(128, 8, saturatesEarly());
  CoRunPlan Plan = P.plan(4e-3, 4e-3);
  ASSERT_NE(Plan.MemoryUnits, 0u);
  EXPECT_LE(Plan.MemoryUnits, 40u);
  EXPECT_LT(Plan.PlannedSeconds, 0.7 * Plan.SerialSeconds);
}

TEST(CoRunPlanner, LopsidedWorkIsNotAdmitted) {
  CoRunPlanner P(132, 8, latencyBound());
  // A sliver of compute beside a long memory stream gains less than the margin.
  EXPECT_EQ(P.plan(10e-3, 0.2e-3).MemoryUnits, 0u);
  EXPECT_EQ(P.plan(0.2e-3, 10e-3).MemoryUnits, 0u);
}

TEST(CoRunPlanner, ANegativeMarginTakesTheBestCutWhateverItPredicts) {
  CoRunPlanner P(132, 8, latencyBound());
  CoRunPlan Forced = P.plan(10e-3, 0.2e-3, -1);
  ASSERT_NE(Forced.MemoryUnits, 0u);
  EXPECT_GE(Forced.MemoryUnits, 96u); // nearly all to the memory side
  EXPECT_GT(Forced.PlannedSeconds, Forced.SerialSeconds);
  EXPECT_EQ(P.plan(4e-3, 0, -1).MemoryUnits, 0u); // still nothing to pair with
}

TEST(CoRunPlanner, NothingToPairOrNothingMeasuredIsNotAdmitted) {
  EXPECT_EQ(CoRunPlanner(132, 8, latencyBound()).plan(4e-3, 0).MemoryUnits, 0u);
  EXPECT_EQ(CoRunPlanner(132, 8, latencyBound()).plan(0, 4e-3).MemoryUnits, 0u);
  EXPECT_EQ(CoRunPlanner(132, 8, BandwidthCurve()).plan(4e-3, 4e-3).MemoryUnits, 0u);
  EXPECT_EQ(CoRunPlanner(132, 0, latencyBound()).plan(4e-3, 4e-3).MemoryUnits, 0u);
  EXPECT_EQ(CoRunPlanner(12, 8, latencyBound()).plan(4e-3, 4e-3).MemoryUnits, 0u);
  CoRunPlan None = CoRunPlanner(132, 8, BandwidthCurve()).plan(1e-3, 2e-3);
  EXPECT_DOUBLE_EQ(None.PlannedSeconds, None.SerialSeconds);
}
