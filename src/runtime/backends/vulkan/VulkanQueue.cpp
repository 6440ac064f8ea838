// Vulkan queues: launches and copies recorded into a stream's open command buffer, barriers where
// one command depends on another, batches submitted when the stream's earlier work is done, on
// events, downloads and synchronize (or when full), and per-batch resources recycled once the
// stream's timeline passes them. Chains are recorded once into a command buffer of their own
// (VulkanChain) and resubmitted while their arguments stay the same.
#include "runtime/backends/vulkan/VulkanQueue.h"

#include "runtime/backends/vulkan/VulkanChain.h"
#include "runtime/backends/vulkan/VulkanModule.h"
#include "runtime/backends/vulkan/VulkanStatusRecord.h"
#include "runtime/scheduler/GridPieces.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace cajeta::xpu::rt::vulkan {

namespace {

constexpr size_t MinBlockBytes = 64 * 1024;
constexpr size_t StagingChunk = size_t(16) << 20;       // one staged copy's largest piece
constexpr size_t BatchHostBytes = size_t(64) << 20;     // a batch holding more is submitted
constexpr size_t InFlightHostBytes = size_t(256) << 20; // more in flight: wait for the oldest
constexpr size_t MaxInFlightBatches = 16;
constexpr size_t MaxSpareBatches = 2; // kept after a synchronize; a burst's others are freed
constexpr size_t MaxPooledBytes = size_t(64) << 20; // free staging kept after a synchronize
constexpr uint32_t SetsPerPool = VulkanQueue::BatchCommands;
constexpr uint32_t StorageDescriptorsPerPool = 8 * SetsPerPool;
constexpr VkBufferUsageFlags HostUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

constexpr VkPipelineStageFlags Compute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
constexpr VkPipelineStageFlags Transfer = VK_PIPELINE_STAGE_TRANSFER_BIT;

size_t alignUp(size_t N, size_t A) {
  return (N + A - 1) / A * A;
}

/// A point on one queue's timeline.
class VulkanEvent : public BackendEvent {
public:
  VulkanEvent(std::shared_ptr<VulkanTimeline> Timeline, uint64_t Value)
      : Timeline(std::move(Timeline)), Value(Value) {}
  void synchronize() override { Timeline->wait(Value); }
  bool done() override {
    try { // a C entry point without a status: a lost device reads as not done, as on cuda
      return Timeline->reached() >= Value;
    } catch (const RuntimeError&) {
      return false;
    }
  }
  const std::shared_ptr<VulkanTimeline>& timeline() const { return Timeline; }
  uint64_t value() const { return Value; }

private:
  std::shared_ptr<VulkanTimeline> Timeline;
  uint64_t Value;
};

} // namespace

VulkanQueue::VulkanQueue(VulkanDevice& Device)
    : Device(Device), Api(Device.api()), Timeline(std::make_shared<VulkanTimeline>(Device)) {
  VkCommandPoolCreateInfo CPI{};
  CPI.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  CPI.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  CPI.queueFamilyIndex = Device.queueFamily();
  Device.check(Api.vkCreateCommandPool(Device.handle(), &CPI, nullptr, &Pool),
               "vkCreateCommandPool");
  const VkPhysicalDeviceLimits& L = Device.properties().limits;
  Alignment =
      std::max<size_t>({16, L.minStorageBufferOffsetAlignment, L.minUniformBufferOffsetAlignment});
  Debug = std::getenv("CAJETA_XPU_DEBUG") != nullptr;
  Device.addQueue(this);
}

VulkanQueue::~VulkanQueue() {
  Device.removeQueue(this); // before anything goes: another stream may be submitting for it
  std::lock_guard<std::mutex> Guard(Busy);
  if (LatencyStream)
    Device.noteLatencyStream(-1);
  VkDevice D = Device.handle();
  if (LostReason.empty()) {
    try { // a stream drains its queue first: this finds nothing to wait for
      flush("releasing a stream");
      Timeline->wait(Timeline->lastSubmitted());
      finishMappedReads();
    } catch (const RuntimeError&) {
      // Nothing to report to: the stream is going away.
    }
  }
  Timeline->dropCopies();
  if (Debug && ChainRecordings)
    fmt::print(stderr, "cajeta-xpu: vulkan: a stream's chains: {} recorded, {} replayed\n",
               ChainRecordings, ChainReplays);
  LaunchedChains.clear();
  RetiredChains.clear();
  Chains.clear();
  for (std::unique_ptr<Batch>& B : InFlight)
    Spare.push_back(std::move(B));
  if (Open)
    Spare.push_back(std::move(Open));
  for (std::unique_ptr<Batch>& B : Spare) {
    if (B->Queries)
      Api.vkDestroyQueryPool(D, B->Queries, nullptr);
    for (VkDescriptorPool P : B->Pools)
      Api.vkDestroyDescriptorPool(D, P, nullptr);
    for (HostBuffer& H : B->Blocks)
      Device.destroyHostBuffer(H);
  }
  for (HostBuffer& H : FreeBlocks)
    Device.destroyHostBuffer(H);
  Api.vkDestroyCommandPool(D, Pool, nullptr); // frees the command buffers
}

