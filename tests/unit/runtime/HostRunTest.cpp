// cajeta_host_run_program: a bundle's host payload (here hand-written in C, host/TestHostProgram.c)
// loaded and run by the runtime alone, through the C ABI: the default entry and a named one, the
// exit status, an uncaught exception, and the refusals (no host code, an unknown entry, no
// default entry, missing CPU features or symbols).
#include "TestBundle.h"

#include "bundle/BundleWriter.h"

#include <cajeta/xpu/cajeta_host.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <vector>

using namespace cajeta;
using namespace cajeta::xpu::test;

namespace {

/// The host payload as the compiler writes one: the shared object and the attributes that name
/// its methods (src/compiler/driver/Compiler.cpp, addHostPayload).
bundle::Payload hostPayload() {
  std::ifstream In(CAJETA_TEST_HOST_PROGRAM_PATH, std::ios::binary);
  EXPECT_TRUE(In) << "cannot read " CAJETA_TEST_HOST_PROGRAM_PATH;
  bundle::Payload P;
  P.Target = "host";
  P.Format = "elf-shared-object";
  P.Bytes.assign(std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>());
  P.Attributes = {{"triple", "x86_64-unknown-linux-gnu"},
                  {"cpu", "x86-64"},
                  {"features", "+sse2"},
                  {"entry", "cj_host_P_main"},
                  {"methods", "P.main=cj_host_P_main,P.status=cj_host_P_status,"
                              "P.raise=cj_host_P_raise"},
                  {"returns_int", "P.status"},
                  {"static_init", "cj_host_init"},
                  {"source_file", "Host.cj"}};
  return P;
}

/// The test kernels (their cpu-x86_64 payload) with the host payload.
bundle::Program programWithHost() {
  bundle::Program P = makeTestProgram();
  P.Payloads.push_back(hostPayload());
  return P;
}

/// A program loaded through the C ABI, released at the end of the scope.
class Loaded {
public:
  explicit Loaded(const bundle::Program& Desc) {
    std::vector<uint8_t> Bytes = bundle::BundleWriter::write(Desc);
    EXPECT_EQ(cajeta_xpu_program_load_memory(Bytes.data(), Bytes.size(), &P), CAJETA_XPU_SUCCESS)
        << cajeta_xpu_last_error();
  }
  ~Loaded() { cajeta_xpu_program_release(P); }
  cajeta_xpu_program* get() const { return P; }

private:
  cajeta_xpu_program* P = nullptr;
};

struct Ran {
  int Rc = -1;
  int32_t Status = -1;
  std::string Out, Err, Error; // stdout, stderr, cajeta_xpu_last_error() when Rc != 0
};

Ran run(cajeta_xpu_program* P, const char* Entry, const char* File = nullptr) {
  Ran R;
  std::fflush(stdout);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  R.Rc = cajeta_host_run_program(P, Entry, File, &R.Status);
  std::fflush(stdout);
  R.Out = testing::internal::GetCapturedStdout();
  R.Err = testing::internal::GetCapturedStderr();
  if (R.Rc != CAJETA_XPU_SUCCESS)
    R.Error = cajeta_xpu_last_error();
  return R;
}

bool contains(const std::string& S, const std::string& Part) {
  return S.find(Part) != std::string::npos;
}

} // namespace

TEST(HostRun, TheDefaultEntryRunsAfterTheStaticInitialiserOnTheProgramsKernels) {
  Loaded P(programWithHost());
  ASSERT_TRUE(P.get());
  Ran R = run(P.get(), nullptr);
  ASSERT_EQ(R.Rc, CAJETA_XPU_SUCCESS) << R.Error;
  EXPECT_EQ(R.Status, 0);                 // a void entry
  EXPECT_EQ(R.Out, "1.0 4.0 7.0 10.0\n"); // y = 3x + 1 by K.saxpy, 3 from the static field
  EXPECT_EQ(R.Err, "");
  // The session ended: the program runs again.
  R = run(P.get(), "P.main");
  ASSERT_EQ(R.Rc, CAJETA_XPU_SUCCESS) << R.Error;
  EXPECT_EQ(R.Out, "1.0 4.0 7.0 10.0\n");
}

