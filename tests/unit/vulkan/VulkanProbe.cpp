// vulkan_probe: exits 0 when the runtime has a Vulkan device, 77 (ctest's skip code) when not.
#include <cajeta/xpu.hpp>

#include <cstdio>

int main() {
  for (const cajeta::xpu::Device& D : cajeta::xpu::devices())
    if (D.backend() == "vulkan") {
      std::printf("vulkan device: %s\n", D.name().c_str());
      return 0;
    }
  std::printf("no Vulkan device here (no loader, driver or device): skipping\n");
  return 77;
}
