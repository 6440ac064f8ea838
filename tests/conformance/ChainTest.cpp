// Chains (spec 17.8 "captures short-kernel chains for replay"): consecutive submissions on a
// stream with one capture identity are recorded once and replayed (a CUDA graph on the cuda
// backend, one worker command on the CPU, a resubmitted command buffer on Vulkan). Replays must
// compute what the same launches issued one by one compute, with new arguments, after the
// sequence changes, beside copies and other streams, while earlier replays are still pending,
// on buffers whose contents changed, and report a kernel's failure.
#include "ConformanceSupport.h"

#include <chrono>

namespace conformance {
namespace {

constexpr uint32_t N = 1024;
constexpr uint32_t Block = 128;
constexpr uint32_t Links = 20;

std::vector<int32_t> iota(int32_t From) {
  std::vector<int32_t> V(N);
  for (uint32_t I = 0; I < N; ++I)
    V[I] = From + int32_t(I);
  return V;
}

/// Links launches of plusOne, back and forth between A and B, as chain Id: A ends Links higher.
void submitChain(const xpu::Kernel& PlusOne, xpu::KernelStream& S, uint64_t Id,
                 xpu::KernelBuffer<int32_t>& A, xpu::KernelBuffer<int32_t>& B) {
  xpu::KernelSubmission Sub = xpu::KernelSubmission(S).capture(Id);
  for (uint32_t L = 0; L < Links; L += 2) {
    PlusOne.launch(Sub, xpu::grid(N / Block), xpu::block(Block))(B, A, N);
    PlusOne.launch(Sub, xpu::grid(N / Block), xpu::block(Block))(A, B, N);
  }
}

TEST(Chain, ReplaysComputeWhatSingleLaunchesCompute) {
  xpu::Program P = compileProgram("StreamOrder");
  xpu::Kernel PlusOne = P.kernel("StreamOrder.plusOne");
  auto A = toDevice(iota(0));
  auto B = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  for (int Replay = 1; Replay <= 3; ++Replay) {
    submitChain(PlusOne, S, 7, A, B);
    S.sync();
    expectSame(fromDevice(A), iota(int32_t(Links) * Replay), "A after a replay");
  }
  // Several replays before one sync, each ended by endChain.
  for (int Replay = 0; Replay < 4; ++Replay) {
    submitChain(PlusOne, S, 7, A, B);
    S.endChain();
  }
  S.sync();
  expectSame(fromDevice(A), iota(int32_t(Links) * 7), "A after four replays and one sync");
  // Without endChain, four rounds under one identity are one chain of 80 launches (a new
  // recording), and compute the same.
  for (int Round = 0; Round < 4; ++Round)
    submitChain(PlusOne, S, 7, A, B);
  S.sync();
  expectSame(fromDevice(A), iota(int32_t(Links) * 11), "A after one chain of four rounds");
}

TEST(Chain, ReplaysWhileEarlierOnesArePending) {
  // Two identities alternate over the same buffers with no sync in between: each closes the
  // other's chain, so every chain after the first two is a replay with the recording's
  // arguments, issued while the chains before it may still run.
  xpu::Program P = compileProgram("StreamOrder");
  xpu::Kernel PlusOne = P.kernel("StreamOrder.plusOne");
  auto A = toDevice(iota(0));
  auto B = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  const int Rounds = 6;
  for (int Round = 0; Round < Rounds; ++Round) {
    submitChain(PlusOne, S, 21, A, B);
    submitChain(PlusOne, S, 22, A, B);
  }
  S.sync();
  expectSame(fromDevice(A), iota(int32_t(Links) * 2 * Rounds), "A after alternating replays");
  // The same identity again, its arguments unchanged, after the other one ran in between.
  submitChain(PlusOne, S, 21, A, B);
  S.sync();
  expectSame(fromDevice(A), iota(int32_t(Links) * (2 * Rounds + 1)), "A after one more replay");
}

TEST(Chain, AReplayReadsTheBuffersCurrentContents) {
  // A replay with exactly the recording's arguments reads what the buffers hold now: written
  // by an upload, and by a launch outside the chain, since the recording.
  xpu::Program P = compileProgram("StreamOrder");
  xpu::Kernel PlusOne = P.kernel("StreamOrder.plusOne");
  xpu::Kernel Fill = P.kernel("StreamOrder.fill");
  auto A = toDevice(iota(0));
  auto B = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  submitChain(PlusOne, S, 31, A, B);
  S.sync();
  expectSame(fromDevice(A), iota(int32_t(Links)), "A, recorded");
  A.upload(iota(300));
  submitChain(PlusOne, S, 31, A, B);
  S.sync();
  expectSame(fromDevice(A), iota(300 + int32_t(Links)), "A, replayed after an upload");
  Fill.launch(S, xpu::grid(N / Block), xpu::block(Block))(A, 9, N);
  submitChain(PlusOne, S, 31, A, B);
  S.sync();
  expectSame(fromDevice(A), std::vector<int32_t>(N, 9 + int32_t(Links)),
             "A, replayed after a fill on the stream");
}

TEST(Chain, NewBuffersAfterTheRecordedOnesAreFreed) {
  // The recorded buffer is released and a new one of the same size made: it may come back at the
  // same address and with the same driver handle, and must not be served by the recording.
  xpu::Program P = compileProgram("StreamOrder");
  xpu::Kernel Fill = P.kernel("StreamOrder.fill");
  xpu::KernelStream S;
  for (int32_t Round = 0; Round < 8; ++Round) {
    auto A = toDevice(iota(100 * Round));
    xpu::KernelSubmission Sub = xpu::KernelSubmission(S).capture(41);
    Fill.launch(Sub, xpu::grid(N / Block), xpu::block(Block))(A, 6, N);
    Fill.launch(Sub, xpu::grid(N / Block), xpu::block(Block))(A, 7, N);
    S.sync();
    expectSame(fromDevice(A), std::vector<int32_t>(N, 7), "A, a new buffer each round");
  }
}

TEST(Chain, AReplayTakesItsOwnArguments) {
  xpu::Program P = compileProgram("StreamOrder");
  xpu::Kernel PlusOne = P.kernel("StreamOrder.plusOne");
  auto A = toDevice(iota(0));
  auto B = toDevice(std::vector<int32_t>(N, 0));
  auto C = toDevice(iota(1000));
  auto D = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  submitChain(PlusOne, S, 11, A, B);
  submitChain(PlusOne, S, 11, C, D); // the same kernels and geometry, other buffers
  S.sync();
  expectSame(fromDevice(A), iota(int32_t(Links)), "A, recorded");
  expectSame(fromDevice(C), iota(1000 + int32_t(Links)), "C, replayed with new buffers");
  // A scalar argument changes too: fill with another value.
  xpu::Kernel Fill = P.kernel("StreamOrder.fill");
  for (int32_t V : {3, 4}) {
    Fill.launch(xpu::KernelSubmission(S).capture(12), xpu::grid(N / Block), xpu::block(Block))(A, V,
                                                                                               N);
    S.sync();
    expectSame(fromDevice(A), std::vector<int32_t>(N, V), "fill replayed with a new value");
  }
}

TEST(Chain, ANewSequenceUnderTheSameIdentityIsRecordedAnew) {
  xpu::Program P = compileProgram("StreamOrder");
  auto A = toDevice(iota(0));
  auto B = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  submitChain(P.kernel("StreamOrder.plusOne"), S, 5, A, B);
  S.sync();
  // Same identity: a fill then one plusOne, other geometry.
  xpu::KernelSubmission Sub = xpu::KernelSubmission(S).capture(5);
  P.kernel("StreamOrder.fill").launch(Sub, xpu::grid(N / 64), xpu::block(64))(A, 40, N);
  P.kernel("StreamOrder.plusOne").launch(Sub, xpu::grid(N / 64), xpu::block(64))(B, A, N);
  S.sync();
  expectSame(fromDevice(B), std::vector<int32_t>(N, 41), "the new sequence");
}

TEST(Chain, CopiesAndOtherStreamsSeeTheChainInOrder) {
  xpu::Program P = compileProgram("StreamOrder");
  xpu::Kernel PlusOne = P.kernel("StreamOrder.plusOne");
  auto A = toDevice(iota(0));
  auto B = toDevice(std::vector<int32_t>(N, 0));
  auto Out = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S, Other;
  submitChain(PlusOne, S, 9, A, B);
  // An upload on S closes the chain: it is ordered after it.
  std::vector<int32_t> Fresh = iota(500);
  A.uploadAsync(S, Fresh.data(), Fresh.size());
  submitChain(PlusOne, S, 9, A, B);
  // Another stream reads A: it waits for the chain's writes (the access-set ordering).
  PlusOne.launch(Other, xpu::grid(N / Block), xpu::block(Block))(Out, A, N);
  Other.sync();
  S.sync();
  expectSame(fromDevice(Out), iota(500 + int32_t(Links) + 1), "Out on another stream");
  expectSame(fromDevice(A), iota(500 + int32_t(Links)), "A");
}

TEST(Chain, AChainWhoseWindowClosesRunsNoneOfItsLaunches) {
  // A chain's window is its first submission's, checked once when the chain is dispatched: a
  // frame that cannot start in time is dropped whole, never half run.
  xpu::Program P = compileProgram("StreamOrder");
  auto A = toDevice(std::vector<int32_t>(N, 0));
  auto B = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  // 20 ms or more of work ahead on S.
  uint32_t Rounds = slowFillRounds(P, A);
  P.kernel("StreamOrder.slowFill")
      .launch(S, xpu::grid(N / Block), xpu::block(Block))(A, 3, Rounds, 0u, N);
  xpu::Kernel PlusOne = P.kernel("StreamOrder.plusOne");
  xpu::KernelSubmission Frame =
      xpu::KernelSubmission(S).capture(4).within(std::chrono::milliseconds(1));
  bool Missed = false;
  try {
    PlusOne.launch(Frame, xpu::grid(N / Block), xpu::block(Block))(B, A, N);
    PlusOne.launch(Frame, xpu::grid(N / Block), xpu::block(Block))(B, B, N);
    PlusOne.launch(Frame, xpu::grid(N / Block), xpu::block(Block))(B, B, N);
  } catch (const xpu::DeadlineMissed&) {
    Missed = true;
  }
  try {
    S.sync();
  } catch (const xpu::DeadlineMissed& E) {
    Missed = true;
    EXPECT_NE(std::string(E.what()).find("deadline missed"), std::string::npos) << E.what();
  }
  EXPECT_TRUE(Missed) << "a chain that could not start within 1 ms was not reported";
  expectSame(fromDevice(B), std::vector<int32_t>(N, 0), "no launch of the late chain ran");
  // The same chain with time to spare runs whole.
  PlusOne.launch(xpu::KernelSubmission(S).capture(4).within(std::chrono::seconds(10)),
                 xpu::grid(N / Block), xpu::block(Block))(B, A, N);
  S.sync();
  expectSame(fromDevice(B), iota(4), "the chain in time");
}

TEST(Chain, AFailureInAReplayIsReportedAtSync) {
  xpu::CompileOptions Checked;
  Checked.checkBounds = true;
  xpu::Program P = compileProgram("CheckBoundsBuffer", Checked);
  xpu::Kernel Scatter = P.kernel("CheckBoundsBuffer.scatter");
  const uint32_t Len = 256;
  std::vector<uint32_t> Where(Len);
  for (uint32_t I = 0; I < Len; ++I)
    Where[I] = I;
  auto Dest = toDevice(std::vector<int32_t>(Len, -1));
  auto InRange = toDevice(Where);
  Where[77] = 4000;
  auto OutOfRange = toDevice(Where);
  xpu::KernelStream S;
  xpu::KernelSubmission Sub = xpu::KernelSubmission(S).capture(3);
  for (int Replay = 0; Replay < 2; ++Replay) { // recorded, then replayed: no failure
    Scatter.launch(Sub, xpu::grid(Len / 64), xpu::block(64))(Dest, InRange, Len);
    Scatter.launch(Sub, xpu::grid(Len / 64), xpu::block(64))(Dest, InRange, Len);
    S.sync();
  }
  Scatter.launch(Sub, xpu::grid(Len / 64), xpu::block(64))(Dest, InRange, Len);
  Scatter.launch(Sub, xpu::grid(Len / 64), xpu::block(64))(Dest, OutOfRange, Len);
  try {
    S.sync();
    FAIL() << "the out-of-range index in the replayed chain was not reported";
  } catch (const xpu::LaunchError& E) {
    std::string What = E.what();
    EXPECT_NE(What.find("CheckBoundsBuffer.scatter"), std::string::npos) << What;
    EXPECT_NE(What.find("4000"), std::string::npos) << What;
  }
  // The next replay is clean again.
  Scatter.launch(Sub, xpu::grid(Len / 64), xpu::block(64))(Dest, InRange, Len);
  Scatter.launch(Sub, xpu::grid(Len / 64), xpu::block(64))(Dest, InRange, Len);
  S.sync();
}

TEST(Chain, AFailureInAnyReplaySinceTheLastSyncIsReported) {
  // The same arguments each time (a replay on Vulkan), the index buffer's contents change: the
  // middle replay fails, the ones around it do not, and one sync after all of them reports it.
  xpu::CompileOptions Checked;
  Checked.checkBounds = true;
  xpu::Program P = compileProgram("CheckBoundsBuffer", Checked);
  xpu::Kernel Scatter = P.kernel("CheckBoundsBuffer.scatter");
  const uint32_t Len = 256;
  std::vector<uint32_t> InRange(Len);
  for (uint32_t I = 0; I < Len; ++I)
    InRange[I] = I;
  std::vector<uint32_t> OutOfRange = InRange;
  OutOfRange[5] = 5000;
  auto Dest = toDevice(std::vector<int32_t>(Len, -1));
  auto Where = toDevice(InRange);
  auto Other = toDevice(std::vector<int32_t>(Len, -1));
  xpu::KernelStream S;
  auto Replay = [&](const std::vector<uint32_t>& Indices) {
    Where.uploadAsync(S, Indices.data(), Indices.size());
    Scatter.launch(xpu::KernelSubmission(S).capture(61), xpu::grid(Len / 64),
                   xpu::block(64))(Dest, Where, Len);
    // Another identity in between: the chain above closes and may still run.
    Scatter.launch(xpu::KernelSubmission(S).capture(62), xpu::grid(Len / 64),
                   xpu::block(64))(Other, Where, Len);
  };
  Replay(InRange);
  S.sync();
  Replay(OutOfRange);
  Replay(InRange);
  try {
    S.sync();
    FAIL() << "the out-of-range index in a replay before the last one was not reported";
  } catch (const xpu::LaunchError& E) {
    std::string What = E.what();
    EXPECT_NE(What.find("5000"), std::string::npos) << What;
  }
  Replay(InRange);
  S.sync();
}

} // namespace
} // namespace conformance
