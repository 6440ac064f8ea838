// One Vulkan physical device as a runtime device: its queues, memory, and the VulkanQueue each
// runtime stream records its launches and copies into.
#pragma once

#include "runtime/Backend.h"
#include "runtime/backends/vulkan/VulkanApi.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace cajeta::xpu::rt::vulkan {

/// What the device offers that SPIR-V modules may require (VulkanKernelAbi.h "capabilities").
struct VulkanFeatures {
  bool Int8 = false, Int16 = false, Int64 = false, Float16 = false, Float64 = false;
  bool StorageBuffer8 = false, StorageBuffer16 = false;
  bool BufferInt64Atomics = false, SharedInt64Atomics = false;
  bool BufferFloat32AtomicAdd = false, BufferFloat64AtomicAdd = false;
  // VkPhysicalDeviceFloatControlsProperties, per width 16/32/64 (index 0/1/2).
  bool SignedZeroInfNanPreserve[3] = {false, false, false};
  bool DenormPreserve[3] = {false, false, false};
  // VkPhysicalDeviceSubgroupProperties: the subgroup size (Wave.width()) and the subgroup
  // operations compute shaders have (SPIR-V GroupNonUniform, ...Vote, ...Ballot, ...Shuffle,
  // ...Arithmetic); all false where compute is not among the supported stages.
  uint32_t SubgroupSize = 0;
  uint64_t MaxLoopIterations = 0;         // a driver's silent loop limit (llvmpipe), 0: none
  uint32_t SmCount = 0, ThreadsPerSm = 0; // VK_NV_shader_sm_builtins; 0: not said
  bool OrderedAtomicsInLoops = true; // false: llvmpipe (BackendDevice::orderedAtomicsInLoopsWork)
  bool WavesSpanRows = true;         // false: llvmpipe (BackendDevice::wavesSpanRows)
  bool SubgroupBasic = false, SubgroupVote = false, SubgroupBallot = false;
  bool SubgroupShuffle = false, SubgroupArithmetic = false;
  /// A subgroup size Kir.h's wave ops allow: a power of two in 4..64.
  bool subgroupSizeValid() const {
    return SubgroupSize >= 4 && SubgroupSize <= 64 && (SubgroupSize & (SubgroupSize - 1)) == 0;
  }
  /// VK_EXT_subgroup_size_control with computeFullSubgroups: a wave kernel's pipeline can
  /// require full subgroups when its block's x size is a multiple of MaxSubgroupSize.
  bool FullSubgroups = false;
  uint32_t MaxSubgroupSize = 0;
  bool TimelineSemaphore = false; // streams signal timeline semaphores (else fences)
  // Tiles' native tier: VK_KHR_cooperative_matrix and the products the device lists
  // ("MxNxK:a:b:c:result", VulkanCooperativeMatrix.h), and the Vulkan memory model such modules
  // are written in (with Device scope for their buffer atomics).
  bool CooperativeMatrix = false;
  std::vector<std::string> MatrixShapes;
  // VK_KHR_shader_bfloat16: bfloat16 cooperative matrices (SPV_KHR_bfloat16's type).
  bool BFloat16Type = false, BFloat16CooperativeMatrix = false;
  bool VulkanMemoryModel = false, VulkanMemoryModelDeviceScope = false;
  // VK_KHR_workgroup_memory_explicit_layout: the shared pool's views (SPIR-V 1.4 modules).
  bool WorkgroupExplicitLayout = false, WorkgroupExplicitLayout8Bit = false;
  bool WorkgroupExplicitLayout16Bit = false;
  bool Spirv14 = false; // SPIR-V 1.4 modules (Vulkan 1.2 or VK_KHR_spirv_1_4)
  // The trace's device times: timestamps on the compute queue, and the device's clock read
  // together with CLOCK_MONOTONIC (VK_EXT_calibrated_timestamps). 0 / false where missing.
  uint32_t TimestampBits = 0;
  float TimestampPeriodNs = 0;
  bool CalibratedMonotonic = false;
  // VK_KHR_pipeline_executable_properties, enabled only under CAJETA_XPU_DEBUG: each pipeline's
  // statistics from the driver (registers, spills, ...) go to stderr when it is created.
  bool PipelineStatistics = false;
  std::set<std::string> Extensions; // the device extensions enabled
};

