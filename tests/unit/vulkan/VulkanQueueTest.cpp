// The vulkan backend's stream queue on a real Vulkan device (lavapipe in CI): many launches in
// batches and one sync, events ordering two streams, async copies ordered with launches, per-launch
// parameter blocks, a --check-bounds failure in the middle of a batch, and chains replayed rather
// than recorded again while their arguments stay the same. Skips without a device;
// ctest runs it once more with CAJETA_XPU_VULKAN_NO_TIMELINE=1 (the fence fallback).
#include "VulkanDeviceTest.h"

#include <cajeta/xpu.hpp>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace xpu = cajeta::xpu;

const char* const Source = R"(
import cajeta.xpu.*;

final class Big {
    float64 a0; float64 a1; float64 a2; float64 a3; float64 a4;
    float64 a5; float64 a6; float64 a7; float64 a8; float64 a9;
    float64 b0; float64 b1; float64 b2; float64 b3; float64 b4;
    float64 b5; float64 b6; float64 b7; float64 b8; float64 b9;
}

public final class Q {
    @Kernel
    public static void bump(KernelBuffer<int32> out, int32 by, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { out[i] = out[i] + by; }
    }
    @Kernel
    public static void slowFill(KernelBuffer<int32> out, int32 v, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) {
            int32 x = 0;
            for (int32 k = 0; k < 2000; k++) { x = (x * 7 + k) & 1023; }
            out[i] = v + (x & 0) + (int32) i;
        }
    }
    @Kernel
    public static void plusOne(KernelBuffer<int32> out, KernelBuffer<int32> in, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { out[i] = in[i] + 1; }
    }
    @Kernel
    public static void accumulate(KernelBuffer<float64> out, Big b, int64 k, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { out[i] = out[i] + b.a0 + b.b9 * (float64) i + (float64) k; }
    }
    @Kernel
    public static void poke(KernelBuffer<int32> out, uint32 at) {
        out[at] = 7;
    }
    // rounds dependent multiply-adds per work-item (a is 1 at run time: nothing folds them away).
    @Kernel
    public static void busy(KernelBuffer<float32> out, float32 a, uint32 rounds) {
        float32 x = (float32) KernelThread.globalIdX();
        for (uint32 r = 0; r < rounds; r++) {
            x = x * a + 0.5f;
        }
        if (x == -1.0f) { out[0] = x; }
    }
    // Raises flag me, then waits (at most spins loads) for flag other; flags[2 + me] says
    // whether it came.
    @Kernel
    public static void meet(KernelBuffer<int32> flags, uint32 me, uint32 other, int32 spins) {
        if (KernelThread.globalIdX() == 0) {
            Atomics.store(flags, me, 1, MemoryOrder.RELEASE);
            int32 k = 0;
            while (k < spins && Atomics.load(flags, other, MemoryOrder.ACQUIRE) == 0) {
                k++;
            }
            Atomics.store(flags, 2 + me, k < spins ? 1 : 0);
        }
    }
}
)";

using vulkantest::Big;
using vulkantest::vulkanDevice;

class VulkanQueue : public vulkantest::VulkanDeviceTest {};

constexpr uint32_t N = 64;

TEST_F(VulkanQueue, ThousandsOfLaunchesAndOneSync) {
  xpu::Program P = xpu::Program::compileSource(Source, "Q.cj");
  ASSERT_EQ(P.device().backend(), "vulkan");
  xpu::KernelBuffer<int32_t> Out(N);
  Out.upload(std::vector<int32_t>(N, 0));
  xpu::KernelStream S(P.device());
  // More launches than many full batches: batches are submitted as they fill and recycled.
  const int Launches = 5000;
  for (int I = 0; I < Launches; ++I)
    P.kernel("Q.bump").launch(S, xpu::grid(1), xpu::block(N))(Out, int32_t(I % 3), N);
  S.sync();
  int32_t Want = 0;
  for (int I = 0; I < Launches; ++I)
    Want += I % 3;
  std::vector<int32_t> Got;
  Out.download(Got);
  EXPECT_EQ(Got, std::vector<int32_t>(N, Want));
}

