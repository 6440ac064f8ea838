// The kernels that measure a tile element type's Group.mac rate (CalibrationTileF16.cj,
// CalibrationTileBf16.cj, CalibrationTileInt8.cj), loaded on a device as BuiltinKernels: by the
// JIT, else from cajeta-calibration-<type>.cjx beside libcajeta_xpu.so. One program per type,
// because a program takes one tile tier for all its tiles: the int8 kernel beside the float16
// one would demote both to the software tile on CUDA, the float16 one beside the bfloat16 one
// both on a CPU with AVX512-BF16.
#pragma once

#include "bundle/Manifest.h"

#include <memory>

namespace cajeta::xpu::rt {

class BackendDevice;
class LoadedProgram;

struct CalibrationTileKernels {
  /// The program whose kernel `CalibrationTile.mac` multiplies tiles of Input (F16, BF16 or
  /// I8). Throws RuntimeError naming both ways tried when neither works, or for another type.
  static std::shared_ptr<LoadedProgram> load(BackendDevice& Device, bundle::ScalarType Input);
  static constexpr const char* KernelName = "CalibrationTile.mac";
};

} // namespace cajeta::xpu::rt
