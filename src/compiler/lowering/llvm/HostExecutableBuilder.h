// `cajeta build --exe`: a whole Cajeta program as a native executable that needs only the
// runtime library (libcajeta_xpu.so), for machines without LLVM. One object file holds the host
// code (HostModuleBuilder), the kernels' bundle as a constant and a C `main` that does what
// `cajeta run` does after compiling; the system's C/C++ compiler driver links it.
#pragma once

#include "compiler/kir/Kir.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::lowering {

struct HostExecutableOptions {
  /// The CPU the host code is generated for: "native" (this machine's CPU and features) or an
  /// LLVM CPU name such as x86-64-v3, as `cajeta build --cpu`.
  std::string Cpu = "native";
  /// The source file name that failures print (cajeta_host_begin's `file`).
  std::string SourceFile;
  /// The folder of libcajeta_xpu.so: linked against and the executable's first run path.
  std::string RuntimeLibraryDir;
};

class HostExecutableBuilder {
public:
  /// The object file (bytes): Host's methods, Bundle as `cajeta_embedded_bundle` (with its byte
  /// count in the i64 `cajeta_embedded_bundle_size`) and `int main(int, char**)`, which loads the
  /// bundle, begins a host session, runs Host's static initialiser (kir::Module::StaticInit) and
  /// then Entry (a parameterless method of Host returning void or int32) unless the initialiser
  /// raised, ends the session and returns Entry's status (1 when the end reports an uncaught
  /// exception). False with Error set.
  static bool emitObject(const kir::Module& Host, const kir::Function& Entry,
                         const std::vector<uint8_t>& Bundle, const HostExecutableOptions& O,
                         std::string& Object, std::string& Error);

  /// emitObject, then links the object (a temporary file, removed afterwards) into the PIE
  /// executable Output: `-lcajeta_xpu -lm`, run paths O.RuntimeLibraryDir and $ORIGIN (so a copy
  /// beside the library runs too). False with Error set; a failed link's Error holds the
  /// linker's output.
  static bool build(const kir::Module& Host, const kir::Function& Entry,
                    const std::vector<uint8_t>& Bundle, const HostExecutableOptions& O,
                    const std::string& Output, std::string& Error);

  /// The compiler driver that links: `c++`, else `cc`, from PATH; empty when there is neither.
  static std::string findCompilerDriver();
};

} // namespace cajeta::lowering
