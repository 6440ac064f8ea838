// Co-running admission by complementarity (spec 17.8): whether a memory-bound and a
// compute-bound stream of work should share the device side by side, each on its own slice of
// the compute units, and where to cut. Pure arithmetic over measured numbers (the device's
// calibration record), so it is tested without a device.
//
// The model: a compute-bound kernel's rate is proportional to the compute units it runs on; a
// memory-bound kernel's is the read bandwidth measured on slices of the device (it rises with
// the units that keep bytes in flight, then flattens); queued work is counted in seconds alone on
// the whole device. Co-running is admitted only where the predicted time of the pair is at least
// a margin below running them one after the other, which is what two streams sharing a device
// without slices measure (docs/benchmarks.md, "The throughput profile on the H200").
#pragma once

#include <utility>
#include <vector>

namespace cajeta::xpu::rt {

/// The compute units of a slice asked for Units: rounded up to Granularity, at least one step
/// (what the CUDA backend cuts; 0 where Granularity is 0).
inline unsigned sliceSize(unsigned Units, unsigned Granularity) {
  if (!Granularity)
    return 0;
  unsigned Steps = (Units + Granularity - 1) / Granularity;
  return (Steps ? Steps : 1) * Granularity;
}

/// Read bandwidth by compute units, from measured points; linear between them, through (0, 0)
/// and the whole device's.
class BandwidthCurve {
public:
  BandwidthCurve() = default;
  /// Points: (units, bytes per second), any order; Units and Full: the whole device's.
  BandwidthCurve(std::vector<std::pair<double, double>> Points, double Units, double Full);

  bool empty() const { return Points.size() < 3; }
  /// The fraction of the whole device's bandwidth on Units compute units.
  double fractionAt(double Units) const;

private:
  std::vector<std::pair<double, double>> Points; // sorted by units, (0, 0) first
};

struct CoRunPlan {
  /// Compute units for the memory-bound side; the compute-bound side gets the rest. 0: not
  /// admitted (both run on the whole device, one after the other).
  unsigned MemoryUnits = 0;
  /// Seconds predicted for the queued pair: one after the other, and side by side as planned.
  double SerialSeconds = 0;
  double PlannedSeconds = 0;
  /// How much longer each side's work takes on its slice than alone on the whole device.
  double MemorySlowdown = 1;
  double ComputeSlowdown = 1;
};

class CoRunPlanner {
public:
  /// Units: the device's compute units; Granularity: the slices' size step (the driver's).
  CoRunPlanner(unsigned Units, unsigned Granularity, BandwidthCurve Curve)
      : Units(Units), Granularity(Granularity), Curve(std::move(Curve)) {}

  /// The plan for MemorySeconds of memory-bound and ComputeSeconds of compute-bound work on
  /// different streams (seconds each would take alone on the whole device): the best cut where
  /// it is predicted to finish at least Margin (a fraction) sooner than one after the other;
  /// a negative Margin takes the best cut whatever it predicts.
  CoRunPlan plan(double MemorySeconds, double ComputeSeconds, double Margin = 0.05) const;
  /// The same work cut at MemoryUnits, whether or not that is best or admitted.
  CoRunPlan planAt(unsigned MemoryUnits, double MemorySeconds, double ComputeSeconds) const;

private:
  unsigned Units, Granularity;
  BandwidthCurve Curve;
};

} // namespace cajeta::xpu::rt