/// One device buffer: what allocate() hands out as the "device pointer".
struct DeviceBuffer {
  VkBuffer Buffer = VK_NULL_HANDLE;
  VkDeviceMemory Memory = VK_NULL_HANDLE;
  void* Mapped = nullptr; // set where the memory is host-visible and coherent
  size_t Bytes = 0;
};

/// A host-visible, coherent, persistently mapped buffer (status records, staging, uniforms).
struct HostBuffer {
  VkBuffer Buffer = VK_NULL_HANDLE;
  VkDeviceMemory Memory = VK_NULL_HANDLE;
  void* Mapped = nullptr;
  size_t Bytes = 0;
};

class VulkanQueue;

class VulkanDevice : public BackendDevice {
public:
  /// A device on Phys with a compute queue, or nullptr with Error set.
  static std::unique_ptr<VulkanDevice> create(const VulkanApi& Api, VkPhysicalDevice Phys,
                                              std::string& Error);
  ~VulkanDevice() override; // the runtime never destroys its backends; tests may

  const std::string& name() const override { return Name; }
  const char* backendName() const override { return "vulkan"; }
  /// The SMs where the driver says (VK_NV_shader_sm_builtins); 1 elsewhere (Vulkan does not say).
  unsigned computeUnits() const override { return Features.SmCount ? Features.SmCount : 1; }
  unsigned maxWorkgroupSize() const override { return Props.limits.maxComputeWorkGroupInvocations; }
  uint64_t maxDynamicSharedBytes() const override {
    return Props.limits.maxComputeSharedMemorySize;
  }
  uint64_t maxBufferArgumentBytes() const override { return Props.limits.maxStorageBufferRange; }
  bool runsOnHostCpu() const override { return Props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU; }
  bool preferredByDefault() const override {
    return Props.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
  }
  bool supports(cajeta_xpu_capability Capability) const override;
  /// Whether the device runs a cooperative-matrix payload whose "cooperative_matrix" attribute
  /// is Shapes (every product listed by the device); Why says what is missing otherwise.
  bool runsCooperativeMatrices(const std::string& Shapes, std::string& Why) const;
  const std::string& matrixShapes() const override { return MatrixShapeList; }
  std::string identity() const override;
  std::string driverVersion() const override;
  /// The subgroup size, where compute shaders have subgroups of a width wave ops allow.
  uint64_t maxLoopIterations() const override { return Features.MaxLoopIterations; }
  bool orderedAtomicsInLoopsWork() const override { return Features.OrderedAtomicsInLoops; }
  uint32_t waveWidth() const override {
    return Features.SubgroupBasic && Features.subgroupSizeValid() ? Features.SubgroupSize : 0;
  }
  bool wavesSpanRows() const override { return Features.WavesSpanRows; }

  void* allocate(size_t Bytes) override;
  void release(void* Ptr, size_t Bytes) override;

  std::unique_ptr<BackendModule> loadModule(const bundle::Payload& Payload) override;
  std::unique_ptr<BackendQueue> createQueue() override;

