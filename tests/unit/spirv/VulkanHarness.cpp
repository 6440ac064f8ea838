// VulkanHarness: the Vulkan calls of one compute launch, loaded through vkGetInstanceProcAddr.
#include "VulkanHarness.h"

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <cstring>
#include <dlfcn.h>

namespace cajeta::lowering::spirv::test {

namespace {

/// A zeroed Vulkan struct with its sType set (brace-initialising only sType leaves the other
/// members to -Wmissing-field-initializers).
template <class T> T vkStruct(VkStructureType Type) {
  T S{};
  S.sType = Type;
  return S;
}

} // namespace

// One X per line: clang-format does not settle on a layout for this list.
// clang-format off
#define CJ_VK_FUNCTIONS(X) \
  X(vkDestroyInstance) \
  X(vkEnumeratePhysicalDevices) \
  X(vkGetPhysicalDeviceProperties) \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties) \
  X(vkCreateDevice) \
  X(vkDestroyDevice) \
  X(vkGetDeviceQueue) \
  X(vkCreateBuffer) \
  X(vkDestroyBuffer) \
  X(vkGetBufferMemoryRequirements) \
  X(vkAllocateMemory) \
  X(vkFreeMemory) \
  X(vkBindBufferMemory) \
  X(vkMapMemory) \
  X(vkUnmapMemory) \
  X(vkCreateDescriptorSetLayout) \
  X(vkDestroyDescriptorSetLayout) \
  X(vkCreatePipelineLayout) \
  X(vkDestroyPipelineLayout) \
  X(vkCreateShaderModule) \
  X(vkDestroyShaderModule) \
  X(vkCreateComputePipelines) \
  X(vkDestroyPipeline) \
  X(vkCreateDescriptorPool) \
  X(vkDestroyDescriptorPool) \
  X(vkAllocateDescriptorSets) \
  X(vkUpdateDescriptorSets) \
  X(vkCreateCommandPool) \
  X(vkDestroyCommandPool) \
  X(vkAllocateCommandBuffers) \
  X(vkBeginCommandBuffer) \
  X(vkEndCommandBuffer) \
  X(vkCmdBindPipeline) \
  X(vkCmdBindDescriptorSets) \
  X(vkCmdPushConstants) \
  X(vkCmdDispatch) \
  X(vkCreateFence) \
  X(vkDestroyFence) \
  X(vkQueueSubmit) \
  X(vkWaitForFences) \
  X(vkDeviceWaitIdle)
// clang-format on

struct VulkanHarness::Impl {
  void* Lib = nullptr;
  PFN_vkGetInstanceProcAddr GetProc = nullptr;
  VkInstance Instance = VK_NULL_HANDLE;
  VkPhysicalDevice Phys = VK_NULL_HANDLE;
  VkDevice Device = VK_NULL_HANDLE;
  VkQueue Queue = VK_NULL_HANDLE;
  uint32_t Family = 0;
  VkPhysicalDeviceProperties Props{};
#define CJ_DECL(N) PFN_##N N = nullptr;
  CJ_VK_FUNCTIONS(CJ_DECL)
#undef CJ_DECL
};

std::unique_ptr<VulkanHarness> VulkanHarness::create(std::string& Why) {
  auto H = std::unique_ptr<VulkanHarness>(new VulkanHarness());
  H->P = std::make_unique<Impl>();
  Impl& I = *H->P;
  I.Lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!I.Lib) {
    Why = std::string("no Vulkan loader: ") + dlerror();
    return nullptr;
  }
  I.GetProc = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(I.Lib, "vkGetInstanceProcAddr"));
  auto CreateInstance =
      reinterpret_cast<PFN_vkCreateInstance>(I.GetProc(VK_NULL_HANDLE, "vkCreateInstance"));
  if (!CreateInstance) {
    Why = "the Vulkan loader has no vkCreateInstance";
    return nullptr;
  }
  VkApplicationInfo App = vkStruct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  App.pApplicationName = "cajeta-spirv-tests";
  App.apiVersion = VK_API_VERSION_1_2; // the loader caps it at what the driver offers
  VkInstanceCreateInfo ICI = vkStruct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  ICI.pApplicationInfo = &App;
  if (CreateInstance(&ICI, nullptr, &I.Instance) != VK_SUCCESS) {
    Why = "vkCreateInstance failed (no Vulkan driver?)";
    return nullptr;
  }
