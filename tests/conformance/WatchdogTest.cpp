// A kernel that never ends: with CAJETA_XPU_WATCHDOG_MS, sync() gives the stream up after that
// long with a LaunchError naming the kernel, later uses of the stream fail the same way, other
// streams go on, and the process still exits (the ctest that sets the variable checks that it
// ends). Runs on the CPU (conformance_watchdog) and on CUDA (the device job), where the kernel
// holds one SM until the process ends; skipped without the variable and on Vulkan (llvmpipe
// ends every loop; a GPU's Vulkan driver may reset the device).
#include "ConformanceSupport.h"

#include <chrono>
#include <cstdlib>

namespace conformance {
namespace {

TEST(Watchdog, AKernelThatNeverEndsIsGivenUpAndTheRestGoesOn) {
  xpu::Program P = compileProgram("Forever"); // first, so that a run without the variable
                                              // fills the JIT cache the device job carries
  const char* Limit = std::getenv("CAJETA_XPU_WATCHDOG_MS");
  if (!Limit)
    GTEST_SKIP() << "CAJETA_XPU_WATCHDOG_MS is not set (the conformance_watchdog ctest sets it)";
  if (P.device().backend() == "vulkan")
    GTEST_SKIP() << "not on Vulkan: llvmpipe ends every loop, a GPU driver may reset the device";
  xpu::KernelBuffer<uint32_t> Flag(P.device(), 1);
  Flag.upload(std::vector<uint32_t>{0});
  xpu::KernelStream Stuck(P.device());
  P.kernel("Forever.spin").launch(Stuck, xpu::grid(1), xpu::block(1))(Flag);
  auto Start = std::chrono::steady_clock::now();
  try {
    Stuck.sync();
    FAIL() << "sync() returned although the kernel never ends";
  } catch (const xpu::LaunchError& E) {
    std::string What = E.what();
    EXPECT_NE(What.find("'Forever.spin'"), std::string::npos) << What;
    EXPECT_NE(What.find("CAJETA_XPU_WATCHDOG_MS"), std::string::npos) << What;
    EXPECT_NE(What.find("abandoned"), std::string::npos) << What;
  }
  auto Waited = std::chrono::steady_clock::now() - Start;
  EXPECT_GE(Waited, std::chrono::milliseconds(std::strtoul(Limit, nullptr, 10)));
  EXPECT_LT(Waited, std::chrono::seconds(30));
  // The stream stays given up.
  EXPECT_THROW(Stuck.sync(), xpu::LaunchError);
  xpu::KernelBuffer<uint32_t> Out(P.device(), 64);
  EXPECT_THROW(P.kernel("Forever.fill").launch(Stuck, xpu::grid(1), xpu::block(64))(Out),
               xpu::LaunchError);
  // Another stream works.
  xpu::KernelStream Fine(P.device());
  P.kernel("Forever.fill").launch(Fine, xpu::grid(1), xpu::block(64))(Out);
  Fine.sync();
  std::vector<uint32_t> Got;
  Out.download(Got);
  EXPECT_EQ(Got, std::vector<uint32_t>(64, 7));
}

} // namespace
} // namespace conformance
