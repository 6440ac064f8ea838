// The SPIR-V kernels of one program on one Vulkan device: shader modules, layouts and the pipeline
// cache per (workgroup size, dynamic shared elements).
#pragma once

#include "runtime/Backend.h"
#include "runtime/backends/vulkan/VulkanApi.h"

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cajeta::xpu::rt::vulkan {

class VulkanDevice;

/// One kernel's SPIR-V module and how to bind it (VulkanKernelAbi.h).
class VulkanKernel {
public:
  enum class Block { None, PushConstant, Uniform };
  struct Slot {
    uint32_t Param, Offset, Size;
  };

  std::string Name;  // "K.saxpy"
  std::string Entry; // the OpEntryPoint name
  uint32_t ParamCount = 0;
  std::vector<uint32_t> BufferParams; // bindings of the buffer parameters
  Block ParamBlock = Block::None;
  uint32_t ParamBlockBytes = 0;
  std::vector<Slot> Slots;
  bool CheckBounds = false;
  uint32_t DynamicSharedElementBytes = 0;
  uint32_t StaticSharedBytes = 0;
  uint32_t PerWaveSharedBytes = 0; // for each wave of the group (the portable tile's scratch)
  bool UsesSubgroups = false;      // wave ops (a GroupNonUniform capability): full subgroups wanted
  /// The kernel never reads the grid's size ("grid_count" "unread"): its grid may be dispatched
  /// in pieces (vkCmdDispatchBase), its pipelines made with DISPATCH_BASE.
  bool DispatchesInPieces = false;

  VkShaderModule Shader = VK_NULL_HANDLE;
  VkDescriptorSetLayout SetLayout = VK_NULL_HANDLE;
  VkPipelineLayout Layout = VK_NULL_HANDLE;

  /// The pipeline for this block size and dynamic shared element count, created on first use.
  VkPipeline pipeline(VulkanDevice& Device, const uint32_t Block[3], uint32_t DynamicElements);
  void destroy(VulkanDevice& Device);

private:
  std::mutex Mutex;
  std::map<std::array<uint32_t, 5>, VkPipeline> Pipelines; // group size, dynamic, subgroup
};

class VulkanModule : public BackendModule {
public:
  /// Builds every kernel of a combined "spirv" payload (VulkanBackend::choosePayload); checks
  /// each kernel's capabilities and extensions against the device. Throws RuntimeError.
  static std::unique_ptr<VulkanModule> load(VulkanDevice& Device, const bundle::Payload& Payload);
  /// What Device lacks of a kernel module's requirements (its SPIR-V version, capabilities and
  /// extensions, as the attributes Attr reads name them), or "" when it has them all.
  static std::string missingRequirement(const VulkanDevice& Device,
                                        const std::function<std::string(const char*)>& Attr);
  ~VulkanModule() override;

  const void* findKernel(const std::string& Symbol) const override;

private:
  explicit VulkanModule(VulkanDevice& Device) : Device(Device) {}
  void addKernel(const bundle::Payload& Payload, const std::string& Kernel);

  VulkanDevice& Device;
  std::vector<std::unique_ptr<VulkanKernel>> Kernels;
};

} // namespace cajeta::xpu::rt::vulkan
