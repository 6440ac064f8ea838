// `cajeta build k.cj -o k.cjx`: compile a program into a bundle (AOT).
#include "Commands.h"

#include "bundle/BundleWriter.h"
#include "compiler/driver/Compiler.h"

#include <iostream>
#include <vector>

namespace cajeta::cli {

void addBuildCommand(CLI::App& App) {
  struct Options {
    std::string Input, Output, Cpu = "native";
    std::vector<std::string> GpuArchs;
    bool CheckBounds = false;
  };
  auto O = std::make_shared<Options>();
  CLI::App* Cmd = App.add_subcommand("build", "Compile a .cj program into a .cjx bundle");
  Cmd->add_option("input", O->Input, "Cajeta source file")->required();
  Cmd->add_option("-o,--output", O->Output, "Bundle to write (default: input with .cjx)");
  Cmd->add_flag("--check-bounds", O->CheckBounds,
                "Check every buffer index; an out-of-range access stops the kernel and its "
                "stream's sync() reports kernel, buffer, index and length");
  Cmd->add_option("--cpu", O->Cpu,
                  "CPU to generate code for: native (default) or an LLVM CPU "
                  "name such as x86-64-v3");
  Cmd->add_option("--gpu-arch", O->GpuArchs,
                  "Also emit PTX for this NVIDIA architecture (sm_80, sm_86, ...; repeatable); "
                  "sm_70 and sm_90 are always there, and a device loads the highest one not above "
                  "its own")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  Cmd->callback([O] {
    std::string Source;
    if (!readSourceFile(O->Input, Source)) {
      ExitCode = 1;
      return;
    }
    driver::CompileOptions CO;
    CO.CheckBounds = O->CheckBounds;
    CO.Cpu = O->Cpu;
    CO.GpuArchs = O->GpuArchs;
    CO.GpuFootprint = true; // NVPTX: AOT reads registers/spills/shared from ptxas -v
    driver::CompileResult R = driver::Compiler::compile(O->Input, Source, CO);
    std::cerr << R.Diagnostics;
    if (!R.Ok) {
      ExitCode = 1;
      return;
    }
    if (R.HostKir && !R.HostKir->Functions.empty())
      std::cerr << O->Input << ": note: the bundle holds the kernels; the host methods ("
                << R.HostKir->Functions.size() << ") run with `cajeta run " << O->Input
                << "` or are replaced by C++ host code (cajeta/xpu.hpp)\n";
    std::string Out = O->Output;
    if (Out.empty()) {
      Out = O->Input;
      size_t Dot = Out.rfind('.');
      size_t Slash = Out.rfind('/');
      if (Dot != std::string::npos && (Slash == std::string::npos || Dot > Slash))
        Out.resize(Dot);
      Out += ".cjx";
    }
    std::string Error;
    if (!bundle::BundleWriter::writeFile(R.Program, Out, Error)) {
      std::cerr << "cajeta: error: " << Error << "\n";
      ExitCode = 1;
    }
  });
}

} // namespace cajeta::cli
