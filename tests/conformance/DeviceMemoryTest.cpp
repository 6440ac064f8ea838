// Device memory beyond what the device has: a typed OutOfDeviceMemory naming the size and the
// device, and the device goes on working (allocations, copies, launches). Run on every backend
// the suite runs on.
#include "ConformanceSupport.h"

namespace conformance {
namespace {

TEST(DeviceMemory, AnAllocationBeyondTheDeviceFailsAndTheDeviceGoesOn) {
  xpu::Program P = compileProgram("StreamOrder");
  constexpr size_t Huge = size_t(1) << 40; // 4 TiB of float32: more than any device here
  try {
    xpu::KernelBuffer<float> B(Huge);
    FAIL() << "a buffer of " << Huge << " floats was allocated";
  } catch (const xpu::OutOfDeviceMemory& E) {
    std::string What = E.what();
    EXPECT_NE(What.find("4398046511104 bytes"), std::string::npos) << What;
    EXPECT_NE(What.find(P.device().name()), std::string::npos) << What;
  }
  constexpr uint32_t N = 4096;
  auto Out = toDevice(std::vector<int32_t>(N, 0));
  P.kernel("StreamOrder.fill").launch(xpu::KernelStream::current(), xpu::grid(N / 128),
                                      xpu::block(128))(Out, 5, N);
  xpu::KernelStream::current().sync();
  expectSame(fromDevice(Out), std::vector<int32_t>(N, 5), "a launch after the failed allocation");
}

} // namespace
} // namespace conformance
