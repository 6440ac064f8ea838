// `cajeta`: the command-line toolchain (build, run, inspect, emit, devices, calibrate, keygen,
// sign, verify).
#include "Commands.h"

#include "bundle/RegularFile.h"
#include "cajeta/compiler.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace cajeta::cli {

int ExitCode = 0;

bool readSourceFile(const std::string& Path, std::string& Out) {
  std::string Error;
  if (!bundle::readRegularFile(Path, "source file", Out, Error)) {
    std::cerr << "cajeta: error: " << Error << "\n";
    return false;
  }
  return true;
}

} // namespace cajeta::cli

int main(int argc, char** argv) {
  CLI::App App{"cajeta: the Cajeta XPU toolchain (kernel compiler and runtime tools)", "cajeta"};
  App.require_subcommand(1);
  // One version: the compiler's, which is also what bundles record and the JIT cache keys on.
  App.set_version_flag("--version", std::string("cajeta: ") + cajeta_compiler_version());
  cajeta::cli::addBuildCommand(App);
  cajeta::cli::addInspectCommand(App);
  cajeta::cli::addEmitCommand(App);
  cajeta::cli::addDevicesCommand(App);
  cajeta::cli::addCalibrateCommand(App);
  cajeta::cli::addRunCommand(App);
  cajeta::cli::addKeygenCommand(App);
  cajeta::cli::addSignCommand(App);
  cajeta::cli::addVerifyCommand(App);
  // A word that is not a subcommand names itself (CLI11 would only say one is required).
  std::string Valid;
  bool Known = false;
  for (const CLI::App* Sub : App.get_subcommands([](CLI::App*) { return true; })) {
    Valid += (Valid.empty() ? "" : ", ") + Sub->get_name();
    Known |= argc > 1 && Sub->get_name() == argv[1];
  }
  if (argc > 1 && argv[1][0] != '-' && !Known) {
    std::cerr << "cajeta: error: unknown subcommand '" << argv[1] << "' (valid: " << Valid
              << "; see cajeta --help)\n";
    return 2;
  }
  try {
    App.parse(argc, argv);
  } catch (const CLI::ParseError& E) {
    return App.exit(E);
  }
  return cajeta::cli::ExitCode;
}