void VulkanQueue::usable() const {
  Device.checkNotLost("a stream's work");
  if (!LostReason.empty())
    fail(CAJETA_XPU_ERROR, fmt::format("vulkan device '{}': a stream whose work failed ({}) can "
                                       "take no more work",
                                       Device.name(), LostReason));
}

void VulkanQueue::lose(const RuntimeError& E) {
  // Waiting for the device failed (a lost device): what is in flight may never complete.
  LostReason = E.what();
  MappedReads.clear();
  Timeline->dropCopies();
  WaitSemaphores.clear();
  WaitValues.clear();
}

// --- batches ------------------------------------------------------------------------------------

VulkanQueue::Batch& VulkanQueue::open() {
  if (Open)
    return *Open;
  if (Spare.empty()) {
    auto B = std::make_unique<Batch>();
    VkCommandBufferAllocateInfo CBA{};
    CBA.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    CBA.commandPool = Pool;
    CBA.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    CBA.commandBufferCount = 1;
    Device.check(Api.vkAllocateCommandBuffers(Device.handle(), &CBA, &B->Cmd),
                 "vkAllocateCommandBuffers");
    Spare.push_back(std::move(B));
  }
  std::unique_ptr<Batch> B = std::move(Spare.back());
  Spare.pop_back();
  VkCommandBufferBeginInfo Begin{};
  Begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  Begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VkResult R = Api.vkBeginCommandBuffer(B->Cmd, &Begin);
  if (R != VK_SUCCESS) {
    Spare.push_back(std::move(B));
    Device.check(R, "vkBeginCommandBuffer");
  }
  // What earlier submits on the device's queue wrote (this stream's or another's) is visible.
  recordMemoryBarrier(Api, B->Cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                      VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                      VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
  if (Timing) {
    if (!B->Queries) {
      VkQueryPoolCreateInfo QCI{};
      QCI.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
      QCI.queryType = VK_QUERY_TYPE_TIMESTAMP;
      QCI.queryCount = 2 * BatchCommands;
      if (Api.vkCreateQueryPool(Device.handle(), &QCI, nullptr, &B->Queries) != VK_SUCCESS)
        B->Queries = VK_NULL_HANDLE; // this batch goes untimed
    }
    if (B->Queries)
      Api.vkCmdResetQueryPool(B->Cmd, B->Queries, 0, 2 * BatchCommands);
  }
  Open = std::move(B);
  return *Open;
}

void VulkanQueue::counted(Batch& B) {
  ++B.Commands;
  if (B.Commands >= BatchCommands || B.HostBytes >= BatchHostBytes)
    flush("a full batch");
}

void VulkanQueue::flush(const char* Why) {
  if (!submitOpen(Why))
    return;
  // Bound what is in flight: completed batches come back, and a long run waits for the oldest.
  try {
    retireReached();
    size_t HostBytes = 0;
    for (const std::unique_ptr<Batch>& B : InFlight)
      HostBytes += B->HostBytes;
    if (InFlight.size() > MaxInFlightBatches || HostBytes > InFlightHostBytes) {
      Timeline->wait(InFlight.front()->Value);
      retireReached();
    }
  } catch (const RuntimeError& E) {
    lose(E);
    throw;
  }
}

void VulkanQueue::submitForAnother() {
  std::unique_lock<std::mutex> Guard(Busy, std::try_to_lock);
  if (!Guard || !LostReason.empty() || !Open || !Open->Commands)
    return; // its own thread is in a call (it submits itself), or nothing is waiting
  try {
    submitOpen("another stream waits");
  } catch (const RuntimeError& E) {
    lose(E); // the batch was dropped: the stream's next call says why
  }
}

bool VulkanQueue::submitOpen(const char* Why) {
  bool Commands = Open && Open->Commands;
  if (!Commands && WaitSemaphores.empty())
    return false;
  VkCommandBuffer Cmd = VK_NULL_HANDLE;
  if (Commands) {
    // What the batch wrote becomes visible to the host once its value is reached.
    recordMemoryBarrier(Api, Open->Cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                        VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                        VK_ACCESS_HOST_READ_BIT);
    Cmd = Open->Cmd;
  }
  try {
    if (Cmd)
      Device.check(Api.vkEndCommandBuffer(Cmd), fmt::format("vkEndCommandBuffer ({})", Why));
    static const std::vector<VulkanTimeline::HostCopy> NoCopies;
    uint64_t Value =
        Timeline->submit(Cmd, WaitSemaphores, WaitValues, Cmd ? Open->Copies : NoCopies,
                         Cmd ? "vkQueueSubmit of a stream's batch" : "vkQueueSubmit");
    WaitSemaphores.clear();
    WaitValues.clear();
    if (Cmd) {
      Open->Value = Value;
      InFlight.push_back(std::move(Open));
    }
  } catch (const RuntimeError&) {
    if (Cmd) { // never submitted: its commands are dropped, the error says why
      Open->Value = 0;
      retire(*Open);
      Spare.push_back(std::move(Open));
    }
    throw;
  }
  return true;
}

bool VulkanQueue::timeLaunches() {
  const VulkanFeatures& F = Device.features();
  Timing = F.TimestampBits && F.TimestampPeriodNs > 0 && F.CalibratedMonotonic;
  return Timing;
}

void VulkanQueue::takeDeviceSpans(std::vector<DeviceSpan>& Out) {
  std::lock_guard<std::mutex> Guard(Busy);
  Out.insert(Out.end(), Spans.begin(), Spans.end());
  Spans.clear();
}

void VulkanQueue::readTimes(Batch& B) {
  uint32_t Count = uint32_t(2 * B.TimedTags.size());
  std::vector<uint64_t> Ticks(Count);
  if (Api.vkGetQueryPoolResults(Device.handle(), B.Queries, 0, Count,
                                Ticks.size() * sizeof(uint64_t), Ticks.data(), sizeof(uint64_t),
                                VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
    return;
  // The device clock and CLOCK_MONOTONIC read together: a tick's host time is counted back from
  // them (the batch has completed, so every tick is earlier).
  VkCalibratedTimestampInfoEXT Info[2]{};
  Info[0].sType = Info[1].sType = VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT;
  Info[0].timeDomain = VK_TIME_DOMAIN_DEVICE_EXT;
  Info[1].timeDomain = VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
  uint64_t Now[2] = {0, 0}, Deviation = 0;
  if (Api.vkGetCalibratedTimestampsEXT(Device.handle(), 2, Info, Now, &Deviation) != VK_SUCCESS)
    return;
  const VulkanFeatures& F = Device.features();
  uint64_t Mask = F.TimestampBits >= 64 ? ~uint64_t(0) : (uint64_t(1) << F.TimestampBits) - 1;
  auto HostNs = [&](uint64_t Tick) {
    double Back = double((Now[0] - Tick) & Mask) * F.TimestampPeriodNs;
    return Now[1] - uint64_t(Back);
  };
  for (size_t I = 0; I != B.TimedTags.size(); ++I)
    Spans.push_back({B.TimedTags[I], 1, HostNs(Ticks[2 * I]), HostNs(Ticks[2 * I + 1])});
}

void VulkanQueue::retire(Batch& B) {
  if (B.Queries && B.Value && !B.TimedTags.empty())
    readTimes(B);
  B.TimedTags.clear();
  for (auto& [Tag, Status] : B.Statuses) {
    if (Status->Failed && B.Value)
      Failed.push_back({Tag, failureOf(*Status)});
  }
  B.Statuses.clear();
  B.Copies.clear();
  for (VkDescriptorPool P : B.Pools)
    Api.vkResetDescriptorPool(Device.handle(), P, 0);
  B.PoolAt = 0;
  for (HostBuffer& H : B.Blocks)
    FreeBlocks.push_back(H);
  B.Blocks.clear();
  B.BlockUsed = 0;
  B.HostBytes = 0;
  B.Since.clear();
  B.SinceStages = 0;
  B.SinceWrites = 0;
  B.Commands = 0;
  B.Value = 0;
  Api.vkResetCommandBuffer(B.Cmd, 0);
}

void VulkanQueue::retireReached() {
  if (InFlight.empty() && LaunchedChains.empty() && RetiredChains.empty())
    return;
  uint64_t Reached = Timeline->reached(); // finishes the downloads up to it first
  while (!InFlight.empty() && InFlight.front()->Value <= Reached) {
    retire(*InFlight.front());
    Spare.push_back(std::move(InFlight.front()));
    InFlight.pop_front();
  }
  collectChains(Reached);
}

bool VulkanQueue::idle() {
  if ((Open && Open->Commands) || !WaitSemaphores.empty())
    return false;
  if (Timeline->reached() < Timeline->lastSubmitted())
    return false;
  finishMappedReads();
  retireReached();
  return true;
}

// --- host memory of batches ---------------------------------------------------------------------

HostBuffer VulkanQueue::takeBlock(size_t Bytes) {
  auto Best = FreeBlocks.end();
  for (auto It = FreeBlocks.begin(); It != FreeBlocks.end(); ++It)
    if (It->Bytes >= Bytes && (Best == FreeBlocks.end() || It->Bytes < Best->Bytes))
      Best = It;
  if (Best != FreeBlocks.end()) {
    HostBuffer H = *Best;
    FreeBlocks.erase(Best);
    return H;
  }
  size_t Size = MinBlockBytes;
  while (Size < Bytes)
    Size *= 2;
  return Device.createHostBuffer(Size, HostUsage);
}

void VulkanQueue::trimSpare() {
  // A burst of launches can leave up to MaxInFlightBatches batches behind, each with its command
  // buffer's and descriptor pools' memory in the driver; a stream that syncs keeps a few.
  while (Spare.size() > MaxSpareBatches) {
    Batch& B = *Spare.back();
    if (B.Queries)
      Api.vkDestroyQueryPool(Device.handle(), B.Queries, nullptr);
    for (VkDescriptorPool P : B.Pools)
      Api.vkDestroyDescriptorPool(Device.handle(), P, nullptr);
    for (HostBuffer& H : B.Blocks)
      FreeBlocks.push_back(H);
    Api.vkFreeCommandBuffers(Device.handle(), Pool, 1, &B.Cmd);
    Spare.pop_back();
  }
}

void VulkanQueue::trimBlocks() {
  size_t Total = 0;
  for (const HostBuffer& H : FreeBlocks)
    Total += H.Bytes;
  std::sort(FreeBlocks.begin(), FreeBlocks.end(),
            [](const HostBuffer& A, const HostBuffer& B) { return A.Bytes < B.Bytes; });
  while (Total > MaxPooledBytes && !FreeBlocks.empty()) {
    Total -= FreeBlocks.back().Bytes;
    Device.destroyHostBuffer(FreeBlocks.back());
    FreeBlocks.pop_back();
  }
}

VulkanQueue::Slice VulkanQueue::hostSlice(Batch& B, size_t Bytes) {
  size_t Need = alignUp(std::max<size_t>(Bytes, 1), Alignment);
  if (B.Blocks.empty() || B.BlockUsed + Need > B.Blocks.back().Bytes) {
    B.Blocks.push_back(takeBlock(Need));
    B.BlockUsed = 0;
  }
  HostBuffer& H = B.Blocks.back();
  Slice S{H.Buffer, B.BlockUsed, static_cast<uint8_t*>(H.Mapped) + B.BlockUsed};
  B.BlockUsed += Need;
  B.HostBytes += Need;
  return S;
}

VkDescriptorSet VulkanQueue::allocateSet(Batch& B, VkDescriptorSetLayout Layout,
                                         const std::string& Kernel) {
  VkDescriptorSetAllocateInfo DSA{};
  DSA.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  DSA.descriptorSetCount = 1;
  DSA.pSetLayouts = &Layout;
  VkDescriptorSet Set = VK_NULL_HANDLE;
  for (; B.PoolAt != B.Pools.size(); ++B.PoolAt) {
    DSA.descriptorPool = B.Pools[B.PoolAt];
    VkResult R = Api.vkAllocateDescriptorSets(Device.handle(), &DSA, &Set);
    if (R == VK_SUCCESS)
      return Set;
    if (R != VK_ERROR_OUT_OF_POOL_MEMORY && R != VK_ERROR_FRAGMENTED_POOL)
      Device.check(R, "vkAllocateDescriptorSets for " + Kernel);
  }
  VkDescriptorPoolSize Sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, StorageDescriptorsPerPool},
                                   {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, SetsPerPool}};
  VkDescriptorPoolCreateInfo DPI{};
  DPI.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  DPI.maxSets = SetsPerPool;
  DPI.poolSizeCount = 2;
  DPI.pPoolSizes = Sizes;
  VkDescriptorPool P = VK_NULL_HANDLE;
  Device.check(Api.vkCreateDescriptorPool(Device.handle(), &DPI, nullptr, &P),
               "vkCreateDescriptorPool");
  B.Pools.push_back(P);
  B.PoolAt = B.Pools.size() - 1;
  DSA.descriptorPool = P;
  Device.check(Api.vkAllocateDescriptorSets(Device.handle(), &DSA, &Set),
               "vkAllocateDescriptorSets for " + Kernel);
  return Set;
}

void VulkanQueue::order(Batch& B, VkPipelineStageFlags Stage, const Use* Used, size_t Count) {
  bool Hazard = false;
  for (size_t I = 0; I != Count && !Hazard; ++I)
    for (const Use& Earlier : B.Since)
      if (Earlier.Buffer == Used[I].Buffer && (Earlier.Write || Used[I].Write)) {
        Hazard = true;
        break;
      }
  if (Hazard) {
    // Everything since the last barrier finishes (and its writes are visible) before this runs.
    recordMemoryBarrier(Api, B.Cmd, B.SinceStages, B.SinceWrites, Stage,
                        Stage == Compute
                            ? VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT
                            : VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    B.Since.clear();
    B.SinceStages = 0;
    B.SinceWrites = 0;
  }
  B.SinceStages |= Stage;
  for (size_t I = 0; I != Count; ++I) {
    B.Since.push_back(Used[I]);
    if (Used[I].Write)
      B.SinceWrites |= Stage == Compute ? VK_ACCESS_SHADER_WRITE_BIT : VK_ACCESS_TRANSFER_WRITE_BIT;
  }
}

// --- copies -------------------------------------------------------------------------------------

void VulkanQueue::copyToDevice(void* Dst, const void* Src, size_t Bytes, bool /*Staged*/) {
  std::lock_guard<std::mutex> Guard(Busy);
  // Staged or not, Src is read before this returns: into batch staging, or straight into mapped
  // device memory when nothing on the stream is pending.
  usable();
  auto* To = static_cast<DeviceBuffer*>(Dst);
  if (!Bytes)
    return;
  if (To->Mapped && idle()) {
    std::memcpy(To->Mapped, Src, Bytes);
    return;
  }
  materializeMappedReads();
  for (size_t Done = 0; Done < Bytes;) {
    size_t N = std::min(Bytes - Done, StagingChunk);
    Batch& B = open();
    Slice S = hostSlice(B, N);
    std::memcpy(S.Host, static_cast<const uint8_t*>(Src) + Done, N);
    Use U{To->Buffer, true};
    order(B, Transfer, &U, 1);
    VkBufferCopy Region{S.Offset, Done, N};
    Api.vkCmdCopyBuffer(B.Cmd, S.Buffer, To->Buffer, 1, &Region);
    Done += N;
    counted(B);
  }
}

void VulkanQueue::recordDownload(void* Dst, const DeviceBuffer& From, size_t Bytes) {
  for (size_t Done = 0; Done < Bytes;) {
    size_t N = std::min(Bytes - Done, StagingChunk);
    Batch& B = open();
    Slice S = hostSlice(B, N);
    Use U{From.Buffer, false};
    order(B, Transfer, &U, 1);
    VkBufferCopy Region{Done, S.Offset, N};
    Api.vkCmdCopyBuffer(B.Cmd, From.Buffer, S.Buffer, 1, &Region);
    B.Copies.push_back({static_cast<uint8_t*>(Dst) + Done, S.Host, N});
    Done += N;
    counted(B);
  }
}

void VulkanQueue::copyFromDevice(void* Dst, const void* Src, size_t Bytes, bool /*Staged*/) {
  std::lock_guard<std::mutex> Guard(Busy);
  // Dst is filled when the stream is synchronised (or an event recorded after the copy is
  // waited for): the host copy runs once the batch holding the download has completed.
  usable();
  const auto* From = static_cast<const DeviceBuffer*>(Src);
  if (!Bytes)
    return;
  if (From->Mapped && idle()) {
    std::memcpy(Dst, From->Mapped, Bytes);
    return;
  }
  materializeMappedReads();
  if (From->Mapped) {
    // Read straight from the mapped memory once the device is done, unless more work comes
    // first (materializeMappedReads then stages it at this point of the stream).
    flush("a download");
    MappedReads.push_back({Dst, From, Bytes});
    return;
  }
  recordDownload(Dst, *From, Bytes);
  flush("a download");
}

void VulkanQueue::materializeMappedReads() {
  if (MappedReads.empty())
    return;
  if (Timeline->reached() >= Timeline->lastSubmitted()) {
    finishMappedReads();
    return;
  }
  std::vector<MappedRead> Reads;
  Reads.swap(MappedReads);
  for (const MappedRead& R : Reads)
    recordDownload(R.Dst, *R.Src, R.Bytes);
}

void VulkanQueue::finishMappedReads() {
  for (const MappedRead& R : MappedReads)
    std::memcpy(R.Dst, R.Src->Mapped, R.Bytes);
  MappedReads.clear();
}

void VulkanQueue::copyWithinDevice(void* Dst, const void* Src, size_t Bytes) {
  std::lock_guard<std::mutex> Guard(Busy);
  usable();
  auto* To = static_cast<DeviceBuffer*>(Dst);
  const auto* From = static_cast<const DeviceBuffer*>(Src);
  if (!Bytes)
    return;
  if (To->Mapped && From->Mapped && idle()) {
    std::memmove(To->Mapped, From->Mapped, Bytes);
    return;
  }
  materializeMappedReads();
  Batch& B = open();
  Use U[2] = {{From->Buffer, false}, {To->Buffer, true}};
  order(B, Transfer, U, 2);
  VkBufferCopy Region{0, 0, Bytes};
  Api.vkCmdCopyBuffer(B.Cmd, From->Buffer, To->Buffer, 1, &Region);
  counted(B);
}

// --- launches -----------------------------------------------------------------------------------

void VulkanQueue::checkLimits(const bundle::KernelInfo& Info, const LaunchGeometry& Geometry,
                              uint64_t StaticSharedBytes) const {
  const VkPhysicalDeviceLimits& L = Device.properties().limits;
  const std::string& Name = Device.name();
  for (int D = 0; D != 3; ++D) {
    if (Geometry.Grid[D] > L.maxComputeWorkGroupCount[D])
      fail(CAJETA_XPU_LAUNCH_ERROR,
           fmt::format("{}: grid ({}, {}, {}) exceeds vulkan device '{}''s workgroup count limit "
                       "({}, {}, {})",
                       Info.Name, Geometry.Grid[0], Geometry.Grid[1], Geometry.Grid[2], Name,
                       L.maxComputeWorkGroupCount[0], L.maxComputeWorkGroupCount[1],
                       L.maxComputeWorkGroupCount[2]));
    if (Geometry.Block[D] > L.maxComputeWorkGroupSize[D])
      fail(CAJETA_XPU_LAUNCH_ERROR,
           fmt::format("{}: block ({}, {}, {}) exceeds vulkan device '{}''s workgroup size limit "
                       "({}, {}, {})",
                       Info.Name, Geometry.Block[0], Geometry.Block[1], Geometry.Block[2], Name,
                       L.maxComputeWorkGroupSize[0], L.maxComputeWorkGroupSize[1],
                       L.maxComputeWorkGroupSize[2]));
  }
  if (StaticSharedBytes + Geometry.DynamicSharedBytes > L.maxComputeSharedMemorySize)
    fail(CAJETA_XPU_LAUNCH_ERROR,
         fmt::format("{}: {} static + {} dynamic shared bytes exceed vulkan device '{}''s {} bytes "
                     "of workgroup memory",
                     Info.Name, StaticSharedBytes, Geometry.DynamicSharedBytes, Name,
                     L.maxComputeSharedMemorySize));
}

void VulkanQueue::launch(const void* Entry, const bundle::KernelInfo& Info,
                         const MarshalledArg* Args, const LaunchGeometry& Geometry,
                         const void* Tag) {
  std::lock_guard<std::mutex> Guard(Busy);
  usable();
  materializeMappedReads();
  if (Geometry.Urgent && !LatencyStream) {
    LatencyStream = true; // from now on the other streams' grids go in pieces
    Device.noteLatencyStream(1);
  }
  const uint64_t Threads = uint64_t(Geometry.Block[0]) * Geometry.Block[1] * Geometry.Block[2];
  uint64_t PieceGroups =
      Geometry.Urgent ? 0 : Device.pieceGroups(Threads, Device.latencyStreams() > LatencyStream);
  Batch& B = open();
  recordLaunch(B, Entry, Info, Args, Geometry, Tag, PieceGroups);
  counted(B);
  if (Geometry.Urgent) {
    // A latency-class launch is submitted now, never gathered behind the stream's next sync.
    if (Open && Open->Commands)
      flush("a latency-class launch");
    return;
  }
  // Keep the device busy: while none of this stream's work runs there, submit the launch now
  // rather than at the next sync, so the device works while the host records what follows; while a
  // batch runs, launches gather into the next one. (Batching until sync left the GPU idle for the
  // whole recording of a launch loop.)
  if (Open && Open->Commands && Device.submitsWhenIdle() &&
      Timeline->reached() >= Timeline->lastSubmitted())
    flush("an idle device");
}

void VulkanQueue::recordLaunch(Batch& B, const void* Entry, const bundle::KernelInfo& Info,
                               const MarshalledArg* Args, const LaunchGeometry& Geometry,
                               const void* Tag, uint64_t PieceGroups) {
  auto& K = *static_cast<VulkanKernel*>(const_cast<void*>(Entry));
  // The portable tile's scratch: PerWaveSharedBytes for each wave of this group.
  uint64_t Items = uint64_t(Geometry.Block[0]) * Geometry.Block[1] * Geometry.Block[2];
  uint64_t Width = std::max<uint32_t>(1, Device.waveWidth());
  checkLimits(Info, Geometry,
              K.StaticSharedBytes + K.PerWaveSharedBytes * ((Items + Width - 1) / Width));
  const VkPhysicalDeviceLimits& L = Device.properties().limits;
  for (uint32_t P : K.BufferParams) {
    uint64_t Bytes = Args[P].Length * bundle::scalarTypeSize(Info.Params[P].Type);
    if (Bytes > L.maxStorageBufferRange)
      fail(CAJETA_XPU_LAUNCH_ERROR,
           fmt::format("{}: buffer argument {} ('{}') has {} bytes; vulkan device '{}' binds at "
                       "most {} bytes per storage buffer",
                       Info.Name, P + 1, Info.Params[P].Name, Bytes, Device.name(),
                       L.maxStorageBufferRange));
  }
  uint32_t DynamicElements = 1;
  if (K.DynamicSharedElementBytes)
    DynamicElements =
        std::max<uint32_t>(1, Geometry.DynamicSharedBytes / K.DynamicSharedElementBytes);
  VkPipeline Pipeline = K.pipeline(Device, Geometry.Block, DynamicElements);

  // The parameter block (VulkanKernelAbi.h): each slot's bytes, little-endian.
  ParamBlock.assign(K.ParamBlockBytes, 0);
  for (const VulkanKernel::Slot& Slot : K.Slots) {
    const MarshalledArg& A = Args[Slot.Param];
    if (Info.Params[Slot.Param].Kind == bundle::ParamKind::Pod)
      std::memcpy(ParamBlock.data() + Slot.Offset, A.Ptr,
                  std::min<size_t>(Slot.Size, Info.Params[Slot.Param].PodSize));
    else
      std::memcpy(ParamBlock.data() + Slot.Offset, &A.Bits, std::min<size_t>(Slot.Size, 8));
  }

  // Descriptors: buffers at their parameter index, then the status record and uniform block,
  // both in B's host memory until the device has passed B (a chain: until it is destroyed).
  VkDescriptorSet Set = allocateSet(B, K.SetLayout, Info.Name);
  Infos.clear();
  Infos.reserve(K.BufferParams.size() + 2);
  Writes.clear();
  Uses.clear();
  auto Bind = [&](uint32_t Binding, VkDescriptorType Type, VkBuffer Buffer, VkDeviceSize Offset,
                  VkDeviceSize Range) {
    Infos.push_back({Buffer, Offset, Range});
    VkWriteDescriptorSet W{};
    W.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    W.dstSet = Set;
    W.dstBinding = Binding;
    W.descriptorCount = 1;
    W.descriptorType = Type;
    W.pBufferInfo = &Infos.back();
    Writes.push_back(W);
  };
  for (uint32_t P : K.BufferParams) {
    const auto* Buf = static_cast<const DeviceBuffer*>(Args[P].Ptr);
    uint64_t Bytes = Args[P].Length * bundle::scalarTypeSize(Info.Params[P].Type);
    // The range is what OpArrayLength reports; an empty buffer cannot have a zero range, so it
    // is bound with one element (a kernel that reads length() of an empty buffer sees 1).
    Bind(P, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, Buf->Buffer, 0,
         Bytes ? Bytes : bundle::scalarTypeSize(Info.Params[P].Type));
    Uses.push_back({Buf->Buffer, Info.Params[P].Mode != bundle::Access::Read});
  }
  const CajetaVkStatus* Status = nullptr;
  if (K.CheckBounds) {
    Slice S = hostSlice(B, sizeof(CajetaVkStatus));
    std::memset(S.Host, 0, sizeof(CajetaVkStatus));
    Status = reinterpret_cast<const CajetaVkStatus*>(S.Host);
    Bind(K.ParamCount, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, S.Buffer, S.Offset,
         sizeof(CajetaVkStatus));
  }
  if (K.ParamBlock == VulkanKernel::Block::Uniform) {
    Slice S = hostSlice(B, K.ParamBlockBytes);
    std::memcpy(S.Host, ParamBlock.data(), K.ParamBlockBytes);
    Bind(K.ParamCount + 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, S.Buffer, S.Offset,
         K.ParamBlockBytes);
  }
  Api.vkUpdateDescriptorSets(Device.handle(), uint32_t(Writes.size()), Writes.data(), 0, nullptr);

  order(B, Compute, Uses.data(), Uses.size());
  Api.vkCmdBindPipeline(B.Cmd, VK_PIPELINE_BIND_POINT_COMPUTE, Pipeline);
  Api.vkCmdBindDescriptorSets(B.Cmd, VK_PIPELINE_BIND_POINT_COMPUTE, K.Layout, 0, 1, &Set, 0,
                              nullptr);
  if (K.ParamBlock == VulkanKernel::Block::PushConstant && K.ParamBlockBytes)
    Api.vkCmdPushConstants(B.Cmd, K.Layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, K.ParamBlockBytes,
                           ParamBlock.data());
  bool Timed = B.Queries && B.TimedTags.size() < BatchCommands;
  if (Timed)
    Api.vkCmdWriteTimestamp(B.Cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, B.Queries,
                            uint32_t(2 * B.TimedTags.size()));
  if (PieceGroups && K.DispatchesInPieces) {
    // Paced: one dispatch per piece, each after the one before. Without the barrier the
    // device queues the next piece at once and another queue's launch waits for the whole
    // grid as before (H200, 2026-12-04: 25 of 40 ms); with it the other queue's launch starts
    // where a piece drains, for the cost of a drain per wave (0.75 % on a 40 ms grid).
    std::vector<GridPiece> Pieces = gridPieces(Geometry.Grid, PieceGroups);
    for (size_t I = 0; I != Pieces.size(); ++I) {
      if (I) {
        recordMemoryBarrier(Api, B.Cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      }
      const GridPiece& P = Pieces[I];
      Api.vkCmdDispatchBase(B.Cmd, P.Base[0], P.Base[1], P.Base[2], P.Count[0], P.Count[1],
                            P.Count[2]);
    }
  } else {
    Api.vkCmdDispatch(B.Cmd, Geometry.Grid[0], Geometry.Grid[1], Geometry.Grid[2]);
  }
  if (Timed) {
    Api.vkCmdWriteTimestamp(B.Cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, B.Queries,
                            uint32_t(2 * B.TimedTags.size() + 1));
    B.TimedTags.push_back(Tag);
  }
  if (Status)
    B.Statuses.emplace_back(Tag, Status);
}

// --- chains -------------------------------------------------------------------------------------

std::unique_ptr<VulkanChain> VulkanQueue::recordChain(const std::vector<ChainLaunch>& Launches) {
  auto Chain = std::make_unique<VulkanChain>(Device, Pool, Launches);
  Batch& B = Chain->recording();
  try {
    // Barriers between the launches where one's buffers meet another's, as in a batch; the
    // chain's first launch follows the barrier at its start.
    for (const ChainLaunch& L : Launches)
      recordLaunch(B, L.Kernel, *L.Info, L.Args.data(), L.Geometry, L.Tag);
    Chain->finish();
  } catch (...) {
    destroyChain(std::move(Chain)); // never submitted
    throw;
  }
  return Chain;
}

void VulkanQueue::launchChain(uint64_t Id, std::vector<ChainLaunch>& Launches) {
  std::lock_guard<std::mutex> Guard(Busy);
  usable();
  materializeMappedReads(); // a pending mapped read is staged before the chain can write
  std::unique_ptr<VulkanChain>& Chain = Chains[Id];
  if (Chain && Chain->matches(Launches)) {
    ++ChainReplays;
  } else {
    std::unique_ptr<VulkanChain> Recorded = recordChain(Launches);
    if (Chain)
      retireChain(std::move(Chain));
    Chain = std::move(Recorded);
    ++ChainRecordings;
  }
  // The stream's open batch goes first (with the waits it carries); otherwise the chain's submit
  // carries the pending waits itself.
  if (Open && Open->Commands)
    flush("a chain");
  static const std::vector<VulkanTimeline::HostCopy> NoCopies;
  uint64_t Value = Timeline->submit(Chain->commandBuffer(), WaitSemaphores, WaitValues, NoCopies,
                                    "vkQueueSubmit of a chain");
  WaitSemaphores.clear();
  WaitValues.clear();
  Chain->submitted(Value);
  if (std::find(LaunchedChains.begin(), LaunchedChains.end(), Chain.get()) == LaunchedChains.end())
    LaunchedChains.push_back(Chain.get());
}

void VulkanQueue::retireChain(std::unique_ptr<VulkanChain> Chain) {
  if (Chain->lastSubmit() == 0 || Timeline->reached() >= Chain->lastSubmit()) {
    collectChains(Timeline->reached()); // reads its records before it goes
    destroyChain(std::move(Chain));
    return;
  }
  RetiredChains.push_back(std::move(Chain)); // it may still run, or be pending
}

void VulkanQueue::collectChains(uint64_t Reached) {
  // Each record collects the failures of every submit since it was last read; one whose submit
  // is still pending is read later (at the latest, at synchronize).
  auto Passed = [&](VulkanChain* C) { return C->lastSubmit() <= Reached; };
  for (VulkanChain* C : LaunchedChains)
    if (Passed(C))
      C->collect(Failed);
  LaunchedChains.erase(std::remove_if(LaunchedChains.begin(), LaunchedChains.end(), Passed),
                       LaunchedChains.end());
  for (std::unique_ptr<VulkanChain>& C : RetiredChains)
    if (Passed(C.get()))
      destroyChain(std::move(C));
  RetiredChains.erase(std::remove(RetiredChains.begin(), RetiredChains.end(), nullptr),
                      RetiredChains.end());
}

void VulkanQueue::destroyChain(std::unique_ptr<VulkanChain> Chain) {
  // Its host memory serves batches from now on; the rest goes with it.
  Batch& B = Chain->recording();
  for (HostBuffer& H : B.Blocks)
    FreeBlocks.push_back(H);
  B.Blocks.clear();
}

// --- events and synchronisation -----------------------------------------------------------------

std::shared_ptr<BackendEvent> VulkanQueue::record() {
  std::lock_guard<std::mutex> Guard(Busy);
  usable();
  materializeMappedReads(); // the event covers the downloads before it
  flush("an event");
  return std::make_shared<VulkanEvent>(Timeline, Timeline->lastSubmitted());
}

void VulkanQueue::wait(BackendEvent& E) {
  std::lock_guard<std::mutex> Guard(Busy);
  usable();
  auto* V = dynamic_cast<VulkanEvent*>(&E);
  if (V && V->timeline() == Timeline)
    return; // this stream's own event: already in order
  bool OnDevice = V && &V->timeline()->device() == &Device && Timeline->semaphore() &&
                  V->timeline()->semaphore();
  if (!OnDevice) {
    // Another device's or backend's event, or the fence fallback: the host waits for it.
    E.synchronize();
    return;
  }
  if (V->done())
    return;
  flush("an event wait"); // work enqueued before the wait does not wait
  WaitSemaphores.push_back(V->timeline()->semaphore());
  WaitValues.push_back(V->value());
  Waited.push_back(V->timeline());
}

void VulkanQueue::synchronize(std::vector<QueuedFailure>& Failures) {
  std::lock_guard<std::mutex> Guard(Busy);
  usable();
  try {
    flush("synchronize");
    // Before the host blocks, the other streams' gathered launches go to the device too, so
    // they run beside this stream's instead of waiting for their own stream's next sync.
    Device.submitOtherQueues(this);
    Timeline->wait(Timeline->lastSubmitted());
  } catch (const RuntimeError& E) {
    lose(E);
    throw;
  }
  finishMappedReads();
  retireReached();
  Waited.clear();
  trimSpare();
  trimBlocks();
  Failures.insert(Failures.end(), Failed.begin(), Failed.end());
  Failed.clear();
}

} // namespace cajeta::xpu::rt::vulkan
