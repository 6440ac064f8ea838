// A chain recorded into a Vulkan command buffer of its own and resubmitted on replay. A command
// buffer bakes its descriptor sets (which buffers, which ranges), its push constants and its
// uniform parameter blocks, so a replay must have exactly the recording's arguments: the same
// kernels, geometry, scalar and POD values and the same buffers; anything else is recorded anew.
#pragma once

#include "runtime/Backend.h"
#include "runtime/backends/vulkan/VulkanQueue.h"

#include <vector>

namespace cajeta::xpu::rt::vulkan {

class VulkanChain {
public:
  /// Allocates the command buffer from Pool and begins it for simultaneous use (a replay may be
  /// submitted while an earlier one is pending), with the barrier that makes what earlier
  /// submits wrote visible. Keeps what matches() compares. Throws RuntimeError.
  VulkanChain(VulkanDevice& Device, VkCommandPool Pool, const std::vector<ChainLaunch>& Launches);
  /// Destroys the command buffer, descriptor pools and host memory still held: only once the
  /// device has passed the chain's last submit.
  ~VulkanChain();
  VulkanChain(const VulkanChain&) = delete;
  VulkanChain& operator=(const VulkanChain&) = delete;

  /// Where the queue records the launches (VulkanQueue::recordLaunch): the chain's command
  /// buffer, descriptor pools, and host memory for status records and parameter blocks.
  VulkanQueue::Batch& recording() { return Rec; }
  /// Ends the recording with the barrier that makes the chain's writes visible to the host.
  void finish();

  /// Whether Launches are the recording's: the same kernels, tags and geometry (which decide
  /// the pipelines), and the same argument values: buffers (their VkBuffer and bound range),
  /// scalars and POD bytes.
  bool matches(const std::vector<ChainLaunch>& Launches) const;

  VkCommandBuffer commandBuffer() const { return Rec.Cmd; }
  /// The timeline value of its latest submit; 0 before the first.
  uint64_t lastSubmit() const { return LastSubmit; }
  void submitted(uint64_t Value) { LastSubmit = Value; }
  /// Appends the failures its status records hold (every submit since the last call writes into
  /// the same records) and zeroes them. Only once the timeline has passed lastSubmit().
  void collect(std::vector<QueuedFailure>& Failed);

private:
  struct Launch {
    const void* Kernel;
    const bundle::KernelInfo* Info;
    const void* Tag;
    LaunchGeometry Geometry;
    std::vector<MarshalledArg> Args; // a POD's Ptr is not compared: its bytes are, in Pods
    std::vector<VkBuffer> Buffers;   // of the buffer parameters, in parameter order
    std::vector<uint8_t> Pods;       // the POD arguments' bytes, in parameter order
  };
  VulkanDevice& Device;
  VkCommandPool Pool;
  VulkanQueue::Batch Rec;
  std::vector<Launch> Launches;
  uint64_t LastSubmit = 0;
};

} // namespace cajeta::xpu::rt::vulkan
