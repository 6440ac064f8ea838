// Every conformance program compiled by the driver: its PTX payloads assemble with ptxas, with
// and without --check-bounds, and every CUDA kernel has its manifests.
#include "PtxTestSupport.h"

#include "compiler/kir/Kir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cajeta::test {
namespace {

std::vector<std::string> programNames() {
  std::vector<std::string> Names;
  std::error_code EC;
  for (const auto& E : std::filesystem::directory_iterator(CAJETA_CONFORMANCE_PROGRAMS, EC))
    if (E.path().extension() == ".cj")
      Names.push_back(E.path().stem().string());
  std::sort(Names.begin(), Names.end());
  return Names;
}

struct Case {
  std::string Program;
  bool CheckBounds;
};

void PrintTo(const Case& C, std::ostream* OS) {
  *OS << C.Program << (C.CheckBounds ? " --check-bounds" : "");
}

class ConformancePtx : public ::testing::TestWithParam<Case> {};

TEST_P(ConformancePtx, AssemblesForSm70AndSm90) {
  const Case& C = GetParam();
  std::string Path = std::string(CAJETA_CONFORMANCE_PROGRAMS) + "/" + C.Program + ".cj";
  std::ifstream In(Path);
  ASSERT_TRUE(In) << "cannot read " << Path;
  std::stringstream SS;
  SS << In.rdbuf();
  driver::CompileOptions O;
  O.CheckBounds = C.CheckBounds;
  driver::CompileResult R = driver::Compiler::compile(Path, SS.str(), O);
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  driver::FrontendResult F = driver::Compiler::runFrontend(Path, SS.str());
  ASSERT_TRUE(F.Ok);
  // sm_90a only for programs with b tiles its wgmma form takes (TilesSharedB, TilesCarried,
  // TilesBlockCopied) or block copies it gives a TMA entry (AsyncBlocks, TilesBlockCopied).
  const bool Sm90a = C.Program == "TilesSharedB" || C.Program == "TilesCarried" ||
                     C.Program == "TilesBlockCopied" || C.Program == "AsyncBlocks";
  for (const char* Sm : {"sm_70", "sm_90", "sm_90a"}) {
    std::string Target = std::string("nvptx-") + Sm;
    const bundle::Payload* Pay = R.Program.findPayload(Target);
    if (std::string(Sm) == "sm_90a") {
      EXPECT_EQ(Pay != nullptr, Sm90a) << Target << " of " << C.Program;
      if (!Pay)
        continue;
    }
    ASSERT_NE(Pay, nullptr) << "no " << Target << " payload";
    EXPECT_EQ(Pay->Format, "ptx");
    std::string Ptx = ptxOf(R.Program, Target);
    EXPECT_NE(Ptx.find(std::string(".target ") + Sm), std::string::npos);
    // Every kernel available on CUDA has a manifest whose symbol is an .entry of the PTX.
    for (const auto& KF : F.Kir->Functions) {
      if (!KF->IsKernel || !kir::availableOn(*KF, "cuda"))
        continue;
      const bundle::KernelInfo* K = R.Program.findKernel(KF->Name);
      ASSERT_NE(K, nullptr);
      auto It = K->Targets.find(Target);
      // A target whose shared memory cannot hold the kernel's tiles has no code for it, and the
      // build says so (TilesBlockCopied.wider's 16 x 256 tiles in sm_70's portable tier).
      if (It == K->Targets.end() &&
          R.Diagnostics.find("no " + std::string(Sm) + " code for kernel '" + KF->Name + "'") !=
              std::string::npos)
        continue;
      ASSERT_NE(It, K->Targets.end()) << KF->Name << " has no " << Target << " manifest";
      EXPECT_NE(Ptx.find(".entry " + It->second.Symbol + "("), std::string::npos)
          << KF->Name << ": no .entry " << It->second.Symbol;
      // A TMA entry takes one 128-byte tensor map per recipe after the plain parameters.
      const bundle::TargetManifest& TM = It->second;
      EXPECT_EQ(TM.TmaSymbol.empty(), TM.TensorMaps.empty()) << KF->Name;
      if (TM.TmaSymbol.empty())
        continue;
      EXPECT_EQ(std::string(Sm), "sm_90a") << KF->Name << ": a TMA entry for " << Sm;
      size_t At = Ptx.find(".entry " + TM.TmaSymbol + "(");
      ASSERT_NE(At, std::string::npos) << KF->Name << ": no .entry " << TM.TmaSymbol;
      std::string Params = Ptx.substr(At, Ptx.find(')', At) - At);
      size_t Maps = 0;
      for (size_t P = Params.find(".align 64 .b8"); P != std::string::npos;
           P = Params.find(".align 64 .b8", P + 1))
        ++Maps;
      EXPECT_EQ(Maps, TM.TensorMaps.size()) << KF->Name;
    }
    if (testPtxas().empty())
      continue;
    std::string Err = assembleError(Ptx, Sm);
    EXPECT_TRUE(Err.empty()) << C.Program << " for " << Sm << ": " << Err;
  }
  if (testPtxas().empty())
    GTEST_SKIP() << "ptxas not found: PTX emitted but not assembled";
}

std::vector<Case> cases(bool CheckBounds) {
  std::vector<Case> Cs;
  for (const std::string& N : programNames())
    Cs.push_back({N, CheckBounds});
  return Cs;
}

std::string caseName(const ::testing::TestParamInfo<Case>& I) {
  return I.param.Program;
}

INSTANTIATE_TEST_SUITE_P(Plain, ConformancePtx, ::testing::ValuesIn(cases(false)), caseName);
INSTANTIATE_TEST_SUITE_P(CheckBounds, ConformancePtx, ::testing::ValuesIn(cases(true)), caseName);

TEST(ConformancePtxSuite, FindsThePrograms) {
  EXPECT_GE(programNames().size(), 70u) << "conformance programs at " CAJETA_CONFORMANCE_PROGRAMS;
}

} // namespace
} // namespace cajeta::test
