// Where libcajeta_xpu.so itself was loaded from: files installed beside it (the compiler
// library, the calibration kernels' bundle) are looked up there.
#pragma once

#include <string>

namespace cajeta::xpu::rt {

/// The directory of the loaded runtime library, with a trailing '/'; "" when unknown.
std::string libraryDirectory();

} // namespace cajeta::xpu::rt