TEST_F(VulkanQueue, EachLaunchKeepsItsOwnUniformParameterBlock) {
  xpu::Program P = xpu::Program::compileSource(Source, "Q.cj");
  Big B{};
  B.A[0] = 0.5;
  B.B[9] = 2.0;
  const uint32_t Count = 40;
  xpu::KernelBuffer<double> Out(Count);
  Out.upload(std::vector<double>(Count, 0.0));
  xpu::KernelStream S(P.device());
  const int Launches = 700; // the block of each one lives in its batch until the batch is done
  for (int K = 0; K < Launches; ++K)
    P.kernel("Q.accumulate").launch(S, xpu::grid(1), xpu::block(64))(Out, B, int64_t(K), Count);
  S.sync();
  std::vector<double> Got;
  Out.download(Got);
  double SumK = double(Launches) * (Launches - 1) / 2;
  for (uint32_t I = 0; I < Count; ++I)
    ASSERT_EQ(Got[I], Launches * (0.5 + 2.0 * I) + SumK) << "element " << I;
}

TEST_F(VulkanQueue, AnEventOrdersWorkOnAnotherStream) {
  xpu::Program P = xpu::Program::compileSource(Source, "Q.cj");
  const uint32_t Count = 4096;
  for (int Round = 0; Round < 3; ++Round) {
    xpu::KernelBuffer<int32_t> X(Count), Y(Count);
    X.upload(std::vector<int32_t>(Count, -1));
    Y.upload(std::vector<int32_t>(Count, -1));
    xpu::KernelStream A(P.device()), B(P.device());
    P.kernel("Q.slowFill").launch(A, xpu::grid(Count / 64), xpu::block(64))(X, 100 * Round, Count);
    xpu::Event E = A.record();
    B.wait(E);
    P.kernel("Q.plusOne").launch(B, xpu::grid(Count / 64), xpu::block(64))(Y, X, Count);
    B.sync(); // only B: the event alone orders A's fill before B's read
    EXPECT_TRUE(E.done());
    std::vector<int32_t> Got(Count);
    Y.downloadAsync(B, Got.data(), Count);
    B.sync();
    for (uint32_t I = 0; I < Count; ++I)
      ASSERT_EQ(Got[I], 100 * Round + int32_t(I) + 1) << "round " << Round << " element " << I;
    A.sync();
  }
}

TEST_F(VulkanQueue, AsyncCopiesAreOrderedWithLaunches) {
  xpu::Program P = xpu::Program::compileSource(Source, "Q.cj");
  std::vector<int32_t> Host(N);
  std::iota(Host.begin(), Host.end(), 10);
  const std::vector<int32_t> Start = Host;
  xpu::KernelBuffer<int32_t> X(N);
  X.upload(std::vector<int32_t>(N, 0));
  xpu::KernelStream S(P.device());
  P.kernel("Q.bump").launch(S, xpu::grid(1), xpu::block(N))(X, 1000, N); // the stream is busy
  X.uploadAsync(S, Host.data(), N);
  std::fill(Host.begin(), Host.end(), -5); // an async upload has read its source on return
  P.kernel("Q.bump").launch(S, xpu::grid(1), xpu::block(N))(X, 1, N);
  std::vector<int32_t> First(N, 0), Second(N, 0);
  X.downloadAsync(S, First.data(), N);
  P.kernel("Q.bump").launch(S, xpu::grid(1), xpu::block(N))(X, 1, N); // after the download
  X.downloadAsync(S, Second.data(), N);
  S.sync();
  for (uint32_t I = 0; I < N; ++I) {
    ASSERT_EQ(First[I], Start[I] + 1) << "element " << I;
    ASSERT_EQ(Second[I], Start[I] + 2) << "element " << I;
  }
}

