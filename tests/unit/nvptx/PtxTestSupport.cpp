// Shared helpers of the NVPTX tests (see PtxTestSupport.h).
#include "PtxTestSupport.h"

#include "compiler/lowering/llvm/NvptxPtxas.h"

#include <gtest/gtest.h>

#include <map>

namespace cajeta::test {

std::string ptxOf(const bundle::Program& P, const std::string& Target) {
  const bundle::Payload* Pay = P.findPayload(Target);
  if (!Pay)
    return {};
  return std::string(Pay->Bytes.begin(), Pay->Bytes.end());
}

const std::string& testPtxas() {
  static const std::string Path = lowering::NvptxPtxas::find();
  return Path;
}

std::string assembleError(const std::string& Ptx, const std::string& Sm) {
  static std::map<std::string, std::string> Arch;
  if (!Arch.count(Sm))
    Arch[Sm] = lowering::NvptxPtxas::archFor(testPtxas(), Sm);
  if (Arch[Sm].empty())
    return "ptxas '" + testPtxas() + "' knows no architecture at or above " + Sm;
  std::string Output;
  if (lowering::NvptxPtxas::assemble(testPtxas(), Ptx, Arch[Sm], CAJETA_NVPTX_TEST_TMP, Output)) {
    // ptxas serializing every wgmma of a kernel (a group open across a branch) assembles but
    // runs at a fraction of the tier's speed: a failure here, not a note nobody reads.
    if (Output.find("(C7520)") != std::string::npos)
      return "ptxas -arch=" + Arch[Sm] + " serialized wgmma:\n" + Output;
    return {};
  }
  return "ptxas -arch=" + Arch[Sm] + " failed:\n" + Output;
}

lowering::NvptxBuildResult buildSource(const std::string& Source, lowering::NvptxBuildOptions O) {
  driver::FrontendResult F = driver::Compiler::runFrontend("test.cj", Source);
  EXPECT_TRUE(F.Ok) << F.Diagnostics;
  if (!F.Ok)
    return {};
  return lowering::NvptxPayloadBuilder::build(*F.Kir, O);
}

std::string nativeTilePtx(const std::string& Source, const std::string& Sm) {
  lowering::NvptxBuildOptions O;
  O.Sm = Sm;
  O.TileTier = kir::ImplTier::Native;
  lowering::NvptxBuildResult R = buildSource(Source, O);
  EXPECT_TRUE(R.Ok) << R.Error;
  return R.Ok ? ptxText(R) : std::string();
}

size_t countOf(const std::string& Hay, const std::string& Needle) {
  size_t N = 0;
  for (size_t At = Hay.find(Needle); At != std::string::npos; At = Hay.find(Needle, At + 1))
    ++N;
  return N;
}

std::string entryBody(const std::string& Ptx, const std::string& Name) {
  size_t At = Ptx.find(".entry cj_k_" + Name + "(");
  if (At == std::string::npos)
    return {};
  size_t End = Ptx.find(".entry ", At + 1);
  return Ptx.substr(At, End == std::string::npos ? std::string::npos : End - At);
}

} // namespace cajeta::test