TEST(HostRun, AnInt32EntryIsTheExitStatus) {
  Loaded P(programWithHost());
  Ran R = run(P.get(), "P.status");
  ASSERT_EQ(R.Rc, CAJETA_XPU_SUCCESS) << R.Error;
  EXPECT_EQ(R.Status, 7); // the static initialiser set the field to 3 first
}

TEST(HostRun, AnUncaughtExceptionIsReportedAndTheStatusIsOne) {
  Loaded P(programWithHost());
  Ran R = run(P.get(), "P.raise");
  ASSERT_EQ(R.Rc, CAJETA_XPU_SUCCESS) << R.Error;
  EXPECT_EQ(R.Status, 1);
  // The source file the bundle names, unless the caller names another.
  EXPECT_TRUE(contains(R.Err, "Host.cj:12: error: ArrayIndexOutOfBoundsException: Index 5 out "
                              "of bounds for length 4"))
      << R.Err;
  R = run(P.get(), "P.raise", "Other.cj");
  EXPECT_TRUE(contains(R.Err, "Other.cj:12: error: ArrayIndexOutOfBoundsException")) << R.Err;
}

TEST(HostRun, AnUnknownEntryIsNotFoundAndTheRunnableMethodsAreListed) {
  Loaded P(programWithHost());
  Ran R = run(P.get(), "P.nothing");
  EXPECT_EQ(R.Rc, CAJETA_XPU_NOT_FOUND);
  EXPECT_TRUE(contains(R.Error, "no runnable host method 'P.nothing'")) << R.Error;
  EXPECT_TRUE(contains(R.Error, "P.main, P.status, P.raise")) << R.Error;
  EXPECT_EQ(R.Out, ""); // nothing ran
}

TEST(HostRun, WithoutADefaultEntryOneMustBeNamed) {
  bundle::Program Desc = programWithHost();
  Desc.Payloads.back().Attributes["entry"] = "";
  Loaded P(Desc);
  Ran R = run(P.get(), nullptr);
  EXPECT_EQ(R.Rc, CAJETA_XPU_ERROR);
  EXPECT_TRUE(contains(R.Error, "no default entry point")) << R.Error;
  EXPECT_TRUE(contains(R.Error, "name one of P.main, P.status, P.raise")) << R.Error;
  R = run(P.get(), "P.status");
  EXPECT_EQ(R.Rc, CAJETA_XPU_SUCCESS) << R.Error;
  EXPECT_EQ(R.Status, 7);
}

TEST(HostRun, ABundleWithoutHostCodeIsRefused) {
  Loaded P(makeTestProgram());
  Ran R = run(P.get(), nullptr);
  EXPECT_EQ(R.Rc, CAJETA_XPU_BUNDLE_ERROR);
  EXPECT_TRUE(contains(R.Error, "the bundle has no host code: it was built from a file without "
                                "host methods, or by the JIT"))
      << R.Error;
}

TEST(HostRun, BadArgumentsAreErrors) {
  Loaded P(programWithHost());
  EXPECT_EQ(cajeta_host_run_program(P.get(), nullptr, nullptr, nullptr), CAJETA_XPU_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "status must not be null"));
  int32_t Status = 0;
  EXPECT_EQ(cajeta_host_run_program(nullptr, nullptr, nullptr, &Status), CAJETA_XPU_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "program must not be null"));
  // One session at a time.
  ASSERT_EQ(cajeta_host_begin("Busy.cj", P.get()), 0);
  EXPECT_EQ(cajeta_host_run_program(P.get(), nullptr, nullptr, &Status), CAJETA_XPU_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "already active")) << cajeta_xpu_last_error();
  EXPECT_EQ(cajeta_host_end(), 0);
}

