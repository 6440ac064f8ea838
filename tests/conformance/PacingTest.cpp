// Pacing for the latency class (spec 17.8): a latency submission beside another stream's long grid
// of short workgroups starts after a few of them, not after the grid. A GPU dispatches every
// workgroup of a grid before it takes another queue's grid at the same priority, so something
// must make room: CUDA gives the latency class reserved SMs (or its highest launch priority),
// Vulkan dispatches the other streams' grids in pieces of about one wave while a stream that
// submits latency-class work lives (VulkanDevice::pieceGroups), so the latency launch starts
// between two pieces. Skipped where streams cannot run side by side (lavapipe's one queue), where
// the device does not say its compute units (nothing to size a wave by), and on the CPU, whose
// latency class runs on threads of its own (Reservation.*).
#include "ConformanceSupport.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace conformance {
namespace {

constexpr uint32_t N = 4096;
constexpr uint32_t Block = 256;

TEST(Pacing, ALatencyLaunchStartsBesideALongGridOfShortWorkgroups) {
  xpu::Device D = xpu::defaultDevice();
  if (!D.concurrentStreams() || D.backend() == std::string("cpu"))
    GTEST_SKIP() << D.name() << " (" << D.backend() << ") runs streams one after the other";
  if (D.computeUnits() <= 1) // Vulkan without VK_NV_shader_sm_builtins: no wave to pace by
    GTEST_SKIP() << D.name() << " (" << D.backend() << ") does not say its compute units";
  xpu::Program P = compileProgram("StreamOrder");
  xpu::KernelStream Filler, Probe;
  auto Quick = toDevice(std::vector<int32_t>(N, 0));
  auto latencyProbe = [&](int32_t V) {
    P.kernel("StreamOrder.fill")
        .launch(xpu::KernelSubmission(Probe).policy(xpu::Policy::Latency), xpu::grid(N / Block),
                xpu::block(Block))(Quick, V, N);
  };
  latencyProbe(1); // the probe's stream is a latency stream from here on
  Probe.sync();
  // 128 waves of workgroups of 256 (eight of them fill an SM of an NVIDIA GPU).
  const uint32_t Groups = 128 * 8 * std::max(1u, D.computeUnits()), Items = Groups * Block;
  auto Busy = toDevice(std::vector<int32_t>(Items, 0));
  auto fill = [&](uint32_t Rounds) {
    P.kernel("StreamOrder.slowFill")
        .launch(Filler, xpu::grid(Groups), xpu::block(Block))(Busy, 1, Rounds, 0u, Items);
  };
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::duration T) { return std::chrono::duration<double, std::milli>(T).count(); };
  double FillerMs = 0;
  uint32_t Rounds = roundsLasting(
      200, 64,
      [&](uint32_t R) {
        fill(R);
        Filler.sync();
      },
      FillerMs);
  ASSERT_GE(FillerMs, 200) << "the filler could not be made long enough";
  fill(Rounds);
  std::this_thread::sleep_for(std::chrono::milliseconds(20)); // the filler is running
  auto T0 = Clock::now();
  latencyProbe(5);
  Probe.sync();
  double Waited = ms(Clock::now() - T0);
  Filler.sync();
  EXPECT_LT(Waited, FillerMs / 8) << "the probe waited " << Waited << " ms beside a " << FillerMs
                                  << " ms grid of " << Groups << " workgroups";
  expectSame(fromDevice(Quick), std::vector<int32_t>(N, 5), "the probe's result");
  std::vector<int32_t> Want(Items);
  for (uint32_t I = 0; I < Items; ++I)
    Want[I] = 1 + int32_t(I);
  expectSame(fromDevice(Busy), Want, "the filler's result");
}

} // namespace
} // namespace conformance
