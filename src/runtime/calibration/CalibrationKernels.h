// The calibration kernels (CalibrationKernels.cj) loaded on a device as BuiltinKernels: by the
// JIT, else from cajeta-calibration.cjx beside libcajeta_xpu.so.
#pragma once

#include "runtime/BuiltinKernels.h"

#include <memory>
#include <string>

namespace cajeta::xpu::rt {

class BackendDevice;
class LoadedProgram;

struct CalibrationKernels {
  std::shared_ptr<LoadedProgram> Program;
  /// What made the code (the compiler's version and how it was built): part of a record's key,
  /// since the measurements depend on it.
  std::string MadeBy;

  /// Throws RuntimeError naming both ways tried when neither works.
  static CalibrationKernels load(BackendDevice& Device);
  /// What load() would report as MadeBy, without compiling or loading anything (the compiler's
  /// version, or the bundle's manifest): enough to look a record up.
  static std::string madeBy();
  /// The bundle's file name, looked up beside libcajeta_xpu.so.
  static constexpr const char* BundleName = "cajeta-calibration.cjx";
};

} // namespace cajeta::xpu::rt
