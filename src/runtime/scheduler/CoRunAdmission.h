// Co-running admission on one device (spec 17.8: "admits co-runners by footprint and
// complementarity, reserves compute as the precondition for co-running"). Each throughput-class
// launch is counted as queued work on its stream, in seconds alone on the whole device and by
// its arithmetic class (LaunchEstimate: its manifest's cost over the rates the kernel achieved
// alone where it has a record of its own, else over the device's measured bandwidth or FLOP
// rate, classed by the ridge); while a memory-bound and a compute-bound stream both have work
// queued, CoRunPlanner decides whether they share the device on disjoint slices of its compute
// units and where to cut. Two streams of one class are never split (they would only halve each
// other) and run on the whole device as before. Footprint does not enter yet: the two sides run on
// disjoint SMs, where their registers and shared memory never meet (it will where kernels share
// SMs: docs/scheduler.md, "Co-running within SMs").
//
// It needs what only measurement gives: the device's calibration record with the read
// bandwidth on slices of the device (DeviceProbe), and a device that can confine a launch to a
// slice (BackendDevice::sliceGranularity: the cuda backend's green contexts). Without either,
// every launch runs on the whole device.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"
#include "runtime/Backend.h"
#include "runtime/scheduler/CoRunPlanner.h"
#include "runtime/scheduler/LaunchEstimate.h"
#include "runtime/scheduler/RightSizing.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace cajeta::xpu::rt {

class Kernel;

class CoRunAdmission {
public:
  /// The device's admission state, made on first use.
  static CoRunAdmission& of(BackendDevice& Device);
  explicit CoRunAdmission(BackendDevice& Device) : Device(Device) {}

  /// Places a throughput-class launch of K with Args issued on Stream (Geometry.Partition and
  /// SliceUnits), and counts it as queued there. Leaves Geometry on the whole device where
  /// nothing is admitted.
  void place(const void* Stream, const Kernel& K, const cajeta_xpu_arg* Args,
             LaunchGeometry& Geometry);

  /// What bounds K's launch with Args on this device: the unit it kept busier alone where it
  /// has a record of its own, else its manifest's costs against the measured ridge; Unknown
  /// without the device's record or bounded costs.
  WorkClass classify(const Kernel& K, const cajeta_xpu_arg* Args, const LaunchGeometry& Geometry);

  /// While one lives, this thread's launches are not admitted to co-run (the calibration's
  /// measurements, which run with the calibration set locked and measure the whole device).
  class Suspended {
  public:
    Suspended() { ++Depth; }
    ~Suspended() { --Depth; }
    Suspended(const Suspended&) = delete;
    Suspended& operator=(const Suspended&) = delete;
    static bool active() { return Depth != 0; }

  private:
    static thread_local unsigned Depth;
  };

  /// The units of a slice of Fraction of Units, rounded up to Granularity (what DeviceProbe
  /// measures and admission plans with); 0 where no such slice leaves a complement.
  static unsigned sliceUnits(unsigned Units, unsigned Granularity, double Fraction);

private:
  struct Queued {
    bool MemoryBound = false;  // the class of its latest launch
    double BusyUntil = 0;      // seconds (steady clock) its queued work is estimated to end
    double Demand[2] = {0, 0}; // work issued, [memory-bound, compute-bound] seconds alone,
                               // decaying (DemandSeconds): one stream may issue both
    double Stamp = 0;          // when Demand was last decayed
  };
  /// The planner from the device's record (rebuilt when the record changes); false where the
  /// record lacks a fact the plan needs.
  bool loadPlanner();
  /// The launch's class and seconds alone (Mutex held, the planner loaded).
  LaunchEstimate estimate(const Kernel& K, const cajeta_xpu_arg* Args,
                          const LaunchGeometry& Geometry);
  /// K's achieved rates from its own calibration record; null where it has none.
  const KernelRates* kernelRates(const Kernel& K);

  BackendDevice& Device;
  std::mutex Mutex;
  std::unordered_map<const void*, Queued> Streams;
  uint64_t LoadedGeneration = ~uint64_t(0); // CalibrationSet::generation() planned from
  /// The generation whose records gave nothing to plan with (~0: none).
  std::atomic<uint64_t> NothingToPlanAt{~uint64_t(0)};
  std::optional<CoRunPlanner> Planner;
  /// Kernel records' rates by code hash, for the loaded generation (nullopt: no record).
  std::unordered_map<uint64_t, std::optional<KernelRates>> RatesByCode;
  double Ridge = 0, CopyBandwidth = 0, Flops = 0;
  unsigned MemoryUnits = 0; // the cut of the latest co-running launch; 0: none
};

} // namespace cajeta::xpu::rt
