// `cajeta emit --target=kir|llvm|ptx|spirv k.cj`: print an intermediate form of a program, and
// (--print-after=PASS, --print-after-all) the KIR after the target's pipeline passes.
#include "Commands.h"

#include "compiler/driver/Compiler.h"
#include "compiler/driver/TargetCompiler.h"
#include "compiler/kir/transforms/Pipeline.h"
#include "compiler/kir/transforms/TierSelection.h"
#include "compiler/kir/transforms/TileLowering.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

namespace cajeta::cli {

namespace {

/// The pipeline's pass names, comma-separated, in the order pipelinePassNames() lists them.
std::string passList() {
  std::string Out;
  for (const std::string& Name : kir::pipelinePassNames())
    Out += (Out.empty() ? "" : ", ") + Name;
  return Out;
}

/// The target whose `cajeta emit` name is Name ("llvm", "ptx", "spirv"), from the driver's set.
std::unique_ptr<driver::TargetCompiler> targetNamed(const std::string& Name,
                                                    const std::string& Sm) {
  std::vector<std::unique_ptr<driver::TargetCompiler>> Targets;
  Targets.push_back(driver::TargetCompiler::cpu());
  Targets.push_back(driver::TargetCompiler::nvptx(Sm));
  Targets.push_back(driver::TargetCompiler::spirv());
  for (auto& T : Targets)
    if (Name == T->emitName())
      return std::move(T);
  return nullptr;
}

/// The wave tier `cajeta build` gives T's backend: its best, or what CAJETA_GPU_WAVE_IMPL asks
/// for (a value it does not know warns, as in a build, when M uses wave ops).
kir::ImplTier waveTier(const driver::TargetCompiler& T, const kir::Module& M,
                       const std::string& FileName) {
  bool UsesWave = false;
  for (const auto& F : M.Functions)
    UsesWave = UsesWave || F->UsesWave;
  if (!UsesWave)
    return T.bestWaveTier();
  std::string Warning;
  std::optional<kir::ImplTier> Override =
      kir::TierSelection::overrideFor(kir::Feature::WaveOps, Warning);
  if (!Warning.empty())
    std::cerr << FileName << ": warning: " << Warning << "\n";
  return kir::TierSelection::choose(kir::Feature::WaveOps, T.backend(), T.bestWaveTier(), Override,
                                    T.nativeWaveOps(), "")
      .Tier;
}

} // namespace

void addEmitCommand(CLI::App& App) {
  struct Options {
    std::string Input, Output, Target = "kir", Cpu = "native", Sm = "sm_90", Kernel;
    bool Unoptimized = false, CheckBounds = false;
    std::vector<std::string> PrintAfter;
    bool PrintAfterAll = false, VerifyEach = false, NativeRayQuery = false;
  };
  auto O = std::make_shared<Options>();
  CLI::App* Cmd = App.add_subcommand("emit", "Print a program's KIR, LLVM IR, PTX or SPIR-V");
  Cmd->add_option("input", O->Input, "Cajeta source file")->required();
  Cmd->add_option("--target", O->Target,
                  "What to print: kir, llvm (CPU), ptx (NVIDIA), spirv (Vulkan)")
      ->check(CLI::IsMember({"kir", "llvm", "ptx", "spirv"}));
  Cmd->add_option("--sm", O->Sm, "GPU architecture for --target=ptx (default sm_90)");
  Cmd->add_flag("--unoptimized", O->Unoptimized, "LLVM IR before the optimisation pipeline");
  Cmd->add_flag("--check-bounds", O->CheckBounds, "Include buffer bounds checks");
  Cmd->add_option("--cpu", O->Cpu, "CPU for --target=llvm (default native)");
  Cmd->add_option("-o,--output", O->Output,
                  "Write to this file instead of stdout; with --target=spirv, a .spv file gets "
                  "the binary module of one kernel (--kernel), anything else the disassembly");
  Cmd->add_option("--kernel", O->Kernel,
                  "The kernel (Class.method) whose SPIR-V module a .spv output holds; needed when "
                  "the program has more than one");
  Cmd->add_option("--print-after", O->PrintAfter,
                  "Print the KIR to stderr after this pipeline pass (repeatable)")
      ->expected(1) // one name per occurrence, so the input file is never taken as one
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  Cmd->add_flag("--print-after-all", O->PrintAfterAll,
                "Print the KIR to stderr after every pipeline pass");
  Cmd->add_flag("--verify-each", O->VerifyEach, "Verify the KIR after every pipeline pass");
  Cmd->add_flag("--native-ray-query", O->NativeRayQuery,
                "--target=spirv: ray queries as SPV_KHR_ray_query over a Vulkan acceleration "
                "structure (for devices with VK_KHR_ray_query; never in a bundle yet)");
  Cmd->callback([O] {
    for (const std::string& Pass : O->PrintAfter) {
      if (!kir::pipelinePassNames().count(Pass)) {
        std::cerr << "cajeta: error: unknown pass '" << Pass
                  << "' for --print-after; the pipeline's passes are: " << passList() << "\n";
        ExitCode = 1;
        return;
      }
    }
    bool Tracing = !O->PrintAfter.empty() || O->PrintAfterAll || O->VerifyEach;
    if (Tracing && O->Target == "kir") {
      std::cerr << "cajeta: error: --print-after, --print-after-all and --verify-each need a "
                   "target whose pipeline runs: --target=llvm, ptx or spirv\n";
      ExitCode = 1;
      return;
    }
    std::string Dumps;
    kir::PipelineTrace Trace;
    Trace.PrintAfter.insert(O->PrintAfter.begin(), O->PrintAfter.end());
    Trace.PrintAfterAll = O->PrintAfterAll;
    Trace.VerifyEach = O->VerifyEach;
    Trace.Out = &Dumps;
    const kir::PipelineTrace* T = Tracing ? &Trace : nullptr;
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
    bool Binary = O->Target == "spirv" && O->Output.size() > 4 &&
                  O->Output.compare(O->Output.size() - 4, 4, ".spv") == 0;
    if (Binary) {
      // SPIR-V has one module per kernel (the bundle's spirv:<kernel> payloads): one of them.
      std::vector<std::string> Kernels;
      for (const auto& Fn : F.Kir->Functions)
        if (Fn->IsKernel && kir::availableOn(*Fn, "vulkan"))
          Kernels.push_back(Fn->Name);
      std::string List;
      for (const std::string& K : Kernels)
        List += (List.empty() ? "" : ", ") + K;
      std::string Kernel = O->Kernel;
      if (Kernel.empty() && Kernels.size() == 1)
        Kernel = Kernels[0];
      if (Kernel.empty() || std::find(Kernels.begin(), Kernels.end(), Kernel) == Kernels.end()) {
        std::cerr << "cajeta: error: "
                  << (Kernels.empty()     ? std::string("the program has no Vulkan kernels")
                      : O->Kernel.empty() ? "a .spv file holds one kernel's module; choose one "
                                            "with --kernel (" +
                                                List + ")"
                                          : "no kernel '" + O->Kernel + "' (" + List + ")")
                  << "\n";
        ExitCode = 1;
        return;
      }
      std::unique_ptr<driver::TargetCompiler> Target = targetNamed("spirv", O->Sm);
      driver::TargetOptions TO;
      TO.CheckBounds = O->CheckBounds;
      TO.NativeRayQuery = O->NativeRayQuery;
      TO.WaveTier = waveTier(*Target, *F.Kir, O->Input);
      {
        std::string Warning;
        auto Override = kir::TierSelection::overrideFor(kir::Feature::CooperativeMatrix, Warning);
        TO.TileTier = Target->chooseTileTier(*F.Kir, Override, TO).Tier;
      }
      driver::TargetOutput Built = Target->build(*F.Kir, TO, *F.Sink);
      std::cerr << F.Sink->render().substr(F.Diagnostics.size());
      // The cooperative-matrix variant where the kernel has one (what such a device runs).
      const bundle::Payload* Module = nullptr;
      for (const bundle::Payload& P : Built.Payloads)
        if (P.Target == "spirv-coopmat:" + Kernel || (!Module && P.Target == "spirv:" + Kernel))
          Module = &P;
      if (!Built.Ok || !Module) {
        std::cerr << "cajeta: error: no SPIR-V module was built for '" << Kernel << "'\n";
        ExitCode = 1;
        return;
      }
      Text.assign(Module->Bytes.begin(), Module->Bytes.end());
    } else if (O->Target == "kir") {
      Text = kir::dump(*F.Kir);
    } else {
      std::unique_ptr<driver::TargetCompiler> Target = targetNamed(O->Target, O->Sm);
      driver::TargetOptions TO;
      TO.CheckBounds = O->CheckBounds;
      TO.Cpu = O->Cpu;
      TO.NativeRayQuery = O->NativeRayQuery && O->Target == "spirv";
      TO.WaveTier = waveTier(*Target, *F.Kir, O->Input);
      {
        std::string Warning; // printed by builds of programs with tiles, not here
        auto Override = kir::TierSelection::overrideFor(kir::Feature::CooperativeMatrix, Warning);
        TO.TileTier = Target->chooseTileTier(*F.Kir, Override, TO).Tier;
      }
      TO.Trace = T;
      std::string Error;
      bool Ok = Target->emit(*F.Kir, TO, !O->Unoptimized, Text, Error);
      std::cerr << Dumps;
      if (!Ok) {
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
