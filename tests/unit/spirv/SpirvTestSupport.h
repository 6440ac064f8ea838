// Test support for spirv_tests: compile Cajeta source to KIR, emit SPIR-V, run spirv-val.
#pragma once

#include "compiler/driver/Compiler.h"
#include "compiler/lowering/spirv/SpirvEmitter.h"
#include "compiler/lowering/spirv/SpirvPayloadBuilder.h"

#include <string>
#include <vector>

namespace cajeta::lowering::spirv::test {

/// Reads a whole file; empty on failure.
std::string readFile(const std::string& Path);

/// The frontend's result for Source (asserting nothing: check Ok).
driver::FrontendResult frontend(const std::string& Name, const std::string& Source);

/// Runs spirv-val --target-env vulkan<Version> on Module; Output gets its messages. Fails with a
/// message when spirv-val is missing.
bool spirvVal(const Words& Module, const std::string& Version, std::string& Output);

/// The disassembly (in-process SPIRV-Tools); empty with a message in Error when unavailable.
std::string disassemble(const Words& Module);

/// Emits the kernel named Kernel of F (fails the test when missing).
SpirvKernel emit(const driver::FrontendResult& F, const std::string& Kernel,
                 const SpirvEmitOptions& O = {});

} // namespace cajeta::lowering::spirv::test
