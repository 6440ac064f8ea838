// A program's host part ahead of time, as a bundle payload: the host KIR module
// (HostModuleBuilder) for the `--cpu` machine (as the kernels' CPU payload) -> object -> an lld
// shared object that the runtime loads and runs without LLVM (cajeta_host_run_program).
#pragma once

#include "bundle/Manifest.h"
#include "compiler/kir/Kir.h"

#include <string>

namespace cajeta::lowering {

struct HostPayloadResult {
  bool Ok = false;
  std::string Error;
  /// Target "host", Format "elf-shared-object", Attributes {"triple", "cpu", "features"} (the
  /// enabled target features, as the CPU payload's). Each host method is a global function named
  /// by its kir::Function::Symbol; the host support ABI (cajeta/xpu/cajeta_host.h) and libm are
  /// left undefined, for the loader to find in the process (libcajeta_xpu.so).
  bundle::Payload Payload;
};

class HostPayloadBuilder {
public:
  /// The payload's target name.
  static constexpr const char* Target = "host";

  /// Host (kir::Module::IsHost) for CPU Cpu ("native" or an LLVM CPU name).
  static HostPayloadResult build(const kir::Module& Host, const std::string& Cpu);
};

} // namespace cajeta::lowering
