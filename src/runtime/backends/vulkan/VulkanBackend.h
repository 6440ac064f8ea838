// The vulkan backend's factory: Vulkan compute devices through the loader, dlopened at run time.
#pragma once

#include "runtime/Backend.h"

#include <memory>
#include <string>

namespace cajeta::xpu::rt {

/// The vulkan backend with its devices (discrete GPUs first, then integrated, virtual and CPU
/// devices), or nullptr with Why set when the loader or every device is absent.
std::unique_ptr<Backend> createVulkanBackend(std::string& Why);

} // namespace cajeta::xpu::rt