#define CJ_LOAD(N) I.N = reinterpret_cast<PFN_##N>(I.GetProc(I.Instance, #N));
  CJ_VK_FUNCTIONS(CJ_LOAD)
#undef CJ_LOAD
  uint32_t Count = 0;
  I.vkEnumeratePhysicalDevices(I.Instance, &Count, nullptr);
  std::vector<VkPhysicalDevice> Devs(Count);
  I.vkEnumeratePhysicalDevices(I.Instance, &Count, Devs.data());
  // Prefer a CPU device (lavapipe): deterministic in CI; otherwise the first device.
  for (VkPhysicalDevice D : Devs) {
    VkPhysicalDeviceProperties Pr;
    I.vkGetPhysicalDeviceProperties(D, &Pr);
    if (!I.Phys || Pr.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
      I.Phys = D;
      I.Props = Pr;
    }
  }
  if (!I.Phys) {
    Why = "no Vulkan physical device";
    return nullptr;
  }
  uint32_t NQ = 0;
  I.vkGetPhysicalDeviceQueueFamilyProperties(I.Phys, &NQ, nullptr);
  std::vector<VkQueueFamilyProperties> Q(NQ);
  I.vkGetPhysicalDeviceQueueFamilyProperties(I.Phys, &NQ, Q.data());
  bool Found = false;
  for (uint32_t F = 0; F < NQ && !Found; ++F)
    if (Q[F].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      I.Family = F;
      Found = true;
    }
  if (!Found) {
    Why = "no compute queue";
    return nullptr;
  }
  float Prio = 1.0f;
  VkDeviceQueueCreateInfo QCI =
      vkStruct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  QCI.queueFamilyIndex = I.Family;
  QCI.queueCount = 1;
  QCI.pQueuePriorities = &Prio;
  VkDeviceCreateInfo DCI = vkStruct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  DCI.queueCreateInfoCount = 1;
  DCI.pQueueCreateInfos = &QCI;
  // Enable every feature the device has (the kernels' Int64, Float64, 8/16-bit types and
  // storage): the Vulkan 1.1/1.2 feature structs where the device knows them.
  VkPhysicalDeviceFeatures2 F2 =
      vkStruct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  VkPhysicalDeviceVulkan11Features F11 = vkStruct<VkPhysicalDeviceVulkan11Features>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  VkPhysicalDeviceVulkan12Features F12 = vkStruct<VkPhysicalDeviceVulkan12Features>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  if (I.Props.apiVersion >= VK_API_VERSION_1_2) {
    F2.pNext = &F11;
    F11.pNext = &F12;
  }
  auto GetFeatures2 = reinterpret_cast<PFN_vkGetPhysicalDeviceFeatures2>(
      I.GetProc(I.Instance, "vkGetPhysicalDeviceFeatures2"));
  if (GetFeatures2 && I.Props.apiVersion >= VK_API_VERSION_1_1) {
    GetFeatures2(I.Phys, &F2);
    F2.features.robustBufferAccess = VK_FALSE; // what the runtime does (speed)
    DCI.pNext = &F2;
  }
  if (I.vkCreateDevice(I.Phys, &DCI, nullptr, &I.Device) != VK_SUCCESS) {
    Why = "vkCreateDevice failed";
    return nullptr;
  }
  I.vkGetDeviceQueue(I.Device, I.Family, 0, &I.Queue);
  return H;
}

VulkanHarness::~VulkanHarness() {
  if (!P)
    return;
  if (P->Device)
    P->vkDestroyDevice(P->Device, nullptr);
  if (P->Instance)
    P->vkDestroyInstance(P->Instance, nullptr);
  // The loader stays loaded: drivers may keep threads that outlive dlclose.
}

std::string VulkanHarness::deviceName() const {
  return P->Props.deviceName;
}