TEST_F(VulkanQueue, AnEventCoversTheDownloadsBeforeIt) {
  xpu::Program P = xpu::Program::compileSource(Source, "Q.cj");
  xpu::KernelBuffer<int32_t> X(N);
  X.upload(std::vector<int32_t>(N, 3));
  xpu::KernelStream S(P.device());
  P.kernel("Q.bump").launch(S, xpu::grid(1), xpu::block(N))(X, 4, N);
  std::vector<int32_t> Got(N, 0);
  X.downloadAsync(S, Got.data(), N);
  xpu::Event E = S.record();
  P.kernel("Q.bump").launch(S, xpu::grid(1), xpu::block(N))(X, 100, N);
  E.sync(); // the host waits for the event, not the stream
  EXPECT_EQ(Got, std::vector<int32_t>(N, 7));
  S.sync();
  X.download(Got);
  EXPECT_EQ(Got, std::vector<int32_t>(N, 107));
}

TEST_F(VulkanQueue, LargeStagedCopiesCrossTheStagingChunk) {
  xpu::Program P = xpu::Program::compileSource(Source, "Q.cj");
  const uint32_t Count = (20u << 20) / 4; // 20 MiB: two staging pieces of 16 MiB at most
  std::vector<int32_t> Host(Count);
  for (uint32_t I = 0; I < Count; ++I)
    Host[I] = int32_t(I * 2654435761u);
  xpu::KernelBuffer<int32_t> X(Count), Small(N);
  Small.upload(std::vector<int32_t>(N, 0));
  xpu::KernelStream S(P.device());
  P.kernel("Q.bump").launch(S, xpu::grid(1), xpu::block(N))(Small, 1, N); // not idle: staged
  X.uploadAsync(S, Host.data(), Count);
  P.kernel("Q.bump").launch(S, xpu::grid(Count / 256), xpu::block(256))(X, 1, Count);
  std::vector<int32_t> Got(Count, 0);
  X.downloadAsync(S, Got.data(), Count);
  P.kernel("Q.bump").launch(S, xpu::grid(1), xpu::block(N))(Small, 1, N);
  S.sync();
  for (uint32_t I = 0; I < Count; ++I)
    ASSERT_EQ(Got[I], int32_t(uint32_t(Host[I]) + 1u)) << "element " << I;
}

TEST_F(VulkanQueue, ACheckBoundsFailureMidBatchIsReportedAtSyncAndTheStreamGoesOn) {
  xpu::CompileOptions O;
  O.checkBounds = true;
  xpu::Program P = xpu::Program::compileSource(Source, "Q.cj", O);
  xpu::KernelBuffer<int32_t> Out(N), Small(4);
  Out.upload(std::vector<int32_t>(N, 0));
  Small.upload(std::vector<int32_t>(4, 0));
  xpu::KernelStream S(P.device());
  for (int I = 0; I < 100; ++I)
    P.kernel("Q.bump").launch(S, xpu::grid(1), xpu::block(N))(Out, 1, N);
  P.kernel("Q.poke").launch(S, xpu::grid(1), xpu::block(1))(Small, uint32_t(10));
  for (int I = 0; I < 100; ++I)
    P.kernel("Q.bump").launch(S, xpu::grid(1), xpu::block(N))(Out, 1, N);
  try {
    S.sync();
    FAIL() << "an out-of-range store in the middle of a batch was not reported";
  } catch (const xpu::LaunchError& E) {
    std::string M = E.what();
    EXPECT_NE(M.find("Q.poke"), std::string::npos) << M;
    EXPECT_NE(M.find("index 10 is out of range"), std::string::npos) << M;
    EXPECT_NE(M.find("of length 4"), std::string::npos) << M;
  }
  // The launches around it ran, and the stream takes more work without reporting it again.
  P.kernel("Q.bump").launch(S, xpu::grid(1), xpu::block(N))(Out, 1, N);
  P.kernel("Q.poke").launch(S, xpu::grid(1), xpu::block(1))(Small, uint32_t(3));
  S.sync();
  std::vector<int32_t> Got;
  Out.download(Got);
  EXPECT_EQ(Got, std::vector<int32_t>(N, 201));
  Small.download(Got);
  EXPECT_EQ(Got, (std::vector<int32_t>{0, 0, 0, 7}));
}

