// A Vulkan device lost mid-run (a GPU reset, a driver failure), through the runtime's
// fault-injection switch CAJETA_XPU_VULKAN_LOSE_DEVICE_AFTER (the ctest entry
// vulkan_device_lost sets it; without it the test skips): the loss is a typed DeviceLost naming
// the device, every later use of the device, its buffers and streams fails at once instead of
// hanging, the CPU device goes on computing exactly, and the process exits.
#include "VulkanDeviceTest.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace xpu = cajeta::xpu;

const char* const Source = R"(
import cajeta.xpu.*;
public final class L {
    @Kernel
    public static void saxpy(KernelBuffer<float32> y, KernelBuffer<float32> x, float32 a, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { y[i] = a * x[i] + y[i]; }
    }
}
)";

/// Runs y = 2x + y over 256 elements on Program's device, with buffers and a stream there.
std::vector<float> saxpy(const xpu::Program& P) {
  const uint32_t N = 256;
  std::vector<float> X(N, 1.5f), Y(N, 1.0f);
  xpu::KernelBuffer<float> DX(P.device(), N), DY(P.device(), N);
  DX.upload(X);
  DY.upload(Y);
  xpu::KernelStream S(P.device());
  P.kernel("L.saxpy").launch(S, xpu::grid(N / 64), xpu::block(64))(DY, DX, 2.0f, N);
  S.sync();
  DY.download(Y);
  return Y;
}

template <class Fn> std::string deviceLostMessage(Fn&& F) {
  try {
    F();
  } catch (const xpu::DeviceLost& E) {
    return E.what();
  } catch (const std::exception& E) {
    return std::string("<another error> ") + E.what();
  }
  return "<no error>";
}

class VulkanDeviceLost : public vulkantest::VulkanDeviceTest {};

} // namespace

TEST_F(VulkanDeviceLost, IsTypedEveryLaterUseFailsAtOnceAndTheCpuGoesOn) {
  if (!std::getenv("CAJETA_XPU_VULKAN_LOSE_DEVICE_AFTER"))
    GTEST_SKIP() << "run by the ctest entry vulkan_device_lost (it injects the loss)";
  std::string Path = testing::TempDir() + "cajeta-device-lost.cj";
  std::ofstream(Path) << Source;
  xpu::Program OnVulkan = xpu::Program::compileFile(Path, {}, *Device);
  // The first submits succeed; a later one finds the device lost.
  std::string Lost;
  for (int Round = 0; Round < 20 && Lost.empty(); ++Round) {
    try {
      std::vector<float> Y = saxpy(OnVulkan);
      EXPECT_EQ(Y[7], 4.0f);
    } catch (const xpu::DeviceLost& E) {
      Lost = E.what();
    }
  }
  ASSERT_FALSE(Lost.empty()) << "no submit failed";
  EXPECT_NE(Lost.find("vulkan device '" + Device->name() + "' was lost"), std::string::npos)
      << Lost;

  // Everything on the lost device now fails at once, with the same type.
  for (const std::string& M :
       {deviceLostMessage([&] { saxpy(OnVulkan); }),
        deviceLostMessage([&] { xpu::KernelBuffer<float> B(*Device, 16); }),
        deviceLostMessage([&] { xpu::KernelStream S(*Device); }),
        deviceLostMessage([&] { xpu::Program::compileFile(Path, {}, *Device); })})
    EXPECT_NE(M.find("was lost"), std::string::npos) << M;

  // The CPU floor is untouched.
  bool RanOnCpu = false;
  for (const xpu::Device& D : xpu::devices())
    if (D.backend() == "cpu") {
      std::vector<float> Y = saxpy(xpu::Program::compileFile(Path, {}, D));
      EXPECT_EQ(Y, std::vector<float>(256, 4.0f));
      RanOnCpu = true;
    }
  EXPECT_TRUE(RanOnCpu) << "no CPU device listed";
  std::printf("the loss as the user sees it: %s\n", Lost.c_str());
  std::remove(Path.c_str());
}
