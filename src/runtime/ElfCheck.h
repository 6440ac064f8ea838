// Structural checks of an ELF shared object before dlopen, which crashes on truncated files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cajeta::xpu::rt {

/// "" when [Data, Data + Size) is an x86-64 ELF64 shared object whose headers and segments lie
/// inside the bytes; otherwise what is wrong. It guards the loader against malformed input, not
/// against hostile code: loading a payload runs it.
std::string checkElfSharedObject(const uint8_t* Data, size_t Size);

} // namespace cajeta::xpu::rt
