// The vulkan backend's device: creation with the features SPIR-V kernels use, memory (device-local
// with staging, or mapped where device memory is host memory), copies, and launches.
#include "runtime/backends/vulkan/VulkanDevice.h"

#include "bundle/VulkanKernelAbi.h"
#include "runtime/RuntimeError.h"
#include "runtime/backends/vulkan/VulkanModule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

namespace cajeta::xpu::rt::vulkan {

namespace {

/// One device buffer: what allocate() hands out as the "device pointer".
struct DeviceBuffer {
  VkBuffer Buffer = VK_NULL_HANDLE;
  VkDeviceMemory Memory = VK_NULL_HANDLE;
  void* Mapped = nullptr; // set where the memory is host-visible and coherent
  size_t Bytes = 0;
};

constexpr size_t StagingChunk = size_t(16) << 20;
constexpr uint32_t PoolStorageDescriptors = 1024;

/// Device extensions enabled when present (the ones SPIR-V kernels may require).
const char* const WantedExtensions[] = {
    "VK_KHR_8bit_storage",        "VK_KHR_16bit_storage",
    "VK_KHR_shader_float16_int8", "VK_KHR_shader_atomic_int64",
    "VK_EXT_shader_atomic_float", "VK_KHR_storage_buffer_storage_class",
};

} // namespace

/// Command state of one runtime stream (one worker thread) on this device.
struct VulkanDevice::StreamState {
  VulkanDevice* Owner = nullptr;
  VkCommandPool Pool = VK_NULL_HANDLE;
  VkCommandBuffer Cmd = VK_NULL_HANDLE;
  VkFence Fence = VK_NULL_HANDLE;
  VkDescriptorPool Descriptors = VK_NULL_HANDLE;
  HostBuffer Status;  // one CajetaVkStatus
  HostBuffer Uniform; // the parameter block of a "uniform" kernel
  HostBuffer Staging; // uploads and downloads through device-local memory
  std::vector<uint8_t> Block;
  std::vector<VkDescriptorBufferInfo> Infos;
  std::vector<VkWriteDescriptorSet> Writes;