/// What Body writes to stderr, with CAJETA_XPU_DEBUG set (a Vulkan queue then prints how many
/// chains it recorded and replayed when it goes away).
std::string debugOutputOf(const std::function<void()>& Body) {
  std::FILE* Log = std::tmpfile();
  EXPECT_NE(Log, nullptr);
  if (!Log)
    return "";
  std::fflush(stderr);
  int Saved = dup(2);
  dup2(fileno(Log), 2);
  setenv("CAJETA_XPU_DEBUG", "1", 1);
  try {
    Body();
  } catch (...) {
    unsetenv("CAJETA_XPU_DEBUG");
    dup2(Saved, 2);
    close(Saved);
    std::fclose(Log);
    throw;
  }
  unsetenv("CAJETA_XPU_DEBUG");
  std::fflush(stderr);
  dup2(Saved, 2);
  close(Saved);
  std::string Text;
  std::rewind(Log);
  char Chunk[256];
  while (size_t Got = std::fread(Chunk, 1, sizeof(Chunk), Log))
    Text.append(Chunk, Got);
  std::fclose(Log);
  return Text;
}

TEST_F(VulkanQueue, AChainWithTheSameArgumentsIsReplayedNotRecordedAgain) {
  xpu::Program P = xpu::Program::compileSource(Source, "Q.cj");
  xpu::Kernel Bump = P.kernel("Q.bump");
  xpu::KernelBuffer<int32_t> Out(N), Other(N);
  Out.upload(std::vector<int32_t>(N, 0));
  Other.upload(std::vector<int32_t>(N, 0));
  std::string Log = debugOutputOf([&] {
    xpu::KernelStream S(P.device());
    auto Chain = [&](xpu::KernelBuffer<int32_t>& B, int32_t By) {
      xpu::KernelSubmission Sub = xpu::KernelSubmission(S).capture(5);
      for (int I = 0; I < 4; ++I)
        Bump.launch(Sub, xpu::grid(1), xpu::block(N))(B, By, N);
      S.sync();
    };
    Chain(Out, 1); // recorded
    Chain(Out, 1); // replayed
    Out.upload(std::vector<int32_t>(N, 100));
    Chain(Out, 1);   // replayed, on the buffer's new contents
    Chain(Out, 2);   // another scalar: recorded
    Chain(Other, 2); // another buffer: recorded
    Chain(Other, 2); // replayed
  });                // the stream's queue goes away here and prints its counts
  EXPECT_NE(Log.find("a stream's chains: 3 recorded, 3 replayed"), std::string::npos) << Log;
  std::vector<int32_t> Got;
  Out.download(Got);
  EXPECT_EQ(Got, std::vector<int32_t>(N, 100 + 4 + 8));
  Other.download(Got);
  EXPECT_EQ(Got, std::vector<int32_t>(N, 16));
}

/// Two streams' meet kernels on the device (the scheduler bypassed: it would order the two
/// launches, which share the flags buffer): Before enqueues what comes first on stream B;
/// each meet raises its flag and waits (at most Spins loads) for the other's.
class TwoStreamsMeet {
public:
  explicit TwoStreamsMeet(const xpu::Program& P) : P(P), Meet(P.kernel("Q.meet")), Flags(4) {
    Flags.upload(std::vector<int32_t>(4, 0));
  }
  /// The flags after both syncs: {1, 1, 1, 1} when each meet saw the other's flag.
  template <class F> std::vector<int32_t> run(int32_t Spins, F&& Before) {
    xpu::KernelStream A(P.device()), B(P.device());
    bool Was = xpu::Scheduler::bypass(true);
    Before(B);
    Meet.launch(B, xpu::grid(1), xpu::block(32))(Flags, 1u, 0u, Spins);
    Meet.launch(A, xpu::grid(1), xpu::block(32))(Flags, 0u, 1u, Spins);
    A.sync();
    B.sync();
    xpu::Scheduler::bypass(Was);
    std::vector<int32_t> Got;
    Flags.download(Got);
    return Got;
  }

private:
  const xpu::Program& P;
  xpu::Kernel Meet;
  xpu::KernelBuffer<int32_t> Flags;
};

