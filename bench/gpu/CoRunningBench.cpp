// Two workload profiles beside a best-effort stream that keeps the GPU full (the spin filler, in
// two shapes: many waves of short workgroups, and a few waves of long ones), all in one process
// on the same data, raw (Scheduler::bypass), with the policies' launch priority only
// (reservation off), and with the latency class's reserved SMs (green contexts):
// - latency: a stream of small requests (a triad over 1M elements, launch to sync, back to
//   back); each request's round trip and the filler's throughput, against each alone;
// - frameBudget: frames of 8 triads every 16.7 ms, each submitted with a dispatch window of
//   the frame's first 10 ms; a frame is late when its last triad ends after the frame, and a
//   window that closes is refused (never run late), so late + refused frames are the misses.
#include "GpuWorkloads.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace cajeta::gpubench {

namespace {

double percentile(std::vector<double> V, double P) {
  std::sort(V.begin(), V.end());
  return V.empty() ? 0.0 : V[std::min(V.size() - 1, size_t(P * double(V.size())))];
}

/// The best-effort stream: fillers back to back on their own thread until stopped.
class Filler {
public:
  Filler(xpu::Device D, xpu::Kernel K, xpu::KernelBuffer<float>& Out, uint32_t Groups,
         uint32_t Rounds)
      : D(D), K(std::move(K)), Out(Out), Groups(Groups), Rounds(Rounds) {}

  void start() {
    Stop = false;
    Done = 0;
    T0 = nowMs();
    Worker = std::thread([this] {
      xpu::KernelStream S(D);
      while (!Stop.load()) {
        K.launch(S, xpu::grid(Groups), xpu::block(256))(Out, 1.0f, 0.0f, -1.0f, Rounds);
        S.sync();
        Done.fetch_add(1);
      }
    });
  }
  /// Fillers completed per second since start.
  double stop() {
    Stop = true;
    Worker.join();
    return double(Done.load()) / ((nowMs() - T0) / 1e3);
  }

private:
  xpu::Device D;
  xpu::Kernel K;
  xpu::KernelBuffer<float>& Out;
  uint32_t Groups, Rounds;
  std::thread Worker;
  std::atomic<bool> Stop{false};
  std::atomic<uint64_t> Done{0};
  double T0 = 0;
};

struct Profile {
  double P50 = 0, P99 = 0, FillersPerS = 0;
};

/// What both profiles run: the filler's and the requests' kernels and buffers, on one device.
struct CoRunData {
  explicit CoRunData(GpuBenchContext& C)
      : D(C.Cuda.device()), Spin(C.Cuda.load("spin")), Triad(C.Cuda.load("triad")),
        SpinK(Spin.kernel("GpuBench.spin")), TriadK(Triad.kernel("GpuBench.triad")),
        A(C.Cuda.buffer(N)), B(C.Cuda.buffer(std::vector<float>(N, 1.0f))),
        Cv(C.Cuda.buffer(std::vector<float>(N, 2.0f))), Out(C.Cuda.buffer(1)) {}

  static constexpr uint32_t N = 1u << 20; // the largest request's elements
  xpu::Device D;
  xpu::Program Spin, Triad;
  xpu::Kernel SpinK, TriadK;
  xpu::KernelBuffer<float> A, B, Cv, Out;
};

struct FrameCount {
  int Frames = 0, Late = 0, Refused = 0;
  double WorstMs = 0; // the latest frame end, from the frame's start
};

} // namespace

namespace {

/// Frames of 8 frameBudget triads beside the filler, counted late or refused.
FrameCount runFrames(CoRunData& R, xpu::KernelStream& S, int Frames) {
  const uint32_t N = CoRunData::N;
  using Clock = xpu::SubmissionClock;
  const std::chrono::microseconds Period(16667), Window(10000);
  FrameCount Count;
  auto Start = Clock::now() + std::chrono::milliseconds(5);
  for (int F = 0; F < Frames; ++F) {
    auto FrameStart = Start + F * Period;
    std::this_thread::sleep_until(FrameStart);
    ++Count.Frames;
    try {
      for (int K = 0; K < 8; ++K)
        R.TriadK.launch(xpu::KernelSubmission(S)
                            .policy(xpu::Policy::FrameBudget)
                            .window(FrameStart, FrameStart + Window),
                        xpu::grid(N / 256), xpu::block(256))(R.A, R.B, R.Cv, 3.0f, N);
      S.sync();
      double Ms = std::chrono::duration<double, std::milli>(Clock::now() - FrameStart).count();
      Count.WorstMs = std::max(Count.WorstMs, Ms);
      if (Ms > 16.667)
        ++Count.Late;
    } catch (const xpu::DeadlineMissed&) {
      ++Count.Refused;
      try {
        S.sync(); // a miss found by the queue is reported here; the stream goes on
      } catch (const xpu::DeadlineMissed&) {
      }
    }
  }
  return Count;
}

} // namespace

