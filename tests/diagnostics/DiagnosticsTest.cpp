// Diagnostics tests: every cases/<name>.cj must produce exactly the error and warning lines in
// cases/<name>.expected (file:line:col: severity: message), in order. Notes are not compared.
#include "compiler/driver/Compiler.h"

#include <gtest/gtest.h>

#include <pthread.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using cajeta::driver::Compiler;

namespace {

std::string readFile(const fs::path& P) {
  std::ifstream In(P, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// The header lines of rendered diagnostics, without notes.
std::vector<std::string> headerLines(const std::string& Rendered, const std::string& FileName) {
  std::vector<std::string> Out;
  std::istringstream In(Rendered);
  std::string Line;
  while (std::getline(In, Line)) {
    if (Line.rfind(FileName + ":", 0) != 0)
      continue;
    if (Line.find(": note: ") != std::string::npos)
      continue;
    Out.push_back(Line);
  }
  return Out;
}

std::vector<std::string> expectedLines(const fs::path& P) {
  std::vector<std::string> Out;
  std::istringstream In(readFile(P));
  std::string Line;
  while (std::getline(In, Line))
    if (!Line.empty())
      Out.push_back(Line);
  return Out;
}

std::vector<std::string> caseNames() {
  std::vector<std::string> Names;
  for (const auto& E : fs::directory_iterator(CAJETA_DIAGNOSTICS_DIR "/cases"))
    if (E.path().extension() == ".cj")
      Names.push_back(E.path().stem().string());
  std::sort(Names.begin(), Names.end());
  return Names;
}

class DiagnosticCase : public ::testing::TestWithParam<std::string> {};

TEST_P(DiagnosticCase, ReportsExactly) {
  fs::path Dir = fs::path(CAJETA_DIAGNOSTICS_DIR) / "cases";
  std::string Name = GetParam() + ".cj";
  fs::path Expected = Dir / (GetParam() + ".expected");
  ASSERT_TRUE(fs::exists(Expected)) << "missing " << Expected;
  auto R = Compiler::runFrontend(Name, readFile(Dir / Name));
  EXPECT_FALSE(R.Ok) << "a diagnostics case must fail to compile";
  EXPECT_EQ(headerLines(R.Diagnostics, Name), expectedLines(Expected)) << R.Diagnostics;
}

INSTANTIATE_TEST_SUITE_P(Cases, DiagnosticCase, ::testing::ValuesIn(caseNames()),
                         [](const auto& Info) { return Info.param; });

TEST(DiagnosticRendering, ShowsSourceLineAndCaretUnderTheRange) {
  auto R = Compiler::runFrontend("t.cj", "class K {\n  @Kernel\n  static void k(int32 n) {\n"
                                         "    bool c = n;\n  }\n}\n");
  EXPECT_EQ(R.Diagnostics,
            "t.cj:4:14: error: cannot implicitly convert int32 to bool in the initialiser; cast "
            "with '(bool)'\n"
            "    bool c = n;\n"
            "             ^\n");
}

TEST(DiagnosticRendering, MultiCharacterRangeGetsTildes) {
  auto R = Compiler::runFrontend("t.cj", "class K {\n  @Kernel\n  static void k() {\n"
                                         "    int32 a = missing;\n  }\n}\n");
  EXPECT_EQ(R.Diagnostics, "t.cj:4:15: error: unknown name 'missing'\n"
                           "    int32 a = missing;\n"
                           "              ^~~~~~~\n");
}

TEST(DiagnosticRendering, HostMethodsAreCheckedAtTheirLines) {
  auto R = Compiler::runFrontend("t.cj", "class K {\n  @Kernel static void k() {}\n"
                                         "  static void run() { int32[] x = heap int32[3]; }\n"
                                         "  static void main() { float32 y = nope; }\n}\n");
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Diagnostics, "t.cj:4:36: error: unknown name 'nope'\n"
                           "  static void main() { float32 y = nope; }\n"
                           "                                   ^~~~\n");
  ASSERT_NE(R.HostKir, nullptr);
  EXPECT_EQ(R.HostKir->Functions.size(), 2u);
}

/// A kernel that calls a chain of N @Device helpers, f0 -> f1 -> ... -> f(N-1).
static std::string helperChain(int N) {
  std::string Src = "import cajeta.xpu.*;\nclass C {\n";
  for (int I = 0; I < N; ++I)
    Src += "  @Device static int32 f" + std::to_string(I) + "(int32 x) { return " +
           (I + 1 < N ? "f" + std::to_string(I + 1) + "(x)" : std::string("x")) + " + 1; }\n";
  Src += "  @Kernel static void k(KernelBuffer<int32> b) { b[0] = f0(1); }\n}\n";
  return Src;
}

TEST(DiagnosticRendering, AHelperChainPastTheLimitIsOneErrorNotACrash) {
  auto Ok = Compiler::compile("t.cj", helperChain(256), {});
  EXPECT_TRUE(Ok.Ok) << Ok.Diagnostics;
  // 6,500 deep used to overflow the compiler's stack (in a JIT, the user's process).
  auto Deep = Compiler::compile("t.cj", helperChain(6500), {});
  EXPECT_FALSE(Deep.Ok);
  EXPECT_EQ(headerLines(Deep.Diagnostics, "t.cj"),
            std::vector<std::string>{"t.cj:6503:57: error: this call starts a chain of 6500 helper "
                                     "calls in 'C.k'; at most 256 are allowed (every helper is "
                                     "inlined into its kernel)"});
}

/// A class of N kernels, one per line from line 3.
static std::string manyKernels(int N) {
  std::string Src = "import cajeta.xpu.*;\nclass K {\n";
  for (int I = 0; I < N; ++I)
    Src += "  @Kernel static void k" + std::to_string(I) +
           "(KernelBuffer<int32> b) { b[0] = " + std::to_string(I) + "; }\n";
  return Src + "}\n";
}

TEST(DiagnosticRendering, TenThousandKernelsAreOneErrorInAboutASecond) {
  EXPECT_TRUE(Compiler::runFrontend("t.cj", manyKernels(1024)).Ok);
  // A whole build of 10,000 kernels took minutes; the file is refused at the 1,025th.
  auto R = Compiler::compile("t.cj", manyKernels(10000), {});
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(headerLines(R.Diagnostics, "t.cj"),
            std::vector<std::string>{
                "t.cj:1027:23: error: a file may declare at most 1024 kernels ('K.k1024' is one "
                "more): each is compiled for every backend, so a file of thousands takes minutes "
                "to build; split the program into several files and load each as its own "
                "program"});
}

TEST(DiagnosticRendering, ADeepProgramCompilesFromAThreadWithLittleStack) {
  // A JIT host may compile from a worker thread with a small stack; the compiler runs on a large
  // one of its own, so 400 nested ifs (800 levels of the limit of 1,024) build from a 256 KiB
  // thread, where they needed more than 1 MiB of stack.
  std::string Src = "import cajeta.xpu.*;\nclass K {\n  @Kernel static void k(KernelBuffer<int32> "
                    "b, int32 n) {\n";
  for (int I = 0; I < 400; ++I)
    Src += "if (n > " + std::to_string(I) + ") {\n";
  Src += "b[0] = n;\n" + std::string(400, '}') + "\n  }\n}\n";
  struct Job {
    const std::string* Src;
    bool Ok = false;
    std::string Diagnostics;
  } J{&Src, false, {}};
  pthread_attr_t Attr;
  pthread_attr_init(&Attr);
  pthread_attr_setstacksize(&Attr, 256 * 1024);
  pthread_t Thread;
  ASSERT_EQ(pthread_create(
                &Thread, &Attr,
                [](void* Arg) -> void* {
                  Job& J = *static_cast<Job*>(Arg);
                  auto R = Compiler::compile("t.cj", *J.Src, {});
                  J.Ok = R.Ok;
                  J.Diagnostics = R.Diagnostics;
                  return nullptr;
                },
                &J),
            0);
  pthread_join(Thread, nullptr);
  pthread_attr_destroy(&Attr);
  EXPECT_TRUE(J.Ok) << J.Diagnostics;
}

TEST(DiagnosticRendering, ManyErrorsStopAtTheLimit) {
  std::string Src = "class K {\n  @Kernel static void k() {\n";
  for (int I = 0; I < 80; ++I)
    Src += "    int32 a" + std::to_string(I) + " = nope;\n";
  Src += "  }\n}\n";
  auto R = Compiler::runFrontend("t.cj", Src);
  EXPECT_EQ(headerLines(R.Diagnostics, "t.cj").size(), 50u);
  EXPECT_NE(R.Diagnostics.find("too many errors, stopping after 50"), std::string::npos);
}

} // namespace
