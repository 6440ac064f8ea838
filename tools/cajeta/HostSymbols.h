// The host support ABI's functions (cajeta/xpu/cajeta_host.h) by name, for the JIT that runs a
// program's host part: this executable links the runtime, the compiler library does not.
#pragma once

#include "compiler/lowering/llvm/HostJit.h"

#include <string>
#include <vector>

namespace cajeta::cli {

std::vector<lowering::HostSymbol> hostSymbols();

/// The folder of the libcajeta_xpu.so this executable runs with (found with dladdr on one of its
/// functions), what `cajeta build --exe` links against; empty when it cannot be told.
std::string runtimeLibraryDir();

} // namespace cajeta::cli
