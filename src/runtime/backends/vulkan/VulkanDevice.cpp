// The vulkan backend's device: creation with the features SPIR-V kernels use, memory (device-local
// with staging, or mapped where device memory is host memory), and its queues.
#include "runtime/backends/vulkan/VulkanDevice.h"

#include "runtime/backends/vulkan/VulkanCooperativeMatrix.h"

#include "bundle/VulkanKernelAbi.h"
#include "runtime/RuntimeError.h"
#include "runtime/backends/vulkan/VulkanModule.h"
#include "runtime/backends/vulkan/VulkanQueue.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace cajeta::xpu::rt::vulkan {

namespace {

/// Device extensions enabled when present (the ones SPIR-V kernels may require).
const char* const WantedExtensions[] = {
    "VK_KHR_8bit_storage",
    "VK_KHR_16bit_storage",
    "VK_KHR_shader_float16_int8",
    "VK_KHR_shader_atomic_int64",
    "VK_EXT_shader_atomic_float",
    "VK_KHR_storage_buffer_storage_class",
    "VK_KHR_timeline_semaphore",
    "VK_EXT_subgroup_size_control",
    "VK_EXT_calibrated_timestamps",
    "VK_KHR_vulkan_memory_model",
    CooperativeMatrixExtension,
    ShaderBFloat16Extension,
    "VK_KHR_spirv_1_4",
    "VK_KHR_workgroup_memory_explicit_layout",
};

/// A test switch: set, and neither empty nor "0".
bool envFlag(const char* Name) {
  const char* V = std::getenv(Name);
  return V && *V && std::strcmp(V, "0") != 0;
}

} // namespace

std::unique_ptr<VulkanDevice> VulkanDevice::create(const VulkanApi& Api, VkPhysicalDevice Phys,
                                                   std::string& Error) {
  std::unique_ptr<VulkanDevice> D(new VulkanDevice(Api, Phys));
  if (!D->init(Error))
    return nullptr;
  return D;
}

VulkanDevice::VulkanDevice(const VulkanApi& Api, VkPhysicalDevice Phys) : Api(Api), Phys(Phys) {}

VulkanDevice::~VulkanDevice() {
  if (PipelineCache)
    Api.vkDestroyPipelineCache(Device, PipelineCache, nullptr);
  if (Device)
    Api.vkDestroyDevice(Device, nullptr);
}

std::string VulkanDevice::identity() const {
  // pipelineCacheUUID changes with the driver's build and the device: what a measurement of
  // this device through this driver depends on.
  std::string Uuid;
  for (uint8_t B : Props.pipelineCacheUUID)
    Uuid += fmt::format("{:02x}", B);
  return fmt::format("vendor {:04x} device {:04x} cache {}", Props.vendorID, Props.deviceID, Uuid);
}

