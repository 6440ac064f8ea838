// The Energy policy's slice: the fewest compute units (in the device's steps) on which no unit
// runs more of the launch's workgroups than on the whole device.
#include "runtime/scheduler/RightSizing.h"

#include <gtest/gtest.h>

using cajeta::xpu::rt::rightSizedUnits;
using cajeta::xpu::rt::WorkClass;

namespace {

constexpr unsigned H200Sms = 132, Hopper = 8;

} // namespace

TEST(RightSizing, AGridOfAtMostOneWorkgroupPerUnitTakesAsManyUnitsRoundedUp) {
  for (WorkClass C : {WorkClass::Unknown, WorkClass::MemoryBound, WorkClass::ComputeBound}) {
    EXPECT_EQ(rightSizedUnits(66, H200Sms, Hopper, C), 72u);
    EXPECT_EQ(rightSizedUnits(1, H200Sms, Hopper, C), 8u);
    EXPECT_EQ(rightSizedUnits(64, H200Sms, Hopper, C), 64u);
    EXPECT_EQ(rightSizedUnits(120, H200Sms, Hopper, C), 120u);
    // A slice leaves a step beside it: 121 to 132 workgroups keep the whole device.
    EXPECT_EQ(rightSizedUnits(121, H200Sms, Hopper, C), 0u);
    EXPECT_EQ(rightSizedUnits(128, H200Sms, Hopper, C), 0u);
    EXPECT_EQ(rightSizedUnits(132, H200Sms, Hopper, C), 0u);
  }
}

TEST(RightSizing, ComputeBoundGridsKeepTheMostWorkgroupsAnyUnitRuns) {
  // 198 workgroups: two on some SMs of the whole device; 99 SMs run two each.
  EXPECT_EQ(rightSizedUnits(198, H200Sms, Hopper, WorkClass::ComputeBound), 104u);
  // 900 workgroups: seven on some SMs; 129 SMs run seven each, more than a slice may have.
  EXPECT_EQ(rightSizedUnits(900, H200Sms, Hopper, WorkClass::ComputeBound), 0u);
  // 800: seven on some SMs; 115 SMs run seven each.
  EXPECT_EQ(rightSizedUnits(800, H200Sms, Hopper, WorkClass::ComputeBound), 120u);
  // Whole multiples of the device: every SM is needed.
  EXPECT_EQ(rightSizedUnits(264, H200Sms, Hopper, WorkClass::ComputeBound), 0u);
  EXPECT_EQ(rightSizedUnits(133, H200Sms, Hopper, WorkClass::ComputeBound), 72u);
  // Whatever it picks, no unit of the slice runs more workgroups than one of the whole device.
  for (uint64_t Groups = 1; Groups < 3000; ++Groups) {
    unsigned Units = rightSizedUnits(Groups, H200Sms, Hopper, WorkClass::ComputeBound);
    if (!Units)
      continue;
    EXPECT_EQ(Units % Hopper, 0u);
    EXPECT_LE(Units + Hopper, H200Sms);
    EXPECT_LE((Groups + Units - 1) / Units, (Groups + H200Sms - 1) / H200Sms) << Groups;
  }
}

TEST(RightSizing, MemoryBoundAndUnknownGridsBeyondOnePerUnitKeepTheWholeDevice) {
  EXPECT_EQ(rightSizedUnits(198, H200Sms, Hopper, WorkClass::MemoryBound), 0u);
  EXPECT_EQ(rightSizedUnits(198, H200Sms, Hopper, WorkClass::Unknown), 0u);
  EXPECT_EQ(rightSizedUnits(100000, H200Sms, Hopper, WorkClass::MemoryBound), 0u);
}

TEST(RightSizing, ADeviceThatCannotCutRunsEveryLaunchWhole) {
  EXPECT_EQ(rightSizedUnits(66, H200Sms, 0, WorkClass::ComputeBound), 0u);
  EXPECT_EQ(rightSizedUnits(0, H200Sms, Hopper, WorkClass::ComputeBound), 0u);
  EXPECT_EQ(rightSizedUnits(3, 0, Hopper, WorkClass::ComputeBound), 0u);
  // A device smaller than one step.
  EXPECT_EQ(rightSizedUnits(3, 6, Hopper, WorkClass::ComputeBound), 0u);
}
