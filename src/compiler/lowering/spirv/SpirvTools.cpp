// SpirvTools over the libSPIRV-Tools C API (compiled to stubs that say so when it is absent).
#include "compiler/lowering/spirv/SpirvTools.h"

#ifdef CAJETA_HAVE_SPIRV_TOOLS
#include <spirv-tools/libspirv.h>
#endif

namespace cajeta::lowering::spirv {

#ifdef CAJETA_HAVE_SPIRV_TOOLS

namespace {

bool environment(const std::string& V, spv_target_env& Env) {
  if (V == "1.1")
    Env = SPV_ENV_VULKAN_1_1;
  else if (V == "1.2")
    Env = SPV_ENV_VULKAN_1_2;
  else if (V == "1.3")
    Env = SPV_ENV_VULKAN_1_3;
  else
    return false;
  return true;
}

} // namespace

bool SpirvTools::available() {
  return true;
}

bool SpirvTools::validate(const Words& Module, const std::string& VulkanVersion,
                          std::string& Message) {
  spv_target_env Env;
  if (!environment(VulkanVersion, Env)) {
    Message = "unknown Vulkan version '" + VulkanVersion + "' (1.1, 1.2 or 1.3)";
    return false;
  }
  spv_context Ctx = spvContextCreate(Env);
  spv_const_binary_t Bin{Module.data(), Module.size()};
  spv_diagnostic Diag = nullptr;
  spv_result_t R = spvValidate(Ctx, &Bin, &Diag);
  Message = Diag && Diag->error ? Diag->error : "";
  spvDiagnosticDestroy(Diag);
  spvContextDestroy(Ctx);
  return R == SPV_SUCCESS;
}

bool SpirvTools::disassemble(const Words& Module, std::string& Text, std::string& Message) {
  spv_context Ctx = spvContextCreate(SPV_ENV_VULKAN_1_3);
  spv_text Out = nullptr;
  spv_diagnostic Diag = nullptr;
  spv_result_t R = spvBinaryToText(
      Ctx, Module.data(), Module.size(),
      SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES | SPV_BINARY_TO_TEXT_OPTION_INDENT, &Out, &Diag);
  if (R == SPV_SUCCESS && Out)
    Text.assign(Out->str, Out->length);
  Message = Diag && Diag->error ? Diag->error : "";
  spvTextDestroy(Out);
  spvDiagnosticDestroy(Diag);
  spvContextDestroy(Ctx);
  return R == SPV_SUCCESS;
}

#else

bool SpirvTools::available() {
  return false;
}

bool SpirvTools::validate(const Words&, const std::string&, std::string& Message) {
  Message = "this build has no SPIRV-Tools library (use spirv-val)";
  return false;
}

bool SpirvTools::disassemble(const Words&, std::string&, std::string& Message) {
  Message = "this build has no SPIRV-Tools library (use spirv-dis)";
  return false;
}

#endif

} // namespace cajeta::lowering::spirv
