// Co-running admission on one device (CoRunAdmission.h).
#include "runtime/scheduler/CoRunAdmission.h"

#include "runtime/Kernel.h"
#include "runtime/calibration/CalibrationSet.h"
#include "runtime/scheduler/ResourceDescriptor.h"
#include "runtime/scheduler/Scheduler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

namespace cajeta::xpu::rt {

namespace {

double steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The slices DeviceProbe measures the read bandwidth on, as fractions of the device.
constexpr std::pair<const char*, double> MeasuredSlices[] = {
    {"read-bandwidth-quarter-slice", 0.25},
    {"read-bandwidth-half-slice", 0.5},
    {"read-bandwidth-three-quarter-slice", 0.75},
};

// Each stream's demand is the work it issued, forgetting with this time constant: the mix of the
// last tens of milliseconds (an iteration of a training loop, a few frames), steadier than what
// happens to be queued at one launch.
constexpr double DemandSeconds = 0.05;
// Auto admits a pair where it is predicted to finish at least this much sooner than serially.
constexpr double DefaultMargin = 0.05;
// A stream idle this long is forgotten.
constexpr double ForgetAfterSeconds = 1.0;
// A pair already co-running stays on its cut while that cut predicts no loss against serial and
// within this fraction of the best cut: every launch moves the mix a little, a new cut costs two
// green contexts (milliseconds), and one launch on the whole device amid sliced ones takes
// their SMs as their workgroups retire.
constexpr double KeepCutWithin = 0.10;

} // namespace

thread_local unsigned CoRunAdmission::Suspended::Depth = 0;

CoRunAdmission& CoRunAdmission::of(BackendDevice& Device) {
  // Each launch asks: the thread's last answer spares the lock (devices live for the process).
  thread_local const BackendDevice* LastDevice = nullptr;
  thread_local CoRunAdmission* Last = nullptr;
  if (LastDevice == &Device)
    return *Last;
  static std::mutex Mutex;
  static std::map<const BackendDevice*, std::unique_ptr<CoRunAdmission>> All;
  std::lock_guard<std::mutex> Lock(Mutex);
  std::unique_ptr<CoRunAdmission>& A = All[&Device];
  if (!A)
    A = std::make_unique<CoRunAdmission>(Device);
  LastDevice = &Device;
  Last = A.get();
  return *A;
}

unsigned CoRunAdmission::sliceUnits(unsigned Units, unsigned Granularity, double Fraction) {
  if (!Granularity || !Units)
    return 0;
  unsigned Want = unsigned(std::ceil(Units * Fraction));
  unsigned K = sliceSize(Want, Granularity);
  return K + Granularity <= Units ? K : 0;
}

bool CoRunAdmission::loadPlanner() {
  uint64_t Generation = CalibrationSet::generation();
  if (Generation == LoadedGeneration)
    return Planner.has_value();
  bool Busy = false;
  const CalibrationEntry* Entry = CalibrationSet::get().knownWithoutWaiting(Device, Busy);
  if (Busy)
    return Planner.has_value(); // measuring elsewhere: the record held so far, if any
  LoadedGeneration = Generation;
  Planner.reset();
  RatesByCode.clear(); // kernel records may have come or gone with the generation
  // Until the records change, launches need not take the lock to learn there is no plan.
  NothingToPlanAt.store(Generation, std::memory_order_relaxed);
  Ridge = CopyBandwidth = Flops = 0;
  if (!Entry)
    return false;
  auto value = [&](const char* Name) {
    const CalibrationFact* F = Entry->Record.fact(Name);
    return F && F->Value ? *F->Value : 0.0;
  };
  Ridge = value("ridge");
  CopyBandwidth = value("copy-bandwidth");
  Flops = value("fp32-fma-flops");
  double Read = value("read-bandwidth");
  unsigned Units = Device.computeUnits(), Granularity = Device.sliceGranularity();
  std::vector<std::pair<double, double>> Points;
  for (const auto& [Name, Fraction] : MeasuredSlices)
    if (unsigned K = sliceUnits(Units, Granularity, Fraction); K && value(Name) > 0)
      Points.emplace_back(double(K), value(Name));
  if (Ridge <= 0 || CopyBandwidth <= 0 || Flops <= 0 || Read <= 0 || Points.empty())
    return false;
  Planner.emplace(Units, Granularity, BandwidthCurve(std::move(Points), Units, Read));
  NothingToPlanAt.store(~uint64_t(0), std::memory_order_relaxed);
  return true;
}

const KernelRates* CoRunAdmission::kernelRates(const Kernel& K) {
  uint64_t Code = K.manifest() ? K.manifest()->CodeHash : 0;
  auto [It, New] = RatesByCode.try_emplace(Code);
  if (New) {
    // The kernel's own record (`cajeta calibrate <program>`), from its bundle or the store;
    // looked up once per kernel and record generation.
    if (const CalibrationEntry* E = CalibrationSet::get().kernelRecord(K)) {
      auto value = [&](const char* Name) -> std::optional<double> {
        const CalibrationFact* F = E->Record.fact(Name);
        return F ? F->Value : std::nullopt;
      };
      It->second = KernelRates{value("achieved-bandwidth"), value("achieved-flops")};
    }
  }
  return It->second ? &*It->second : nullptr;
}

LaunchEstimate CoRunAdmission::estimate(const Kernel& K, const cajeta_xpu_arg* Args,
                                        const LaunchGeometry& Geometry) {
  LaunchCost Cost = launchCost(K, Args, Geometry);
  double Bytes =
      Cost.BytesRead < 0 || Cost.BytesWritten < 0 ? -1 : Cost.BytesRead + Cost.BytesWritten;
  return estimateLaunch(Bytes, Cost.Operations, {Ridge, CopyBandwidth, Flops}, kernelRates(K));
}

WorkClass CoRunAdmission::classify(const Kernel& K, const cajeta_xpu_arg* Args,
                                   const LaunchGeometry& Geometry) {
  std::lock_guard<std::mutex> Lock(Mutex);
  loadPlanner(); // the device's rates, with or without the slice facts a plan needs
  LaunchEstimate E = estimate(K, Args, Geometry);
  if (!E.Classified)
    return WorkClass::Unknown;
  return E.MemoryBound ? WorkClass::MemoryBound : WorkClass::ComputeBound;
}

void CoRunAdmission::place(const void* Stream, const Kernel& K, const cajeta_xpu_arg* Args,
                           LaunchGeometry& Geometry) {
  if (Scheduler::coRunning() == CAJETA_XPU_CORUN_OFF ||
      NothingToPlanAt.load(std::memory_order_relaxed) == CalibrationSet::generation() ||
      Suspended::active())
    return; // co-running is off, no record to plan with, or a measurement of the whole device
  std::lock_guard<std::mutex> Lock(Mutex);
  double Now = steadySeconds();
  if (auto [It, New] = Streams.try_emplace(Stream); New)
    It->second.Stamp = It->second.BusyUntil = Now;
  if (Streams.size() < 2 || !loadPlanner())
    return; // one stream: nothing to pair with; no measurements: nothing to plan with
  LaunchEstimate Estimate = estimate(K, Args, Geometry);
  if (!Estimate.Classified)
    return; // unclassified
  const bool Memory = Estimate.MemoryBound;
  const double Solo = Estimate.SoloSeconds;
  double Demand[2] = {0, 0}; // [memory-bound, compute-bound] recent work, seconds alone
  bool PartnerBusy = false;
  for (auto It = Streams.begin(); It != Streams.end();) {
    Queued& Q = It->second;
    bool Mine = It->first == Stream;
    if (!Mine && Q.BusyUntil < Now - ForgetAfterSeconds) {
      It = Streams.erase(It);
      continue;
    }
    double Decay = std::exp(-(Now - Q.Stamp) / DemandSeconds);
    Q.Demand[0] *= Decay;
    Q.Demand[1] *= Decay;
    Q.Stamp = Now;
    if (Mine) {
      Q.Demand[Memory ? 0 : 1] += Solo;
      Q.MemoryBound = Memory;
    }
    Demand[0] += Q.Demand[0];
    Demand[1] += Q.Demand[1];
    PartnerBusy |= !Mine && Q.BusyUntil > Now && Q.MemoryBound != Memory;
    ++It;
  }
  unsigned Cut = 0;
  double Slowdown = 1;
  if (PartnerBusy) {
    bool Always = Scheduler::coRunning() == CAJETA_XPU_CORUN_ALWAYS;
    CoRunPlan Plan = Planner->plan(Demand[0], Demand[1], Always ? -1e9 : DefaultMargin);
    if (MemoryUnits) { // co-running already: stay on the cut while it loses nothing
      CoRunPlan Kept = Planner->planAt(MemoryUnits, Demand[0], Demand[1]);
      bool KeepIt =
          Kept.PlannedSeconds <= Kept.SerialSeconds &&
          (!Plan.MemoryUnits || Kept.PlannedSeconds <= (1 + KeepCutWithin) * Plan.PlannedSeconds);
      if (KeepIt)
        Plan = Kept;
    }
    if (Plan.MemoryUnits) {
      Cut = Plan.MemoryUnits;
      Slowdown = Memory ? Plan.MemorySlowdown : Plan.ComputeSlowdown;
    }
  }
  MemoryUnits = Cut;
  Queued& Mine = Streams[Stream];
  Mine.BusyUntil = std::max(Now, Mine.BusyUntil) + Solo * Slowdown;
  if (Cut) {
    Geometry.Partition =
        Memory ? LaunchGeometry::Part::Slice : LaunchGeometry::Part::SliceComplement;
    Geometry.SliceUnits = Cut;
  }
}

} // namespace cajeta::xpu::rt
