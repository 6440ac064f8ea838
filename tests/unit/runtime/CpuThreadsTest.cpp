// How many threads the CPU backend runs: CAJETA_CPU_THREADS, else the CPUs the process may run on.
// The ctest entries cpu_threads_* run these under the settings they check; CAJETA_TEST_CPU_UNITS
// names the count each expects (without it the tests skip).
#include "TestProgram.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace cajeta::xpu;
using namespace cajeta::xpu::test;

TEST(CpuThreads, TheDeviceRunsAsManyAsItIsGiven) {
  const char* Want = std::getenv("CAJETA_TEST_CPU_UNITS");
  if (!Want)
    GTEST_SKIP() << "run by the cpu_threads_* ctest entries, which set CAJETA_TEST_CPU_UNITS";
  Program P = loadTestProgram();
  ASSERT_EQ(P.device().backend(), "cpu");
  EXPECT_EQ(P.device().computeUnits(), unsigned(std::stoul(Want)));
  // And the launches still cover every work-item with that many threads.
  Kernel Saxpy = P.kernel("K.saxpy");
  const uint32_t N = 100000;
  std::vector<float> Hx(N, 2.0f), Hy(N, 1.0f);
  KernelBuffer<float> X(N), Y(N);
  X.upload(Hx);
  Y.upload(Hy);
  KernelStream& S = KernelStream::current();
  Saxpy.launch(S, grid((N + 255) / 256), block(256))(Y, X, 3.0f, N);
  S.sync();
  std::vector<float> Out;
  Y.download(Out);
  ASSERT_EQ(Out.size(), N);
  for (uint32_t I = 0; I != N; ++I)
    ASSERT_EQ(Out[I], 7.0f) << "at " << I;
}
