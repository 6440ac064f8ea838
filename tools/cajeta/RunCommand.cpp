// `cajeta run k.cj [--main Class.method]`: compiles a whole Cajeta program, its kernels into a
// bundle the runtime loads and its host methods with the JIT, and runs its entry point, as
// `java File.java` runs a single-file program. The exit status is the program's.
// `cajeta run k.cjx [--main Class.method]`: runs a bundle `cajeta build` wrote, its host code from
// the bundle's host payload (cajeta_host_run_program): the runtime alone, no compiler.
#include "Commands.h"
#include "HostSymbols.h"

#include "bundle/BundleReader.h"
#include "bundle/BundleWriter.h"
#include "cajeta/xpu/cajeta_host.h"
#include "compiler/driver/Compiler.h"
#include "compiler/driver/HostEntryPoint.h"
#include "compiler/lowering/llvm/HostJit.h"

#include <iostream>

namespace cajeta::cli {

namespace {

/// A bundle: loaded on the best device, its host payload run by the runtime.
int runBundle(const std::string& Input, const std::string& Main) {
  cajeta_xpu_program* Program = nullptr;
  if (cajeta_xpu_program_load_file(Input.c_str(), &Program) != 0) {
    std::cerr << "cajeta: error: " << cajeta_xpu_last_error() << "\n";
    return 1;
  }
  int32_t Status = 0;
  int Rc =
      cajeta_host_run_program(Program, Main.empty() ? nullptr : Main.c_str(), nullptr, &Status);
  if (Rc != 0)
    std::cerr << "cajeta: error: " << Input << ": " << cajeta_xpu_last_error() << "\n";
  cajeta_xpu_program_release(Program);
  return Rc != 0 ? 1 : Status;
}

bool endsWith(const std::string& S, const char* Suffix) {
  size_t N = std::char_traits<char>::length(Suffix);
  return S.size() >= N && S.compare(S.size() - N, N, Suffix) == 0;
}

/// A bundle's kernels were compiled when it was built: --check-bounds cannot change them.
int runBundleChecked(const std::string& Input, const std::string& Main, bool CheckBounds) {
  if (CheckBounds) {
    std::cerr << "cajeta: error: " << Input
              << ": --check-bounds applies when a program is compiled; build the bundle with "
                 "`cajeta build --check-bounds`, or run the source file\n";
    return 1;
  }
  return runBundle(Input, Main);
}

int run(const std::string& Input, const std::string& Main, bool CheckBounds) {
  if (endsWith(Input, ".cjx"))
    return runBundleChecked(Input, Main, CheckBounds);
  std::string Source;
  if (!readSourceFile(Input, Source))
    return 1;
  // A bundle by another name runs as a bundle, never as source.
  if (bundle::BundleReader::looksLikeBundle(reinterpret_cast<const uint8_t*>(Source.data()),
                                            Source.size()))
    return runBundleChecked(Input, Main, CheckBounds);
  driver::CompileOptions CO;
  CO.HostPayload = false; // the JIT runs the host part
  CO.CheckBounds = CheckBounds;
  driver::CompileResult R = driver::Compiler::compile(Input, Source, CO);
  // A successful run prints only the program's output; warnings still show.
  if (!R.Ok || R.Diagnostics.find("warning:") != std::string::npos)
    std::cerr << R.Diagnostics;
  if (!R.Ok)
    return 1;
  std::string Error;
  const kir::Function* Entry = driver::findEntry(*R.HostKir, Main, Error);
  if (!Entry) {
    std::cerr << "cajeta: error: " << Error << "\n";
    return 1;
  }
  lowering::HostJit Jit;
  if (!Jit.compile(*R.HostKir, hostSymbols(), Error)) {
    std::cerr << "cajeta: error: " << Error << "\n";
    return 1;
  }
  void* Code = Jit.lookup(Entry->Symbol, Error);
  const kir::Function* Init = driver::staticInitializer(*R.HostKir);
  void* InitCode = Code && Init ? Jit.lookup(Init->Symbol, Error) : nullptr;
  if (!Code || (Init && !InitCode)) {
    std::cerr << "cajeta: error: " << Error << "\n";
    return 1;
  }
  std::vector<uint8_t> Bytes = bundle::BundleWriter::write(R.Program);
  cajeta_xpu_program* Program = nullptr;
  // Compiled here from the user's source, as the JIT does: trusted without a signature.
  if (cajeta_xpu_program_load_compiled(Bytes.data(), Bytes.size(), &Program) != 0 ||
      cajeta_host_begin(Input.c_str(), Program) != 0) {
    std::cerr << "cajeta: error: " << cajeta_xpu_last_error() << "\n";
    if (Program)
      cajeta_xpu_program_release(Program);
    return 1;
  }
  cajeta_xpu_program_release(Program); // the session holds it
  // The static fields first (they may allocate: inside the session); an exception there leaves
  // the entry point unrun, as a failed class initialisation does in Java.
  if (InitCode)
    reinterpret_cast<void (*)()>(InitCode)();
  int Status = 0;
  if (!InitCode || !cajeta_host_pending()) {
    if (Entry->ReturnType.isVoid())
      reinterpret_cast<void (*)()>(Code)();
    else
      Status = reinterpret_cast<int32_t (*)()>(Code)();
  }
  // An uncaught exception (or a failure of unsynced work) that the end reports makes it 1.
  if (cajeta_host_end() != 0)
    Status = 1;
  return Status;
}

} // namespace

void addRunCommand(CLI::App& App) {
  struct Options {
    std::string Input, Main;
    std::vector<std::string> Args;
    bool CheckBounds = false;
  };
  auto O = std::make_shared<Options>();
  CLI::App* Cmd = App.add_subcommand(
      "run", "Compile a .cj program and run it: its kernels on the best device, its host code "
             "with the JIT; or run a .cjx bundle that `cajeta build` wrote");
  Cmd->add_option("input", O->Input, "Cajeta source file, or a .cjx bundle with host code")
      ->required();
  Cmd->add_option("--main", O->Main,
                  "The entry point, Class.method (default: main, or the only parameterless "
                  "static host method)");
  Cmd->add_flag("--check-bounds", O->CheckBounds,
                "Check every buffer index of the program's kernels (as `cajeta build "
                "--check-bounds`): an out-of-range access stops the kernel and the sync reports "
                "kernel, buffer, index and length");
  Cmd->add_option("args", O->Args, "Arguments after --, for the program");
  Cmd->callback([O] {
    // main(String[] args) sees what follows `--`.
    std::vector<const char*> Argv;
    for (const std::string& A : O->Args)
      Argv.push_back(A.c_str());
    cajeta_host_set_args(int32_t(Argv.size()), Argv.data());
    ExitCode = run(O->Input, O->Main, O->CheckBounds);
  });
}

} // namespace cajeta::cli
