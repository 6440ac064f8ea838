// `cajeta calibrate <program>`'s hook in the runtime. With CAJETA_XPU_CALIBRATE_RECORD=<file> set
// at start, every launch is written to the file as it is issued; with
// CAJETA_XPU_CALIBRATE_SOLO=<file>, every launch also runs alone (the process's launches one at a
// time, each stream synced before and after, after one untimed run whose writes are undone) and
// is timed, and the first launch on each device writes that device's calibration record
// (measuring it when no record is held or stored).
// One JSON object per line.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"
#include "runtime/Backend.h"

#include <functional>

namespace cajeta::xpu::rt {

class Kernel;
class Stream;
struct Submission;

class LaunchRecorder {
public:
  /// The recorder the environment asked for at the first launch, or nullptr (the usual case).
  static LaunchRecorder* active();

  /// Issues the launch through Enqueue, recording it (and in solo mode running it alone).
  virtual void around(const Kernel& K, Stream& S, const LaunchGeometry& Geometry,
                      const cajeta_xpu_arg* Args, size_t Count, const Submission& Sub,
                      const std::function<void()>& Enqueue) = 0;
  virtual ~LaunchRecorder() = default;
};

} // namespace cajeta::xpu::rt
