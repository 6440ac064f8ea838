// Chooses the cuda device and the Vulkan device of the same GPU among the runtime's devices.
#include "DeviceChoice.h"

#include <vector>

namespace cajeta::gpubench {

namespace {

std::string index(size_t I) {
  return "[" + std::to_string(I) + "]";
}

} // namespace

bool DeviceChoice::choose(const GpuBenchOptions& O, DeviceChoice& Out, std::string& Error) {
  std::vector<xpu::Device> All = xpu::devices();
  for (size_t I = 0; I < All.size(); ++I) {
    const xpu::Device& D = All[I];
    Out.Listing += (I ? ", " : "") + index(I) + " " + D.backend() + " '" + D.name() + "'";
    if (!Out.Cuda && D.backend() == "cuda") {
      Out.Cuda = D;
      Out.CudaIndex = index(I);
    }
  }
  if (Out.Listing.empty())
    Out.Listing = "none";
  if (!O.Vulkan) {
    Out.VulkanWhy = "not run (--no-vulkan)";
    return true;
  }
  if (O.VulkanDevice >= 0) {
    size_t I = size_t(O.VulkanDevice);
    if (I >= All.size() || All[I].backend() != "vulkan") {
      Error = "--vulkan-device " + std::to_string(I) +
              " is not a Vulkan device (devices: " + Out.Listing + ")";
      return false;
    }
    Out.Vulkan = All[I];
    Out.VulkanIndex = index(I);
    Out.VulkanWhy = "chosen by --vulkan-device";
    return true;
  }
  std::string Skipped;
  for (size_t I = 0; I < All.size(); ++I) {
    if (All[I].backend() != "vulkan" || !Out.Cuda || All[I].name() != Out.Cuda->name())
      continue;
    Out.Vulkan = All[I];
    Out.VulkanIndex = index(I);
    Out.VulkanWhy = "the Vulkan device named as the cuda device";
    return true;
  }
  for (size_t I = 0; I < All.size(); ++I) {
    if (All[I].backend() != "vulkan")
      continue;
    if (All[I].runsOnHostCpu()) {
      Skipped += (Skipped.empty() ? "" : ", ") + All[I].name();
      continue;
    }
    Out.Vulkan = All[I];
    Out.VulkanIndex = index(I);
    Out.VulkanWhy = "no Vulkan device is named as the cuda device; the first that is not a CPU one";
    return true;
  }
  Out.VulkanWhy = Skipped.empty()
                      ? "no Vulkan device (no libvulkan.so.1 or no ICD for the GPU; "
                        "CAJETA_XPU_DEBUG=1 says why)"
                      : "no Vulkan device but CPU ones (" + Skipped + "), which are skipped";
  return true;
}

} // namespace cajeta::gpubench
