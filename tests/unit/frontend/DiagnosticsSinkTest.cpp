// The compiler's diagnostics sink: severities, the stage each diagnostic comes from, internal
// errors, and the driver reporting its notes through it after the frontend's.
#include "compiler/Diagnostics.h"
#include "compiler/driver/Compiler.h"

#include <gtest/gtest.h>

#include <cstdlib>

using cajeta::Diagnostics;
using cajeta::Severity;
using cajeta::Stage;

namespace {

TEST(DiagnosticsSink, InternalErrorNamesTheStageAndCountsAsAnError) {
  cajeta::frontend::SourceFile File("k.cj", "class K {}\n");
  Diagnostics Diags(File);
  Diags.report(Severity::Note, Stage::Driver, "a note");
  EXPECT_FALSE(Diags.hasErrors());
  Diags.report(Severity::Internal, Stage::Spirv, "the emitter lost a block");
  EXPECT_TRUE(Diags.hasErrors());
  EXPECT_EQ(Diags.errorCount(), 1u);
  ASSERT_EQ(Diags.all().size(), 2u);
  EXPECT_EQ(Diags.all()[1].From, Stage::Spirv);
  EXPECT_EQ(Diags.render(), "k.cj: note: a note\n"
                            "k.cj: internal error (SPIR-V): the emitter lost a block\n");
  EXPECT_EQ(Diagnostics::render(File, {Severity::Internal, {}, "x", false, Stage::Llvm}),
            "k.cj: internal error (LLVM): x\n");
}

TEST(DiagnosticsSink, FileLevelErrorsAndWarningsRenderLikeTheFrontendsNotes) {
  cajeta::frontend::SourceFile File("k.cj", "class K {}\n");
  Diagnostics Diags(File);
  Diags.report(Severity::Warning, Stage::Driver, "w");
  Diags.report(Severity::Error, Stage::Llvm, "e");
  Diags.fileNote("n");
  EXPECT_EQ(Diags.render(), "k.cj: warning: w\nk.cj: error: e\nk.cj: note: n\n");
  EXPECT_EQ(Diags.all()[2].From, Stage::Frontend);
}

TEST(DiagnosticsSink, TheStageNames) {
  EXPECT_STREQ(cajeta::stageName(Stage::Frontend), "frontend");
  EXPECT_STREQ(cajeta::stageName(Stage::Kir), "KIR");
  EXPECT_STREQ(cajeta::stageName(Stage::Llvm), "LLVM");
  EXPECT_STREQ(cajeta::stageName(Stage::Spirv), "SPIR-V");
  EXPECT_STREQ(cajeta::stageName(Stage::Driver), "driver");
}

TEST(DiagnosticsSink, CompileReportsTheFrontendFirstThenTheDriversNotes) {
  unsetenv("CAJETA_GPU_WAVE_IMPL");
  const char* Source = "import cajeta.xpu.*;\n"
                       "class K {\n"
                       "    @Kernel\n"
                       "    static void k(KernelBuffer<uint32> x) {\n"
                       "        x[KernelThread.globalIdX()] = Wave.laneId();\n"
                       "    }\n"
                       "    static void host() {}\n"
                       "}\n";
  cajeta::driver::FrontendResult F = cajeta::driver::Compiler::runFrontend("k.cj", Source);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  ASSERT_NE(F.Sink, nullptr);
  EXPECT_EQ(F.Diagnostics.find("host"), std::string::npos) << F.Diagnostics; // compiled now
  EXPECT_EQ(F.Sink->render(), F.Diagnostics);
  auto R = cajeta::driver::Compiler::compile("k.cj", Source, {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  // The frontend's diagnostics come first and unchanged; then one [wave-tiering] note per
  // backend, each an ordinary file note.
  ASSERT_EQ(R.Diagnostics.rfind(F.Diagnostics, 0), 0u) << R.Diagnostics;
  std::string Rest = R.Diagnostics.substr(F.Diagnostics.size());
  size_t Notes = 0;
  for (size_t At = 0; (At = Rest.find("k.cj: note: [wave-tiering]", At)) != std::string::npos; ++At)
    ++Notes;
  EXPECT_EQ(Notes, 3u) << R.Diagnostics;
}

} // namespace
