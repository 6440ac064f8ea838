// `cajeta`: the command-line toolchain (build, inspect, emit, devices).
#include "Commands.h"

#include "bundle/RegularFile.h"

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
  App.set_version_flag("--version", "cajeta 0.1.0");
  cajeta::cli::addBuildCommand(App);
  cajeta::cli::addInspectCommand(App);
  cajeta::cli::addEmitCommand(App);
  cajeta::cli::addDevicesCommand(App);
  try {
    App.parse(argc, argv);
  } catch (const CLI::ParseError& E) {
    return App.exit(E);
  }
  return cajeta::cli::ExitCode;
}
