// Wave.shuffleSync and Wave.ballotSync (the spec's capability-matrix names) are Wave.shuffle and
// Wave.ballot: the same KIR, and errors that name the method as written.
#include "compiler/driver/Compiler.h"

#include <gtest/gtest.h>

using cajeta::driver::Compiler;

namespace {

std::string program(const std::string& Shuffle, const std::string& Ballot) {
  return "import cajeta.xpu.*;\n"
         "class K {\n"
         "    @Kernel\n"
         "    static void k(KernelBuffer<float32> x, KernelBuffer<uint64> b) {\n"
         "        uint32 i = KernelThread.globalIdX();\n"
         "        float32 v = Wave." +
         Shuffle +
         "(x[i], i + 1);\n"
         "        uint64 m = Wave." +
         Ballot +
         "(v > 0.0f);\n"
         "        x[i] = v;\n"
         "        b[i] = m;\n"
         "    }\n"
         "}\n";
}

std::string kirOf(const std::string& Source) {
  cajeta::driver::FrontendResult F = Compiler::runFrontend("t.cj", Source);
  EXPECT_TRUE(F.Ok) << F.Diagnostics;
  return F.Ok ? cajeta::kir::dump(*F.Kir) : std::string();
}

TEST(WaveSyncNames, SameKirAsThePlainNames) {
  std::string Plain = kirOf(program("shuffle", "ballot"));
  std::string Sync = kirOf(program("shuffleSync", "ballotSync"));
  ASSERT_FALSE(Plain.empty());
  EXPECT_EQ(Sync, Plain);
  EXPECT_NE(Plain.find("shuffle"), std::string::npos) << Plain;
  EXPECT_NE(Plain.find("ballot"), std::string::npos) << Plain;
  // Mixed spellings are the same program too.
  EXPECT_EQ(kirOf(program("shuffleSync", "ballot")), Plain);
}

TEST(WaveSyncNames, ErrorsNameTheMethodAsWritten) {
  std::string Source = program("shuffleSync", "ballotSync");
  size_t At = Source.find("(v > 0.0f)");
  ASSERT_NE(At, std::string::npos);
  Source.replace(At, 10, "(v)");
  cajeta::driver::FrontendResult F = Compiler::runFrontend("t.cj", Source);
  EXPECT_FALSE(F.Ok);
  EXPECT_NE(F.Diagnostics.find("'Wave.ballotSync' takes a bool, found float32"), std::string::npos)
      << F.Diagnostics;
}

} // namespace
