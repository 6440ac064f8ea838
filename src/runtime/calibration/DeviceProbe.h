// Measures one device with the calibration kernels (CalibrationKernels.cj): peak float32 FMA
// rate, the float16, bfloat16 and int8 Group.mac rates (a program per type,
// CalibrationTileKernels), memory bandwidth (read, write, copy), memory latency and the bytes
// in flight it takes, launch, event and inter-queue costs, scheduling delay beside a resident
// kernel, and how many workgroups are resident at once. Every step is timed on the host around the
// runtime's own launches and syncs, so it measures what a program using the runtime gets, on every
// backend alike. A step that fails leaves its facts absent with the reason.
#pragma once

#include "runtime/Backend.h"
#include "runtime/calibration/CalibrationRecord.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class LoadedProgram;

class DeviceProbe {
public:
  /// Called between steps with the fraction done (0 to 1) and the next step's name.
  using Progress = std::function<void(double Fraction, const std::string& Step)>;

  /// Kernels: the calibration program, loaded on Device.
  DeviceProbe(BackendDevice& Device, std::shared_ptr<LoadedProgram> Kernels, Progress OnProgress);
  ~DeviceProbe();

  /// Every fact DeviceCalibration names, measured or absent.
  std::vector<CalibrationFact> run();

  /// What this probe measures, in each device record's key: a record from a probe that measured
  /// other facts is measured again. Raise it when facts are added or measured otherwise.
  static constexpr const char* Version = "probe 4 (a program per tile type, int8 tiles)";

  /// The names, units and meaning of every fact, in the order run() returns them.
  struct FactInfo {
    const char* Name;
    const char* Unit;
    const char* Meaning;
  };
  static const std::vector<FactInfo>& facts();

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace cajeta::xpu::rt
