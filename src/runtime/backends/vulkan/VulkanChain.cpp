// Chains recorded into a Vulkan command buffer (VulkanChain.h).
#include "runtime/backends/vulkan/VulkanChain.h"

#include "runtime/backends/vulkan/VulkanStatusRecord.h"

#include <cstring>

namespace cajeta::xpu::rt::vulkan {

VulkanChain::VulkanChain(VulkanDevice& Device, VkCommandPool Pool,
                         const std::vector<ChainLaunch>& Chain)
    : Device(Device), Pool(Pool) {
  const VulkanApi& Api = Device.api();
  VkCommandBufferAllocateInfo CBA{};
  CBA.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  CBA.commandPool = Pool;
  CBA.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  CBA.commandBufferCount = 1;
  Device.check(Api.vkAllocateCommandBuffers(Device.handle(), &CBA, &Rec.Cmd),
               "vkAllocateCommandBuffers (a chain)");
  VkCommandBufferBeginInfo Begin{};
  Begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  Begin.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
  VkResult R = Api.vkBeginCommandBuffer(Rec.Cmd, &Begin);
  if (R != VK_SUCCESS) {
    Api.vkFreeCommandBuffers(Device.handle(), Pool, 1, &Rec.Cmd);
    Device.check(R, "vkBeginCommandBuffer (a chain)");
  }
  // What earlier submits wrote (this stream's or another's) is visible, as in a batch.
  recordMemoryBarrier(Api, Rec.Cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                      VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);

  Launches.reserve(Chain.size());
  for (const ChainLaunch& L : Chain) {
    Launch R{L.Kernel, L.Info, L.Tag, L.Geometry, L.Args, {}, {}};
    for (size_t P = 0; P != L.Args.size(); ++P) {
      const MarshalledArg& A = L.Args[P];
      switch (L.Info->Params[P].Kind) {
      case bundle::ParamKind::Buffer:
        R.Buffers.push_back(A.Ptr ? static_cast<const DeviceBuffer*>(A.Ptr)->Buffer
                                  : VK_NULL_HANDLE);
        break;
      case bundle::ParamKind::Pod: {
        const auto* Bytes = static_cast<const uint8_t*>(A.Ptr);
        R.Pods.insert(R.Pods.end(), Bytes, Bytes + A.Length);
        break;
      }
      default:
        break;
      }
    }
    Launches.push_back(std::move(R));
  }
}

VulkanChain::~VulkanChain() {
  const VulkanApi& Api = Device.api();
  for (VkDescriptorPool P : Rec.Pools)
    Api.vkDestroyDescriptorPool(Device.handle(), P, nullptr);
  for (HostBuffer& H : Rec.Blocks)
    Device.destroyHostBuffer(H);
  if (Rec.Cmd)
    Api.vkFreeCommandBuffers(Device.handle(), Pool, 1, &Rec.Cmd);
}

void VulkanChain::finish() {
  const VulkanApi& Api = Device.api();
  // What the chain wrote becomes visible to the host once its submit's value is reached.
  recordMemoryBarrier(Api, Rec.Cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                      VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  Device.check(Api.vkEndCommandBuffer(Rec.Cmd), "vkEndCommandBuffer (a chain)");
}

bool VulkanChain::matches(const std::vector<ChainLaunch>& Chain) const {
  if (Chain.size() != Launches.size())
    return false;
  for (size_t I = 0; I != Chain.size(); ++I) {
    const ChainLaunch& L = Chain[I];
    const Launch& R = Launches[I];
    if (L.Kernel != R.Kernel || L.Info != R.Info || L.Tag != R.Tag ||
        std::memcmp(L.Geometry.Grid, R.Geometry.Grid, sizeof(R.Geometry.Grid)) ||
        std::memcmp(L.Geometry.Block, R.Geometry.Block, sizeof(R.Geometry.Block)) ||
        L.Geometry.DynamicSharedBytes != R.Geometry.DynamicSharedBytes ||
        L.Args.size() != R.Args.size())
      return false;
    size_t Buffer = 0, Pod = 0;
    for (size_t P = 0; P != L.Args.size(); ++P) {
      const MarshalledArg& A = L.Args[P];
      const MarshalledArg& B = R.Args[P];
      if (A.Length != B.Length)
        return false;
      switch (L.Info->Params[P].Kind) {
      case bundle::ParamKind::Buffer: {
        // The DeviceBuffer and its VkBuffer: the stream keeps a recorded chain's allocations
        // alive (Stream::ChainMemory), so neither can be a new buffer at a freed one's address.
        VkBuffer Handle = A.Ptr ? static_cast<const DeviceBuffer*>(A.Ptr)->Buffer : VK_NULL_HANDLE;
        if (A.Ptr != B.Ptr || Handle != R.Buffers[Buffer++])
          return false;
        break;
      }
      case bundle::ParamKind::Pod:
        if (std::memcmp(A.Ptr, R.Pods.data() + Pod, A.Length))
          return false;
        Pod += A.Length;
        break;
      default:
        if (A.Bits != B.Bits)
          return false;
        break;
      }
    }
  }
  return true;
}

void VulkanChain::collect(std::vector<QueuedFailure>& Failed) {
  for (auto& [Tag, Status] : Rec.Statuses) {
    // Host-visible coherent memory: the record is read and zeroed here, between submits.
    auto* Record = const_cast<CajetaVkStatus*>(Status);
    if (!Record->Failed)
      continue;
    Failed.push_back({Tag, failureOf(*Record)});
    std::memset(Record, 0, sizeof(CajetaVkStatus));
  }
}

} // namespace cajeta::xpu::rt::vulkan