std::string VulkanDevice::driverVersion() const {
  return fmt::format("vulkan {}.{}.{} driver {:#x}", VK_API_VERSION_MAJOR(Props.apiVersion),
                     VK_API_VERSION_MINOR(Props.apiVersion), VK_API_VERSION_PATCH(Props.apiVersion),
                     Props.driverVersion);
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
  Features.TimestampBits = Families[Pick].timestampValidBits;
  Features.TimestampPeriodNs = Props.limits.timestampPeriod;

  uint32_t NE = 0;
  Api.vkEnumerateDeviceExtensionProperties(Phys, nullptr, &NE, nullptr);
  std::vector<VkExtensionProperties> Available(NE);
  Api.vkEnumerateDeviceExtensionProperties(Phys, nullptr, &NE, Available.data());
  if (std::getenv("CAJETA_XPU_DEBUG")) {
    std::string Names;
    for (const VkExtensionProperties& E : Available)
      Names += fmt::format(" {}", E.extensionName);
    fmt::print(stderr, "cajeta-xpu: vulkan device {} offers:{}\n", Name, Names);
  }
  std::vector<const char*> Enabled;
  for (const char* Want : WantedExtensions)
    for (const VkExtensionProperties& E : Available)
      if (std::strcmp(E.extensionName, Want) == 0) {
        Enabled.push_back(Want);
        Features.Extensions.insert(Want);
      }
  bool Core12 = Props.apiVersion >= VK_API_VERSION_1_2;
  auto Has = [&](const char* Ext) { return Features.Extensions.count(Ext) != 0; };
  // The device's properties of the structure (chain) Next.
  auto properties = [&](void* Next) {
    VkPhysicalDeviceProperties2 P2{};
    P2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    P2.pNext = Next;
    Api.vkGetPhysicalDeviceProperties2(Phys, &P2);
  };
  // Offered, whether enabled or not (an extension whose properties are all the runtime reads).
  auto Offers = [&](const char* Ext) {
    return std::any_of(Available.begin(), Available.end(), [&](const VkExtensionProperties& E) {
      return std::strcmp(E.extensionName, Ext) == 0;
    });
  };

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
  VkPhysicalDeviceTimelineSemaphoreFeatures TS{};
  TS.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES;
  VkPhysicalDeviceSubgroupSizeControlFeaturesEXT SSC{};
  SSC.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES_EXT;
  VkPhysicalDeviceVulkanMemoryModelFeatures VMM{};
  VMM.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES;
  CooperativeMatrixFeaturesKHR CM{};
  ShaderBFloat16FeaturesKHR BF{};
  VkPhysicalDeviceWorkgroupMemoryExplicitLayoutFeaturesKHR WL{};
  WL.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_WORKGROUP_MEMORY_EXPLICIT_LAYOUT_FEATURES_KHR;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR PE{};
  PE.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  // The driver's statistics of each pipeline, for CAJETA_XPU_DEBUG only (capturing them may
  // cost pipeline creation time).
  const char* const StatisticsExtension = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
  const bool WantStatistics = std::getenv("CAJETA_XPU_DEBUG") && Offers(StatisticsExtension) &&
                              Api.vkGetPipelineExecutablePropertiesKHR &&
                              Api.vkGetPipelineExecutableStatisticsKHR;
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
  Chain(TS, Core12 || Has("VK_KHR_timeline_semaphore"));
  Chain(SSC, Has("VK_EXT_subgroup_size_control"));
  Chain(VMM, Core12 || Has("VK_KHR_vulkan_memory_model"));
  Chain(CM, Has(CooperativeMatrixExtension));
  Chain(BF, Has(ShaderBFloat16Extension));
  Chain(WL, Has("VK_KHR_workgroup_memory_explicit_layout"));
  Chain(PE, WantStatistics);
  Api.vkGetPhysicalDeviceFeatures2(Phys, &F2);
  if (WantStatistics && PE.pipelineExecutableInfo) {
    Enabled.push_back(StatisticsExtension);
    Features.Extensions.insert(StatisticsExtension);
    Features.PipelineStatistics = true;
  }
  BF.shaderBFloat16DotProduct = VK_FALSE; // not used
  Features.BFloat16Type = BF.shaderBFloat16Type;
  Features.BFloat16CooperativeMatrix = BF.shaderBFloat16CooperativeMatrix;
  Features.VulkanMemoryModel = VMM.vulkanMemoryModel;
  Features.WorkgroupExplicitLayout = WL.workgroupMemoryExplicitLayout;
  Features.WorkgroupExplicitLayout8Bit = WL.workgroupMemoryExplicitLayout8BitAccess;
  Features.WorkgroupExplicitLayout16Bit = WL.workgroupMemoryExplicitLayout16BitAccess;
  Features.Spirv14 = Props.apiVersion >= VK_API_VERSION_1_2 || Has("VK_KHR_spirv_1_4");
  Features.VulkanMemoryModelDeviceScope = VMM.vulkanMemoryModelDeviceScope;
  // Robust access for cooperative matrices costs speed, as robustBufferAccess does: off.
  CM.cooperativeMatrixRobustBufferAccess = VK_FALSE;
  if (CM.cooperativeMatrix && VMM.vulkanMemoryModel) {
    Features.CooperativeMatrix = true;
    Features.MatrixShapes = cooperativeMatrixShapes(
        Api, Phys, BF.shaderBFloat16Type && BF.shaderBFloat16CooperativeMatrix);
    for (const std::string& Shape : Features.MatrixShapes)
      MatrixShapeList += (MatrixShapeList.empty() ? "" : ",") + Shape;
  }
  // Streams fall back to fences without the feature or the loader's functions, or when
  // CAJETA_XPU_VULKAN_NO_TIMELINE is set (to test that path on a device that has both).
  if (!Api.vkWaitSemaphores || !Api.vkGetSemaphoreCounterValue ||
      envFlag("CAJETA_XPU_VULKAN_NO_TIMELINE"))
    TS.timelineSemaphore = VK_FALSE;
  Features.TimelineSemaphore = TS.timelineSemaphore;

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
    properties(&FC);
    Features.SignedZeroInfNanPreserve[0] = FC.shaderSignedZeroInfNanPreserveFloat16;
    Features.SignedZeroInfNanPreserve[1] = FC.shaderSignedZeroInfNanPreserveFloat32;
    Features.SignedZeroInfNanPreserve[2] = FC.shaderSignedZeroInfNanPreserveFloat64;
    Features.DenormPreserve[0] = FC.shaderDenormPreserveFloat16;
    Features.DenormPreserve[1] = FC.shaderDenormPreserveFloat32;
    Features.DenormPreserve[2] = FC.shaderDenormPreserveFloat64;
  }
  if (Has("VK_EXT_calibrated_timestamps") && Api.vkGetPhysicalDeviceCalibrateableTimeDomainsEXT &&
      Api.vkGetCalibratedTimestampsEXT) {
    uint32_t N = 0;
    Api.vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(Phys, &N, nullptr);
    std::vector<VkTimeDomainEXT> Domains(N);
    Api.vkGetPhysicalDeviceCalibrateableTimeDomainsEXT(Phys, &N, Domains.data());
    bool Dev = false, Mono = false;
    for (VkTimeDomainEXT D : Domains) {
      Dev |= D == VK_TIME_DOMAIN_DEVICE_EXT;
      Mono |= D == VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT;
    }
    Features.CalibratedMonotonic = Dev && Mono;
  }
  if (Offers("VK_NV_shader_sm_builtins")) {
    // The SMs and their resident warps: the device's compute units and a wave's workgroups.
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV SM{};
    SM.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
    properties(&SM);
    Features.SmCount = SM.shaderSMCount;
    Features.ThreadsPerSm = SM.shaderWarpsPerSM * 32;
  }
  if (Core12 || Has("VK_KHR_driver_properties")) {
    // Mesa's llvmpipe (lavapipe) ends every loop after 65,535 iterations without an error,
    // loses ordered atomics' results inside loops, and starts a subgroup at each row of x (a
    // block of 12 x 2 has subgroups of 8, 4, 8, 4 lanes).
    VkPhysicalDeviceDriverProperties DP{};
    DP.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    properties(&DP);
    if (DP.driverID == VK_DRIVER_ID_MESA_LLVMPIPE) {
      Features.MaxLoopIterations = 65535;
      Features.OrderedAtomicsInLoops = false;
      Features.WavesSpanRows = false;
    }
  }
  {
    // Subgroups (core in Vulkan 1.1): what wave ops need in compute shaders.
    VkPhysicalDeviceSubgroupProperties SG{};
    SG.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    VkPhysicalDeviceSubgroupSizeControlPropertiesEXT SSP{};
    SSP.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES_EXT;
    if (Has("VK_EXT_subgroup_size_control"))
      SG.pNext = &SSP;
    properties(&SG);
    Features.SubgroupSize = SG.subgroupSize;
    // Full subgroups (every subgroup of a wave kernel's workgroup complete) where the device can
    // promise them; the features stay enabled as queried (F2's chain goes to vkCreateDevice).
    Features.FullSubgroups = SSC.subgroupSizeControl && SSC.computeFullSubgroups &&
                             SSP.maxSubgroupSize >= SG.subgroupSize;
    Features.MaxSubgroupSize = SSP.maxSubgroupSize;
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

  // Several queues of the family, so that streams run side by side as they do on CUDA.
  uint32_t QueueWant = MaxQueues;
  if (const char* Env = std::getenv("CAJETA_XPU_VULKAN_QUEUES"); Env && *Env)
    QueueWant = uint32_t(std::clamp(std::strtol(Env, nullptr, 10), 1L, long(MaxQueues)));
  const uint32_t QueueTotal = std::max(1u, std::min(QueueWant, Families[QueueFamily].queueCount));
  std::vector<float> Priorities(QueueTotal, 1.0f);
  VkDeviceQueueCreateInfo QCI{};
  QCI.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  QCI.queueFamilyIndex = QueueFamily;
  QCI.queueCount = QueueTotal;
  QCI.pQueuePriorities = Priorities.data();
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
  for (uint32_t I = 0; I != QueueTotal; ++I) {
    Queues.push_back(std::make_unique<HardwareQueue>());
    Api.vkGetDeviceQueue(Device, QueueFamily, I, &Queues.back()->Handle);
  }
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
  // CAJETA_XPU_VULKAN_STAGED=1 copies through staging as on a discrete GPU (to test that path).
  Unified = Uma && memoryType(~0u, Direct) != UINT32_MAX && !envFlag("CAJETA_XPU_VULKAN_STAGED");
  SubmitWhenIdle = !envFlag("CAJETA_XPU_VULKAN_LAZY_SUBMIT");
  const char* Others = std::getenv("CAJETA_XPU_VULKAN_SUBMIT_OTHERS");
  SubmitOthers = !(Others && std::string(Others) == "0");
  if (const char* After = std::getenv("CAJETA_XPU_VULKAN_LOSE_DEVICE_AFTER"); After && *After)
    LoseAfterSubmits = std::strtoll(After, nullptr, 10);
  if (const char* Pieces = std::getenv("CAJETA_XPU_VULKAN_PIECE_GROUPS"); Pieces && *Pieces)
    ForcedPieceGroups = std::max(0LL, std::strtoll(Pieces, nullptr, 10));
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
  case CAJETA_XPU_CAP_COOPERATIVE_MATRIX: // tiles' native tier: the float16 product at least
    return Features.CooperativeMatrix && !Features.MatrixShapes.empty();
  default: // textures, ray query: the emitter has none yet
    return false;
  }
}

