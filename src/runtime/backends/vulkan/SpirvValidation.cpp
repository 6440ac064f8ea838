#include "runtime/backends/vulkan/SpirvValidation.h"

#include "bundle/Hash.h"

#include <spirv-tools/libspirv.h>

#include <mutex>
#include <unordered_set>

namespace cajeta::xpu::rt::vulkan {

std::string SpirvValidation::validate(const uint32_t* Words, size_t Count) {
  // Keyed by the module's hash and size: a JIT cache hit or a second load costs a lookup.
  static std::mutex Mutex;
  static std::unordered_set<uint64_t> Valid;
  uint64_t Key = bundle::hash64(Words, Count * 4) ^ (uint64_t(Count) << 40);
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Valid.count(Key))
      return "";
  }
  // SPIR-V 1.4 modules (the shared pool's) for Vulkan 1.1 with VK_KHR_spirv_1_4 or later.
  const bool Spirv14 = Count > 1 && Words[1] >= 0x00010400;
  spv_context Ctx = spvContextCreate(Spirv14 ? SPV_ENV_VULKAN_1_1_SPIRV_1_4 : SPV_ENV_VULKAN_1_1);
  spv_const_binary_t Binary{Words, Count};
  spv_diagnostic Diag = nullptr;
  spv_result_t R = spvValidate(Ctx, &Binary, &Diag);
  std::string Message;
  if (R != SPV_SUCCESS)
    Message = Diag && Diag->error ? Diag->error : "the validator refused it without a message";
  spvDiagnosticDestroy(Diag);
  spvContextDestroy(Ctx);
  if (R == SPV_SUCCESS) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Valid.insert(Key);
  }
  return Message;
}

} // namespace cajeta::xpu::rt::vulkan
