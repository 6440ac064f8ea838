#include "runtime/calibration/CalibrationKernels.h"

namespace cajeta::xpu::rt {

extern const char* const CalibrationKernelsSource;

namespace {

const BuiltinKernels& builtin() {
  static const BuiltinKernels K{CalibrationKernelsSource, "CalibrationKernels.cj",
                                CalibrationKernels::BundleName, "the calibration kernels"};
  return K;
}

} // namespace

std::string CalibrationKernels::madeBy() {
  return builtin().madeBy();
}

CalibrationKernels CalibrationKernels::load(BackendDevice& Device) {
  BuiltinKernels::Loaded L = builtin().load(Device);
  return CalibrationKernels{std::move(L.Program), std::move(L.MadeBy)};
}

} // namespace cajeta::xpu::rt