bool VulkanDevice::runsCooperativeMatrices(const std::string& Shapes, std::string& Why) const {
  if (!Features.CooperativeMatrix) {
    Why = "it has no VK_KHR_cooperative_matrix (with the Vulkan memory model)";
    return false;
  }
  for (const std::string& Need : bundle::splitAttributeList(Shapes))
    if (std::find(Features.MatrixShapes.begin(), Features.MatrixShapes.end(), Need) ==
        Features.MatrixShapes.end()) {
      Why = "it does not list the product " + Need;
      return false;
    }
  return true;
}

void VulkanDevice::addQueue(VulkanQueue* Q) {
  std::lock_guard<std::mutex> Lock(StreamsMutex);
  Streams.push_back(Q);
}

void VulkanDevice::removeQueue(VulkanQueue* Q) {
  std::lock_guard<std::mutex> Lock(StreamsMutex);
  Streams.erase(std::remove(Streams.begin(), Streams.end(), Q), Streams.end());
}

uint64_t VulkanDevice::pieceGroups(uint64_t BlockThreads, bool OtherLatencyStreams) const {
  if (ForcedPieceGroups >= 0)
    return uint64_t(ForcedPieceGroups);
  if (!OtherLatencyStreams || !concurrentStreams() || !Features.SmCount || !Features.ThreadsPerSm ||
      !BlockThreads)
    return 0;
  // About one wave: each SM full of the grid's workgroups.
  return uint64_t(Features.SmCount) * std::max<uint64_t>(1, Features.ThreadsPerSm / BlockThreads);
}

