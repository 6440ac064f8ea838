// Submissions: checking the C form (Submission.h).
#include "runtime/scheduler/Submission.h"

#include "runtime/Backend.h"
#include "runtime/RuntimeError.h"

#include <chrono>
#include <cmath>
#include <cstddef>
#include <fmt/format.h>

namespace cajeta::xpu::rt {

uint64_t monotonicNowNs() {
  static_assert(std::chrono::steady_clock::is_steady);
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

const char* policyName(cajeta_xpu_policy P) {
  switch (P) {
  case CAJETA_XPU_POLICY_THROUGHPUT:
    return "throughput";
  case CAJETA_XPU_POLICY_LATENCY:
    return "latency";
  case CAJETA_XPU_POLICY_FRAME_BUDGET:
    return "frameBudget";
  case CAJETA_XPU_POLICY_ENERGY:
    return "energy";
  }
  return "unknown";
}

Submission Submission::fromC(const cajeta_xpu_submission& C, const BackendDevice& Device,
                             const char* KernelName) {
  auto Bad = [&](const std::string& Why) {
    fail(CAJETA_XPU_LAUNCH_ERROR, fmt::format("{}: submission {}", KernelName, Why));
  };
  // The fields up to `stream` are the first version; a larger size comes from a newer header.
  if (C.size < offsetof(cajeta_xpu_submission, stream) + sizeof(C.stream))
    Bad(fmt::format("size {} is too small: set it to sizeof(cajeta_xpu_submission) ({})", C.size,
                    sizeof(cajeta_xpu_submission)));
  Submission S;
  if (C.policy > CAJETA_XPU_POLICY_ENERGY)
    Bad(fmt::format("policy {} is not a cajeta_xpu_policy", C.policy));
  S.Policy = cajeta_xpu_policy(C.policy);
  if (C.protection > CAJETA_XPU_PROTECTION_ISOLATED)
    Bad(fmt::format("protection {} is not a cajeta_xpu_protection", C.protection));
  S.Protection = cajeta_xpu_protection(C.protection);
  if (C.latest_ns && C.earliest_ns > C.latest_ns)
    Bad(fmt::format("window is empty: earliest {} ns is after latest {} ns", C.earliest_ns,
                    C.latest_ns));
  S.EarliestNs = C.earliest_ns;
  S.LatestNs = C.latest_ns;
  if (C.compute_units > Device.computeUnits())
    Bad(fmt::format("asks for {} compute units; the {} device '{}' has {}", C.compute_units,
                    Device.backendName(), Device.name(), Device.computeUnits()));
  S.ComputeUnits = C.compute_units;
  if (!std::isfinite(C.energy_joules) || C.energy_joules < 0)
    Bad(fmt::format("energy budget {} J is not a finite, non-negative number", C.energy_joules));
  S.EnergyJoules = C.energy_joules;
  S.CaptureId = C.capture_id;
  return S;
}

} // namespace cajeta::xpu::rt
