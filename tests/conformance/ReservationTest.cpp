// Reserved compute units (spec 17.8, reservation as the precondition for co-running): a stream
// whose launches alternate between latency-class and other submissions keeps its order while
// they run on different partitions, and a latency submission starts beside a filler that holds
// every other compute unit, where priority alone makes a GPU launch wait for the filler's
// workgroups.
// The second runs where the device can reserve (CUDA green contexts, the CPU's threads) and is
// skipped elsewhere (Vulkan).
#include "ConformanceSupport.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace conformance {
namespace {

constexpr uint32_t N = 4096;
constexpr uint32_t Block = 128;

xpu::KernelSubmission latency(xpu::KernelStream& S) {
  return xpu::KernelSubmission(S).policy(xpu::Policy::Latency);
}

TEST(Reservation, AStreamKeepsItsOrderAcrossPartitions) {
  xpu::Program P = compileProgram("StreamOrder");
  auto A = toDevice(std::vector<int32_t>(N, 0));
  auto B = toDevice(std::vector<int32_t>(N, 0));
  uint32_t Rounds = slowFillRounds(P, A);
  xpu::KernelStream S;
  xpu::Kernel PlusOne = P.kernel("StreamOrder.plusOne");
  // A slow writer on the reserved units, then a quick reader on the rest: without the join
  // between them the reader runs beside the writer and reads zeros.
  P.kernel("StreamOrder.slowFill")
      .launch(latency(S), xpu::grid(N / Block), xpu::block(Block))(A, 3, Rounds, 0u, N);
  PlusOne.launch(S, xpu::grid(N / Block), xpu::block(Block))(B, A, N);
  // Then back and forth, each launch reading what the one before wrote.
  for (int I = 0; I < 10; ++I) {
    PlusOne.launch(latency(S), xpu::grid(N / Block), xpu::block(Block))(A, B, N);
    PlusOne.launch(S, xpu::grid(N / Block), xpu::block(Block))(B, A, N);
  }
  S.sync();
  std::vector<int32_t> Want(N);
  for (uint32_t I = 0; I < N; ++I)
    Want[I] = 3 + int32_t(I) + 21;
  expectSame(fromDevice(B), Want, "slowFill, then 21 increments alternating partitions");
  // A copy on the same stream after a latency launch sees its result too.
  P.kernel("StreamOrder.fill").launch(latency(S), xpu::grid(N / Block), xpu::block(Block))(A, 9, N);
  std::vector<int32_t> Copied(N);
  A.downloadAsync(S, Copied.data(), N);
  S.sync();
  expectSame(Copied, std::vector<int32_t>(N, 9), "a copy after a latency launch");
}

TEST(Reservation, ALatencySubmissionStartsBesideAFillerOfEveryOtherUnit) {
  xpu::Device D = xpu::defaultDevice();
  unsigned Reserved = D.reserve(8);
  if (!Reserved) {
    EXPECT_EQ(D.reservedComputeUnits(), 0u);
    GTEST_SKIP() << D.name() << " (" << D.backend() << ") cannot reserve compute units";
  }
  EXPECT_EQ(D.reservedComputeUnits(), Reserved);
  ASSERT_LT(Reserved, D.computeUnits());
  // Remade at the next size the device partitions (CUDA: 8 SMs more; the CPU: one thread more,
  // up to half its threads).
  unsigned Larger = D.reserve(Reserved + 1);
  if (Reserved < D.computeUnits() / 2) {
    EXPECT_GT(Larger, Reserved);
  }
  EXPECT_EQ(D.reservedComputeUnits(), Larger);
  EXPECT_EQ(D.reserve(8), Reserved);

  xpu::Program P = compileProgram("StreamOrder");
  // Two workgroups of 1024 per compute unit: every unit full (2,048 resident work-items on
  // NVIDIA GPUs since Volta; two workgroups per thread of the CPU's pool), each workgroup
  // spinning for the whole filler.
  const uint32_t FillBlock = 1024, Groups = 2 * D.computeUnits(), Items = Groups * FillBlock;
  auto Busy = toDevice(std::vector<int32_t>(Items, 0));
  auto Quick = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream Filler, Probe;
  auto fill = [&](uint32_t Rounds) {
    P.kernel("StreamOrder.slowFill")
        .launch(Filler, xpu::grid(Groups), xpu::block(FillBlock))(Busy, 1, Rounds, 0u, Items);
  };
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::duration T) { return std::chrono::duration<double, std::milli>(T).count(); };
  // Rounds for a filler of at least 200 ms on the whole device.
  double FillerMs = 0;
  uint32_t Rounds = roundsLasting(
      200, 1u << 14,
      [&](uint32_t R) {
        fill(R);
        Filler.sync();
      },
      FillerMs);
  ASSERT_GE(FillerMs, 200) << "the filler could not be made long enough";
  auto probeBeside = [&]() {
    fill(Rounds);
    std::this_thread::sleep_for(std::chrono::milliseconds(20)); // the filler is resident
    auto T0 = Clock::now();
    P.kernel("StreamOrder.fill")
        .launch(latency(Probe), xpu::grid(N / Block), xpu::block(Block))(Quick, 5, N);
    Probe.sync();
    double Waited = ms(Clock::now() - T0);
    Filler.sync();
    return Waited;
  };
  // Priority only: on a GPU the probe's workgroups wait until the filler's resident ones end
  // (the check that the filler really holds every unit, so that the next part can fail). The
  // CPU has no such wait to show: each stream's own queue thread runs its launches' workgroups
  // beside the pool's, so the probe starts at once there with or without the reservation.
  bool Was = xpu::Scheduler::reservation(false);
  double Unreserved = probeBeside();
  xpu::Scheduler::reservation(true);
  double WithReservation = probeBeside();
  xpu::Scheduler::reservation(Was);
  if (D.backend() != "cpu") {
    EXPECT_GT(Unreserved, FillerMs / 4) << "the filler did not hold the device";
  }
  EXPECT_LT(WithReservation, FillerMs / 8)
      << "the probe waited " << WithReservation << " ms beside a " << FillerMs
      << " ms filler on the units not reserved";
  expectSame(fromDevice(Quick), std::vector<int32_t>(N, 5), "the probe's result");
  std::vector<int32_t> Want(Items);
  for (uint32_t I = 0; I < Items; ++I)
    Want[I] = 1 + int32_t(I);
  expectSame(fromDevice(Busy), Want, "the filler's result");
}