  const VulkanApi& api() const { return Api; }
  VkDevice handle() const { return Device; }
  VkPipelineCache pipelineCache() const { return PipelineCache; }
  const VkPhysicalDeviceProperties& properties() const { return Props; }
  const VulkanFeatures& features() const { return Features; }
  uint32_t queueFamily() const { return QueueFamily; }
  /// Throws RuntimeError naming the device, What and the VkResult unless R is VK_SUCCESS.
  /// VK_ERROR_DEVICE_LOST marks the device lost and throws CAJETA_XPU_DEVICE_LOST.
  void check(VkResult R, const std::string& What) const;
  /// Whether the device was lost: every later use of it fails at once, naming the loss.
  bool lost() const { return Lost.load(); }
  /// Throws CAJETA_XPU_DEVICE_LOST naming What when the device was lost.
  void checkNotLost(const std::string& What) const;
  /// Whether a stream submits what it has recorded as soon as none of its work is running on the
  /// device (else at the next event, download, sync or full batch only).
  /// CAJETA_XPU_VULKAN_LAZY_SUBMIT=1 turns it off, for A/B measurements.
  bool submitsWhenIdle() const { return SubmitWhenIdle; }
  /// Waits until every queue of the device has finished every submit (a stream's timeline
  /// semaphore is destroyed only then: another stream's submit may still hold a wait on it).
  void waitIdle();
  /// The hardware queues streams are spread over: up to MaxQueues of the compute family's
  /// (CAJETA_XPU_VULKAN_QUEUES=N asks for at most N). With more than one, launches on different
  /// streams may run at the same time, and only semaphores order them.
  uint32_t queueCount() const { return uint32_t(Queues.size()); }
  static constexpr uint32_t MaxQueues = 8;
  bool concurrentStreams() const override { return Queues.size() > 1; }
  /// The queue a new stream submits to: each in turn.
  uint32_t assignQueue() { return NextQueue.fetch_add(1) % queueCount(); }
  /// The streams' queues, so that one about to block gets the others' gathered launches going
  /// (a stream submits while the device runs none of its work, else gathers until it syncs).
  void addQueue(VulkanQueue* Q);
  void removeQueue(VulkanQueue* Q);
  /// CAJETA_XPU_VULKAN_SUBMIT_OTHERS=0 turns it off, for A/B measurements.
  void submitOtherQueues(VulkanQueue* Self);
  /// Pacing for the latency class: while a stream that has submitted latency-class work lives,
  /// the other streams' grids are dispatched in pieces of about one wave (GridPieces), so that
  /// the latency-class launch, on a queue of its own, starts after the piece being dispatched
  /// rather than after a whole grid (a GPU dispatches every workgroup of a grid before another
  /// queue's). The workgroups of a piece: the device's threads over the block's (its SMs times
  /// their resident threads, VK_NV_shader_sm_builtins); 0 where the device does not say or runs
  /// every stream on one queue (nothing could start beside the grid anyway).
  /// CAJETA_XPU_VULKAN_PIECE_GROUPS=N dispatches every grid that allows it in pieces of N
  /// workgroups, latency streams or not (the tests), and =0 never (A/B measurements).
  uint64_t pieceGroups(uint64_t BlockThreads, bool OtherLatencyStreams) const;
  void noteLatencyStream(int Delta) { LatencyStreams.fetch_add(Delta); }
  int latencyStreams() const { return LatencyStreams.load(std::memory_order_relaxed); }
  /// vkQueueSubmit of one batch on queue Queue (streams may share one). A fault-injection
  /// switch for the tests, CAJETA_XPU_VULKAN_LOSE_DEVICE_AFTER=N, answers VK_ERROR_DEVICE_LOST
  /// to every submit after the first N (the driver never sees them), as a lost device would.
  VkResult submit(uint32_t Queue, const VkSubmitInfo& Submit, VkFence Fence);
  /// Throws RuntimeError when the device has no host-visible coherent memory for Bytes.
  HostBuffer createHostBuffer(size_t Bytes, VkBufferUsageFlags Usage);
  void destroyHostBuffer(HostBuffer& B);

private:
  VulkanDevice(const VulkanApi& Api, VkPhysicalDevice Phys);
  bool init(std::string& Error);
  uint32_t memoryType(uint32_t Allowed, VkMemoryPropertyFlags Want) const;

  const VulkanApi& Api;
  VkPhysicalDevice Phys;
  VkDevice Device = VK_NULL_HANDLE;
  /// A hardware queue and the lock vkQueueSubmit needs (a queue is externally synchronised).
  struct HardwareQueue {
    VkQueue Handle = VK_NULL_HANDLE;
    std::mutex Mutex;
  };
  std::vector<std::unique_ptr<HardwareQueue>> Queues;
  std::mutex StreamsMutex;
  std::vector<VulkanQueue*> Streams; // the live streams' queues
  std::atomic<uint32_t> NextQueue{0};
  std::atomic<int> LatencyStreams{0};
  int64_t ForcedPieceGroups = -1; // CAJETA_XPU_VULKAN_PIECE_GROUPS; -1: not set
  uint32_t QueueFamily = 0;
  VkPipelineCache PipelineCache = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties Props{};
  VkPhysicalDeviceMemoryProperties Memory{};
  VulkanFeatures Features;
  std::string MatrixShapeList; // Features.MatrixShapes, comma-separated
  bool Unified = false;        // device-local memory is host-visible too: no staging copies
  bool SubmitWhenIdle = true;
  bool SubmitOthers = true; // submitOtherQueues
  mutable std::atomic<bool> Lost{false};
  int64_t LoseAfterSubmits = -1; // CAJETA_XPU_VULKAN_LOSE_DEVICE_AFTER, -1: never
  std::atomic<int64_t> Submits{0};
  std::string Name;
};

} // namespace cajeta::xpu::rt::vulkan
