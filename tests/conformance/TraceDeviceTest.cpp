// CAJETA_XPU_TRACE's device side: when kernels and chains ran on the device, per stream (the CPU
// worker's clock, CUDA timing events, Vulkan timestamps with calibrated clocks). Runs only with
// the variable set: ctest's conformance_trace (CPU) and conformance_trace_on_lavapipe, and
// scripts/device-test.sh on CUDA and Vulkan.
#include "ConformanceSupport.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

namespace conformance {
namespace {

constexpr uint32_t N = 4096;
constexpr uint32_t Block = 128;

/// The device slices ("X" events of category "device") on Stream's device track of the trace at
/// Path, and the whole trace for messages.
std::vector<nlohmann::json> deviceSlices(const char* Path, const std::string& Stream,
                                         nlohmann::json& Whole) {
  std::ifstream In(Path);
  EXPECT_TRUE(In) << Path;
  if (!In)
    return {};
  Whole = nlohmann::json::parse(In);
  std::map<int, std::string> Threads;
  for (const auto& E : Whole["traceEvents"])
    if (E["ph"] == "M" && E["name"] == "thread_name")
      Threads[E["tid"]] = E["args"]["name"];
  std::vector<nlohmann::json> Out;
  for (const auto& E : Whole["traceEvents"])
    if (E["ph"] == "X" && E.value("cat", "") == "device" &&
        Threads[E["tid"]] == Stream + " on the device")
      Out.push_back(E);
  return Out;
}

TEST(TraceDevice, KernelsAndChainsHaveDeviceSlices) {
  const char* Path = std::getenv("CAJETA_XPU_TRACE");
  if (!Path || !*Path)
    GTEST_SKIP() << "CAJETA_XPU_TRACE is not set (ctest's conformance_trace sets it)";
  xpu::Program P = compileProgram("StreamOrder");
  // The Vulkan queue times the launches of its batches, not those inside a recorded chain's
  // command buffer (a chain's replays may be pending at once).
  bool ChainsTimed = P.device().backend() != "vulkan";
  auto A = toDevice(std::vector<int32_t>(N, 0));
  auto B = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  uint32_t Rounds = P.device().runsOnHostCpu() ? 20000 : 2000000;
  P.kernel("StreamOrder.slowFill")
      .launch(S, xpu::grid(N / Block), xpu::block(Block))(A, 1, Rounds, 0u, N);
  xpu::KernelSubmission Chain = xpu::KernelSubmission(S).capture(21);
  xpu::Kernel PlusOne = P.kernel("StreamOrder.plusOne");
  PlusOne.launch(Chain, xpu::grid(N / Block), xpu::block(Block))(B, A, N);
  PlusOne.launch(Chain, xpu::grid(N / Block), xpu::block(Block))(A, B, N);
  PlusOne.launch(Chain, xpu::grid(N / Block), xpu::block(Block))(B, A, N);
  S.sync();
  ASSERT_EQ(cajeta_xpu_trace_flush(), CAJETA_XPU_SUCCESS);

  nlohmann::json J;
  uint64_t SlowEnd = 0, ChainStart = 0;
  bool Slow = false, Chained = false;
  for (const auto& E : deviceSlices(Path, S.name(), J)) {
    if (E["name"] == "StreamOrder.slowFill") {
      Slow = true;
      SlowEnd = uint64_t(E["ts"]) + uint64_t(E["dur"]);
    }
    // A recorded chain is one span; a backend that issues chains launch by launch has three.
    std::string Name = E["name"];
    if (Name == "chain of 3 from StreamOrder.plusOne" ||
        (Name == "StreamOrder.plusOne" && !Chained)) {
      Chained = true;
      ChainStart = E["ts"];
    }
  }
  EXPECT_TRUE(Slow) << J.dump(1);
  if (!ChainsTimed)
    return;
  EXPECT_TRUE(Chained) << J.dump(1);
  EXPECT_GE(ChainStart + 1, SlowEnd) << "the chain ran before the kernel it follows ended";
}

// Launches on a slice of the device, on the latency class's reserved units and on the rest
// (CUDA: three green-context lanes of one stream; elsewhere the whole device) each get their
// device span, in the stream's order.
TEST(TraceDevice, LaunchesOnEveryPartitionHaveDeviceSlices) {
  const char* Path = std::getenv("CAJETA_XPU_TRACE");
  if (!Path || !*Path)
    GTEST_SKIP() << "CAJETA_XPU_TRACE is not set (ctest's conformance_trace sets it)";
  xpu::Program P = compileProgram("StreamOrder");
  xpu::Device D = P.device();
  auto A = toDevice(std::vector<int32_t>(N, 0));
  auto B = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  uint32_t Rounds = D.runsOnHostCpu() ? 2000 : 200000;
  // A compute-unit budget first: slices are cut only while no reservation exists.
  xpu::ResourceDescriptor Sliced =
      P.kernel("StreamOrder.slowFill")
          .launch(xpu::KernelSubmission(S).computeUnits(std::max(1u, D.computeUnits() / 4)),
                  xpu::grid(N / Block), xpu::block(Block))(A, 1, Rounds, 0u, N);
  xpu::ResourceDescriptor Reserved =
      P.kernel("StreamOrder.fill")
          .launch(xpu::KernelSubmission(S).policy(xpu::Policy::Latency), xpu::grid(N / Block),
                  xpu::block(Block))(B, 5, N);
  xpu::ResourceDescriptor Rest =
      P.kernel("StreamOrder.plusOne")
          .launch(xpu::KernelSubmission(S), xpu::grid(N / Block), xpu::block(Block))(B, A, N);
  S.sync();
  if (D.backend() == std::string("cuda")) {
    EXPECT_EQ(Sliced.placement, xpu::Placement::Slice);
    EXPECT_EQ(Reserved.placement, xpu::Placement::Reserved);
    EXPECT_EQ(Rest.placement, xpu::Placement::Remainder);
  }
  ASSERT_EQ(cajeta_xpu_trace_flush(), CAJETA_XPU_SUCCESS);

  nlohmann::json J;
  std::map<std::string, std::pair<uint64_t, uint64_t>> Span; // kernel: start, end
  for (const auto& E : deviceSlices(Path, S.name(), J))
    Span[E["name"]] = {uint64_t(E["ts"]), uint64_t(E["ts"]) + uint64_t(E["dur"])};
  const char* Order[] = {"StreamOrder.slowFill", "StreamOrder.fill", "StreamOrder.plusOne"};
  for (const char* K : Order)
    ASSERT_TRUE(Span.count(K)) << K << " has no device span: " << J.dump(1);
  EXPECT_GE(Span[Order[1]].first + 1, Span[Order[0]].second);
  EXPECT_GE(Span[Order[2]].first + 1, Span[Order[1]].second);
}

} // namespace
} // namespace conformance
