// SPIR-V validation before a module reaches a Vulkan driver: drivers assume valid input and may
// crash on anything else. Each distinct module is validated once per process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cajeta::xpu::rt::vulkan {

class SpirvValidation {
public:
  /// "" when the module (Count words) is valid SPIR-V for Vulkan 1.1 (SPIRV-Tools' validator), or
  /// was found valid before in this process; otherwise the validator's message.
  static std::string validate(const uint32_t* Words, size_t Count);
};

} // namespace cajeta::xpu::rt::vulkan
