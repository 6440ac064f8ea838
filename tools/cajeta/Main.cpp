// `cajeta`: the command-line toolchain (build, inspect, emit, devices).
#include "Commands.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace cajeta::cli {

int ExitCode = 0;

bool readSourceFile(const std::string& Path, std::string& Out) {
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    std::cerr << "cajeta: error: cannot read '" << Path << "': " << std::strerror(errno) << "\n";
    return false;
  }
  std::ostringstream S;
  S << In.rdbuf();
  Out = S.str();
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