TEST(Reservation, AReleasedReservationLeavesTheWholeDevice) {
  xpu::Device D = xpu::defaultDevice();
  unsigned Before = D.reservedComputeUnits();
  EXPECT_EQ(D.reserve(0), 0u);
  EXPECT_EQ(D.reservedComputeUnits(), 0u);
  // Latency launches after a release run on the whole device and make no reservation, and a
  // stream that ran on the partitions before goes on in order.
  xpu::Program P = compileProgram("StreamOrder");
  auto A = toDevice(std::vector<int32_t>(N, 1));
  auto B = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  xpu::Kernel PlusOne = P.kernel("StreamOrder.plusOne");
  for (int I = 0; I < 5; ++I) {
    PlusOne.launch(latency(S), xpu::grid(N / Block), xpu::block(Block))(B, A, N);
    PlusOne.launch(S, xpu::grid(N / Block), xpu::block(Block))(A, B, N);
  }
  S.sync();
  expectSame(fromDevice(A), std::vector<int32_t>(N, 11), "10 increments after the release");
  EXPECT_EQ(D.reservedComputeUnits(), 0u);
  if (Before) { // as the tests before left it
    EXPECT_EQ(D.reserve(Before), Before);
  }
}

TEST(Reservation, TheCAbiRefusesANullDevice) {
  unsigned Got = 7;
  EXPECT_NE(cajeta_xpu_device_reserve(nullptr, 8, &Got), CAJETA_XPU_SUCCESS);
  EXPECT_EQ(Got, 7u);
  EXPECT_EQ(cajeta_xpu_device_reserved_compute_units(nullptr), 0u);
}

} // namespace
} // namespace conformance
