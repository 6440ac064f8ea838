// A launch's submission (spec 17.8): its policy, dispatch window, protection, budgets, capture
// identity and stream. The plain launch is a submission at the defaults.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"

#include <cstdint>

namespace cajeta::xpu::rt {

class BackendDevice;

struct Submission {
  cajeta_xpu_policy Policy = CAJETA_XPU_POLICY_THROUGHPUT;
  uint64_t EarliestNs = 0; // monotonicNowNs clock; 0: no lower bound
  uint64_t LatestNs = 0;   // 0: no deadline
  cajeta_xpu_protection Protection = CAJETA_XPU_PROTECTION_NONE;
  uint32_t ComputeUnits = 0; // 0: the whole device
  uint64_t CaptureId = 0;    // 0: not part of a chain
  double EnergyJoules = 0;   // 0: no budget

  bool hasWindow() const { return EarliestNs || LatestNs; }

  /// Checks and converts the C form (its size field, enum ranges, an empty window, a budget the
  /// device cannot give); throws RuntimeError naming the field.
  static Submission fromC(const cajeta_xpu_submission& C, const BackendDevice& Device,
                          const char* KernelName);
};

/// The clock submission windows are given in (CLOCK_MONOTONIC), in nanoseconds.
uint64_t monotonicNowNs();

const char* policyName(cajeta_xpu_policy P); // "throughput", "latency", ...

} // namespace cajeta::xpu::rt
