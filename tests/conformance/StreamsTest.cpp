// Streams ordered by the buffers they share (the access-set ordering): a launch on one stream
// that reads what another stream's un-synced launch writes waits for it (read-after-write), one
// that writes waits for the other's writes and reads (write-after-write, write-after-read), with
// no event in the program. The slow kernels spin long enough that the quick one would overtake
// them on every backend if nothing ordered them.
#include "ConformanceSupport.h"

namespace conformance {
namespace {

constexpr uint32_t N = 4096;
constexpr uint32_t Block = 128;

/// Spin rounds per work-item: tens of milliseconds of a slow kernel on the host's cores (the CPU
/// backend, lavapipe), a few on a GPU, whose 4096 work-items spin in parallel.
uint32_t spinRounds(const xpu::Program& P) {
  return P.device().runsOnHostCpu() ? 20000 : 2000000;
}

/// The slow kernels' mask of their spin result: 0, unknown to the compiler.
constexpr uint32_t SpinMask = 0;

std::vector<int32_t> iota(int32_t From) {
  std::vector<int32_t> V(N);
  for (uint32_t I = 0; I < N; ++I)
    V[I] = From + int32_t(I);
  return V;
}

TEST(Streams, AReadOnAnotherStreamWaitsForTheWrite) {
  xpu::Program P = compileProgram("StreamOrder");
  auto Data = toDevice(std::vector<int32_t>(N, 0));
  auto Out = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream A, B;
  P.kernel("StreamOrder.slowFill")
      .launch(A, xpu::grid(N / Block), xpu::block(Block))(Data, 3, spinRounds(P), SpinMask, N);
  P.kernel("StreamOrder.plusOne").launch(B, xpu::grid(N / Block), xpu::block(Block))(Out, Data, N);
  B.sync();
  A.sync();
  expectSame(fromDevice(Out), iota(4), "plusOne on B after slowFill on A");
}

TEST(Streams, AWriteOnAnotherStreamWaitsForTheWriteBeforeIt) {
  xpu::Program P = compileProgram("StreamOrder");
  auto Data = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream A, B;
  P.kernel("StreamOrder.slowFill")
      .launch(A, xpu::grid(N / Block), xpu::block(Block))(Data, 3, spinRounds(P), SpinMask, N);
  P.kernel("StreamOrder.fill").launch(B, xpu::grid(N / Block), xpu::block(Block))(Data, 7, N);
  B.sync();
  A.sync();
  expectSame(fromDevice(Data), std::vector<int32_t>(N, 7), "fill on B after slowFill on A");
}

TEST(Streams, AWriteOnAnotherStreamWaitsForTheReadsBeforeIt) {
  xpu::Program P = compileProgram("StreamOrder");
  auto Src = toDevice(iota(10));
  auto Copy1 = toDevice(std::vector<int32_t>(N, 0));
  auto Copy2 = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream A, B, C;
  xpu::Kernel SlowCopy = P.kernel("StreamOrder.slowCopy");
  // Two readers on two streams (they need not wait for each other), then a writer on a third.
  SlowCopy.launch(A, xpu::grid(N / Block), xpu::block(Block))(Copy1, Src, spinRounds(P), SpinMask,
                                                              N);
  SlowCopy.launch(B, xpu::grid(N / Block), xpu::block(Block))(Copy2, Src, spinRounds(P), SpinMask,
                                                              N);
  P.kernel("StreamOrder.fill").launch(C, xpu::grid(N / Block), xpu::block(Block))(Src, -1, N);
  C.sync();
  A.sync();
  B.sync();
  expectSame(fromDevice(Copy1), iota(10), "slowCopy on A before fill on C");
  expectSame(fromDevice(Copy2), iota(10), "slowCopy on B before fill on C");
  expectSame(fromDevice(Src), std::vector<int32_t>(N, -1), "fill on C");
}

TEST(Streams, ADownloadOnAnotherStreamAfterSyncSeesTheWrite) {
  xpu::Program P = compileProgram("StreamOrder");
  auto Data = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream A, B;
  P.kernel("StreamOrder.slowFill")
      .launch(A, xpu::grid(N / Block), xpu::block(Block))(Data, 5, spinRounds(P), SpinMask, N);
  A.sync(); // ends the borrow; the record of A's write stays and is already passed
  std::vector<int32_t> Host(N, 0);
  Data.downloadAsync(B, Host.data(), N);
  B.sync();
  EXPECT_EQ(Host, iota(5));
}

} // namespace
} // namespace conformance

namespace conformance {
namespace {

TEST(Streams, BypassTurnsTheOrderingOffAndBack) {
  bool Before = xpu::Scheduler::bypass(true);
  EXPECT_TRUE(xpu::Scheduler::bypassed());
  // Still a correct program when the streams are ordered by the program itself.
  xpu::Program P = compileProgram("StreamOrder");
  auto Data = toDevice(std::vector<int32_t>(N, 0));
  auto Out = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream A, B;
  P.kernel("StreamOrder.slowFill")
      .launch(A, xpu::grid(N / Block), xpu::block(Block))(Data, 3, spinRounds(P), SpinMask, N);
  xpu::Event Done = A.record();
  B.wait(Done);
  P.kernel("StreamOrder.plusOne").launch(B, xpu::grid(N / Block), xpu::block(Block))(Out, Data, N);
  B.sync();
  A.sync();
  expectSame(fromDevice(Out), iota(4), "plusOne on B after an event of A");
  xpu::Scheduler::bypass(Before);
  EXPECT_EQ(xpu::Scheduler::bypassed(), Before);
}

} // namespace
} // namespace conformance
