// VK_KHR_cooperative_matrix (and VK_KHR_shader_bfloat16, for bfloat16 matrices) as this runtime
// uses them: the few declarations Debian 12's Vulkan headers (1.3.239) predate, and the device's
// list of shapes in the form the compiler writes into a payload's "cooperative_matrix" attribute
// ("MxNxK:a:b:c:result").
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

inline constexpr const char* ShaderBFloat16Extension = "VK_KHR_shader_bfloat16";
inline constexpr auto StructureTypeShaderBFloat16Features = VkStructureType(1000141000);
inline constexpr int32_t ComponentTypeBFloat16 = 1000141000; // VK_COMPONENT_TYPE_BFLOAT16_KHR

struct ShaderBFloat16FeaturesKHR {
  VkStructureType sType = StructureTypeShaderBFloat16Features;
  void* pNext = nullptr;
  VkBool32 shaderBFloat16Type = VK_FALSE;
  VkBool32 shaderBFloat16DotProduct = VK_FALSE;
  VkBool32 shaderBFloat16CooperativeMatrix = VK_FALSE;
};

using PFN_GetPhysicalDeviceCooperativeMatrixProperties =
    VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*, CooperativeMatrixPropertiesKHR*);

/// The subgroup-scope, non-saturating products Phys lists, as "MxNxK:a:b:c:result" with
/// component types f16, f32, f64, s8 .. s64, u8 .. u64 and bf16 (others by number); empty when
/// the loader lacks the query. Products of bfloat16 only with BFloat16 (the device enables
/// shaderBFloat16CooperativeMatrix).
std::vector<std::string> cooperativeMatrixShapes(const VulkanApi& Api, VkPhysicalDevice Phys,
                                                 bool BFloat16);

} // namespace cajeta::xpu::rt::vulkan
