// SpirvTools: in-process validation and disassembly through libSPIRV-Tools when it is linked.
#pragma once

#include "compiler/lowering/spirv/SpirvModuleBuilder.h"

#include <string>

namespace cajeta::lowering::spirv {

class SpirvTools {
public:
  /// Whether libSPIRV-Tools was linked in (otherwise every call fails with a message).
  static bool available();
  /// Validates for a Vulkan environment: Vulkan "1.1", "1.2" or "1.3". Message: the validator's.
  static bool validate(const Words& Module, const std::string& VulkanVersion, std::string& Message);
  /// The textual disassembly (spirv-dis style, friendly names).
  static bool disassemble(const Words& Module, std::string& Text, std::string& Message);
};

} // namespace cajeta::lowering::spirv
