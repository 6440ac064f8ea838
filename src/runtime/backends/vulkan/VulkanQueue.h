// A runtime stream's Vulkan queue: launches and copies recorded into a command buffer with the
// barriers their hazards need, submitted in batches that signal the stream's timeline; chains
// recorded once into a command buffer of their own (VulkanChain) and resubmitted.
#pragma once

#include "bundle/VulkanKernelAbi.h"
#include "runtime/Backend.h"
#include "runtime/RuntimeError.h"
#include "runtime/backends/vulkan/VulkanDevice.h"
#include "runtime/backends/vulkan/VulkanTimeline.h"

#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace cajeta::xpu::rt::vulkan {

class VulkanChain;

class VulkanQueue : public BackendQueue {
public:
  /// Throws RuntimeError naming the device when the command pool or the timeline cannot be made.
  explicit VulkanQueue(VulkanDevice& Device);
  ~VulkanQueue() override;
  VulkanQueue(const VulkanQueue&) = delete;
  VulkanQueue& operator=(const VulkanQueue&) = delete;

  void launch(const void* Kernel, const bundle::KernelInfo& Info, const MarshalledArg* Args,
              const LaunchGeometry& Geometry, const void* Tag) override;
  bool recordsChains() const override { return true; }
  /// Timestamps around each launch of the stream's batches (not inside recorded chains), turned
  /// into host time with the calibrated clocks when the batch retires.
  bool timeLaunches() override;
  void takeDeviceSpans(std::vector<DeviceSpan>& Out) override;
  /// Records the chain into a command buffer of its own, or resubmits the recording when the
  /// launches are the recording's with exactly its arguments (VulkanChain::matches): a command
  /// buffer bakes its descriptor sets and parameters, so other arguments are recorded anew.
  void launchChain(uint64_t Id, std::vector<ChainLaunch>& Launches) override;
  void copyToDevice(void* Dst, const void* Src, size_t Bytes, bool Staged) override;
  void copyFromDevice(void* Dst, const void* Src, size_t Bytes, bool Staged) override;
  void copyWithinDevice(void* Dst, const void* Src, size_t Bytes) override;
  std::shared_ptr<BackendEvent> record() override;
  void wait(BackendEvent& E) override;
  void synchronize(std::vector<QueuedFailure>& Failures) override;
  /// Submits the launches this stream has gathered, for another stream whose host thread is
  /// about to block; nothing while the stream's own thread is in a call (it submits itself).
  void submitForAnother();

  /// Whether streams' progress is a timeline semaphore (else a fence per submit).
  bool usesTimeline() const { return Timeline->semaphore() != VK_NULL_HANDLE; }
  /// Submits so far (each a batch of commands, a chain, or an event's wait-and-signal).
  uint64_t submits() const { return Timeline->lastSubmitted(); }
  /// Chains recorded and chains replayed (resubmitted) so far; with CAJETA_XPU_DEBUG set, the
  /// queue prints both when it goes away.
  uint64_t chainRecordings() const { return ChainRecordings; }
  uint64_t chainReplays() const { return ChainReplays; }

  /// Commands a batch holds before it is submitted without waiting.
  static constexpr uint32_t BatchCommands = 256;

  // What a recording is made of: a stream's batch or a chain's command buffer (VulkanChain).
  /// A buffer a command reads or writes, for the barriers between commands.
  struct Use {
    VkBuffer Buffer;
    bool Write;
  };
  /// Host-visible memory of a batch: staging, a status record, a uniform parameter block.
  struct Slice {
    VkBuffer Buffer;
    size_t Offset;
    uint8_t* Host;
  };
  /// One command buffer and what its commands use until the device has passed it.
  struct Batch {
    VkCommandBuffer Cmd = VK_NULL_HANDLE;
    std::vector<VkDescriptorPool> Pools;
    size_t PoolAt = 0;
    std::vector<HostBuffer> Blocks; // bump-allocated, the last one current
    size_t BlockUsed = 0;
    size_t HostBytes = 0;
    std::vector<std::pair<const void*, const CajetaVkStatus*>> Statuses; // launch tag, record
    std::vector<VulkanTimeline::HostCopy> Copies;                        // downloads
    std::vector<Use> Since; // buffers used since the last barrier
    VkPipelineStageFlags SinceStages = 0;
    VkAccessFlags SinceWrites = 0;
    uint32_t Commands = 0;
    uint64_t Value = 0; // the timeline value its submit signals
    // Tracing: a start and an end timestamp per launch (queries 2i, 2i+1), reset at open.
    VkQueryPool Queries = VK_NULL_HANDLE;
    std::vector<const void*> TimedTags;
  };

private:
  /// A download from host-mapped device memory, copied straight out once the device is idle.
  struct MappedRead {
    void* Dst;
    const DeviceBuffer* Src;
    size_t Bytes;
  };