  ~StreamState() {
    if (!Owner)
      return;
    const VulkanApi& Api = Owner->Api;
    VkDevice D = Owner->Device;
    Owner->destroyHostBuffer(Status);
    Owner->destroyHostBuffer(Uniform);
    Owner->destroyHostBuffer(Staging);
    if (Descriptors)
      Api.vkDestroyDescriptorPool(D, Descriptors, nullptr);
    if (Fence)
      Api.vkDestroyFence(D, Fence, nullptr);
    if (Pool)
      Api.vkDestroyCommandPool(D, Pool, nullptr);
  }
};

std::unique_ptr<VulkanDevice> VulkanDevice::create(const VulkanApi& Api, VkPhysicalDevice Phys,
                                                   std::string& Error) {
  std::unique_ptr<VulkanDevice> D(new VulkanDevice(Api, Phys));
  if (!D->init(Error))
    return nullptr;
  return D;
}

VulkanDevice::~VulkanDevice() {
  if (PipelineCache)
    Api.vkDestroyPipelineCache(Device, PipelineCache, nullptr);
  if (Device)
    Api.vkDestroyDevice(Device, nullptr);
}

bool VulkanDevice::init(std::string& Error) {
  Api.vkGetPhysicalDeviceProperties(Phys, &Props);
  Api.vkGetPhysicalDeviceMemoryProperties(Phys, &Memory);
  Name = Props.deviceName;
  if (Props.apiVersion < VK_API_VERSION_1_1) {
    Error = fmt::format("'{}' supports only Vulkan 1.0", Name);
    return false;
  }

  uint32_t NQ = 0;
  Api.vkGetPhysicalDeviceQueueFamilyProperties(Phys, &NQ, nullptr);
  std::vector<VkQueueFamilyProperties> Families(NQ);
  Api.vkGetPhysicalDeviceQueueFamilyProperties(Phys, &NQ, Families.data());
  // A compute-only family where there is one (an async compute queue), else any with compute.
  uint32_t Pick = UINT32_MAX;
  for (uint32_t F = 0; F != NQ; ++F) {
    if (!(Families[F].queueFlags & VK_QUEUE_COMPUTE_BIT))
      continue;
    if (Pick == UINT32_MAX || !(Families[F].queueFlags & VK_QUEUE_GRAPHICS_BIT))
      Pick = F;
  }
  if (Pick == UINT32_MAX) {
    Error = fmt::format("'{}' has no compute queue", Name);
    return false;
  }
  QueueFamily = Pick;

  uint32_t NE = 0;
  Api.vkEnumerateDeviceExtensionProperties(Phys, nullptr, &NE, nullptr);
  std::vector<VkExtensionProperties> Available(NE);
  Api.vkEnumerateDeviceExtensionProperties(Phys, nullptr, &NE, Available.data());
  std::vector<const char*> Enabled;
  for (const char* Want : WantedExtensions)
    for (const VkExtensionProperties& E : Available)
      if (std::strcmp(E.extensionName, Want) == 0) {
        Enabled.push_back(Want);
        Features.Extensions.insert(Want);
      }
  bool Core12 = Props.apiVersion >= VK_API_VERSION_1_2;
  auto Has = [&](const char* Ext) { return Features.Extensions.count(Ext) != 0; };

  // Query the features (a struct only where the device knows it), then enable what it has.
  VkPhysicalDeviceFeatures2 F2{};
  F2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  VkPhysicalDevice16BitStorageFeatures S16{};
  S16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  VkPhysicalDevice8BitStorageFeatures S8{};
  S8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
  VkPhysicalDeviceShaderFloat16Int8Features F16{};
  F16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  VkPhysicalDeviceShaderAtomicInt64Features A64{};
  A64.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES;
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT AF{};
  AF.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
  void** Next = &F2.pNext;
  auto Chain = [&](auto& S, bool Known) {
    if (!Known)
      return;
    *Next = &S;
    Next = &S.pNext;
  };
  Chain(S16, true);
  Chain(S8, Core12 || Has("VK_KHR_8bit_storage"));
  Chain(F16, Core12 || Has("VK_KHR_shader_float16_int8"));
  Chain(A64, Core12 || Has("VK_KHR_shader_atomic_int64"));
  Chain(AF, Has("VK_EXT_shader_atomic_float"));
  Api.vkGetPhysicalDeviceFeatures2(Phys, &F2);

  Features.Int16 = F2.features.shaderInt16;
  Features.Int64 = F2.features.shaderInt64;
  Features.Float64 = F2.features.shaderFloat64;
  Features.StorageBuffer16 = S16.storageBuffer16BitAccess;
  Features.StorageBuffer8 = S8.storageBuffer8BitAccess;
  Features.Int8 = F16.shaderInt8;
  Features.Float16 = F16.shaderFloat16;
  Features.BufferInt64Atomics = A64.shaderBufferInt64Atomics;
  Features.SharedInt64Atomics = A64.shaderSharedInt64Atomics;
  Features.BufferFloat32AtomicAdd = AF.shaderBufferFloat32AtomicAdd;
  Features.BufferFloat64AtomicAdd = AF.shaderBufferFloat64AtomicAdd;
  if (Core12 || Has("VK_KHR_shader_float_controls")) {
    VkPhysicalDeviceFloatControlsProperties FC{};
    FC.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES;
    VkPhysicalDeviceProperties2 P2{};
    P2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    P2.pNext = &FC;
    Api.vkGetPhysicalDeviceProperties2(Phys, &P2);
    Features.SignedZeroInfNanPreserve[0] = FC.shaderSignedZeroInfNanPreserveFloat16;
    Features.SignedZeroInfNanPreserve[1] = FC.shaderSignedZeroInfNanPreserveFloat32;
    Features.SignedZeroInfNanPreserve[2] = FC.shaderSignedZeroInfNanPreserveFloat64;
    Features.DenormPreserve[0] = FC.shaderDenormPreserveFloat16;
    Features.DenormPreserve[1] = FC.shaderDenormPreserveFloat32;
    Features.DenormPreserve[2] = FC.shaderDenormPreserveFloat64;
  }
  {
    // Subgroups (core in Vulkan 1.1): what wave ops need in compute shaders.
    VkPhysicalDeviceSubgroupProperties SG{};
    SG.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    VkPhysicalDeviceProperties2 P2{};
    P2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    P2.pNext = &SG;
    Api.vkGetPhysicalDeviceProperties2(Phys, &P2);
    Features.SubgroupSize = SG.subgroupSize;
    if (SG.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) {
      VkSubgroupFeatureFlags Ops = SG.supportedOperations;
      Features.SubgroupBasic = Ops & VK_SUBGROUP_FEATURE_BASIC_BIT;
      Features.SubgroupVote = Ops & VK_SUBGROUP_FEATURE_VOTE_BIT;
      Features.SubgroupBallot = Ops & VK_SUBGROUP_FEATURE_BALLOT_BIT;
      Features.SubgroupShuffle = Ops & VK_SUBGROUP_FEATURE_SHUFFLE_BIT;
      Features.SubgroupArithmetic = Ops & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
    }
  }

  // Enable only the core features kernels use (robustBufferAccess and friends cost speed).
  VkPhysicalDeviceFeatures Core = F2.features;
  F2.features = VkPhysicalDeviceFeatures{};
  F2.features.shaderInt16 = Core.shaderInt16;
  F2.features.shaderInt64 = Core.shaderInt64;
  F2.features.shaderFloat64 = Core.shaderFloat64;
  // Uniform/push/input-output 8/16-bit access stay as queried: enabling what exists is legal.

  float Priority = 1.0f;
  VkDeviceQueueCreateInfo QCI{};
  QCI.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  QCI.queueFamilyIndex = QueueFamily;
  QCI.queueCount = 1;
  QCI.pQueuePriorities = &Priority;
  VkDeviceCreateInfo DCI{};
  DCI.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  DCI.pNext = &F2;
  DCI.queueCreateInfoCount = 1;
  DCI.pQueueCreateInfos = &QCI;
  DCI.enabledExtensionCount = uint32_t(Enabled.size());
  DCI.ppEnabledExtensionNames = Enabled.data();
  if (VkResult R = Api.vkCreateDevice(Phys, &DCI, nullptr, &Device); R != VK_SUCCESS) {
    Error = fmt::format("vkCreateDevice for '{}': {}", Name, VulkanApi::describe(R));
    Device = VK_NULL_HANDLE;
    return false;
  }
  Api.vkGetDeviceQueue(Device, QueueFamily, 0, &Queue);
  VkPipelineCacheCreateInfo PCI{};
  PCI.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  if (Api.vkCreatePipelineCache(Device, &PCI, nullptr, &PipelineCache) != VK_SUCCESS)
    PipelineCache = VK_NULL_HANDLE; // optional

  // Unified memory (CPU and integrated devices): device-local memory the host maps directly.
  const VkMemoryPropertyFlags Direct = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  bool Uma = Props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ||
             Props.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU;
  Unified = Uma && memoryType(~0u, Direct) != UINT32_MAX;
  return true;
}

bool VulkanDevice::supports(cajeta_xpu_capability Capability) const {
  switch (Capability) {
  case CAJETA_XPU_CAP_FLOAT16:
    return Features.Float16 && Features.StorageBuffer16;
  case CAJETA_XPU_CAP_FLOAT64:
    return Features.Float64 && Features.Int64;
  case CAJETA_XPU_CAP_INT64_ATOMICS:
    return Features.Int64 && Features.BufferInt64Atomics;
  case CAJETA_XPU_CAP_FLOAT_ATOMICS: // a native add, or a compare-exchange loop on the bits
  case CAJETA_XPU_CAP_SHARED_MEMORY:
  case CAJETA_XPU_CAP_DYNAMIC_SHARED_MEMORY:
    return true;
  case CAJETA_XPU_CAP_CORRECTLY_ROUNDED_FMA:   // GLSL.std.450 Fma need not be fused
  case CAJETA_XPU_CAP_PRECISE_TRANSCENDENTALS: // Vulkan's precision rules promise far less;
    return false;                              // float64 ones run in float32
  case CAJETA_XPU_CAP_FLOAT32_DENORMALS:
    // Where the driver offers DenormPreserve for float32 the runtime adds it to every module.
    // A CPU implementation (lavapipe) runs on the host's IEEE units and keeps them without
    // offering the mode (the denormal conformance tests pass there).
    return Features.DenormPreserve[1] || Props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  case CAJETA_XPU_CAP_WAVE_OPS: // every instruction of the native tier, at a width Kir.h allows
    return Features.subgroupSizeValid() && Features.SubgroupBasic && Features.SubgroupVote &&
           Features.SubgroupBallot && Features.SubgroupShuffle && Features.SubgroupArithmetic;
  default: // cooperative matrices, textures, ray query: the emitter has none yet
    return false;
  }
}

void VulkanDevice::check(VkResult R, const std::string& What) const {
  if (R == VK_SUCCESS)
    return;
  fail(R == VK_ERROR_OUT_OF_DEVICE_MEMORY ? CAJETA_XPU_OUT_OF_DEVICE_MEMORY : CAJETA_XPU_ERROR,
       fmt::format("vulkan device '{}': {}: {}", Name, What, VulkanApi::describe(R)));
}

uint32_t VulkanDevice::memoryType(uint32_t Allowed, VkMemoryPropertyFlags Want) const {
  for (uint32_t T = 0; T != Memory.memoryTypeCount; ++T)
    if ((Allowed & (1u << T)) && (Memory.memoryTypes[T].propertyFlags & Want) == Want)
      return T;
  return UINT32_MAX;
}

// --- memory -------------------------------------------------------------------------------------

void* VulkanDevice::allocate(size_t Bytes) {
  auto B = std::make_unique<DeviceBuffer>();
  B->Bytes = Bytes;
  VkBufferCreateInfo BCI{};
  BCI.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  BCI.size = std::max<size_t>(Bytes, 16); // an empty buffer still gets a valid VkBuffer
  BCI.size = (BCI.size + 15) / 16 * 16;
  BCI.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
              VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (Api.vkCreateBuffer(Device, &BCI, nullptr, &B->Buffer) != VK_SUCCESS)
    return nullptr; // DeviceAllocation reports out of device memory with the size
  VkMemoryRequirements Req;
  Api.vkGetBufferMemoryRequirements(Device, B->Buffer, &Req);
  VkMemoryPropertyFlags Want = Unified ? VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                             VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                             VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                       : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  uint32_t Type = memoryType(Req.memoryTypeBits, Want);
  VkMemoryAllocateInfo MAI{};
  MAI.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  MAI.allocationSize = Req.size;
  MAI.memoryTypeIndex = Type;
  if (Type == UINT32_MAX || Api.vkAllocateMemory(Device, &MAI, nullptr, &B->Memory) != VK_SUCCESS) {
    Api.vkDestroyBuffer(Device, B->Buffer, nullptr);
    return nullptr;
  }
  Api.vkBindBufferMemory(Device, B->Buffer, B->Memory, 0);
  const VkMemoryPropertyFlags Mappable =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if (Unified && (Memory.memoryTypes[Type].propertyFlags & Mappable) == Mappable &&
      Api.vkMapMemory(Device, B->Memory, 0, VK_WHOLE_SIZE, 0, &B->Mapped) != VK_SUCCESS)
    B->Mapped = nullptr;
  return B.release();
}

void VulkanDevice::release(void* Ptr, size_t) {
  auto* B = static_cast<DeviceBuffer*>(Ptr);
  if (!B)
    return;
  Api.vkDestroyBuffer(Device, B->Buffer, nullptr);
  Api.vkFreeMemory(Device, B->Memory, nullptr); // unmaps
  delete B;
}

HostBuffer VulkanDevice::createHostBuffer(size_t Bytes, VkBufferUsageFlags Usage) {
  HostBuffer H;
  VkBufferCreateInfo BCI{};
  BCI.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  BCI.size = Bytes;
  BCI.usage = Usage;
  check(Api.vkCreateBuffer(Device, &BCI, nullptr, &H.Buffer), "vkCreateBuffer (host buffer)");
  VkMemoryRequirements Req;
  Api.vkGetBufferMemoryRequirements(Device, H.Buffer, &Req);
  uint32_t Type = memoryType(Req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                     VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                                                     VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
  if (Type == UINT32_MAX)
    Type = memoryType(Req.memoryTypeBits,
                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  if (Type == UINT32_MAX) {
    Api.vkDestroyBuffer(Device, H.Buffer, nullptr);
    fail(CAJETA_XPU_ERROR,
         fmt::format("vulkan device '{}' has no host-visible coherent memory", Name));
  }
  VkMemoryAllocateInfo MAI{};
  MAI.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  MAI.allocationSize = Req.size;
  MAI.memoryTypeIndex = Type;
  VkResult R = Api.vkAllocateMemory(Device, &MAI, nullptr, &H.Memory);
  if (R != VK_SUCCESS) {
    Api.vkDestroyBuffer(Device, H.Buffer, nullptr);
    check(R, fmt::format("vkAllocateMemory of {} host-visible bytes", Bytes));
  }
  Api.vkBindBufferMemory(Device, H.Buffer, H.Memory, 0);
  check(Api.vkMapMemory(Device, H.Memory, 0, VK_WHOLE_SIZE, 0, &H.Mapped), "vkMapMemory");
  H.Bytes = Bytes;
  return H;
}

void VulkanDevice::destroyHostBuffer(HostBuffer& B) {
  if (B.Buffer)
    Api.vkDestroyBuffer(Device, B.Buffer, nullptr);
  if (B.Memory)
    Api.vkFreeMemory(Device, B.Memory, nullptr);
  B = HostBuffer();
}

void VulkanDevice::ensureHostBuffer(HostBuffer& B, size_t Bytes, VkBufferUsageFlags Usage) {
  if (B.Bytes >= Bytes)
    return;
  destroyHostBuffer(B);
  B = createHostBuffer(std::max<size_t>(Bytes, 256), Usage);
}

// --- command submission -------------------------------------------------------------------------

VulkanDevice::StreamState& VulkanDevice::stream() {
  // Each runtime stream runs its commands on its own worker thread: a thread-local state per
  // device gives every stream its own command buffer, fence, descriptor pool and buffers.
  thread_local std::map<const VulkanDevice*, StreamState> States;
  StreamState& S = States[this];
  if (S.Owner)
    return S;
  S.Owner = this;
  VkCommandPoolCreateInfo CPI{};
  CPI.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  CPI.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  CPI.queueFamilyIndex = QueueFamily;
  check(Api.vkCreateCommandPool(Device, &CPI, nullptr, &S.Pool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo CBA{};
  CBA.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  CBA.commandPool = S.Pool;
  CBA.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  CBA.commandBufferCount = 1;
  check(Api.vkAllocateCommandBuffers(Device, &CBA, &S.Cmd), "vkAllocateCommandBuffers");
  VkFenceCreateInfo FCI{};
  FCI.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  check(Api.vkCreateFence(Device, &FCI, nullptr, &S.Fence), "vkCreateFence");
  VkDescriptorPoolSize Sizes[2] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, PoolStorageDescriptors},
                                   {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 4}};
  VkDescriptorPoolCreateInfo DPI{};
  DPI.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  DPI.maxSets = 4;
  DPI.poolSizeCount = 2;
  DPI.pPoolSizes = Sizes;
  check(Api.vkCreateDescriptorPool(Device, &DPI, nullptr, &S.Descriptors),
        "vkCreateDescriptorPool");
  S.Status = createHostBuffer(sizeof(CajetaVkStatus), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  std::memset(S.Status.Mapped, 0, sizeof(CajetaVkStatus));
  return S;
}

void VulkanDevice::begin(StreamState& S) {
  VkCommandBufferBeginInfo Begin{};
  Begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  Begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(Api.vkBeginCommandBuffer(S.Cmd, &Begin), "vkBeginCommandBuffer");
  // Everything earlier submissions wrote is visible to this one.
  VkMemoryBarrier Barrier{};
  Barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  Barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT;
  Barrier.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  Api.vkCmdPipelineBarrier(S.Cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                           VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &Barrier, 0, nullptr, 0,
                           nullptr);
}

void VulkanDevice::submitAndWait(StreamState& S, const std::string& What) {
  // What the device wrote becomes visible to the host once the fence is waited on.
  VkMemoryBarrier Barrier{};
  Barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  Barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  Barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_MEMORY_READ_BIT;
  Api.vkCmdPipelineBarrier(S.Cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                           VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1,
                           &Barrier, 0, nullptr, 0, nullptr);
  check(Api.vkEndCommandBuffer(S.Cmd), "vkEndCommandBuffer for " + What);
  VkSubmitInfo Submit{};
  Submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  Submit.commandBufferCount = 1;
  Submit.pCommandBuffers = &S.Cmd;
  VkResult R;
  {
    std::lock_guard<std::mutex> Lock(QueueMutex);
    R = Api.vkQueueSubmit(Queue, 1, &Submit, S.Fence);
  }
  if (R == VK_SUCCESS)
    R = Api.vkWaitForFences(Device, 1, &S.Fence, VK_TRUE, UINT64_MAX);
  Api.vkResetFences(Device, 1, &S.Fence);
  Api.vkResetCommandBuffer(S.Cmd, 0);
  check(R, What);
}

void VulkanDevice::copyStaged(VkBuffer Target, size_t Offset, void* HostDst, const void* HostSrc,
                              size_t Bytes) {
  StreamState& S = stream();
  ensureHostBuffer(S.Staging, std::min(Bytes, StagingChunk),
                   VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
  for (size_t Done = 0; Done < Bytes;) {
    size_t N = std::min(Bytes - Done, S.Staging.Bytes);
    begin(S);
    if (HostSrc) {
      std::memcpy(S.Staging.Mapped, static_cast<const uint8_t*>(HostSrc) + Done, N);
      VkBufferCopy Region{0, Offset + Done, N};
      Api.vkCmdCopyBuffer(S.Cmd, S.Staging.Buffer, Target, 1, &Region);
    } else {
      VkBufferCopy Region{Offset + Done, 0, N};
      Api.vkCmdCopyBuffer(S.Cmd, Target, S.Staging.Buffer, 1, &Region);
    }
    submitAndWait(S, HostSrc ? "an upload" : "a download");
    if (HostDst)
      std::memcpy(static_cast<uint8_t*>(HostDst) + Done, S.Staging.Mapped, N);
    Done += N;
  }
}

void VulkanDevice::copyToDevice(void* Dst, const void* Src, size_t Bytes) {
  auto* B = static_cast<DeviceBuffer*>(Dst);
  if (!Bytes)
    return;
  if (B->Mapped) {
    std::memcpy(B->Mapped, Src, Bytes);
    return;
  }
  copyStaged(B->Buffer, 0, nullptr, Src, Bytes);
}

void VulkanDevice::copyFromDevice(void* Dst, const void* Src, size_t Bytes) {
  const auto* B = static_cast<const DeviceBuffer*>(Src);
  if (!Bytes)
    return;
  if (B->Mapped) {
    std::memcpy(Dst, B->Mapped, Bytes);
    return;
  }
  copyStaged(B->Buffer, 0, Dst, nullptr, Bytes);
}

void VulkanDevice::copyWithinDevice(void* Dst, const void* Src, size_t Bytes) {
  auto* To = static_cast<DeviceBuffer*>(Dst);
  const auto* From = static_cast<const DeviceBuffer*>(Src);
  if (!Bytes)
    return;
  if (To->Mapped && From->Mapped) {
    std::memcpy(To->Mapped, From->Mapped, Bytes);
    return;
  }
  StreamState& S = stream();
  begin(S);
  VkBufferCopy Region{0, 0, Bytes};
  Api.vkCmdCopyBuffer(S.Cmd, From->Buffer, To->Buffer, 1, &Region);
  submitAndWait(S, "a device-to-device copy");
}

// --- modules and launches -----------------------------------------------------------------------

std::unique_ptr<BackendModule> VulkanDevice::loadModule(const bundle::Payload& Payload) {
  return VulkanModule::load(*this, Payload);
}

void VulkanDevice::launch(const void* Entry, const bundle::KernelInfo& Info,
                          const MarshalledArg* Args, const LaunchGeometry& Geometry,
                          KernelFailure& Failure) {
  auto& K = *static_cast<VulkanKernel*>(const_cast<void*>(Entry));
  const VkPhysicalDeviceLimits& L = Props.limits;
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
  if (uint64_t(K.StaticSharedBytes) + Geometry.DynamicSharedBytes > L.maxComputeSharedMemorySize)
    fail(CAJETA_XPU_LAUNCH_ERROR,
         fmt::format("{}: {} static + {} dynamic shared bytes exceed vulkan device '{}''s {} bytes "
                     "of workgroup memory",
                     Info.Name, K.StaticSharedBytes, Geometry.DynamicSharedBytes, Name,
                     L.maxComputeSharedMemorySize));
  uint32_t DynamicElements = 1;
  if (K.DynamicSharedElementBytes)
    DynamicElements =
        std::max<uint32_t>(1, Geometry.DynamicSharedBytes / K.DynamicSharedElementBytes);
  VkPipeline Pipeline = K.pipeline(*this, Geometry.Block, DynamicElements);

  StreamState& S = stream();
  // The parameter block (VulkanKernelAbi.h): each slot's bytes, little-endian.
  S.Block.assign(K.ParamBlockBytes, 0);
  for (const VulkanKernel::Slot& Slot : K.Slots) {
    const MarshalledArg& A = Args[Slot.Param];
    if (Info.Params[Slot.Param].Kind == bundle::ParamKind::Pod)
      std::memcpy(S.Block.data() + Slot.Offset, A.Ptr,
                  std::min<size_t>(Slot.Size, Info.Params[Slot.Param].PodSize));
    else
      std::memcpy(S.Block.data() + Slot.Offset, &A.Bits, std::min<size_t>(Slot.Size, 8));
  }

  // Descriptors: buffers at their parameter index, then the status and uniform block.
  check(Api.vkResetDescriptorPool(Device, S.Descriptors, 0), "vkResetDescriptorPool");
  VkDescriptorSetAllocateInfo DSA{};
  DSA.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  DSA.descriptorPool = S.Descriptors;
  DSA.descriptorSetCount = 1;
  DSA.pSetLayouts = &K.SetLayout;
  VkDescriptorSet Set = VK_NULL_HANDLE;
  check(Api.vkAllocateDescriptorSets(Device, &DSA, &Set),
        "vkAllocateDescriptorSets for " + Info.Name);
  S.Infos.clear();
  S.Infos.reserve(K.BufferParams.size() + 2);
  S.Writes.clear();
  auto Bind = [&](uint32_t Binding, VkDescriptorType Type, VkBuffer Buffer, VkDeviceSize Range) {
    S.Infos.push_back({Buffer, 0, Range});
    VkWriteDescriptorSet W{};
    W.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    W.dstSet = Set;
    W.dstBinding = Binding;
    W.descriptorCount = 1;
    W.descriptorType = Type;
    W.pBufferInfo = &S.Infos.back();
    S.Writes.push_back(W);
  };
  for (uint32_t P : K.BufferParams) {
    const auto* B = static_cast<const DeviceBuffer*>(Args[P].Ptr);
    uint64_t Bytes = Args[P].Length * bundle::scalarTypeSize(Info.Params[P].Type);
    if (Bytes > L.maxStorageBufferRange)
      fail(CAJETA_XPU_LAUNCH_ERROR,
           fmt::format("{}: buffer argument {} ('{}') has {} bytes; vulkan device '{}' binds at "
                       "most {} bytes per storage buffer",
                       Info.Name, P + 1, Info.Params[P].Name, Bytes, Name,
                       L.maxStorageBufferRange));
    // The range is what OpArrayLength reports; an empty buffer cannot have a zero range, so it
    // is bound with one element (a kernel that reads length() of an empty buffer sees 1).
    Bind(P, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, B->Buffer,
         Bytes ? Bytes : bundle::scalarTypeSize(Info.Params[P].Type));
  }
  if (K.CheckBounds)
    Bind(K.ParamCount, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, S.Status.Buffer, sizeof(CajetaVkStatus));
  if (K.ParamBlock == VulkanKernel::Block::Uniform) {
    ensureHostBuffer(S.Uniform, K.ParamBlockBytes, VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT);
    std::memcpy(S.Uniform.Mapped, S.Block.data(), K.ParamBlockBytes);
    Bind(K.ParamCount + 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, S.Uniform.Buffer, K.ParamBlockBytes);
  }
  Api.vkUpdateDescriptorSets(Device, uint32_t(S.Writes.size()), S.Writes.data(), 0, nullptr);

  begin(S);
  Api.vkCmdBindPipeline(S.Cmd, VK_PIPELINE_BIND_POINT_COMPUTE, Pipeline);
  Api.vkCmdBindDescriptorSets(S.Cmd, VK_PIPELINE_BIND_POINT_COMPUTE, K.Layout, 0, 1, &Set, 0,
                              nullptr);
  if (K.ParamBlock == VulkanKernel::Block::PushConstant && K.ParamBlockBytes)
    Api.vkCmdPushConstants(S.Cmd, K.Layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, K.ParamBlockBytes,
                           S.Block.data());
  Api.vkCmdDispatch(S.Cmd, Geometry.Grid[0], Geometry.Grid[1], Geometry.Grid[2]);
  submitAndWait(S, "running " + Info.Name);

  if (!K.CheckBounds)
    return;
  auto* Status = static_cast<CajetaVkStatus*>(S.Status.Mapped);
  if (!Status->Failed)
    return;
  Failure.Failed = true;
  Failure.Param = Status->FailedParam;
  Failure.Index = Status->FailedIndex;
  Failure.Length = Status->FailedLength;
  std::memset(Status, 0, sizeof(CajetaVkStatus));
}

} // namespace cajeta::xpu::rt::vulkan
