// The cuda backend where there is no CUDA driver: the backend is absent and the CPU still works.
// Runs the check in a child process so that the runtime starts with the driver made unloadable.
#include "TestProgram.h"

#include <gtest/gtest.h>

#include <cstring>
#include <spawn.h>
#include <sys/wait.h>

extern char** environ;

using namespace cajeta::xpu;
using namespace cajeta::xpu::test;

namespace {

/// Runs this test binary's ChildCpuWorksWithoutTheDriver with the driver path pointed nowhere.
int runChild() {
  std::string Exe = "/proc/self/exe";
  std::string Filter = "--gtest_filter=CudaBackend.ChildCpuWorksWithoutTheDriver";
  char* Argv[] = {Exe.data(), Filter.data(), nullptr};
  std::vector<std::string> Env;
  for (char** E = environ; *E; ++E) {
    std::string V = *E;
    if (V.rfind("CAJETA_CUDA_DRIVER=", 0) && V.rfind("CAJETA_XPU_BACKEND=", 0) &&
        V.rfind("CAJETA_TEST_CHILD=", 0))
      Env.push_back(V);
  }
  Env.push_back("CAJETA_CUDA_DRIVER=/nonexistent/libcuda.so.1");
  Env.push_back("CAJETA_TEST_CHILD=1");
  std::vector<char*> Envp;
  for (std::string& V : Env)
    Envp.push_back(V.data());
  Envp.push_back(nullptr);
  pid_t Pid;
  if (posix_spawn(&Pid, Exe.c_str(), nullptr, nullptr, Argv, Envp.data()) != 0)
    return -1;
  int Status = 0;
  if (waitpid(Pid, &Status, 0) != Pid)
    return -1;
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
}

} // namespace

TEST(CudaBackend, AbsentDriverMeansAbsentBackendAndCpuStillWorks) {
  EXPECT_EQ(runChild(), 0) << "the child test failed; run it with CAJETA_TEST_CHILD=1 "
                              "CAJETA_CUDA_DRIVER=/nonexistent to see why";
}

TEST(CudaBackend, ChildCpuWorksWithoutTheDriver) {
  if (!std::getenv("CAJETA_TEST_CHILD"))
    GTEST_SKIP() << "runs as the child of AbsentDriverMeansAbsentBackendAndCpuStillWorks";
  for (const Device& D : devices())
    EXPECT_NE(D.backend(), "cuda");
  // The CPU, or another GPU backend where the machine has one (the H200's Vulkan driver).
  EXPECT_NE(defaultDevice().backend(), "cuda");
  {
    EnvGuard Force("CAJETA_XPU_BACKEND", "cuda");
    std::string M = messageOf<BackendUnavailable>([] { defaultDevice(); });
    // Other backends (vulkan on lavapipe) may be present beside the CPU.
    EXPECT_TRUE(contains(M, "CAJETA_XPU_BACKEND='cuda': the cuda backend is not available here: "
                            "cannot load the CUDA driver: "));
    EXPECT_TRUE(contains(M, "(present: "));
    EXPECT_TRUE(contains(M, "cpu)"));
  }
  Program P = loadTestProgram();
  EXPECT_EQ(P.device().backend(), "cpu"); // the test bundle has only a CPU payload
  // On the program's device: the default one may be another GPU backend (see above).
  KernelBuffer<float> X(P.device(), 2), Y(P.device(), 2);
  X.upload(std::vector<float>{1, 2});
  Y.upload(std::vector<float>{10, 20});
  KernelStream S(P.device());
  P.kernel("K.saxpy").launch(S, grid(1), block(2))(Y, X, 2.0f, 2u);
  S.sync();
  std::vector<float> R;
  Y.download(R);
  EXPECT_EQ(R, (std::vector<float>{12, 24}));
}

TEST(CudaBackend, ADriverThatDoesNotInitialiseLeavesTheRestWorking) {
  // The cuda_driver_fails_to_initialise ctest points CAJETA_CUDA_DRIVER at a stand-in driver
  // whose cuInit fails (fake/FailingCudaDriver.c), as a broken installation's does.
  const char* Driver = std::getenv("CAJETA_CUDA_DRIVER");
  if (!Driver || !std::strstr(Driver, "failing_cuda_driver"))
    GTEST_SKIP() << "run by the cuda_driver_fails_to_initialise ctest";
  for (const Device& D : devices())
    EXPECT_NE(D.backend(), "cuda");
  EXPECT_EQ(unavailableReason("cuda"), "the CUDA driver does not initialise: cuInit: "
                                       "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)");
  {
    EnvGuard Force("CAJETA_XPU_BACKEND", "cuda");
    std::string M = messageOf<BackendUnavailable>([] { defaultDevice(); });
    EXPECT_TRUE(contains(M, "cuInit: CUDA_ERROR_NO_DEVICE"));
  }
  Program P = loadTestProgram();
  expectSaxpyRuns(P);
}
