// Streams: launches are asynchronous, sync waits and rethrows, events order two streams.
#include "TestProgram.h"

#include <chrono>
#include <gtest/gtest.h>

using namespace cajeta::xpu;
using namespace cajeta::xpu::test;
using Clock = std::chrono::steady_clock;

static double msSince(Clock::time_point T) {
  return std::chrono::duration<double, std::milli>(Clock::now() - T).count();
}

TEST(Stream, LaunchReturnsBeforeASlowKernelAndSyncWaits) {
  Program P = loadTestProgram();
  KernelBuffer<float> Out(8);
  KernelStream S;
  auto Start = Clock::now();
  P.kernel("K.sleepy").launch(S, grid(1), block(1))(Out, 60u, 7.0f);
  double LaunchMs = msSince(Start);
  Event E = S.record();
  EXPECT_LT(LaunchMs, 30.0) << "launch waited for the kernel";
  EXPECT_FALSE(E.done());
  S.sync();
  EXPECT_GE(msSince(Start), 55.0) << "sync returned before the kernel finished";
  EXPECT_TRUE(E.done());
  std::vector<float> R;
  Out.download(R);
  EXPECT_EQ(R, std::vector<float>(8, 7.0f));
}

TEST(Stream, EventOrdersWorkAcrossTwoStreams) {
  Program P = loadTestProgram();
  const uint32_t N = 16;
  KernelBuffer<float> Slow(N), Y(N);
  std::vector<float> Zero(N, 0.0f);
  Slow.upload(Zero);
  Y.upload(Zero);
  KernelStream A, B;
  P.kernel("K.sleepy").launch(A, grid(1), block(1))(Slow, 50u, 2.0f);
  Event Ready = A.record();
  B.wait(Ready);
  // y = 5 * slow + y reads what the slow kernel wrote only if B waited for it.
  P.kernel("K.saxpy").launch(B, grid(1), block(N))(Y, Slow, 5.0f, N);
  Event Done = B.record();
  Done.sync();
  EXPECT_TRUE(Ready.done());
  B.sync();
  A.sync();
  std::vector<float> R;
  Y.download(R);
  EXPECT_EQ(R, std::vector<float>(N, 10.0f));
}

TEST(Stream, AsyncCopiesAreOrderedWithLaunches) {
  Program P = loadTestProgram();
  const uint32_t N = 64;
  std::vector<float> Hx(N, 1.5f), Hy(N, 2.0f), Out(N, 0.0f);
  KernelBuffer<float> X(N), Y(N);
  KernelStream S;
  X.uploadAsync(S, Hx.data(), N);
  Y.uploadAsync(S, Hy.data(), N);
  P.kernel("K.saxpy").launch(S, grid(2), block(32))(Y, X, 2.0f, N);
  Y.downloadAsync(S, Out.data(), N);
  S.sync();
  EXPECT_EQ(Out, std::vector<float>(N, 5.0f));
}

TEST(Stream, BoundsFailureSurfacesAtSyncAsLaunchError) {
  Program P = loadTestProgram();
  KernelBuffer<float> Data(16);
  KernelStream S;
  P.kernel("K.checked").launch(S, grid(1), block(1))(Data, uint64_t(17));
  std::string M = messageOf<LaunchError>([&] { S.sync(); });
  EXPECT_EQ(M, "K.checked: index 17 is out of range for buffer argument 1 ('data') of length 16");
  // The error is reported once; the next sync is clean and the stream keeps working.
  S.sync();
  P.kernel("K.checked").launch(S, grid(1), block(1))(Data, uint64_t(3));
  S.sync();
  std::vector<float> R;
  Data.download(R);
  EXPECT_EQ(R[3], 1.0f);
}

TEST(Stream, CopyLargerThanTheBufferIsAnError) {
  KernelBuffer<float> X(4);
  std::vector<float> Big(5, 1.0f);
  EXPECT_TRUE(contains(messageOf<Error>([&] { X.upload(Big); }),
                       "upload of 5 elements into a buffer of 4 elements"));
}

TEST(Stream, ResizeIsOrderedAfterTheStreamsQueuedWork) {
  Program P = loadTestProgram();
  KernelBuffer<float> Out(8);
  Out.upload(std::vector<float>(8, 0.0f));
  KernelStream& S = KernelStream::current();
  P.kernel("K.sleepy").launch(S, grid(1), block(1))(Out, 40u, 3.0f);
  Out.resize(12); // the copy into the new memory runs after the kernel, on the same stream
  S.sync();
  std::vector<float> R;
  Out.download(R);
  ASSERT_EQ(R.size(), 12u);
  EXPECT_EQ(std::vector<float>(R.begin(), R.begin() + 8), std::vector<float>(8, 3.0f));
}

TEST(Stream, AsyncUploadStagesItsHostBytesOnEveryBackend) {
  Program P = loadTestProgram();
  const uint32_t N = 32;
  KernelBuffer<float> Slow(N), X(N);
  KernelStream S;
  P.kernel("K.sleepy").launch(S, grid(1), block(1))(Slow, 40u, 1.0f);
  std::vector<float> Host(N, 4.0f);
  X.uploadAsync(S, Host.data(), N);
  std::fill(Host.begin(), Host.end(), -1.0f); // while the slow kernel still holds the queue
  std::vector<float> R(N);
  X.downloadAsync(S, R.data(), N);
  S.sync();
  EXPECT_EQ(R, std::vector<float>(N, 4.0f));
}

TEST(Stream, TwoStreamsSharingABufferAreOrderedWithoutAnEvent) {
  Program P = loadTestProgram();
  const uint32_t N = 16;
  KernelBuffer<float> Slow(N), Y(N);
  std::vector<float> Zero(N, 0.0f);
  Slow.upload(Zero);
  Y.upload(Zero);
  KernelStream A, B, C;
  P.kernel("K.sleepy").launch(A, grid(1), block(1))(Slow, 50u, 2.0f);
  // Read-after-write on another stream: y = 5 * slow + y sees the slow kernel's 2.0.
  P.kernel("K.saxpy").launch(B, grid(1), block(N))(Y, Slow, 5.0f, N);
  // Write-after-write on a third: the quick write lands after the slow one.
  P.kernel("K.sleepy").launch(C, grid(1), block(1))(Slow, 0u, 7.0f);
  C.sync();
  B.sync();
  A.sync();
  std::vector<float> R;
  Y.download(R);
  EXPECT_EQ(R, std::vector<float>(N, 10.0f));
  Slow.download(R);
  EXPECT_EQ(R, std::vector<float>(N, 7.0f));
}
