// Submissions (spec 17.8): what a launch adds to the kernel's defaults — a policy, a dispatch
// window, protection, budgets, a capture identity and the target stream — and the resource
// descriptor the scheduler returns for it.
#pragma once

#include "cajeta/xpu/Stream.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace cajeta::xpu {

enum class Policy : uint32_t {
  Throughput = CAJETA_XPU_POLICY_THROUGHPUT,
  Latency = CAJETA_XPU_POLICY_LATENCY,
  FrameBudget = CAJETA_XPU_POLICY_FRAME_BUDGET,
  Energy = CAJETA_XPU_POLICY_ENERGY
};

enum class Protection : uint32_t {
  None = CAJETA_XPU_PROTECTION_NONE,
  Isolated = CAJETA_XPU_PROTECTION_ISOLATED
};

/// The clock of submission windows (CLOCK_MONOTONIC).
using SubmissionClock = std::chrono::steady_clock;

class KernelSubmission {
public:
  /// The defaults: throughput, no window, on the calling thread's current stream.
  KernelSubmission() { C.size = sizeof(C); }
  explicit KernelSubmission(KernelStream& S) : KernelSubmission() { C.stream = S.handle(); }

  KernelSubmission& on(KernelStream& S) {
    C.stream = S.handle();
    return *this;
  }
  KernelSubmission& policy(Policy P) {
    C.policy = uint32_t(P);
    return *this;
  }
  /// Starts no earlier than Earliest and no later than Latest, or never.
  KernelSubmission& window(SubmissionClock::time_point Earliest,
                           SubmissionClock::time_point Latest) {
    C.earliest_ns = toNs(Earliest);
    C.latest_ns = toNs(Latest);
    return *this;
  }
  /// Starts no later than Latest, or never.
  KernelSubmission& deadline(SubmissionClock::time_point Latest) {
    C.latest_ns = toNs(Latest);
    return *this;
  }
  /// Starts within D from now, or never.
  KernelSubmission& within(SubmissionClock::duration D) {
    return deadline(SubmissionClock::now() + D);
  }
  KernelSubmission& notBefore(SubmissionClock::time_point Earliest) {
    C.earliest_ns = toNs(Earliest);
    return *this;
  }
  KernelSubmission& protection(Protection P) {
    C.protection = uint32_t(P);
    return *this;
  }
  KernelSubmission& computeUnits(uint32_t Budget) {
    C.compute_units = Budget;
    return *this;
  }
  /// Consecutive submissions on a stream with the same nonzero id form a chain that the runtime
  /// records once and replays.
  KernelSubmission& capture(uint64_t Id) {
    C.capture_id = Id;
    return *this;
  }
  KernelSubmission& energyBudget(double Joules) {
    C.energy_joules = Joules;
    return *this;
  }

  const cajeta_xpu_submission& raw() const { return C; }

private:
  static uint64_t toNs(SubmissionClock::time_point T) {
    auto Ns = std::chrono::duration_cast<std::chrono::nanoseconds>(T.time_since_epoch()).count();
    return Ns > 0 ? uint64_t(Ns) : 1; // 0 means "no bound"
  }
  cajeta_xpu_submission C{};
};

enum class AccessMode : uint32_t {
  Read = CAJETA_XPU_ACCESS_READ,
  Write = CAJETA_XPU_ACCESS_WRITE,
  ReadWrite = CAJETA_XPU_ACCESS_READ_WRITE,
  Accumulate = CAJETA_XPU_ACCESS_ACCUMULATE
};

/// A submission's operations per byte against the device's measured ridge.
enum class ArithmeticClass : uint32_t {
  Unknown = CAJETA_XPU_CLASS_UNKNOWN,
  MemoryBound = CAJETA_XPU_CLASS_MEMORY_BOUND,
  ComputeBound = CAJETA_XPU_CLASS_COMPUTE_BOUND
};

/// Where the scheduler placed a launch on its device.
enum class Placement : uint32_t {
  Whole = CAJETA_XPU_PLACEMENT_WHOLE,
  Reserved = CAJETA_XPU_PLACEMENT_RESERVED,   // the latency class's reserved units
  Remainder = CAJETA_XPU_PLACEMENT_REMAINDER, // the units not reserved
  Slice = CAJETA_XPU_PLACEMENT_SLICE, // a co-running memory-bound launch, or a compute-unit budget
  SliceComplement = CAJETA_XPU_PLACEMENT_SLICE_COMPLEMENT // a co-running compute-bound launch
};

/// One buffer a submission touches; costs absent where the manifest cannot bound them.
struct BufferAccess {
  cajeta_xpu_buffer* buffer = nullptr;
  uint32_t param = 0;
  AccessMode access = AccessMode::Read;
  bool streaming = false;
  std::optional<double> bytesRead, bytesWritten;
};

/// The kernel's resource descriptor for one submission: its manifest bound to the buffers and
/// scalars passed. Unclassified (classified false) when the manifest has no scheduling section.
struct ResourceDescriptor {
  std::string kernel;
  bool classified = false;
  Policy policy = Policy::Throughput;
  cajeta_xpu_kernel_footprint footprint{};
  std::optional<double> bytesRead, bytesWritten, operations;
  bool restartable = false;
  uint32_t yieldPoints = 0;
  std::vector<BufferAccess> reads, writes, accumulates; // read-write buffers are in both sets
  /// Operations per byte moved, and the device's measured ridge it was classed against (absent
  /// without costs, or without a calibration record of the device: DeviceCalibration).
  std::optional<double> intensity, ridge;
  ArithmeticClass arithmeticClass = ArithmeticClass::Unknown;
  /// Where it runs, and on how many compute units (the device's count for the whole device).
  Placement placement = Placement::Whole;
  uint32_t computeUnits = 0;

  static ResourceDescriptor fromC(const cajeta_xpu_resource_descriptor& D) {
    auto Known = [](double V) { return V < 0 ? std::nullopt : std::optional<double>(V); };
    ResourceDescriptor R;
    R.kernel = D.kernel ? D.kernel : "";
    R.classified = D.classified != 0;
    R.policy = Policy(D.policy);
    R.footprint = D.footprint;
    R.bytesRead = Known(D.bytes_read);
    R.bytesWritten = Known(D.bytes_written);
    R.operations = Known(D.operations);
    R.restartable = D.restartable != 0;
    R.yieldPoints = D.yield_points;
    R.intensity = Known(D.intensity);
    R.ridge = Known(D.ridge);
    R.arithmeticClass = ArithmeticClass(D.arithmetic_class);
    R.placement = Placement(D.placement);
    R.computeUnits = D.compute_units;
    for (size_t I = 0; I != D.access_count; ++I) {
      const cajeta_xpu_buffer_access& A = D.accesses[I];
      BufferAccess B{A.buffer,
                     A.param,
                     AccessMode(A.access),
                     A.streaming != 0,
                     Known(A.bytes_read),
                     Known(A.bytes_written)};
      if (B.access == AccessMode::Accumulate)
        R.accumulates.push_back(B);
      if (B.access == AccessMode::Read || B.access == AccessMode::ReadWrite)
        R.reads.push_back(B);
      if (B.access == AccessMode::Write || B.access == AccessMode::ReadWrite)
        R.writes.push_back(B);
    }
    return R;
  }
};

} // namespace cajeta::xpu
