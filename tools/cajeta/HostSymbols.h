// The host support ABI's functions (cajeta/xpu/cajeta_host.h) by name, for the JIT that runs a
// program's host part: this executable links the runtime, the compiler library does not.
#pragma once

#include "compiler/lowering/llvm/HostJit.h"

#include <vector>

namespace cajeta::cli {

std::vector<lowering::HostSymbol> hostSymbols();

} // namespace cajeta::cli