TEST(HostRun, AHostPayloadForCpuFeaturesTheHostLacksIsRefused) {
  __builtin_cpu_init();
  const char* Missing = nullptr;
  if (!__builtin_cpu_supports("fma4"))
    Missing = "fma4";
  else if (!__builtin_cpu_supports("xop"))
    Missing = "xop";
  if (!Missing)
    GTEST_SKIP() << "this host has every feature we could ask for";
  bundle::Program Desc = programWithHost();
  Desc.Payloads.back().Attributes["features"] = std::string("+sse2,+") + Missing;
  Loaded P(Desc); // the kernels load: only the host code needs the feature
  Ran R = run(P.get(), nullptr);
  EXPECT_EQ(R.Rc, CAJETA_XPU_BUNDLE_ERROR);
  EXPECT_TRUE(contains(R.Error, std::string("host payload: compiled for CPU feature '") + Missing +
                                    "', which this host lacks"))
      << R.Error;
}

TEST(HostRun, ABrokenHostPayloadIsABundleErrorSayingWhat) {
  bundle::Program Desc = programWithHost();
  Desc.Payloads.back().Attributes["methods"] = "P.main=cj_host_nope";
  Desc.Payloads.back().Attributes["entry"] = "cj_host_nope";
  {
    Loaded P(Desc);
    Ran R = run(P.get(), nullptr);
    EXPECT_EQ(R.Rc, CAJETA_XPU_BUNDLE_ERROR);
    EXPECT_TRUE(contains(R.Error, "host payload: symbol 'cj_host_nope' (P.main) is missing"))
        << R.Error;
  }
  Desc = programWithHost();
  Desc.Payloads.back().Bytes.resize(Desc.Payloads.back().Bytes.size() / 3); // truncated
  {
    Loaded P(Desc); // the CPU backend takes its own payload, never the host one
    Ran R = run(P.get(), nullptr);
    EXPECT_EQ(R.Rc, CAJETA_XPU_BUNDLE_ERROR);
    EXPECT_TRUE(contains(R.Error, "host payload: target 'host': ELF")) << R.Error;
  }
}

// A C host that loads libcajeta_xpu.so with RTLD_LOCAL (ctypes, a plug-in) still runs the host
// code: its cajeta_host_* calls bind to that library (host/RunLocal.c).
TEST(HostRun, AHostThatLoadedTheRuntimeLocallyRunsTheBundle) {
  std::filesystem::create_directories(CAJETA_TEST_SCRATCH_DIR);
  std::string Bundle = std::string(CAJETA_TEST_SCRATCH_DIR) + "/host-run-local.cjx";
  std::string Error;
  ASSERT_TRUE(bundle::BundleWriter::writeFile(programWithHost(), Bundle, Error)) << Error;
  std::string Out = std::string(CAJETA_TEST_SCRATCH_DIR) + "/host-run-local.out";
  std::string Err = std::string(CAJETA_TEST_SCRATCH_DIR) + "/host-run-local.err";
  auto Exec = [&](const char* Entry) {
    std::string Command = std::string("'") + CAJETA_TEST_RUN_LOCAL_PATH + "' '" +
                          CAJETA_XPU_LIBRARY_PATH + "' '" + Bundle + "' " + Entry + " >'" + Out +
                          "' 2>'" + Err + "'";
    int Rc = std::system(Command.c_str());
    return WIFEXITED(Rc) ? WEXITSTATUS(Rc) : -1;
  };
  auto Read = [](const std::string& Path) {
    std::ifstream In(Path);
    return std::string(std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>());
  };
  auto Printed = [&] { return Read(Out); };
  EXPECT_EQ(Exec("P.status"), 7) << Read(Err);
  EXPECT_EQ(Exec("P.main"), 0) << Read(Err);
  EXPECT_EQ(Printed(), "1.0 4.0 7.0 10.0\n");
}
