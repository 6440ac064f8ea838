// `cajeta emit --target=kir|llvm k.cj`: print an intermediate form of a program.
#include "Commands.h"

#include "compiler/driver/Compiler.h"
#include "compiler/lowering/llvm/CpuPayloadBuilder.h"
#include "compiler/lowering/llvm/NvptxPayloadBuilder.h"
#include "compiler/lowering/spirv/SpirvPayloadBuilder.h"

#include <fstream>
#include <iostream>

namespace cajeta::cli {

void addEmitCommand(CLI::App& App) {
  struct Options {
    std::string Input, Output, Target = "kir", Cpu = "native", Sm = "sm_90";
    bool Unoptimized = false, CheckBounds = false;
  };
  auto O = std::make_shared<Options>();
  CLI::App* Cmd = App.add_subcommand("emit", "Print a program's KIR, LLVM IR, PTX or SPIR-V");
  Cmd->add_option("input", O->Input, "Cajeta source file")->required();
  Cmd->add_option("--target", O->Target,
                  "What to print: kir, llvm (CPU), ptx (NVIDIA), spirv (Vulkan)")
      ->check(CLI::IsMember({"kir", "llvm", "ptx", "spirv"}));
  Cmd->add_option("--sm", O->Sm, "GPU architecture for --target=ptx (default sm_90)"); // NVPTX
  Cmd->add_flag("--unoptimized", O->Unoptimized, "LLVM IR before the optimisation pipeline");
  Cmd->add_flag("--check-bounds", O->CheckBounds, "Include buffer bounds checks");
  Cmd->add_option("--cpu", O->Cpu, "CPU for --target=llvm (default native)");
  Cmd->add_option("-o,--output", O->Output, "Write to this file instead of stdout");
  Cmd->callback([O] {
    std::string Source;
    if (!readSourceFile(O->Input, Source)) {
      ExitCode = 1;
      return;
    }
    driver::FrontendResult F = driver::Compiler::runFrontend(O->Input, Source);
    std::cerr << F.Diagnostics;
    if (!F.Ok) {
      ExitCode = 1;
      return;
    }
    std::string Text;
    if (O->Target == "kir") {
      Text = kir::dump(*F.Kir);
    } else if (O->Target == "spirv") { // SPIR-V (issue 5): disassembly, or the binary
      spirv::SpirvEmitOptions SO;
      SO.CheckBounds = O->CheckBounds;
      std::string Error;
      if (!spirv::SpirvPayloadBuilder::emitText(*F.Kir, SO, Text, Error)) {
        std::cerr << "cajeta: error: " << Error << "\n";
        ExitCode = 1;
        return;
      }
    } else if (O->Target == "ptx") { // NVPTX (issue 4)
      lowering::NvptxBuildOptions NO;
      NO.Sm = O->Sm;
      NO.CheckBounds = O->CheckBounds;
      std::string Error;
      if (!lowering::NvptxPayloadBuilder::emitPtx(*F.Kir, NO, Text, Error)) {
        std::cerr << "cajeta: error: " << Error << "\n";
        ExitCode = 1;
        return;
      }
    } else {
      lowering::CpuBuildOptions CO;
      CO.Cpu = O->Cpu;
      CO.CheckBounds = O->CheckBounds;
      std::string Error;
      if (!lowering::CpuPayloadBuilder::emitLlvmIr(*F.Kir, CO, !O->Unoptimized, Text, Error)) {
        std::cerr << "cajeta: error: " << Error << "\n";
        ExitCode = 1;
        return;
      }
    }
    if (O->Output.empty()) {
      std::cout << Text;
      return;
    }
    std::ofstream Out(O->Output, std::ios::binary);
    Out << Text;
    if (!Out) {
      std::cerr << "cajeta: error: cannot write '" << O->Output << "'\n";
      ExitCode = 1;
    }
  });
}

} // namespace cajeta::cli