void VulkanDevice::submitOtherQueues(VulkanQueue* Self) {
  if (!SubmitOthers)
    return;
  std::lock_guard<std::mutex> Lock(StreamsMutex);
  for (VulkanQueue* Q : Streams)
    if (Q != Self)
      Q->submitForAnother();
}

void VulkanDevice::waitIdle() {
  for (auto& Q : Queues) {
    std::lock_guard<std::mutex> Lock(Q->Mutex);
    Api.vkQueueWaitIdle(Q->Handle); // a lost device answers at once; nothing to report
  }
}

VkResult VulkanDevice::submit(uint32_t Queue, const VkSubmitInfo& Submit, VkFence Fence) {
  HardwareQueue& Q = *Queues[Queue];
  std::lock_guard<std::mutex> Lock(Q.Mutex);
  if (Lost || (LoseAfterSubmits >= 0 && Submits++ >= LoseAfterSubmits))
    return VK_ERROR_DEVICE_LOST;
  return Api.vkQueueSubmit(Q.Handle, 1, &Submit, Fence);
}

void VulkanDevice::check(VkResult R, const std::string& What) const {
  if (R == VK_SUCCESS)
    return;
  if (R == VK_ERROR_DEVICE_LOST) {
    Lost = true;
    checkNotLost(What);
  }
  fail(R == VK_ERROR_OUT_OF_DEVICE_MEMORY ? CAJETA_XPU_OUT_OF_DEVICE_MEMORY : CAJETA_XPU_ERROR,
       fmt::format("vulkan device '{}': {}: {}", Name, What, VulkanApi::describe(R)));
}

void VulkanDevice::checkNotLost(const std::string& What) const {
  if (Lost)
    fail(CAJETA_XPU_DEVICE_LOST,
         fmt::format("vulkan device '{}' was lost (VK_ERROR_DEVICE_LOST; seen at {}): its buffers "
                     "and pending work are gone; other devices go on",
                     Name, What));
}

uint32_t VulkanDevice::memoryType(uint32_t Allowed, VkMemoryPropertyFlags Want) const {
  for (uint32_t T = 0; T != Memory.memoryTypeCount; ++T)
    if ((Allowed & (1u << T)) && (Memory.memoryTypes[T].propertyFlags & Want) == Want)
      return T;
  return UINT32_MAX;
}

// --- memory -------------------------------------------------------------------------------------

void* VulkanDevice::allocate(size_t Bytes) {
  checkNotLost("allocating a buffer");
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

// --- queues -------------------------------------------------------------------------------------

std::unique_ptr<BackendQueue> VulkanDevice::createQueue() {
  checkNotLost("creating a stream");
  return std::make_unique<VulkanQueue>(*this);
}

std::unique_ptr<BackendModule> VulkanDevice::loadModule(const bundle::Payload& Payload) {
  checkNotLost("loading a program");
  return VulkanModule::load(*this, Payload);
}

} // namespace cajeta::xpu::rt::vulkan
