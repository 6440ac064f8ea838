#include "runtime/calibration/CalibrationTileKernels.h"

#include "runtime/BuiltinKernels.h"
#include "runtime/RuntimeError.h"

namespace cajeta::xpu::rt {

extern const char* const CalibrationTileF16Source;
extern const char* const CalibrationTileBf16Source;
extern const char* const CalibrationTileInt8Source;

std::shared_ptr<LoadedProgram> CalibrationTileKernels::load(BackendDevice& Device,
                                                            bundle::ScalarType Input) {
  static const BuiltinKernels F16{CalibrationTileF16Source, "CalibrationTileF16.cj",
                                  "cajeta-calibration-f16.cjx", "the float16 tile kernels"};
  static const BuiltinKernels BF16{CalibrationTileBf16Source, "CalibrationTileBf16.cj",
                                   "cajeta-calibration-bf16.cjx", "the bfloat16 tile kernels"};
  static const BuiltinKernels I8{CalibrationTileInt8Source, "CalibrationTileInt8.cj",
                                 "cajeta-calibration-int8.cjx", "the int8 tile kernels"};
  switch (Input) {
  case bundle::ScalarType::F16:
    return F16.load(Device).Program;
  case bundle::ScalarType::BF16:
    return BF16.load(Device).Program;
  case bundle::ScalarType::I8:
    return I8.load(Device).Program;
  default:
    fail(CAJETA_XPU_ERROR, "the calibration has no tile kernel of that type");
  }
}

} // namespace cajeta::xpu::rt
