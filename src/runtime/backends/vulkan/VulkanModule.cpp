// Loading SPIR-V kernels on a Vulkan device: requirement checks, layouts and pipelines.
#include "runtime/backends/vulkan/VulkanModule.h"

#include "bundle/VulkanKernelAbi.h"
#include "runtime/RuntimeError.h"
#include "runtime/backends/vulkan/SpirvValidation.h"
#include "runtime/backends/vulkan/VulkanCooperativeMatrix.h"
#include "runtime/backends/vulkan/VulkanDevice.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <sstream>
#include <vector>

namespace cajeta::xpu::rt::vulkan {

namespace {

bool parseU32(const std::string& Text, uint32_t& Out) {
  if (Text.empty() || Text.size() > 10)
    return false;
  uint64_t V = 0;
  for (char C : Text) {
    if (C < '0' || C > '9')
      return false;
    V = V * 10 + uint64_t(C - '0');
  }
  if (V > UINT32_MAX)
    return false;
  Out = uint32_t(V);
  return true;
}

/// The device feature a SPIR-V capability needs, or "" when the device has it.
std::string missingCapability(const VulkanFeatures& F, const std::string& Cap) {
  struct Need {
    const char* Cap;
    bool VulkanFeatures::*Has;
    const char* Feature;
  };
  static const Need Needs[] = {
      {"Int8", &VulkanFeatures::Int8, "shaderInt8"},
      {"Int16", &VulkanFeatures::Int16, "shaderInt16"},
      {"Int64", &VulkanFeatures::Int64, "shaderInt64"},
      {"Float16", &VulkanFeatures::Float16, "shaderFloat16"},
      {"Float64", &VulkanFeatures::Float64, "shaderFloat64"},
      {"StorageBuffer8BitAccess", &VulkanFeatures::StorageBuffer8, "storageBuffer8BitAccess"},
      {"StorageBuffer16BitAccess", &VulkanFeatures::StorageBuffer16, "storageBuffer16BitAccess"},
      {"Int64Atomics", &VulkanFeatures::BufferInt64Atomics, "shaderBufferInt64Atomics"},
      {"AtomicFloat32AddEXT", &VulkanFeatures::BufferFloat32AtomicAdd,
       "shaderBufferFloat32AtomicAdd"},
      {"AtomicFloat64AddEXT", &VulkanFeatures::BufferFloat64AtomicAdd,
       "shaderBufferFloat64AtomicAdd"},
      {"GroupNonUniformVote", &VulkanFeatures::SubgroupVote,
       "subgroup operations VK_SUBGROUP_FEATURE_VOTE_BIT in compute shaders"},
      {"GroupNonUniformBallot", &VulkanFeatures::SubgroupBallot,
       "subgroup operations VK_SUBGROUP_FEATURE_BALLOT_BIT in compute shaders"},
      {"GroupNonUniformShuffle", &VulkanFeatures::SubgroupShuffle,
       "subgroup operations VK_SUBGROUP_FEATURE_SHUFFLE_BIT in compute shaders"},
      {"GroupNonUniformArithmetic", &VulkanFeatures::SubgroupArithmetic,
       "subgroup operations VK_SUBGROUP_FEATURE_ARITHMETIC_BIT in compute shaders"},
      {"VulkanMemoryModel", &VulkanFeatures::VulkanMemoryModel, "vulkanMemoryModel"},
      {"VulkanMemoryModelDeviceScope", &VulkanFeatures::VulkanMemoryModelDeviceScope,
       "vulkanMemoryModelDeviceScope"},
      {"CooperativeMatrixKHR", &VulkanFeatures::CooperativeMatrix,
       "cooperativeMatrix (VK_KHR_cooperative_matrix)"},
      {"BFloat16TypeKHR", &VulkanFeatures::BFloat16Type,
       "shaderBFloat16Type (VK_KHR_shader_bfloat16)"},
      {"BFloat16CooperativeMatrixKHR", &VulkanFeatures::BFloat16CooperativeMatrix,
       "shaderBFloat16CooperativeMatrix (VK_KHR_shader_bfloat16)"},
      {"WorkgroupMemoryExplicitLayoutKHR", &VulkanFeatures::WorkgroupExplicitLayout,
       "workgroupMemoryExplicitLayout (VK_KHR_workgroup_memory_explicit_layout)"},
      {"WorkgroupMemoryExplicitLayout8BitAccessKHR", &VulkanFeatures::WorkgroupExplicitLayout8Bit,
       "workgroupMemoryExplicitLayout8BitAccess (VK_KHR_workgroup_memory_explicit_layout)"},
      {"WorkgroupMemoryExplicitLayout16BitAccessKHR", &VulkanFeatures::WorkgroupExplicitLayout16Bit,
       "workgroupMemoryExplicitLayout16BitAccess (VK_KHR_workgroup_memory_explicit_layout)"},
  };
  if (Cap == "Shader")
    return "";
  if (Cap == "GroupNonUniform") { // wave ops: the subgroup builtins, at a width Kir.h allows
    if (!F.SubgroupBasic)
      return "subgroup operations VK_SUBGROUP_FEATURE_BASIC_BIT in compute shaders";
    return F.subgroupSizeValid() ? ""
                                 : "a subgroup size of 4 to 64, a power of two (it has " +
                                       std::to_string(F.SubgroupSize) + ")";
  }
  if (Cap == "SignedZeroInfNanPreserve")
    return F.SignedZeroInfNanPreserve[1] ? "" : "shaderSignedZeroInfNanPreserveFloat32";
  for (const Need& N : Needs)
    if (Cap == N.Cap)
      return F.*N.Has ? "" : N.Feature;
  return "a capability this runtime does not know";
}

/// The device extension a SPIR-V extension needs, or "" when the device has it (or its core
/// version includes it).
std::string missingExtension(const VulkanDevice& D, const std::string& Ext) {
  uint32_t Api = D.properties().apiVersion;
  if (Ext == "SPV_KHR_storage_buffer_storage_class" || Ext == "SPV_KHR_16bit_storage")
    return ""; // core in Vulkan 1.1
  if (Ext == "SPV_KHR_8bit_storage" && Api >= VK_API_VERSION_1_2)
    return "";
  if (Ext == "SPV_KHR_float_controls")
    return Api >= VK_API_VERSION_1_2 ||
                   D.features().Extensions.count("VK_KHR_shader_float_controls")
               ? ""
               : "VK_KHR_shader_float_controls";
  std::string Vk = Ext == "SPV_EXT_shader_atomic_float_add" ? "VK_EXT_shader_atomic_float"
                   : Ext == "SPV_KHR_bfloat16"              ? ShaderBFloat16Extension
                   : Ext.rfind("SPV_", 0) == 0              ? "VK_" + Ext.substr(4)
                                                            : Ext;
  return D.features().Extensions.count(Vk) ? "" : Vk;
}

/// Keeps denormals where the device can (the language's IEEE semantics): adds the DenormPreserve
/// capability and an execution mode per float width the module uses, after its first
/// OpExecutionMode (the emitter always writes LocalSize). The compiler cannot write it: lavapipe,
/// for one, does not offer DenormPreserve at all (and keeps denormals anyway).
void addDenormPreserve(std::vector<uint32_t>& Words, const VulkanFeatures& F) {
  constexpr uint32_t OpCapability = 17, OpExecutionMode = 16, DenormPreserve = 4459,
                     CapDenormPreserve = 4464, CapFloat16 = 9, CapFloat64 = 10;
  if (Words.size() < 5)
    return;
  bool UsesWidth[3] = {false, true, false};
  size_t ModePos = 0;
  uint32_t Entry = 0;
  for (size_t I = 5; I < Words.size();) {
    uint32_t Count = Words[I] >> 16, Op = Words[I] & 0xFFFF;
    if (Count == 0 || I + Count > Words.size())
      return; // malformed: leave it to the driver's validation
    if (Op == OpCapability && Count == 2) {
      UsesWidth[0] |= Words[I + 1] == CapFloat16;
      UsesWidth[2] |= Words[I + 1] == CapFloat64;
    }
    if (Op == OpExecutionMode && !ModePos) {
      ModePos = I + Count;
      Entry = Words[I + 1];
    }
    I += Count;
  }
  if (!ModePos)
    return;
  std::vector<uint32_t> Modes;
  const uint32_t Widths[3] = {16, 32, 64};
  for (int W = 0; W < 3; ++W)
    if (UsesWidth[W] && F.DenormPreserve[W])
      Modes.insert(Modes.end(), {(4u << 16) | OpExecutionMode, Entry, DenormPreserve, Widths[W]});
  if (Modes.empty())
    return;
  Words.insert(Words.begin() + ModePos, Modes.begin(), Modes.end());
  Words.insert(Words.begin() + 5, {(2u << 16) | OpCapability, CapDenormPreserve});
}

/// One statistic's value as text.
std::string statisticText(const VkPipelineExecutableStatisticKHR& S) {
  switch (S.format) {
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
    return S.value.b32 ? "true" : "false";
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
    return std::to_string(S.value.i64);
  case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
    return std::to_string(S.value.u64);
  default:
    return fmt::format("{:g}", S.value.f64);
  }
}

/// The driver's statistics of P's executables on stderr, one line each (CAJETA_XPU_DEBUG on a
/// device with VK_KHR_pipeline_executable_properties): what a kernel's registers and spills are
/// on a driver whose machine code cannot be seen.
void printStatistics(VulkanDevice& Device, VkPipeline P, const std::string& What) {
  const VulkanApi& Api = Device.api();
  VkPipelineInfoKHR Info{};
  Info.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR;
  Info.pipeline = P;
  uint32_t N = 0;
  if (Api.vkGetPipelineExecutablePropertiesKHR(Device.handle(), &Info, &N, nullptr) != VK_SUCCESS)
    return;
  std::vector<VkPipelineExecutablePropertiesKHR> Props(N);
  for (auto& E : Props)
    E.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
  Api.vkGetPipelineExecutablePropertiesKHR(Device.handle(), &Info, &N, Props.data());
  for (uint32_t I = 0; I != N; ++I) {
    VkPipelineExecutableInfoKHR Exe{};
    Exe.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR;
    Exe.pipeline = P;
    Exe.executableIndex = I;
    uint32_t NS = 0;
    if (Api.vkGetPipelineExecutableStatisticsKHR(Device.handle(), &Exe, &NS, nullptr) != VK_SUCCESS)
      continue;
    std::vector<VkPipelineExecutableStatisticKHR> Stats(NS);
    for (auto& S : Stats)
      S.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
    Api.vkGetPipelineExecutableStatisticsKHR(Device.handle(), &Exe, &NS, Stats.data());
    std::string Line;
    for (uint32_t S = 0; S != NS; ++S)
      Line += fmt::format("{}{} = {}", S ? ", " : "", Stats[S].name, statisticText(Stats[S]));
    fmt::print(stderr, "cajeta-xpu: vulkan pipeline {} ({}): {}\n", What, Props[I].name, Line);
  }
}

} // namespace

VkPipeline VulkanKernel::pipeline(VulkanDevice& Device, const uint32_t Block[3],
                                  uint32_t DynamicElements) {
  std::array<uint32_t, 5> Key = {Block[0], Block[1], Block[2], DynamicElements, Device.waveWidth()};
  std::lock_guard<std::mutex> Lock(Mutex);
  auto It = Pipelines.find(Key);
  if (It != Pipelines.end())
    return It->second;
  // Ids 0..4 (VulkanKernelAbi.h), then the device's answer to each capability a kernel may ask
  // (Device.supports in device code); an id the module lacks is ignored.
  std::vector<uint32_t> Data(Key.begin(), Key.end());
  std::vector<VkSpecializationMapEntry> Entries;
  for (uint32_t E = 0; E != Key.size(); ++E)
    Entries.push_back({E, E * 4, 4});
  for (uint32_t C = 0; C != CAJETA_XPU_CAP_COUNT; ++C) {
    Entries.push_back({CAJETA_VK_SPEC_CAPABILITY_BASE + C, uint32_t(Data.size() * 4), 4});
    Data.push_back(Device.supports(cajeta_xpu_capability(C)) ? VK_TRUE : VK_FALSE);
  }
  VkSpecializationInfo Spec{uint32_t(Entries.size()), Entries.data(), Data.size() * 4, Data.data()};
  VkComputePipelineCreateInfo Info{};
  Info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  Info.stage = {};
  Info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  Info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  Info.stage.module = Shader;
  Info.stage.pName = Entry.c_str();
  Info.stage.pSpecializationInfo = &Spec;
  // Wave ops assume full waves (the launch checks the group size is a multiple of the width):
  // where the device can promise it, the pipeline requires it (x a multiple of the largest
  // subgroup, as Vulkan asks); elsewhere subgroups are whatever the driver packs (linear and
  // full on NVIDIA and lavapipe, checked by Wave.WidthAndLanesIn1DAnd2DGroups).
  const VulkanFeatures& F = Device.features();
  if (UsesSubgroups && F.FullSubgroups && F.MaxSubgroupSize && Block[0] % F.MaxSubgroupSize == 0)
    Info.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT_EXT;
  if (DispatchesInPieces)
    Info.flags |= VK_PIPELINE_CREATE_DISPATCH_BASE_BIT;
  if (F.PipelineStatistics)
    Info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  Info.layout = Layout;
  VkPipeline P = VK_NULL_HANDLE;
  const std::string What = fmt::format("{} with block ({}, {}, {}) and {} dynamic shared elements",
                                       Name, Block[0], Block[1], Block[2], DynamicElements);
  Device.check(Device.api().vkCreateComputePipelines(Device.handle(), Device.pipelineCache(), 1,
                                                     &Info, nullptr, &P),
               "vkCreateComputePipelines for " + What);
  if (F.PipelineStatistics)
    printStatistics(Device, P, What);
  Pipelines.emplace(Key, P);
  return P;
}

void VulkanKernel::destroy(VulkanDevice& Device) {
  const VulkanApi& Api = Device.api();
  for (auto& [Key, P] : Pipelines)
    Api.vkDestroyPipeline(Device.handle(), P, nullptr);
  Pipelines.clear();
  if (Layout)
    Api.vkDestroyPipelineLayout(Device.handle(), Layout, nullptr);
  if (SetLayout)
    Api.vkDestroyDescriptorSetLayout(Device.handle(), SetLayout, nullptr);
  if (Shader)
    Api.vkDestroyShaderModule(Device.handle(), Shader, nullptr);
}

std::unique_ptr<VulkanModule> VulkanModule::load(VulkanDevice& Device,
                                                 const bundle::Payload& Payload) {
  auto M = std::unique_ptr<VulkanModule>(new VulkanModule(Device));
  auto It = Payload.Attributes.find("kernels");
  if (Payload.Format != "spirv-kernels" || It == Payload.Attributes.end())
    fail(CAJETA_XPU_BUNDLE_ERROR,
         fmt::format("vulkan device '{}': payload '{}' is not a set of SPIR-V kernels",
                     Device.name(), Payload.Target));
  for (const std::string& K : bundle::splitAttributeList(It->second))
    M->addKernel(Payload, K);
  return M;
}

VulkanModule::~VulkanModule() {
  for (std::unique_ptr<VulkanKernel>& K : Kernels)
    K->destroy(Device);
}

std::string VulkanModule::missingRequirement(const VulkanDevice& Device,
                                             const std::function<std::string(const char*)>& Attr) {
  if (Attr("spirv_version") == "1.4" && !Device.features().Spirv14)
    return "SPIR-V 1.4 (Vulkan 1.2 or VK_KHR_spirv_1_4)";
  for (const std::string& Cap : bundle::splitAttributeList(Attr("capabilities")))
    if (std::string Missing = missingCapability(Device.features(), Cap); !Missing.empty())
      return fmt::format("the SPIR-V capability {} ({})", Cap, Missing);
  for (const std::string& Ext : bundle::splitAttributeList(Attr("extensions")))
    if (std::string Missing = missingExtension(Device, Ext); !Missing.empty())
      return fmt::format("the SPIR-V extension {} ({})", Ext, Missing);
  return "";
}

const void* VulkanModule::findKernel(const std::string& Symbol) const {
  for (const std::unique_ptr<VulkanKernel>& K : Kernels)
    if (K->Entry == Symbol)
      return K.get();
  return nullptr;
}

void VulkanModule::addKernel(const bundle::Payload& Payload, const std::string& Name) {
  auto Attr = [&](const char* Key) -> std::string {
    auto It = Payload.Attributes.find(Name + "/" + Key);
    return It == Payload.Attributes.end() ? std::string() : It->second;
  };
  auto Bad = [&](const std::string& What) {
    fail(CAJETA_XPU_BUNDLE_ERROR,
         fmt::format("kernel '{}': the spirv:{} payload {}", Name, Name, What));
  };
  auto Number = [&](const char* Key) {
    uint32_t V = 0;
    if (!parseU32(Attr(Key), V))
      Bad(fmt::format("has no valid '{}' attribute (got '{}')", Key, Attr(Key)));
    return V;
  };
  if (Attr("format") != "spirv")
    Bad(fmt::format("has format '{}', not 'spirv'", Attr("format")));
  if (Attr("vulkan_abi") != std::to_string(CAJETA_VULKAN_KERNEL_ABI_VERSION))
    Bad(fmt::format("was built for Vulkan kernel ABI '{}'; this runtime speaks {}",
                    Attr("vulkan_abi"), CAJETA_VULKAN_KERNEL_ABI_VERSION));
  auto K = std::make_unique<VulkanKernel>();
  K->Name = Name;
  K->Entry = Attr("entry");
  if (K->Entry.empty())
    Bad("names no entry point");
  uint32_t Offset = Number("offset"), Size = Number("size");
  if (uint64_t(Offset) + Size > Payload.Bytes.size() || Size == 0 || Size % 4)
    Bad(fmt::format("has a module of {} bytes at {} (the set holds {} bytes)", Size, Offset,
                    Payload.Bytes.size()));
  K->ParamCount = Number("param_count");
  for (const std::string& B : bundle::splitAttributeList(Attr("buffers"))) {
    uint32_t V = 0;
    if (!parseU32(B, V) || V >= K->ParamCount)
      Bad(fmt::format("has a bad buffer parameter index '{}'", B));
    K->BufferParams.push_back(V);
  }
  std::string Block = Attr("param_block");
  K->ParamBlock = Block == "push-constant" ? VulkanKernel::Block::PushConstant
                  : Block == "uniform"     ? VulkanKernel::Block::Uniform
                                           : VulkanKernel::Block::None;
  if (Block != "none" && K->ParamBlock == VulkanKernel::Block::None)
    Bad(fmt::format("has an unknown param_block '{}'", Block));
  K->ParamBlockBytes = Number("param_block_bytes");
  if (K->ParamBlock == VulkanKernel::Block::PushConstant &&
      K->ParamBlockBytes > Device.properties().limits.maxPushConstantsSize)
    Bad(fmt::format("has a push-constant block of {} bytes; the device takes {}",
                    K->ParamBlockBytes, Device.properties().limits.maxPushConstantsSize));
  for (const std::string& S : bundle::splitAttributeList(Attr("param_slots"))) {
    std::vector<std::string> Parts;
    std::stringstream In(S);
    for (std::string P; std::getline(In, P, ':');)
      Parts.push_back(P);
    VulkanKernel::Slot Slot{};
    if (Parts.size() != 3 || !parseU32(Parts[0], Slot.Param) || !parseU32(Parts[1], Slot.Offset) ||
        !parseU32(Parts[2], Slot.Size) || Slot.Param >= K->ParamCount ||
        uint64_t(Slot.Offset) + Slot.Size > K->ParamBlockBytes)
      Bad(fmt::format("has a bad parameter slot '{}'", S));
    K->Slots.push_back(Slot);
  }
  K->CheckBounds = Attr("check_bounds") == "1";
  K->DynamicSharedElementBytes = Number("dynamic_shared_element_bytes");
  K->StaticSharedBytes = Number("static_shared_bytes");
  if (!Attr("per_wave_shared_bytes").empty()) // absent: no per-wave arrays
    K->PerWaveSharedBytes = Number("per_wave_shared_bytes");
  K->DispatchesInPieces = Attr("grid_count") == "unread"; // absent (older bundles): whole

  // Requirements, before anything is created: a missing feature names itself.
  for (const std::string& Cap : bundle::splitAttributeList(Attr("capabilities")))
    K->UsesSubgroups = K->UsesSubgroups || Cap.rfind("GroupNonUniform", 0) == 0;
  if (std::string Missing = missingRequirement(Device, Attr); !Missing.empty())
    fail(CAJETA_XPU_BACKEND_UNAVAILABLE,
         fmt::format("kernel '{}' needs {}, which vulkan device '{}' does not offer", Name, Missing,
                     Device.name()));

  const VulkanApi& Api = Device.api();
  VkDevice D = Device.handle();
  std::vector<uint32_t> Words(Size / 4);
  std::memcpy(Words.data(), Payload.Bytes.data() + Offset, Size);
  if (std::string Invalid = SpirvValidation::validate(Words.data(), Words.size()); !Invalid.empty())
    Bad("is not valid SPIR-V for Vulkan 1.1: " + Invalid);
  addDenormPreserve(Words, Device.features());
  VkShaderModuleCreateInfo SMI{};
  SMI.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  SMI.codeSize = Words.size() * 4;
  SMI.pCode = Words.data();
  VulkanKernel& Ref = *K;
  Kernels.push_back(std::move(K)); // destroyed with the module from here on
  Device.check(Api.vkCreateShaderModule(D, &SMI, nullptr, &Ref.Shader),
               "vkCreateShaderModule for " + Name);

  std::vector<VkDescriptorSetLayoutBinding> Bindings;
  for (uint32_t B : Ref.BufferParams)
    Bindings.push_back(
        {B, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  if (Ref.CheckBounds)
    Bindings.push_back({Ref.ParamCount, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                        VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  if (Ref.ParamBlock == VulkanKernel::Block::Uniform)
    Bindings.push_back({Ref.ParamCount + 1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1,
                        VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
  VkDescriptorSetLayoutCreateInfo DSL{};
  DSL.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  DSL.bindingCount = uint32_t(Bindings.size());
  DSL.pBindings = Bindings.data();
  Device.check(Api.vkCreateDescriptorSetLayout(D, &DSL, nullptr, &Ref.SetLayout),
               "vkCreateDescriptorSetLayout for " + Name);
  VkPushConstantRange Range{VK_SHADER_STAGE_COMPUTE_BIT, 0, Ref.ParamBlockBytes};
  VkPipelineLayoutCreateInfo PLI{};
  PLI.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  PLI.setLayoutCount = 1;
  PLI.pSetLayouts = &Ref.SetLayout;
  bool Push = Ref.ParamBlock == VulkanKernel::Block::PushConstant && Ref.ParamBlockBytes;
  PLI.pushConstantRangeCount = Push ? 1 : 0;
  PLI.pPushConstantRanges = Push ? &Range : nullptr;
  Device.check(Api.vkCreatePipelineLayout(D, &PLI, nullptr, &Ref.Layout),
               "vkCreatePipelineLayout for " + Name);
}

} // namespace cajeta::xpu::rt::vulkan
