// Which devices our kernels run on: the cuda device, and the Vulkan device of the same GPU.
#pragma once

#include "GpuBenchOptions.h"

#include <cajeta/xpu.hpp>

#include <optional>
#include <string>

namespace cajeta::gpubench {

namespace xpu = cajeta::xpu;

class DeviceChoice {
public:
  /// Chooses from xpu::devices(): the first cuda device; for the Vulkan side (unless
  /// --no-vulkan) the device --vulkan-device names, else the first Vulkan device named as the
  /// cuda device (NVIDIA's driver names both after the GPU), else the first Vulkan device that is
  /// not a software rasterizer on the CPU (lavapipe/llvmpipe, SwiftShader). Error is set (and
  /// false returned) only for a --vulkan-device that is not a Vulkan device.
  static bool choose(const GpuBenchOptions& O, DeviceChoice& Out, std::string& Error);

  std::optional<xpu::Device> Cuda;
  std::optional<xpu::Device> Vulkan;
  std::string CudaIndex, VulkanIndex; // "[2]": the index in `cajeta devices`
  std::string VulkanWhy;              // how the Vulkan device was chosen, or why there is none
  std::string Listing;                // "[0] vulkan 'llvmpipe ...', [1] cpu '...'"
};

} // namespace cajeta::gpubench