  void usable() const;
  Batch& open();
  void counted(Batch& B);
  void flush(const char* Why);
  /// Submits the open batch (or the pending waits alone); false when there was nothing.
  bool submitOpen(const char* Why);
  void retire(Batch& B);
  void retireReached();
  void lose(const RuntimeError& E);
  bool idle();
  Slice hostSlice(Batch& B, size_t Bytes);
  HostBuffer takeBlock(size_t Bytes);
  void trimSpare();
  void trimBlocks();
  VkDescriptorSet allocateSet(Batch& B, VkDescriptorSetLayout Layout, const std::string& Kernel);
  void order(Batch& B, VkPipelineStageFlags Stage, const Use* Uses, size_t Count);
  void recordDownload(void* Dst, const DeviceBuffer& Src, size_t Bytes);
  void materializeMappedReads();
  void finishMappedReads();
  void checkLimits(const bundle::KernelInfo& Info, const LaunchGeometry& Geometry,
                   uint64_t StaticSharedBytes) const;
  /// Records one launch into B (a stream's open batch or a chain's recording): its descriptor
  /// set, status record and parameter block in B's pools and host memory, the barrier its
  /// hazards need, and the dispatch: in pieces of PieceGroups workgroups where the kernel allows
  /// it (0: whole; VulkanDevice::pieceGroups).
  void recordLaunch(Batch& B, const void* Kernel, const bundle::KernelInfo& Info,
                    const MarshalledArg* Args, const LaunchGeometry& Geometry, const void* Tag,
                    uint64_t PieceGroups = 0);
  std::unique_ptr<VulkanChain> recordChain(const std::vector<ChainLaunch>& Launches);
  /// Keeps a replaced recording until the timeline has passed its last submit.
  void retireChain(std::unique_ptr<VulkanChain> Chain);
  /// Reads back the failures of the chains submitted since the last collection (the timeline
  /// has passed them) and destroys the retired chains it has passed.
  void collectChains(uint64_t Reached);
  void destroyChain(std::unique_ptr<VulkanChain> Chain);

  VulkanDevice& Device;
  const VulkanApi& Api;
  std::mutex Busy;            // held by every call: another stream's submitForAnother only tries it
  bool LatencyStream = false; // has submitted latency-class work (VulkanDevice::pieceGroups)
  std::shared_ptr<VulkanTimeline> Timeline;
  VkCommandPool Pool = VK_NULL_HANDLE;
  size_t Alignment = 16;
  std::unique_ptr<Batch> Open;
  std::deque<std::unique_ptr<Batch>> InFlight;
  std::vector<std::unique_ptr<Batch>> Spare;
  std::vector<HostBuffer> FreeBlocks;
  std::vector<VkSemaphore> WaitSemaphores; // for the next submit
  std::vector<uint64_t> WaitValues;
  std::vector<std::shared_ptr<VulkanTimeline>> Waited; // kept until the next synchronize
  std::vector<MappedRead> MappedReads;
  std::vector<QueuedFailure> Failed; // read back from retired batches, in launch order
  std::string LostReason;
  // Chains by capture identity; replaced ones until the timeline passes them; those submitted
  // since their status records were last read.
  std::unordered_map<uint64_t, std::unique_ptr<VulkanChain>> Chains;
  std::vector<std::unique_ptr<VulkanChain>> RetiredChains;
  std::vector<VulkanChain*> LaunchedChains;
  uint64_t ChainRecordings = 0, ChainReplays = 0;
  bool Timing = false;
  std::vector<DeviceSpan> Spans;
  /// Reads a retired batch's timestamps into Spans.
  void readTimes(Batch& B);
  bool Debug = false; // CAJETA_XPU_DEBUG
  // Scratch reused by every launch.
  std::vector<uint8_t> ParamBlock;
  std::vector<VkDescriptorBufferInfo> Infos;
  std::vector<VkWriteDescriptorSet> Writes;
  std::vector<Use> Uses;
};

} // namespace cajeta::xpu::rt::vulkan