/// Two streams' launches run at the same time where the device has several queues: each meet
/// comes only if both kernels are on the GPU at once (one after the other, the first gives up
/// after its spins).
TEST_F(VulkanQueue, LaunchesOnTwoStreamsRunTogether) {
  if (!Device->concurrentStreams())
    GTEST_SKIP() << "'" << Device->name() << "' runs every stream on one queue";
  xpu::Program P = xpu::Program::compileSource(Source, "Q.cj");
  TwoStreamsMeet M(P);
  EXPECT_EQ(M.run(1 << 22, [](xpu::KernelStream&) {}), (std::vector<int32_t>{1, 1, 1, 1}));
}

/// A stream gathers launches while its earlier work runs and submits them at its next sync; when
/// another stream's sync is about to block, they are submitted too. Here B's meet is gathered
/// behind a busy kernel (milliseconds) and A's waits for it: it comes only if A's sync gets B's
/// launch going (CAJETA_XPU_VULKAN_SUBMIT_OTHERS=0 makes this fail, after A's spins).
TEST_F(VulkanQueue, AnotherStreamsSyncSubmitsWhatAStreamGathered) {
  if (!Device->concurrentStreams())
    GTEST_SKIP() << "'" << Device->name() << "' runs every stream on one queue";
  xpu::Program P = xpu::Program::compileSource(Source, "Q.cj");
  xpu::Kernel Busy = P.kernel("Q.busy");
  xpu::KernelBuffer<float> Unused(1);
  TwoStreamsMeet M(P);
  EXPECT_EQ(M.run(1 << 20,
                  [&](xpu::KernelStream& B) {
                    Busy.launch(B, xpu::grid(1), xpu::block(32))(Unused, 1.0f, 1u << 20);
                  }),
            (std::vector<int32_t>{1, 1, 1, 1}));
}

} // namespace

namespace {

/// A latency-class launch is submitted at once, never gathered behind its stream's next sync:
/// the stream's order holds between it and the slow launch before it and the plain ones after.
TEST_F(VulkanQueue, LatencyLaunchesAreSubmittedAtOnceInTheirStreamsOrder) {
  xpu::Program P = xpu::Program::compileSource(Source, "Q.cj");
  constexpr uint32_t Items = 4096;
  xpu::KernelBuffer<int32_t> Out(Items);
  xpu::KernelStream S(P.device());
  auto latency = [&] { return xpu::KernelSubmission(S).policy(xpu::Policy::Latency); };
  int32_t Added = 0;
  for (int Round = 0; Round < 8; ++Round) {
    // A slow fill on the stream's queue, a latency bump that must see it, a plain bump after.
    P.kernel("Q.slowFill").launch(S, xpu::grid(Items / 64), xpu::block(64))(Out, 5, Items);
    P.kernel("Q.bump").launch(latency(), xpu::grid(Items / 64), xpu::block(64))(Out, 1, Items);
    P.kernel("Q.bump").launch(S, xpu::grid(Items / 64), xpu::block(64))(Out, 10, Items);
    P.kernel("Q.bump").launch(latency(), xpu::grid(Items / 64), xpu::block(64))(Out, 100, Items);
    Added = 111;
  }
  S.sync();
  std::vector<int32_t> Got;
  Out.download(Got);
  std::vector<int32_t> Want(Items);
  for (uint32_t I = 0; I < Items; ++I)
    Want[I] = 5 + int32_t(I) + Added;
  EXPECT_EQ(Got, Want);
}

} // namespace
