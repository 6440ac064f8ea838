// Loading the Vulkan loader and the instance-level function table.
#include "runtime/backends/vulkan/VulkanApi.h"

#include <dlfcn.h>
#include <fmt/format.h>

namespace cajeta::xpu::rt::vulkan {

bool VulkanApi::load(std::string& Error) {
  Library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Library) {
    const char* Why = dlerror();
    Error = fmt::format("no Vulkan loader: {}", Why ? Why : "dlopen(libvulkan.so.1) failed");
    return false;
  }
  auto GetProc =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(Library, "vkGetInstanceProcAddr"));
  if (!GetProc) {
    Error = "the Vulkan loader has no vkGetInstanceProcAddr";
    return false;
  }
  auto CreateInstance =
      reinterpret_cast<PFN_vkCreateInstance>(GetProc(VK_NULL_HANDLE, "vkCreateInstance"));
  auto EnumerateVersion = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      GetProc(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
  if (!CreateInstance || !EnumerateVersion) {
    Error = "the Vulkan loader is older than Vulkan 1.1";
    return false;
  }
  uint32_t LoaderVersion = VK_API_VERSION_1_0;
  EnumerateVersion(&LoaderVersion);
  if (LoaderVersion < VK_API_VERSION_1_1) {
    Error = "the Vulkan loader offers only Vulkan 1.0 (1.1 is needed)";
    return false;
  }
  ApiVersion = LoaderVersion >= VK_API_VERSION_1_3 ? VK_API_VERSION_1_3 : LoaderVersion;
  VkApplicationInfo App{};
  App.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  App.pApplicationName = "cajeta-xpu";
  App.pEngineName = "cajeta-xpu";
  App.apiVersion = ApiVersion;
  VkInstanceCreateInfo Info{};
  Info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  Info.pApplicationInfo = &App;
  if (VkResult R = CreateInstance(&Info, nullptr, &Instance); R != VK_SUCCESS) {
    Error = fmt::format("vkCreateInstance: {}", describe(R));
    return false;
  }
#define CAJETA_VK_LOAD(Name)                                                                       \
  Name = reinterpret_cast<PFN_##Name>(GetProc(Instance, #Name));                                   \
  if (!Name) {                                                                                     \
    Error = "the Vulkan loader has no " #Name;                                                     \
    return false;                                                                                  \
  }
  CAJETA_VK_FUNCTIONS(CAJETA_VK_LOAD)
#undef CAJETA_VK_LOAD
#define CAJETA_VK_LOAD_OPTIONAL(Name)                                                              \
  Name = reinterpret_cast<PFN_##Name>(GetProc(Instance, #Name));                                   \
  if (!Name)                                                                                       \
    Name = reinterpret_cast<PFN_##Name>(GetProc(Instance, #Name "KHR"));
  CAJETA_VK_OPTIONAL_FUNCTIONS(CAJETA_VK_LOAD_OPTIONAL)
#undef CAJETA_VK_LOAD_OPTIONAL
  GetInstanceProc = GetProc;
  return true;
}

PFN_vkVoidFunction VulkanApi::instanceProc(const char* Name) const {
  return GetInstanceProc ? GetInstanceProc(Instance, Name) : nullptr;
}

std::string VulkanApi::describe(VkResult R) {
  const char* Name = "an unknown VkResult";
  switch (R) {
#define CAJETA_VK_RESULT(N)                                                                        \
  case N:                                                                                          \
    Name = #N;                                                                                     \
    break;
    CAJETA_VK_RESULT(VK_SUCCESS)
    CAJETA_VK_RESULT(VK_NOT_READY)
    CAJETA_VK_RESULT(VK_TIMEOUT)
    CAJETA_VK_RESULT(VK_INCOMPLETE)
    CAJETA_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    CAJETA_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    CAJETA_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    CAJETA_VK_RESULT(VK_ERROR_DEVICE_LOST)
    CAJETA_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    CAJETA_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    CAJETA_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    CAJETA_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    CAJETA_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    CAJETA_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    CAJETA_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    CAJETA_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    CAJETA_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    CAJETA_VK_RESULT(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    CAJETA_VK_RESULT(VK_ERROR_FRAGMENTATION)
    CAJETA_VK_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef CAJETA_VK_RESULT
  default:
    break;
  }
  return fmt::format("{} ({})", Name, int(R));
}

void recordMemoryBarrier(const VulkanApi& Api, VkCommandBuffer Cmd, VkPipelineStageFlags Src,
                         VkAccessFlags SrcAccess, VkPipelineStageFlags Dst,
                         VkAccessFlags DstAccess) {
  VkMemoryBarrier Barrier{};
  Barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  Barrier.srcAccessMask = SrcAccess;
  Barrier.dstAccessMask = DstAccess;
  Api.vkCmdPipelineBarrier(Cmd, Src, Dst, 0, 1, &Barrier, 0, nullptr, 0, nullptr);
}

} // namespace cajeta::xpu::rt::vulkan
