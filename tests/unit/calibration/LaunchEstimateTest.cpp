// A launch's class and seconds alone for co-running admission: the roofline of the device's
// record, or the rates the kernel achieved alone where it has a record of its own.
#include "runtime/scheduler/LaunchEstimate.h"

#include <gtest/gtest.h>

using cajeta::xpu::rt::DeviceRates;
using cajeta::xpu::rt::estimateLaunch;
using cajeta::xpu::rt::KernelRates;
using cajeta::xpu::rt::LaunchEstimate;

namespace {

// An H200-like device: 4.25 TB/s copy, 60 TFLOP/s float32 FMA, ridge 14 FLOP/B.
const DeviceRates H200{14.0, 4.25e12, 60e12};

} // namespace

TEST(LaunchEstimate, TheRooflineClassifiesByTheRidge) {
  LaunchEstimate Copy = estimateLaunch(8e9, 0, H200, nullptr); // 8 GB, no arithmetic
  EXPECT_TRUE(Copy.Classified);
  EXPECT_TRUE(Copy.MemoryBound);
  EXPECT_FALSE(Copy.FromKernelRecord);
  EXPECT_DOUBLE_EQ(Copy.SoloSeconds, 8e9 / 4.25e12);
  LaunchEstimate Burn = estimateLaunch(1e6, 6e12, H200, nullptr); // 6e6 FLOP/B
  EXPECT_FALSE(Burn.MemoryBound);
  EXPECT_DOUBLE_EQ(Burn.SoloSeconds, 6e12 / 60e12);
  // No bytes at all: compute-bound whatever the ridge.
  EXPECT_FALSE(estimateLaunch(0, 1e9, H200, nullptr).MemoryBound);
}

TEST(LaunchEstimate, UnboundedCostsAreNotClassified) {
  EXPECT_FALSE(estimateLaunch(-1, 1e9, H200, nullptr).Classified);
  EXPECT_FALSE(estimateLaunch(1e9, -1, H200, nullptr).Classified);
  KernelRates Rates{2e12, 1e12};
  EXPECT_FALSE(estimateLaunch(-1, -1, H200, &Rates).Classified); // a record cannot classify it
  EXPECT_FALSE(estimateLaunch(1e9, 1e9, DeviceRates{}, nullptr).Classified); // no device record
}

TEST(LaunchEstimate, AKernelRecordClassifiesByTheUnitItKeptBusier) {
  // Intensity 20 FLOP/B is above the ridge, so the roofline calls it compute-bound; alone it
  // reached 3 TB/s (71 % of the copy bandwidth) but only 9 TFLOP/s (15 % of the FMA rate): a
  // gather-heavy kernel whose arithmetic never ran at speed. Measured, it is memory-bound.
  const double Bytes = 1e9, Ops = 20e9;
  EXPECT_FALSE(estimateLaunch(Bytes, Ops, H200, nullptr).MemoryBound);
  KernelRates Gather{3e12, 9e12};
  LaunchEstimate E = estimateLaunch(Bytes, Ops, H200, &Gather);
  EXPECT_TRUE(E.Classified);
  EXPECT_TRUE(E.FromKernelRecord);
  EXPECT_TRUE(E.MemoryBound);
  EXPECT_DOUBLE_EQ(E.SoloSeconds, Bytes / 3e12); // this launch's bytes at its achieved rate
  // The other way round: below the ridge by its manifest, yet alone it ran the FMA units at
  // half their rate and the memory at a tenth of the copy bandwidth.
  KernelRates Dense{0.425e12, 30e12};
  LaunchEstimate D = estimateLaunch(2e9, 10e9, H200, &Dense);
  EXPECT_TRUE(estimateLaunch(2e9, 10e9, H200, nullptr).MemoryBound);
  EXPECT_FALSE(D.MemoryBound);
  EXPECT_DOUBLE_EQ(D.SoloSeconds, 10e9 / 30e12);
}

TEST(LaunchEstimate, ARecordWithoutRatesLeavesTheRoofline) {
  KernelRates NoBandwidth{std::nullopt, 1e12};
  LaunchEstimate E = estimateLaunch(8e9, 0, H200, &NoBandwidth);
  EXPECT_FALSE(E.FromKernelRecord);
  EXPECT_TRUE(E.MemoryBound);
  EXPECT_DOUBLE_EQ(E.SoloSeconds, 8e9 / 4.25e12);
  KernelRates NoFlops{3e12, std::nullopt};
  EXPECT_FALSE(estimateLaunch(8e9, 0, H200, &NoFlops).FromKernelRecord);
  // A pure copy's record (no operations): memory-bound at its achieved bandwidth.
  KernelRates Copy{3.9e12, 0.0};
  LaunchEstimate C = estimateLaunch(8e9, 0, H200, &Copy);
  EXPECT_TRUE(C.FromKernelRecord);
  EXPECT_TRUE(C.MemoryBound);
  EXPECT_DOUBLE_EQ(C.SoloSeconds, 8e9 / 3.9e12);
}
