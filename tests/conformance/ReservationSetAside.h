// Placement tests' shared pieces: a reservation set aside while slices are tested (slices are
// cut from the whole device, never beside the latency class's reservation), the check of a
// launch on the whole device, and whether a device confines launches to slices at all.
#pragma once

#include <cajeta/xpu/Device.hpp>
#include <cajeta/xpu/Submission.hpp>
#include <gtest/gtest.h>

#include <string>

namespace conformance {

/// Releases the latency class's reservation for the test and makes it again after.
class ReservationSetAside {
public:
  explicit ReservationSetAside(xpu::Device& D) : D(D), Before(D.reservedComputeUnits()) {
    if (Before)
      D.reserve(0);
  }
  ~ReservationSetAside() {
    if (Before)
      D.reserve(Before);
  }
  ReservationSetAside(const ReservationSetAside&) = delete;
  ReservationSetAside& operator=(const ReservationSetAside&) = delete;

private:
  xpu::Device& D;
  unsigned Before;
};

/// A launch placed on the whole device, as its descriptor says.
inline void expectWholeDevice(const xpu::ResourceDescriptor& R, const xpu::Device& D) {
  EXPECT_EQ(R.placement, xpu::Placement::Whole);
  EXPECT_EQ(R.computeUnits, D.computeUnits());
}

/// Whether the device runs a launch on a slice of its compute units (CUDA's green contexts);
/// elsewhere every launch reports the whole device.
inline bool slicesDevice(const xpu::Device& D) {
  return D.backend() == std::string("cuda");
}

} // namespace conformance
