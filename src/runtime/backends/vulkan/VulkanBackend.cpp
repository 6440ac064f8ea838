// The vulkan backend: instance, device ranking, and the program's per-kernel SPIR-V payloads
// gathered into one module payload.
#include "runtime/backends/vulkan/VulkanBackend.h"

#include "runtime/backends/vulkan/VulkanApi.h"
#include "runtime/backends/vulkan/VulkanDevice.h"
#include "runtime/backends/vulkan/VulkanModule.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <map>

namespace cajeta::xpu::rt {

using namespace vulkan;

namespace {

/// Lower is better: discrete GPU, integrated GPU, virtual GPU, CPU (lavapipe), anything else.
int rank(VkPhysicalDeviceType T) {
  switch (T) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return 0;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return 1;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return 2;
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return 3;
  default:
    return 4;
  }
}

class VulkanBackend : public Backend {
public:
  const char* name() const override { return "vulkan"; }
  const char* payloadTarget() const override { return "spirv"; }
  const std::vector<BackendDevice*>& devices() const override { return Devices; }

  /// A bundle carries one "spirv:<kernel>" payload per kernel, the runtime loads one payload per
  /// program: this gathers them into one "spirv" payload (format "spirv-kernels") whose Bytes are
  /// the modules back to back and whose attributes are "kernels" (the names) and, per kernel,
  /// "<kernel>/<attribute>" (the payload's own attributes plus offset, size, format, the
  /// parameter count, buffer parameter indices and static shared bytes). The result lives in
  /// this thread's slot until the next call on the thread (LoadedProgram loads it at once).
  ///
  /// A tile kernel may also have a "spirv-coopmat:<kernel>" payload (cooperative matrices, its
  /// manifest under that target): it is taken instead where Device lists every product the
  /// payload multiplies, unless CAJETA_GPU_COOPMATRIX_IMPL=software asks for the portable tile.
  /// An element-wise kernel may have a "spirv-quads:<kernel>" payload (its quad entry): it is
  /// added beside the kernel's own module as "<kernel>#quads".
  const bundle::Payload* choosePayload(const bundle::Program& Desc,
                                       const BackendDevice& Device) const override {
    thread_local bundle::Payload Combined;
    Combined = bundle::Payload();
    Combined.Target = "spirv";
    Combined.Format = "spirv-kernels";
    std::string Names;
    const auto& Vulkan = static_cast<const VulkanDevice&>(Device);
    std::map<std::string, const bundle::Payload*> MatrixModules; // kernel -> its coopmat module
    std::map<std::string, const bundle::Payload*> QuadModules;   // kernel -> its quad entry's
    for (const bundle::Payload& Each : Desc.Payloads) {
      if (Each.Target.rfind("spirv-coopmat:", 0) == 0 && !portableTilesAsked())
        MatrixModules.emplace(Each.Target.substr(14), &Each);
      if (Each.Target.rfind("spirv-quads:", 0) == 0)
        QuadModules.emplace(Each.Target.substr(12), &Each);
    }
    for (const bundle::Payload& Each : Desc.Payloads) {
      if (Each.Target.rfind("spirv:", 0) != 0)
        continue;
      std::string Kernel = Each.Target.substr(6);
      const bundle::KernelInfo* Info = Desc.findKernel(Kernel);
      if (!Info || Kernel.find(',') != std::string::npos)
        continue; // a payload for no kernel of the program: nothing will ask for it
      auto Found = MatrixModules.find(Kernel);
      const bundle::Payload* Matrices = Found == MatrixModules.end() ? nullptr : Found->second;
      std::string Why;
      if (Matrices && (!Info->Targets.count("spirv-coopmat") ||
                       !Vulkan.runsCooperativeMatrices(shapesOf(*Matrices), Why) ||
                       !(Why = unmetRequirement(Vulkan, *Matrices)).empty())) {
        if (!Why.empty())
          note("'" + Kernel + "' keeps the software tile on '" + Vulkan.name() + "': " + Why);
        Matrices = nullptr;
      }
      const char* Target = Matrices ? "spirv-coopmat" : "spirv";
      addModule(Combined, Names, Kernel, *Info, Matrices ? *Matrices : Each, Target);
      // The element-wise kernel's quad entry, a module of its own ("<kernel>#quads") that the
      // runtime finds by the manifest's QuadSymbol.
      auto Quads = QuadModules.find(Kernel);
      auto T = Info->Targets.find(Target);
      if (!Matrices && Quads != QuadModules.end() && T != Info->Targets.end() &&
          !T->second.QuadSymbol.empty())
        addModule(Combined, Names, Kernel + "#quads", *Info, *Quads->second, Target);
    }
    // A program without kernels (host code only) loads anywhere: nothing in it needs SPIR-V.
    if (Names.empty() && !Desc.Kernels.empty())
      return nullptr;
    Combined.Attributes["kernels"] = Names;
    return &Combined;
  }

