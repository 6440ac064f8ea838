// Finds and dlopens libcajeta_compiler.so for JIT, and resolves its C entry points.
#pragma once

#include "cajeta/compiler.h"

#include <string>

namespace cajeta::xpu::rt {

class CompilerLibrary {
public:
  /// CAJETA_COMPILER_LIB, else libcajeta_compiler.so beside libcajeta_xpu.so, else the loader's
  /// search path. Throws RuntimeError (generic) saying JIT needs the library and how to use a
  /// bundle instead.
  static CompilerLibrary open();

  decltype(&cajeta_compile_to_bundle) Compile = nullptr;
  decltype(&cajeta_compiler_free) Free = nullptr;
  decltype(&cajeta_compiler_version) Version = nullptr;
  std::string Path;
};

} // namespace cajeta::xpu::rt
