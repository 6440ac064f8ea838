#include "runtime/backends/vulkan/VulkanCooperativeMatrix.h"

#include <fmt/format.h>

namespace cajeta::xpu::rt::vulkan {

namespace {

std::string componentName(int32_t T) {
  static const char* Names[] = {"f16", "f32", "f64", "s8",  "s16", "s32",
                                "s64", "u8",  "u16", "u32", "u64"};
  if (T >= 0 && T < int32_t(std::size(Names)))
    return Names[T];
  if (T == ComponentTypeBFloat16)
    return "bf16";
  return "type" + std::to_string(T);
}

constexpr int32_t ScopeSubgroup = 3; // VK_SCOPE_SUBGROUP_KHR

} // namespace

std::vector<std::string> cooperativeMatrixShapes(const VulkanApi& Api, VkPhysicalDevice Phys,
                                                 bool BFloat16) {
  auto Get = reinterpret_cast<PFN_GetPhysicalDeviceCooperativeMatrixProperties>(
      Api.instanceProc("vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  std::vector<std::string> Shapes;
  uint32_t Count = 0;
  if (!Get || Get(Phys, &Count, nullptr) != VK_SUCCESS)
    return Shapes;
  std::vector<CooperativeMatrixPropertiesKHR> Props(Count);
  if (Get(Phys, &Count, Props.data()) != VK_SUCCESS && Count == 0)
    return Shapes;
  Props.resize(Count);
  auto Usable = [&](int32_t T) { return BFloat16 || T != ComponentTypeBFloat16; };
  for (const CooperativeMatrixPropertiesKHR& P : Props)
    if (P.scope == ScopeSubgroup && !P.saturatingAccumulation && Usable(P.AType) &&
        Usable(P.BType) && Usable(P.CType) && Usable(P.ResultType))
      Shapes.push_back(fmt::format("{}x{}x{}:{}:{}:{}:{}", P.MSize, P.NSize, P.KSize,
                                   componentName(P.AType), componentName(P.BType),
                                   componentName(P.CType), componentName(P.ResultType)));
  return Shapes;
}

} // namespace cajeta::xpu::rt::vulkan
