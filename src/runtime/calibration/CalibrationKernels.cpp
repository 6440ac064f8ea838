#include "runtime/calibration/CalibrationKernels.h"

#include "runtime/CompilerLibrary.h"
#include "runtime/JitCompiler.h"
#include "runtime/LibraryDirectory.h"
#include "runtime/LoadedProgram.h"
#include "runtime/RuntimeError.h"

#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <vector>

namespace cajeta::xpu::rt {

extern const char* const CalibrationKernelsSource;

CalibrationKernels CalibrationKernels::load(BackendDevice& Device) {
  std::string JitProblem;
  try {
    CompilerLibrary::open(); // throws, saying why, where there is no compiler
    JitOptions O;
    O.Device = &Device;
    CalibrationKernels K;
    K.Program = JitCompiler::compile(CalibrationKernelsSource, "CalibrationKernels.cj", O);
    K.MadeBy = K.Program->description().CompilerVersion + ", compiled for this device";
    return K;
  } catch (const RuntimeError& E) {
    JitProblem = E.what();
  }
  std::string Dir = libraryDirectory();
  std::string Path = Dir + BundleName;
  std::ifstream In(Path, std::ios::binary);
  if (Dir.empty() || !In)
    fail(CAJETA_XPU_NOT_FOUND,
         fmt::format("the calibration kernels are not available: the JIT cannot compile them "
                     "({}), and there is no {} beside libcajeta_xpu.so",
                     JitProblem, Path));
  std::vector<char> Bytes((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  CalibrationKernels K;
  // Installed with the runtime library itself, so trusted as it is.
  K.Program = LoadedProgram::fromMemory(Bytes.data(), Bytes.size(), Path, &Device,
                                        /*Verify=*/false);
  K.MadeBy = K.Program->description().CompilerVersion + ", " + BundleName;
  return K;
}

} // namespace cajeta::xpu::rt
