// `cajeta build k.cj -o k.cjx`: compile a program into a bundle (AOT): its kernels and, when it
// has host methods, its host part as the "host" payload (`cajeta run k.cjx` runs it).
// `cajeta build --exe k.cj -o k`: compile a whole program into a native executable that needs only
// libcajeta_xpu.so (no LLVM), for machines where `cajeta run` cannot compile.
#include "Commands.h"
#include "HostSymbols.h"

#include "CalibrationSnapshot.h"
#include "bundle/BundleWriter.h"
#include "compiler/driver/Compiler.h"
#include "compiler/driver/HostEntryPoint.h"
#include "compiler/lowering/llvm/HostExecutableBuilder.h"

#include <iostream>
#include <optional>
#include <vector>

namespace cajeta::cli {

namespace {

/// Input without its extension, then Suffix ("k.cj" -> "k" + Suffix).
std::string defaultOutput(const std::string& Input, const std::string& Suffix) {
  std::string Out = Input;
  size_t Dot = Out.rfind('.');
  size_t Slash = Out.rfind('/');
  if (Dot != std::string::npos && (Slash == std::string::npos || Dot > Slash))
    Out.resize(Dot);
  return Out + Suffix;
}

/// `--exe`: the host code, the bundle and a main, linked against the runtime library. With Key,
/// the embedded bundle is signed (it loads from memory, so enforcement checks it too).
int buildExecutable(const std::string& Input, const std::string& Cpu, const std::string& Main,
                    std::string Output, const driver::CompileResult& R,
                    const signing::PrivateKey* Key) {
  if (Output.empty())
    Output = defaultOutput(Input, "");
  if (Output == Input) {
    std::cerr << "cajeta: error: the executable would replace the source file '" << Input
              << "'; name it with -o\n";
    return 1;
  }
  std::string Error;
  const kir::Function* Entry = R.HostKir ? driver::findEntry(*R.HostKir, Main, Error) : nullptr;
  if (!Entry) {
    std::cerr << "cajeta: error: " << (Error.empty() ? "the program has no host part" : Error)
              << "\n";
    return 1;
  }
  lowering::HostExecutableOptions O;
  O.Cpu = Cpu;
  O.SourceFile = Input;
  O.RuntimeLibraryDir = runtimeLibraryDir();
  std::vector<uint8_t> Bundle = bundle::BundleWriter::write(R.Program);
  if (Key && !signBundleBytes(Bundle, *Key, "the bundle of " + Output))
    return 1;
  if (!lowering::HostExecutableBuilder::build(*R.HostKir, *Entry, Bundle, O, Output, Error)) {
    std::cerr << "cajeta: error: " << Error << "\n";
    return 1;
  }
  return 0;
}

/// The bundle, signed with Key if there is one, written atomically; prints any error.
bool writeBundle(const bundle::Program& P, const std::string& Out, const signing::PrivateKey* Key) {
  std::string Error;
  std::vector<uint8_t> Bytes;
  if (!Key) {
    if (bundle::BundleWriter::writeFile(P, Out, Error))
      return true;
  } else if (!bundle::BundleWriter::writeChecked(P, Bytes, Error)) {
    Error = "cannot write bundle '" + Out + "': " + Error;
  } else if (!signBundleBytes(Bytes, *Key, "'" + Out + "'")) {
    return false;
  } else if (bundle::BundleWriter::writeBytes(Bytes, Out, Error)) {
    return true;
  }
  std::cerr << "cajeta: error: " << Error << "\n";
  return false;
}

} // namespace

void addBuildCommand(CLI::App& App) {
  struct Options {
    std::string Input, Output, Cpu = "native";
    std::vector<std::string> GpuArchs;
    bool CheckBounds = false;
    bool Exe = false;
    std::string Main, SignKey, Calibration;
  };
  auto O = std::make_shared<Options>();
  CLI::App* Cmd = App.add_subcommand(
      "build", "Compile a .cj program into a .cjx bundle, or with --exe a native executable");
  Cmd->add_option("input", O->Input, "Cajeta source file")->required();
  Cmd->add_option("-o,--output", O->Output,
                  "Bundle to write (default: input with .cjx); with --exe, the executable "
                  "(default: input without .cj)");
  Cmd->add_flag("--exe", O->Exe,
                "Write a native executable of the whole program (host code, kernels and a main) "
                "that needs only libcajeta_xpu.so, instead of a bundle");
  Cmd->add_option("--main", O->Main,
                  "With --exe: the entry point, Class.method (default: main, or the only "
                  "parameterless static host method)");
  Cmd->add_option("--sign", O->SignKey,
                  "Sign the bundle (with --exe, the bundle inside the executable) with this "
                  "private key (NAME.key, from cajeta keygen)");
  Cmd->add_option("--with-calibration", O->Calibration,
                  "Build in the calibration records of this snapshot (cajeta calibrate <program> "
                  "--out=FILE): served first, on the device they were measured on only");
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
    if (!O->Exe && !O->Main.empty()) {
      std::cerr << "cajeta: error: --main chooses the entry point of an executable; add --exe\n";
      ExitCode = 2;
      return;
    }
    // The key first: a bad one fails before minutes of compiling.
    std::optional<signing::PrivateKey> Key;
    if (!O->SignKey.empty() && !readSigningKey(O->SignKey, Key.emplace())) {
      ExitCode = 1;
      return;
    }
    std::vector<std::string> Calibration;
    if (std::string Error;
        !O->Calibration.empty() && !readSnapshot(O->Calibration, Calibration, Error)) {
      std::cerr << "cajeta: error: " << Error << "\n";
      ExitCode = 1;
      return;
    }
    std::string Source;
    if (!readSourceFile(O->Input, Source)) {
      ExitCode = 1;
      return;
    }
    driver::CompileOptions CO;
    CO.CheckBounds = O->CheckBounds;
    CO.Cpu = O->Cpu;
    CO.GpuArchs = O->GpuArchs;
    CO.GpuFootprint = true;   // NVPTX: AOT reads registers/spills/shared from ptxas -v
    CO.HostPayload = !O->Exe; // an executable has its host code: its bundle needs only kernels
    driver::CompileResult R = driver::Compiler::compile(O->Input, Source, CO);
    std::cerr << R.Diagnostics;
    if (!R.Ok) {
      ExitCode = 1;
      return;
    }
    R.Program.Calibration = std::move(Calibration);
    if (O->Exe) {
      ExitCode = buildExecutable(O->Input, O->Cpu, O->Main, O->Output, R, Key ? &*Key : nullptr);
      return;
    }
    std::string Out = O->Output.empty() ? defaultOutput(O->Input, ".cjx") : O->Output;
    if (!writeBundle(R.Program, Out, Key ? &*Key : nullptr)) {
      ExitCode = 1;
      return;
    }
    if (R.HostKir && !R.HostKir->Functions.empty()) {
      std::string Why;
      if (driver::findEntry(*R.HostKir, "", Why))
        std::cerr << O->Input << ": note: the bundle holds the host code too: `cajeta run " << Out
                  << "` runs it\n";
      else
        std::cerr << O->Input << ": note: the bundle holds the host code too, without a default "
                  << "entry point: " << Why << "\n";
    }
  });
}

} // namespace cajeta::cli