  /// Appends module P of kernel Info, as Key, to the combined payload (see choosePayload).
  static void addModule(bundle::Payload& Combined, std::string& Names, const std::string& Key,
                        const bundle::KernelInfo& Info, const bundle::Payload& P,
                        const char* Target) {
    Names += (Names.empty() ? "" : ",") + Key;
    auto Put = [&](const std::string& Name, std::string Value) {
      Combined.Attributes[Key + "/" + Name] = std::move(Value);
    };
    for (const auto& [Name, Value] : P.Attributes)
      Put(Name, Value);
    Put("format", P.Format);
    Put("offset", std::to_string(Combined.Bytes.size()));
    Put("size", std::to_string(P.Bytes.size()));
    Put("param_count", std::to_string(Info.Params.size()));
    std::string Buffers;
    for (size_t I = 0; I != Info.Params.size(); ++I)
      if (Info.Params[I].Kind == bundle::ParamKind::Buffer)
        Buffers += (Buffers.empty() ? "" : ",") + std::to_string(I);
    Put("buffers", Buffers);
    Put("manifest_target", Target);
    auto T = Info.Targets.find(Target);
    Put("static_shared_bytes",
        std::to_string(T == Info.Targets.end() ? 0 : T->second.StaticSharedBytes));
    Combined.Bytes.insert(Combined.Bytes.end(), P.Bytes.begin(), P.Bytes.end());
  }

  bool init(std::string& Why) {
    std::string Error;
    if (!Api.load(Error)) {
      note(Error);
      Why = Error;
      return false;
    }
    uint32_t Count = 0;
    Api.vkEnumeratePhysicalDevices(Api.instance(), &Count, nullptr);
    std::vector<VkPhysicalDevice> Phys(Count);
    Api.vkEnumeratePhysicalDevices(Api.instance(), &Count, Phys.data());
    Phys.resize(Count);
    std::stable_sort(Phys.begin(), Phys.end(), [&](VkPhysicalDevice A, VkPhysicalDevice B) {
      VkPhysicalDeviceProperties PA, PB;
      Api.vkGetPhysicalDeviceProperties(A, &PA);
      Api.vkGetPhysicalDeviceProperties(B, &PB);
      return rank(PA.deviceType) < rank(PB.deviceType);
    });
    for (VkPhysicalDevice P : Phys) {
      std::unique_ptr<VulkanDevice> D = VulkanDevice::create(Api, P, Error);
      if (!D) {
        note(Error);
        Why += (Why.empty() ? "" : "; ") + Error;
        continue;
      }
      Devices.push_back(D.get());
      Owned.push_back(std::move(D));
    }
    if (Phys.empty())
      Why = "the Vulkan loader lists no device";
    return !Owned.empty();
  }

private:
  /// What the device lacks for module P ("" if nothing): the cooperative-matrix variant may need
  /// more than the portable one (SPIR-V 1.4 and explicit workgroup layouts: the shared pool).
  static std::string unmetRequirement(const VulkanDevice& D, const bundle::Payload& P) {
    std::string Missing = VulkanModule::missingRequirement(D, [&](const char* Key) {
      auto It = P.Attributes.find(Key);
      return It == P.Attributes.end() ? std::string() : It->second;
    });
    return Missing.empty() ? Missing : "it lacks " + Missing;
  }

  static std::string shapesOf(const bundle::Payload& P) {
    auto It = P.Attributes.find("cooperative_matrix");
    return It == P.Attributes.end() ? std::string() : It->second;
  }

  /// CAJETA_GPU_COOPMATRIX_IMPL=software (or portable): the tiles' portable tier everywhere.
  static bool portableTilesAsked() {
    const char* V = std::getenv("CAJETA_GPU_COOPMATRIX_IMPL");
    std::string Value = V ? V : "";
    std::transform(Value.begin(), Value.end(), Value.begin(),
                   [](unsigned char C) { return char(std::tolower(C)); });
    return Value == "software" || Value == "portable";
  }

  /// Why a device or the loader was skipped, on stderr when CAJETA_XPU_DEBUG is set.
  static void note(const std::string& Why) {
    if (std::getenv("CAJETA_XPU_DEBUG"))
      fmt::print(stderr, "cajeta-xpu: vulkan: {}\n", Why);
  }

  VulkanApi Api;
  std::vector<std::unique_ptr<VulkanDevice>> Owned;
  std::vector<BackendDevice*> Devices;
};

} // namespace

std::unique_ptr<Backend> createVulkanBackend(std::string& Why) {
  auto B = std::make_unique<VulkanBackend>();
  if (!B->init(Why))
    return nullptr;
  return B;
}

} // namespace cajeta::xpu::rt
