// Every launch is a submission (spec 17.8): a submission's resource descriptor, its window (a
// closed window is refused and the kernel never runs late, whether the miss is found when it is
// submitted or when it is dispatched), its lower bound, and the checks of its fields. Run on
// every backend the suite runs on.
#include "ConformanceSupport.h"

#include <chrono>
#include <cstring>

namespace conformance {
namespace {

using namespace std::chrono_literals;
using Clock = xpu::SubmissionClock;

constexpr uint32_t N = 4096;
constexpr uint32_t Block = 128;

TEST(Submission, DescribesWhatTheLaunchTouches) {
  xpu::Program P = compileProgram("StreamOrder");
  auto In = toDevice(std::vector<int32_t>(N, 5));
  auto Out = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  xpu::Kernel K = P.kernel("StreamOrder.plusOne");
  xpu::ResourceDescriptor D = K.launch(xpu::KernelSubmission(S).policy(xpu::Policy::Latency),
                                       xpu::grid(N / Block), xpu::block(Block))(Out, In, N);
  S.sync();
  expectSame(fromDevice(Out), std::vector<int32_t>(N, 6), "plusOne submitted");
  EXPECT_EQ(D.kernel, "StreamOrder.plusOne");
  EXPECT_EQ(D.policy, xpu::Policy::Latency);
  ASSERT_EQ(D.reads.size(), 1u);
  EXPECT_EQ(D.reads[0].buffer, In.handle());
  EXPECT_EQ(D.reads[0].param, 1u);
  ASSERT_EQ(D.writes.size(), 1u);
  EXPECT_EQ(D.writes[0].buffer, Out.handle());
  EXPECT_EQ(D.writes[0].access, xpu::AccessMode::Write);
  EXPECT_TRUE(D.accumulates.empty());
  // The manifest's costs, evaluated for this launch (N work-items, one element each).
  EXPECT_TRUE(D.classified);
  EXPECT_EQ(D.bytesRead, std::optional<double>(4.0 * N));
  EXPECT_EQ(D.bytesWritten, std::optional<double>(4.0 * N));
  EXPECT_EQ(D.reads[0].bytesRead, std::optional<double>(4.0 * N));
  EXPECT_TRUE(D.reads[0].streaming);
  EXPECT_TRUE(D.writes[0].streaming);
  EXPECT_TRUE(D.restartable);
  EXPECT_EQ(D.yieldPoints, 0u);
  EXPECT_EQ(D.footprint.max_threads, K.footprint().maxThreads);
  EXPECT_EQ(D.footprint.registers, K.footprint().registers);
}

TEST(Submission, TheExplicitSubmitIsTheSamePath) {
  xpu::Program P = compileProgram("StreamOrder");
  auto Out = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  xpu::ResourceDescriptor D =
      xpu::Scheduler::submit(P.kernel("StreamOrder.fill"), xpu::KernelSubmission(S),
                             xpu::grid(N / Block), xpu::block(Block))(Out, 9, N);
  S.sync();
  expectSame(fromDevice(Out), std::vector<int32_t>(N, 9), "fill submitted");
  EXPECT_EQ(D.policy, xpu::Policy::Throughput);
  ASSERT_EQ(D.writes.size(), 1u);
  EXPECT_TRUE(D.reads.empty());
}

TEST(Submission, AClosedWindowIsRefusedAtSubmit) {
  xpu::Program P = compileProgram("StreamOrder");
  auto Out = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  xpu::KernelSubmission Late =
      xpu::KernelSubmission(S).deadline(Clock::now() - 1ms).policy(xpu::Policy::Latency);
  try {
    P.kernel("StreamOrder.fill").launch(Late, xpu::grid(N / Block), xpu::block(Block))(Out, 7, N);
    FAIL() << "a submission whose window had closed was accepted";
  } catch (const xpu::DeadlineMissed& E) {
    EXPECT_NE(std::string(E.what()).find("StreamOrder.fill: deadline missed at submit"),
              std::string::npos)
        << E.what();
  }
  S.sync(); // nothing was enqueued: no error here
  expectSame(fromDevice(Out), std::vector<int32_t>(N, 0), "the refused fill never ran");
  // The stream goes on working.
  P.kernel("StreamOrder.fill").launch(S, xpu::grid(N / Block), xpu::block(Block))(Out, 8, N);
  S.sync();
  expectSame(fromDevice(Out), std::vector<int32_t>(N, 8), "a later fill");
}

TEST(Submission, AWindowThatClosesBehindBusyWorkNeverRunsLate) {
  xpu::Program P = compileProgram("StreamOrder");
  auto Data = toDevice(std::vector<int32_t>(N, 0));
  uint32_t Rounds = slowFillRounds(P, Data);
  xpu::KernelStream S;
  P.kernel("StreamOrder.slowFill")
      .launch(S, xpu::grid(N / Block), xpu::block(Block))(Data, 3, Rounds, 0u, N);
  // The stream is busy for 20 ms or more: a fill that must start within 2 ms cannot.
  bool Refused = false;
  try {
    P.kernel("StreamOrder.fill")
        .launch(xpu::KernelSubmission(S).within(2ms), xpu::grid(N / Block),
                xpu::block(Block))(Data, 7, N);
  } catch (const xpu::DeadlineMissed& E) { // held on the host: found before it was issued
    // (or, on a slow host such as a sanitizer build, already closed when it was submitted)
    Refused = true;
    std::string What = E.what();
    EXPECT_TRUE(What.find("deadline missed at dispatch") != std::string::npos ||
                What.find("deadline missed at submit") != std::string::npos)
        << What;
  }
  try {
    S.sync();
    EXPECT_TRUE(Refused) << "the late fill was neither refused nor reported";
  } catch (const xpu::DeadlineMissed& E) { // dropped by the queue when it reached it
    EXPECT_FALSE(Refused);
    EXPECT_NE(std::string(E.what()).find("StreamOrder.fill: deadline missed at dispatch"),
              std::string::npos)
        << E.what();
  }
  std::vector<int32_t> Want(N);
  for (uint32_t I = 0; I < N; ++I)
    Want[I] = 3 + int32_t(I);
  expectSame(fromDevice(Data), Want, "slowFill's values: the late fill never ran");
  // The stream goes on working after the miss.
  P.kernel("StreamOrder.fill").launch(S, xpu::grid(N / Block), xpu::block(Block))(Data, 8, N);
  S.sync();
  expectSame(fromDevice(Data), std::vector<int32_t>(N, 8), "a later fill");
}

TEST(Submission, AWindowStartsNoEarlierThanItOpens) {
  xpu::Program P = compileProgram("StreamOrder");
  auto Out = toDevice(std::vector<int32_t>(N, 0));
  xpu::KernelStream S;
  Clock::time_point Opens = Clock::now() + 30ms;
  P.kernel("StreamOrder.fill")
      .launch(xpu::KernelSubmission(S).window(Opens, Opens + 10s), xpu::grid(N / Block),
              xpu::block(Block))(Out, 4, N);
  S.sync();
  EXPECT_GE(Clock::now(), Opens);
  expectSame(fromDevice(Out), std::vector<int32_t>(N, 4), "the fill ran once its window opened");
}

TEST(Submission, MalformedSubmissionsAreRefusedNamingTheField) {
  xpu::Program P = compileProgram("StreamOrder");
  auto Out = toDevice(std::vector<int32_t>(N, 0));
  xpu::Kernel Fill = P.kernel("StreamOrder.fill");
  Clock::time_point Now = Clock::now();
  auto Refusal = [&](const xpu::KernelSubmission& Sub) -> std::string {
    try {
      Fill.launch(Sub, xpu::grid(N / Block), xpu::block(Block))(Out, 1, N);
    } catch (const xpu::LaunchError& E) {
      return E.what();
    }
    return "accepted";
  };
  EXPECT_NE(Refusal(xpu::KernelSubmission().window(Now + 2s, Now + 1s)).find("window is empty"),
            std::string::npos);
  EXPECT_NE(Refusal(xpu::KernelSubmission().computeUnits(P.device().computeUnits() + 1))
                .find("compute units"),
            std::string::npos);
  EXPECT_NE(Refusal(xpu::KernelSubmission().energyBudget(-1)).find("energy budget"),
            std::string::npos);
  xpu::KernelStream::current().sync();
  expectSame(fromDevice(Out), std::vector<int32_t>(N, 0), "no refused submission ran");
}

TEST(Submission, TheCAbiChecksTheStructSize) {
  xpu::Program P = compileProgram("StreamOrder");
  auto Out = toDevice(std::vector<int32_t>(N, 0));
  cajeta_xpu_submission Sub{};
  Sub.size = 8;
  uint32_t Grid[3] = {N / Block, 1, 1}, Blk[3] = {Block, 1, 1};
  cajeta_xpu_arg Args[3] = {xpu::detail::toArg(Out), xpu::detail::toArg(1), xpu::detail::toArg(N)};
  EXPECT_EQ(cajeta_xpu_kernel_submit(P.kernel("StreamOrder.fill").handle(), &Sub, Grid, Blk, 0,
                                     Args, 3, nullptr),
            CAJETA_XPU_LAUNCH_ERROR);
  EXPECT_NE(std::string(cajeta_xpu_last_error()).find("sizeof(cajeta_xpu_submission)"),
            std::string::npos)
      << cajeta_xpu_last_error();
}

TEST(Submission, TheCAbiWritesTheDescriptorUpToItsSize) {
  xpu::Program P = compileProgram("StreamOrder");
  auto Out = toDevice(std::vector<int32_t>(N, 0));
  cajeta_xpu_submission Sub{};
  Sub.size = sizeof(Sub);
  uint32_t Grid[3] = {N / Block, 1, 1}, Blk[3] = {Block, 1, 1};
  cajeta_xpu_arg Args[3] = {xpu::detail::toArg(Out), xpu::detail::toArg(1), xpu::detail::toArg(N)};
  // A descriptor whose size the caller left 0 is refused before the kernel runs.
  cajeta_xpu_resource_descriptor D{};
  EXPECT_EQ(cajeta_xpu_kernel_submit(P.kernel("StreamOrder.fill").handle(), &Sub, Grid, Blk, 0,
                                     Args, 3, &D),
            CAJETA_XPU_LAUNCH_ERROR);
  EXPECT_NE(std::string(cajeta_xpu_last_error()).find("sizeof(cajeta_xpu_resource_descriptor)"),
            std::string::npos)
      << cajeta_xpu_last_error();
  xpu::KernelStream::current().sync();
  expectSame(fromDevice(Out), std::vector<int32_t>(N, 0), "the refused submission did not run");
  // A caller whose struct is larger (a newer header) gets the fields this library knows, and
  // its own size back; the bytes past them are left as they were.
  struct Larger {
    cajeta_xpu_resource_descriptor D;
    uint64_t Newer;
  } L;
  std::memset(&L, 0xAB, sizeof(L));
  L.D.size = sizeof(L);
  ASSERT_EQ(cajeta_xpu_kernel_submit(P.kernel("StreamOrder.fill").handle(), &Sub, Grid, Blk, 0,
                                     Args, 3, &L.D),
            CAJETA_XPU_SUCCESS)
      << cajeta_xpu_last_error();
  EXPECT_EQ(L.D.size, sizeof(L));
  EXPECT_STREQ(L.D.kernel, "StreamOrder.fill");
  EXPECT_EQ(L.Newer, 0xABABABABABABABABull);
  xpu::KernelStream::current().sync();
  expectSame(fromDevice(Out), std::vector<int32_t>(N, 1), "the accepted submission ran");
}

} // namespace
} // namespace conformance
