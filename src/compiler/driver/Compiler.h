// The compiler driver: source text -> frontend -> KIR + analyses -> per-target payloads -> a
// bundle::Program. Used by the CLI and (through CompilerCApi) by the runtime's JIT.
#pragma once

#include "bundle/Manifest.h"
#include "compiler/Diagnostics.h"
#include "compiler/frontend/SourceFile.h"
#include "compiler/kir/Kir.h"

#include <memory>
#include <string>
#include <vector>

namespace cajeta::driver {

struct CompileOptions {
  bool CheckBounds = false;
  std::string Cpu = "native";
  /// NVPTX: read each kernel's registers, spills and shared bytes with `ptxas -v` when
  /// ptxas exists (a subprocess per architecture: for AOT builds, not JIT).
  bool GpuFootprint = false;
  /// NVPTX architectures to emit PTX for besides the baseline sm_70 and sm_90 ("sm_86"): the JIT
  /// asks for each CUDA device's exact one. One LLVM cannot target is left out with a note.
  std::vector<std::string> GpuArchs;
  /// A program with host methods: compile them ahead of time into the bundle's "host" payload
  /// (for `cajeta run X.cjx` and cajeta_host_run_program). Off for the runtime's JIT, which runs
  /// kernels for C++ host code, and for `cajeta run X.cj`, which runs the host part in the JIT.
  bool HostPayload = true;
};

/// The frontend's result: KIR (with access modes) and the diagnostics, rendered and as the sink
/// later stages report into.
struct FrontendResult {
  bool Ok = false;
  std::string Diagnostics;
  std::unique_ptr<frontend::SourceFile> File;
  std::unique_ptr<cajeta::Diagnostics> Sink; // reports about *File
  std::unique_ptr<kir::Module> Kir;
  std::unique_ptr<kir::Module> HostKir; // the host methods (kir::Module::IsHost)
};

struct CompileResult {
  bool Ok = false;
  std::string Diagnostics; // errors, warnings and notes, rendered
  bundle::Program Program; // with a "host" payload when HostKir has methods and HostPayload
  std::unique_ptr<kir::Module> HostKir; // the host methods, for `cajeta run` (HostJit)
};

class Compiler {
public:
  /// Lex, parse, check and build KIR; runs the KIR analyses on success.
  static FrontendResult runFrontend(const std::string& FileName, const std::string& Source);
  /// Everything: a complete bundle::Program for every target this build supports.
  static CompileResult compile(const std::string& FileName, const std::string& Source,
                               const CompileOptions& Options);
  /// Changes whenever generated code may change (keys the JIT cache).
  static const char* version();

private:
  // The work of runFrontend and compile, on the calling thread (they run it on a large stack,
  // LargeStack.h).
  static FrontendResult runFrontendHere(const std::string& FileName, const std::string& Source);
  static CompileResult compileHere(const std::string& FileName, const std::string& Source,
                                   const CompileOptions& Options);
};

} // namespace cajeta::driver
