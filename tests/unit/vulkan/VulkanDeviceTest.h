// What the Vulkan runtime tests share: the Vulkan device they run on, a fixture that forces the
// vulkan backend (or skips without a device), and the POD their test programs pass.
#pragma once

#include <cajeta/xpu.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

namespace vulkantest {

namespace xpu = cajeta::xpu;

/// The `Big` POD of the test programs (20 float64 fields: too large for push constants on some
/// devices, so it exercises the uniform parameter block).
struct Big {
  double A[10];
  double B[10];
};

inline std::optional<xpu::Device> vulkanDevice() {
  for (const xpu::Device& D : xpu::devices())
    if (D.backend() == "vulkan")
      return D;
  return std::nullopt;
}

/// Forces CAJETA_XPU_BACKEND=vulkan; skips the test where there is no Vulkan device.
class VulkanDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    setenv("CAJETA_XPU_BACKEND", "vulkan", 1);
    Device = vulkanDevice();
    if (!Device)
      GTEST_SKIP() << "no Vulkan device here (no loader, driver or device)";
  }
  std::optional<xpu::Device> Device;
};

} // namespace vulkantest
