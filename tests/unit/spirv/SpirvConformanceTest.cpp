// Every kernel of every conformance program becomes SPIR-V that spirv-val accepts for Vulkan 1.1
// and 1.3, in three builds: plain, --check-bounds, and native float atomic add.
#include "SpirvTestSupport.h"

#include "compiler/lowering/spirv/SpirvTools.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

namespace cajeta::lowering::spirv::test {
namespace {

std::vector<std::string> programs() {
  std::vector<std::string> Out;
  for (const auto& E : std::filesystem::directory_iterator(CAJETA_CONFORMANCE_PROGRAMS))
    if (E.path().extension() == ".cj")
      Out.push_back(E.path().stem().string());
  std::sort(Out.begin(), Out.end());
  return Out;
}

class SpirvConformance : public ::testing::TestWithParam<std::string> {};

void validateProgram(const std::string& Name, const SpirvEmitOptions& O) {
  std::string Path = std::string(CAJETA_CONFORMANCE_PROGRAMS) + "/" + Name + ".cj";
  driver::FrontendResult F = frontend(Path, readFile(Path));
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  unsigned Kernels = 0;
  for (const auto& Fn : F.Kir->Functions) {
    if (!Fn->IsKernel || !kir::availableOn(*Fn, "vulkan"))
      continue;
    ++Kernels;
    SpirvKernel K = SpirvPayloadBuilder::emitKernel(*F.Kir, *Fn, O);
    ASSERT_TRUE(K.Ok) << Fn->Name << ": " << K.Error;
    for (const char* Version : {"1.1", "1.3"}) {
      std::string Out;
      EXPECT_TRUE(spirvVal(K.Module, Version, Out))
          << Fn->Name << " (vulkan" << Version << ", check-bounds " << O.CheckBounds
          << ", native fadd " << O.NativeFloatAtomicAdd << "):\n"
          << Out << "\n"
          << disassemble(K.Module);
      if (SpirvTools::available()) {
        std::string Message;
        EXPECT_TRUE(SpirvTools::validate(K.Module, Version, Message))
            << Fn->Name << ": " << Message;
      }
    }
  }
  EXPECT_GT(Kernels, 0u) << Name << " has no vulkan kernel";
}

TEST_P(SpirvConformance, ValidatesPlain) {
  validateProgram(GetParam(), {});
}

TEST_P(SpirvConformance, ValidatesWithCheckBounds) {
  SpirvEmitOptions O;
  O.CheckBounds = true;
  validateProgram(GetParam(), O);
}

TEST_P(SpirvConformance, ValidatesWithNativeFloatAtomicAdd) {
  SpirvEmitOptions O;
  O.NativeFloatAtomicAdd = true;
  validateProgram(GetParam(), O);
}

INSTANTIATE_TEST_SUITE_P(Programs, SpirvConformance, ::testing::ValuesIn(programs()),
                         [](const ::testing::TestParamInfo<std::string>& I) { return I.param; });

} // namespace
} // namespace cajeta::lowering::spirv::test
