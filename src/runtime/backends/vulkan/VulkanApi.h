// The Vulkan entry points the vulkan backend calls, loaded from libvulkan.so.1 at run time.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

namespace cajeta::xpu::rt::vulkan {

// Instance-level functions (device functions too: the loader dispatches them).
#define CAJETA_VK_FUNCTIONS(X)                                                                     \
  X(vkDestroyInstance)                                                                             \
  X(vkEnumeratePhysicalDevices)                                                                    \
  X(vkGetPhysicalDeviceProperties)                                                                 \
  X(vkGetPhysicalDeviceProperties2)                                                                \
  X(vkGetPhysicalDeviceFeatures2)                                                                  \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                                      \
  X(vkGetPhysicalDeviceMemoryProperties)                                                           \
  X(vkEnumerateDeviceExtensionProperties)                                                          \
  X(vkCreateDevice)                                                                                \
  X(vkDestroyDevice)                                                                               \
  X(vkGetDeviceQueue)                                                                              \
  X(vkCreateBuffer)                                                                                \
  X(vkDestroyBuffer)                                                                               \
  X(vkGetBufferMemoryRequirements)                                                                 \
  X(vkAllocateMemory)                                                                              \
  X(vkFreeMemory)                                                                                  \
  X(vkBindBufferMemory)                                                                            \
  X(vkMapMemory)                                                                                   \
  X(vkCreateDescriptorSetLayout)                                                                   \
  X(vkDestroyDescriptorSetLayout)                                                                  \
  X(vkCreatePipelineLayout)                                                                        \
  X(vkDestroyPipelineLayout)                                                                       \
  X(vkCreateShaderModule)                                                                          \
  X(vkDestroyShaderModule)                                                                         \
  X(vkCreatePipelineCache)                                                                         \
  X(vkDestroyPipelineCache)                                                                        \
  X(vkCreateComputePipelines)                                                                      \
  X(vkDestroyPipeline)                                                                             \
  X(vkCreateDescriptorPool)                                                                        \
  X(vkDestroyDescriptorPool)                                                                       \
  X(vkResetDescriptorPool)                                                                         \
  X(vkAllocateDescriptorSets)                                                                      \
  X(vkUpdateDescriptorSets)                                                                        \
  X(vkCreateCommandPool)                                                                           \
  X(vkDestroyCommandPool)                                                                          \
  X(vkAllocateCommandBuffers)                                                                      \
  X(vkResetCommandBuffer)                                                                          \
  X(vkFreeCommandBuffers)                                                                          \
  X(vkBeginCommandBuffer)                                                                          \
  X(vkEndCommandBuffer)                                                                            \
  X(vkCmdBindPipeline)                                                                             \
  X(vkCmdBindDescriptorSets)                                                                       \
  X(vkCmdPushConstants)                                                                            \
  X(vkCmdDispatch)                                                                                 \
  X(vkCmdDispatchBase)                                                                             \
  X(vkCmdCopyBuffer)                                                                               \
  X(vkCmdPipelineBarrier)                                                                          \
  X(vkCreateFence)                                                                                 \
  X(vkDestroyFence)                                                                                \
  X(vkResetFences)                                                                                 \
  X(vkWaitForFences)                                                                               \
  X(vkGetFenceStatus)                                                                              \
  X(vkCreateSemaphore)                                                                             \
  X(vkDestroySemaphore)                                                                            \
  X(vkQueueSubmit)                                                                                 \
  X(vkQueueWaitIdle)                                                                               \
  X(vkCreateQueryPool)                                                                             \
  X(vkDestroyQueryPool)                                                                            \
  X(vkCmdResetQueryPool)                                                                           \
  X(vkCmdWriteTimestamp)                                                                           \
  X(vkGetQueryPoolResults)

// Timeline semaphore functions (Vulkan 1.2, or VK_KHR_timeline_semaphore): null where the loader
// has neither name; the device then signals its queues' progress with fences.
// VK_EXT_calibrated_timestamps (the trace's device times) and VK_KHR_pipeline_executable_properties
// (the driver's statistics of each pipeline under CAJETA_XPU_DEBUG): null where the loader lacks
// them.
#define CAJETA_VK_OPTIONAL_FUNCTIONS(X)                                                            \
  X(vkWaitSemaphores)                                                                              \
  X(vkGetSemaphoreCounterValue)                                                                    \
  X(vkGetPhysicalDeviceCalibrateableTimeDomainsEXT)                                                \
  X(vkGetCalibratedTimestampsEXT)                                                                  \
  X(vkGetPipelineExecutablePropertiesKHR)                                                          \
  X(vkGetPipelineExecutableStatisticsKHR)

/// The loader and the instance; every pointer is valid once load() returned true.
class VulkanApi {
public:
  /// dlopens the loader, creates an instance (API 1.3 where the loader offers it, else 1.1) and
  /// loads every function; false with Error set when any step fails.
  bool load(std::string& Error);

  VkInstance instance() const { return Instance; }
  uint32_t apiVersion() const { return ApiVersion; }

  /// An instance-level function the loader may or may not have (an extension newer than the
  /// headers this runtime is built with); null where it has none.
  PFN_vkVoidFunction instanceProc(const char* Name) const;

  /// "VK_ERROR_DEVICE_LOST (-4)".
  static std::string describe(VkResult R);

#define CAJETA_VK_DECLARE(Name) PFN_##Name Name = nullptr;
  CAJETA_VK_FUNCTIONS(CAJETA_VK_DECLARE)
  CAJETA_VK_OPTIONAL_FUNCTIONS(CAJETA_VK_DECLARE)
#undef CAJETA_VK_DECLARE

private:
  void* Library = nullptr;
  PFN_vkGetInstanceProcAddr GetInstanceProc = nullptr;
  VkInstance Instance = VK_NULL_HANDLE;
  uint32_t ApiVersion = VK_API_VERSION_1_1;
};

/// Records a global memory barrier into Cmd: the Src stages' SrcAccess writes made visible to
/// the Dst stages' DstAccess.
void recordMemoryBarrier(const VulkanApi& Api, VkCommandBuffer Cmd, VkPipelineStageFlags Src,
                         VkAccessFlags SrcAccess, VkPipelineStageFlags Dst,
                         VkAccessFlags DstAccess);

} // namespace cajeta::xpu::rt::vulkan