bool VulkanHarness::run(const SpirvKernel& K, uint32_t Grid, uint32_t Block,
                        std::vector<std::vector<uint8_t>>& Buffers,
                        const std::vector<uint8_t>& Params, uint32_t DynamicSharedElements,
                        std::string& Error) {
  Impl& I = *P;
  VkDevice D = I.Device;
  auto Check = [&](VkResult R, const char* What) {
    if (R != VK_SUCCESS && Error.empty())
      Error = std::string(What) + " failed (VkResult " + std::to_string(int(R)) + ")";
    return R == VK_SUCCESS;
  };
  VkPhysicalDeviceMemoryProperties Mem;
  I.vkGetPhysicalDeviceMemoryProperties(I.Phys, &Mem);
  std::vector<VkBuffer> Bufs;
  std::vector<VkDeviceMemory> Mems;
  std::vector<uint32_t> Bindings;
  for (uint32_t B = 0; B < Buffers.size(); ++B) {
    if (Buffers[B].empty())
      continue;
    VkBufferCreateInfo BCI = vkStruct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    BCI.size = Buffers[B].size();
    BCI.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    VkBuffer Buf;
    if (!Check(I.vkCreateBuffer(D, &BCI, nullptr, &Buf), "vkCreateBuffer"))
      return false;
    VkMemoryRequirements Req;
    I.vkGetBufferMemoryRequirements(D, Buf, &Req);
    uint32_t Type = UINT32_MAX;
    VkMemoryPropertyFlags Want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t T = 0; T < Mem.memoryTypeCount && Type == UINT32_MAX; ++T)
      if ((Req.memoryTypeBits & (1u << T)) && (Mem.memoryTypes[T].propertyFlags & Want) == Want)
        Type = T;
    VkMemoryAllocateInfo MAI =
        vkStruct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    MAI.allocationSize = Req.size;
    MAI.memoryTypeIndex = Type;
    VkDeviceMemory M;
    if (Type == UINT32_MAX || !Check(I.vkAllocateMemory(D, &MAI, nullptr, &M), "vkAllocateMemory"))
      return Error.empty() ? (Error = "no host-visible memory", false) : false;
    I.vkBindBufferMemory(D, Buf, M, 0);
    void* Ptr;
    I.vkMapMemory(D, M, 0, VK_WHOLE_SIZE, 0, &Ptr);
    std::memcpy(Ptr, Buffers[B].data(), Buffers[B].size());
    I.vkUnmapMemory(D, M);
    Bufs.push_back(Buf);
    Mems.push_back(M);
    Bindings.push_back(B);
  }
  std::vector<VkDescriptorSetLayoutBinding> LB;
  for (uint32_t B : Bindings)
    LB.push_back({B, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  VkDescriptorSetLayoutCreateInfo DSL = vkStruct<VkDescriptorSetLayoutCreateInfo>(
      VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  DSL.bindingCount = uint32_t(LB.size());
  DSL.pBindings = LB.data();
  VkDescriptorSetLayout SetLayout;
  Check(I.vkCreateDescriptorSetLayout(D, &DSL, nullptr, &SetLayout), "vkCreateDescriptorSetLayout");
  VkPushConstantRange Range{VK_SHADER_STAGE_COMPUTE_BIT, 0, uint32_t(Params.size())};
  VkPipelineLayoutCreateInfo PLI =
      vkStruct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  PLI.setLayoutCount = 1;
  PLI.pSetLayouts = &SetLayout;
  PLI.pushConstantRangeCount = Params.empty() ? 0 : 1;
  PLI.pPushConstantRanges = &Range;
  VkPipelineLayout Layout;
  Check(I.vkCreatePipelineLayout(D, &PLI, nullptr, &Layout), "vkCreatePipelineLayout");
  VkShaderModuleCreateInfo SMI =
      vkStruct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  SMI.codeSize = K.Module.size() * 4;
  SMI.pCode = K.Module.data();
  VkShaderModule Shader;
  Check(I.vkCreateShaderModule(D, &SMI, nullptr, &Shader), "vkCreateShaderModule");
  uint32_t Spec[4] = {Block, 1, 1, DynamicSharedElements};
  VkSpecializationMapEntry Entries[4];
  for (uint32_t E = 0; E < 4; ++E)
    Entries[E] = {E, E * 4, 4};
  VkSpecializationInfo SI{4, Entries, sizeof Spec, Spec};
  VkComputePipelineCreateInfo CPI =
      vkStruct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  CPI.stage = vkStruct<VkPipelineShaderStageCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
  CPI.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  CPI.stage.module = Shader;
  CPI.stage.pName = K.EntryPoint.c_str();
  CPI.stage.pSpecializationInfo = &SI;
  CPI.layout = Layout;
  VkPipeline Pipe;
  Check(I.vkCreateComputePipelines(D, VK_NULL_HANDLE, 1, &CPI, nullptr, &Pipe),
        "vkCreateComputePipelines");
  VkDescriptorPoolSize PS{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                          uint32_t(std::max<size_t>(1, LB.size()))};
  VkDescriptorPoolCreateInfo DPI =
      vkStruct<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
  DPI.maxSets = 1;
  DPI.poolSizeCount = 1;
  DPI.pPoolSizes = &PS;
  VkDescriptorPool Pool;
  Check(I.vkCreateDescriptorPool(D, &DPI, nullptr, &Pool), "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo DSA =
      vkStruct<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
  DSA.descriptorPool = Pool;
  DSA.descriptorSetCount = 1;
  DSA.pSetLayouts = &SetLayout;
  VkDescriptorSet Set;
  Check(I.vkAllocateDescriptorSets(D, &DSA, &Set), "vkAllocateDescriptorSets");
  std::vector<VkDescriptorBufferInfo> Infos(Bufs.size());
  std::vector<VkWriteDescriptorSet> Writes(Bufs.size());
  for (size_t B = 0; B < Bufs.size(); ++B) {
    Infos[B] = {Bufs[B], 0, VK_WHOLE_SIZE};
    Writes[B] = vkStruct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    Writes[B].dstSet = Set;
    Writes[B].dstBinding = Bindings[B];
    Writes[B].descriptorCount = 1;
    Writes[B].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    Writes[B].pBufferInfo = &Infos[B];
  }
  I.vkUpdateDescriptorSets(D, uint32_t(Writes.size()), Writes.data(), 0, nullptr);
  VkCommandPoolCreateInfo CPCI =
      vkStruct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  CPCI.queueFamilyIndex = I.Family;
  VkCommandPool CmdPool;
  Check(I.vkCreateCommandPool(D, &CPCI, nullptr, &CmdPool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo CBA =
      vkStruct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  CBA.commandPool = CmdPool;
  CBA.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  CBA.commandBufferCount = 1;
  VkCommandBuffer Cmd;
  Check(I.vkAllocateCommandBuffers(D, &CBA, &Cmd), "vkAllocateCommandBuffers");
  if (!Error.empty())
    return false;
  VkCommandBufferBeginInfo Begin =
      vkStruct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  I.vkBeginCommandBuffer(Cmd, &Begin);
  I.vkCmdBindPipeline(Cmd, VK_PIPELINE_BIND_POINT_COMPUTE, Pipe);
  I.vkCmdBindDescriptorSets(Cmd, VK_PIPELINE_BIND_POINT_COMPUTE, Layout, 0, 1, &Set, 0, nullptr);
  if (!Params.empty())
    I.vkCmdPushConstants(Cmd, Layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, uint32_t(Params.size()),
                         Params.data());
  I.vkCmdDispatch(Cmd, Grid, 1, 1);
  I.vkEndCommandBuffer(Cmd);
  VkFenceCreateInfo FCI = vkStruct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  VkFence Fence;
  I.vkCreateFence(D, &FCI, nullptr, &Fence);
  VkSubmitInfo Submit = vkStruct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  Submit.commandBufferCount = 1;
  Submit.pCommandBuffers = &Cmd;
  if (Check(I.vkQueueSubmit(I.Queue, 1, &Submit, Fence), "vkQueueSubmit"))
    Check(I.vkWaitForFences(D, 1, &Fence, VK_TRUE, 60ull * 1000 * 1000 * 1000), "vkWaitForFences");
  for (size_t B = 0; B < Bufs.size(); ++B) {
    void* Ptr;
    I.vkMapMemory(D, Mems[B], 0, VK_WHOLE_SIZE, 0, &Ptr);
    std::memcpy(Buffers[Bindings[B]].data(), Ptr, Buffers[Bindings[B]].size());
    I.vkUnmapMemory(D, Mems[B]);
  }
  I.vkDestroyFence(D, Fence, nullptr);
  I.vkDestroyCommandPool(D, CmdPool, nullptr);
  I.vkDestroyDescriptorPool(D, Pool, nullptr);
  I.vkDestroyPipeline(D, Pipe, nullptr);
  I.vkDestroyShaderModule(D, Shader, nullptr);
  I.vkDestroyPipelineLayout(D, Layout, nullptr);
  I.vkDestroyDescriptorSetLayout(D, SetLayout, nullptr);
  for (size_t B = 0; B < Bufs.size(); ++B) {
    I.vkDestroyBuffer(D, Bufs[B], nullptr);
    I.vkFreeMemory(D, Mems[B], nullptr);
  }
  return Error.empty();
}

} // namespace cajeta::lowering::spirv::test