static void runFrameBudgetProfile(GpuBenchContext& C, CoRunData& R, const char* ShapeName,
                                  uint32_t Groups, uint32_t Rounds) {
  xpu::KernelStream S(R.D);
  Filler Bulk(R.D, R.SpinK, R.Out, Groups, Rounds);
  auto measure = [&](int Frames) {
    Bulk.start();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    FrameCount Count = runFrames(R, S, Frames);
    Bulk.stop();
    return Count;
  };
  bool WasBypassed = xpu::Scheduler::bypass(true);
  FrameCount Alone = runFrames(R, S, 100);
  FrameCount Raw = measure(200);
  xpu::Scheduler::bypass(false);
  bool WasReserving = xpu::Scheduler::reservation(false);
  FrameCount PriorityOnly = measure(200);
  xpu::Scheduler::reservation(true);
  R.D.reserve(8);
  FrameCount Reserved = measure(1000);
  xpu::Scheduler::reservation(WasReserving);
  xpu::Scheduler::bypass(WasBypassed);
  auto row = [&](const char* Mode, const FrameCount& F) {
    char Note[400];
    std::snprintf(Note, sizeof(Note),
                  "%d frames of 8 triads, windows of 10 ms every 16.7 ms: %d late, %d refused, "
                  "latest end %.2f ms after the frame's start (alone, raw: %d late, %d refused, "
                  "latest %.2f ms over %d frames)",
                  F.Frames, F.Late, F.Refused, F.WorstMs, Alone.Late, Alone.Refused, Alone.WorstMs,
                  Alone.Frames);
    C.Table.add(ResultRow{std::string("frameBudget profile, ") + ShapeName + ", " + Mode +
                              " (latest frame end)",
                          "the same frames alone, raw", F.WorstMs / 1e3, Alone.WorstMs / 1e3, 0, 1,
                          1, "M launches/s", 0, Note});
  };
  row("raw (bypass)", Raw);
  row("priority only", PriorityOnly);
  row("reserved SMs", Reserved);
}

