// Co-running admission (CoRunPlanner.h).
#include "runtime/scheduler/CoRunPlanner.h"

#include <algorithm>

namespace cajeta::xpu::rt {

BandwidthCurve::BandwidthCurve(std::vector<std::pair<double, double>> Measured, double Units,
                               double Full) {
  if (Units <= 0 || Full <= 0)
    return;
  Points.emplace_back(0.0, 0.0);
  for (const auto& [U, B] : Measured)
    if (U > 0 && U < Units && B > 0)
      Points.emplace_back(U, std::min(B, Full));
  Points.emplace_back(Units, Full);
  std::sort(Points.begin(), Points.end());
}

double BandwidthCurve::fractionAt(double Units) const {
  if (Points.empty())
    return 0;
  const double Full = Points.back().second;
  if (Units >= Points.back().first)
    return 1;
  for (size_t I = 1; I != Points.size(); ++I)
    if (Units <= Points[I].first) {
      const auto& [U0, B0] = Points[I - 1];
      const auto& [U1, B1] = Points[I];
      double T = U1 > U0 ? (Units - U0) / (U1 - U0) : 1;
      return (B0 + T * (B1 - B0)) / Full;
    }
  return 1;
}

CoRunPlan CoRunPlanner::planAt(unsigned K, double MemorySeconds, double ComputeSeconds) const {
  CoRunPlan P;
  P.SerialSeconds = MemorySeconds + ComputeSeconds;
  P.PlannedSeconds = P.SerialSeconds;
  double Bandwidth = Curve.fractionAt(K);
  if (!K || K >= Units || Bandwidth <= 0)
    return P;
  P.MemoryUnits = K;
  P.MemorySlowdown = 1 / Bandwidth;
  P.ComputeSlowdown = double(Units) / double(Units - K);
  P.PlannedSeconds = std::max(MemorySeconds * P.MemorySlowdown, ComputeSeconds * P.ComputeSlowdown);
  return P;
}

CoRunPlan CoRunPlanner::plan(double MemorySeconds, double ComputeSeconds, double Margin) const {
  CoRunPlan Best;
  Best.SerialSeconds = MemorySeconds + ComputeSeconds;
  Best.PlannedSeconds = Best.SerialSeconds;
  if (Curve.empty() || !Granularity || Units < 2 * Granularity || MemorySeconds <= 0 ||
      ComputeSeconds <= 0)
    return Best;
  CoRunPlan Candidate;
  for (unsigned K = Granularity; K + Granularity <= Units; K += Granularity) {
    CoRunPlan At = planAt(K, MemorySeconds, ComputeSeconds);
    if (At.MemoryUnits && (!Candidate.MemoryUnits || At.PlannedSeconds < Candidate.PlannedSeconds))
      Candidate = At;
  }
  if (Candidate.MemoryUnits && Candidate.PlannedSeconds <= (1 - Margin) * Best.SerialSeconds)
    return Candidate;
  return Best;
}

} // namespace cajeta::xpu::rt
