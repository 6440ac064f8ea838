// JIT: compile a source through the compiler library, with an on-disk cache of bundles.
#pragma once

#include "runtime/LoadedProgram.h"

#include <memory>
#include <string>

namespace cajeta::xpu::rt {

struct JitOptions {
  bool CheckBounds = false;
  std::string Cpu = "native";
  bool UseCache = true;
  BackendDevice* Device = nullptr; // load the result on this device (null: the dispatcher picks)
  /// Extra NVPTX architectures ("sm_86,sm_89"): filled by compile() from Device, or from every
  /// device present, so each CUDA device gets PTX for its exact architecture.
  std::string GpuArchs;
};

class JitCompiler {
public:
  /// Throws RuntimeError: compile error with the diagnostics, generic error without a compiler,
  /// bundle / backend errors from loading the result.
  static std::shared_ptr<LoadedProgram>
  compile(const std::string& Source, const std::string& FileName, const JitOptions& Options);
  static std::shared_ptr<LoadedProgram> compileFile(const std::string& Path,
                                                    const JitOptions& Options);
};

} // namespace cajeta::xpu::rt
