// Kernels the runtime launches itself (the calibration kernels, the device BVH build), written in
// Cajeta. Loaded on a device by compiling their source, built into the runtime, with the JIT where
// the compiler library is present (native CPU code), else by reading the bundle the build makes
// from the same source and installs beside libcajeta_xpu.so (portable x86-64-v3 CPU code, PTX,
// SPIR-V).
#pragma once

#include <memory>
#include <string>

namespace cajeta::xpu::rt {

class BackendDevice;
class LoadedProgram;

struct BuiltinKernels {
  const char* Source;     // the program's text
  const char* FileName;   // its file name in diagnostics, e.g. "CalibrationKernels.cj"
  const char* BundleName; // the bundle beside libcajeta_xpu.so, e.g. "cajeta-calibration.cjx"
  const char* What;       // in messages: "the calibration kernels"

  struct Loaded {
    std::shared_ptr<LoadedProgram> Program;
    /// What made the code: the compiler's version and how it was built.
    std::string MadeBy;
  };

  /// Throws RuntimeError naming both ways tried when neither works.
  Loaded load(BackendDevice& Device) const;
  /// What load() would report as MadeBy, without compiling or loading anything (the compiler's
  /// version, or the bundle's manifest).
  std::string madeBy() const;
};

} // namespace cajeta::xpu::rt
