// VK_KHR_cooperative_matrix as this runtime uses it: the few declarations Debian 12's Vulkan
// headers (1.3.239) predate, and the device's list of shapes in the form the compiler writes
// into a payload's "cooperative_matrix" attribute ("MxNxK:a:b:c:result").
#pragma once

#include "runtime/backends/vulkan/VulkanApi.h"

#include <string>
#include <vector>

namespace cajeta::xpu::rt::vulkan {

inline constexpr const char* CooperativeMatrixExtension = "VK_KHR_cooperative_matrix";
inline constexpr auto StructureTypeCooperativeMatrixFeatures = VkStructureType(1000506000);
inline constexpr auto StructureTypeCooperativeMatrixProperties = VkStructureType(1000506001);

struct CooperativeMatrixFeaturesKHR {
  VkStructureType sType = StructureTypeCooperativeMatrixFeatures;
  void* pNext = nullptr;
  VkBool32 cooperativeMatrix = VK_FALSE;
  VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};

struct CooperativeMatrixPropertiesKHR {
  VkStructureType sType = StructureTypeCooperativeMatrixProperties;
  void* pNext = nullptr;
  uint32_t MSize = 0, NSize = 0, KSize = 0;
  int32_t AType = 0, BType = 0, CType = 0, ResultType = 0; // VkComponentTypeKHR
  VkBool32 saturatingAccumulation = VK_FALSE;
  int32_t scope = 0; // VkScopeKHR
};

using PFN_GetPhysicalDeviceCooperativeMatrixProperties =
    VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*, CooperativeMatrixPropertiesKHR*);

/// The subgroup-scope, non-saturating products Phys lists, as "MxNxK:a:b:c:result" with
/// component types f16, f32, f64, s8 .. s64, u8 .. u64 (others, such as bfloat16, by number);
/// empty when the loader lacks the query.
std::vector<std::string> cooperativeMatrixShapes(const VulkanApi& Api, VkPhysicalDevice Phys);

} // namespace cajeta::xpu::rt::vulkan