void runCoRunningBench(GpuBenchContext& C) {
  if (!C.Options.wants("corun"))
    return;
  CoRunData R(C);
  xpu::Device& D = R.D;
  xpu::Kernel &SpinK = R.SpinK, &TriadK = R.TriadK;
  xpu::KernelBuffer<float>&A = R.A, &B = R.B, &Cv = R.Cv, &Out = R.Out;
  const uint32_t N = CoRunData::N;
  xpu::KernelStream Requests(D);
  // A request: a triad over Items elements (1M: the whole device's bandwidth; 64K: 256
  // workgroups, a small kernel), launch to sync.
  auto request = [&](uint32_t Items) {
    double T0 = nowMs();
    TriadK.launch(xpu::KernelSubmission(Requests).policy(xpu::Policy::Latency),
                  xpu::grid(Items / 256), xpu::block(256))(A, B, Cv, 3.0f, Items);
    Requests.sync();
    return nowMs() - T0;
  };
  // 2,000 requests: their p99 is the 20th-largest round trip (400 left it to the 4th, and it
  // moved by tens of percent between runs).
  const int Samples = std::max(2000, C.Options.Reps * 100);
  auto requests = [&](uint32_t Items, int Count, Profile& P) {
    std::vector<double> Ms;
    for (int I = 0; I < Count; ++I)
      Ms.push_back(request(Items));
    P.P50 = percentile(Ms, 0.5) * 1e3;
    P.P99 = percentile(Ms, 0.99) * 1e3;
  };
  // Rounds for workgroups of about WorkgroupUs each on the whole device.
  const uint32_t Resident = 8 * D.computeUnits(); // 8 groups of 256 per SM (2,048 threads)
  auto roundsFor = [&](double WorkgroupUs) {
    uint32_t Rounds = 1024;
    for (;;) {
      double T0 = nowMs();
      SpinK.launch(C.Cuda.stream(), xpu::grid(Resident), xpu::block(256))(Out, 1.0f, 0.0f, -1.0f,
                                                                          Rounds);
      C.Cuda.stream().sync();
      double Us = (nowMs() - T0) * 1e3;
      if (Us >= 4 * WorkgroupUs || Rounds >= (1u << 28))
        return uint32_t(std::min(double(1u << 28), Rounds * WorkgroupUs / Us));
      Rounds *= 4;
    }
  };
  struct Shape {
    const char* Name;
    uint32_t Waves;
    double WorkgroupUs;
  };
  const Shape Shapes[] = {{"short workgroups (100 waves x 200 us)", 100, 200},
                          {"long workgroups (4 waves x 5 ms)", 4, 5000}};
  const uint32_t Sizes[] = {1u << 16, N};
  const unsigned Reservations[] = {8, 16, 32};
  bool WasBypassed = xpu::Scheduler::bypass(false);
  bool WasReserving = xpu::Scheduler::reservation(false);
  for (const Shape& S : Shapes) {
    Filler Bulk(D, SpinK, Out, S.Waves * Resident, roundsFor(S.WorkgroupUs));
    xpu::Scheduler::bypass(true);
    double BulkAlone = 0;
    {
      Bulk.start();
      std::this_thread::sleep_for(std::chrono::milliseconds(1000));
      BulkAlone = Bulk.stop();
    }
    for (uint32_t Items : Sizes) {
      for (int W = 0; W < 20; ++W)
        request(Items);
      Profile Alone;
      xpu::Scheduler::bypass(true);
      requests(Items, Samples, Alone);
      auto row = [&](const std::string& Mode, int Count, unsigned ReservedSms) {
        Profile P;
        Bulk.start();
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        requests(Items, Count, P);
        P.FillersPerS = Bulk.stop();
        char Note[400];
        std::snprintf(Note, sizeof(Note),
                      "request p50/p99 %.1f/%.1f us (alone, raw: %.1f/%.1f us: p99 %+.1f %%); "
                      "filler %.2f/s = %.1f %% of alone (%.2f/s); %u SMs reserved; %d requests",
                      P.P50, P.P99, Alone.P50, Alone.P99, (P.P99 / Alone.P99 - 1) * 100,
                      P.FillersPerS, P.FillersPerS / BulkAlone * 100, BulkAlone, ReservedSms,
                      Count);
        C.Table.add(ResultRow{"latency profile, triad " + std::to_string(Items >> 10) +
                                  "K beside " + S.Name + ", " + Mode + " (p99)",
                              "the same request alone, raw", P.P99 / 1e3, Alone.P99 / 1e3, 0, 1, 1,
                              "M launches/s", 0, Note});
      };
      // Raw and priority-only requests wait for filler workgroups (ms each): fewer samples.
      row("raw (bypass)", Samples / 10, 0);
      xpu::Scheduler::bypass(false);
      xpu::Scheduler::reservation(false);
      row("priority only", Samples / 10, 0);
      xpu::Scheduler::reservation(true);
      for (unsigned Want : Reservations) {
        // Made before the filler starts, so the filler keeps off it.
        unsigned Units = D.reserve(Want);
        row(std::to_string(Units) + " SMs reserved", Samples, Units);
      }
      xpu::Scheduler::reservation(false);
    }
  }
  xpu::Scheduler::reservation(true);
  D.reserve(8);
  // The long workgroups: the shape priority cannot help with.
  runFrameBudgetProfile(C, R, Shapes[1].Name, Shapes[1].Waves * Resident,
                        roundsFor(Shapes[1].WorkgroupUs));
  xpu::Scheduler::reservation(WasReserving);
  xpu::Scheduler::bypass(WasBypassed);
}

} // namespace cajeta::gpubench
