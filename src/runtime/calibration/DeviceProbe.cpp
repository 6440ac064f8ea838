#include "runtime/calibration/DeviceProbe.h"

#include "runtime/calibration/CalibrationTileKernels.h"

#include "runtime/Buffer.h"
#include "runtime/Command.h"
#include "runtime/Event.h"
#include "runtime/Handles.h"
#include "runtime/Kernel.h"
#include "runtime/LaunchArgs.h"
#include "runtime/LoadedProgram.h"
#include "runtime/RuntimeError.h"
#include "runtime/Stream.h"
#include "runtime/scheduler/CoRunAdmission.h"
#include "runtime/scheduler/Scheduler.h"
#include "runtime/scheduler/Submission.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <thread>

namespace cajeta::xpu::rt {

namespace {

double nowSeconds() {
  return double(monotonicNowNs()) * 1e-9;
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V.empty() ? 0.0 : V[V.size() / 2];
}

struct Dims {
  uint32_t Grid[3] = {1, 1, 1};
  uint32_t Block[3] = {1, 1, 1};
};

/// Groups workgroups of Block work-items as x times y, x at most 32,768: within every device's
/// limit of 65,535 per dimension. The kernels compute i = y * sizeX + x, so a few work-items of
/// the last row fall past the end and are guarded.
Dims grid2D(uint64_t Groups, uint32_t Block) {
  Dims D;
  uint64_t X = std::min<uint64_t>(std::max<uint64_t>(Groups, 1), 32768);
  D.Grid[0] = uint32_t(X);
  D.Grid[1] = uint32_t((Groups + X - 1) / X);
  D.Block[0] = Block;
  return D;
}

Dims grid1D(uint64_t Groups, uint32_t Block) {
  Dims D;
  D.Grid[0] = uint32_t(std::max<uint64_t>(Groups, 1));
  D.Block[0] = Block;
  return D;
}

constexpr uint32_t GroupSize = 256;
constexpr double FlopsPerFmaBlock = 256.0; // CalibrationKernels.cj: 8 chains x 16 FMAs x 2

} // namespace

const std::vector<DeviceProbe::FactInfo>& DeviceProbe::facts() {
  static const std::vector<FactInfo> All = {
      {"fp32-fma-flops", "FLOP/s", "float32 fused multiply-adds, 2 operations each"},
      {"fp16-tile-flops", "FLOP/s", "float16 Group.mac into float32"},
      {"bf16-tile-flops", "FLOP/s", "bfloat16 Group.mac into float32"},
      {"int8-tile-ops", "OP/s", "int8 Group.mac into int32"},
      {"read-bandwidth", "B/s", "bytes read from device memory"},
      {"write-bandwidth", "B/s", "bytes written to device memory"},
      {"copy-bandwidth", "B/s", "bytes read plus bytes written by a copy kernel"},
      {"memory-latency", "s", "one dependent load from device memory, working set past caches"},
      {"bytes-in-flight", "B", "read bandwidth x latency: what must be in flight to reach it"},
      {"read-bandwidth-quarter-slice", "B/s",
       "bytes read on a quarter of the compute units (a slice co-running admission cuts)"},
      {"read-bandwidth-half-slice", "B/s", "bytes read on half of the compute units"},
      {"read-bandwidth-three-quarter-slice", "B/s",
       "bytes read on three quarters of the compute units"},
      {"launch-cost", "s", "host time to issue one launch"},
      {"launch-round-trip", "s", "an empty launch and the sync that waits for it"},
      {"event-cost", "s", "host time to record one event on a stream"},
      {"inter-queue-cost", "s", "added by ordering a launch after another stream's"},
      {"scheduling-delay", "s", "an empty launch's round trip beside a kernel holding the device"},
      {"resident-workgroups", "groups", "workgroups of 256 work-items resident at once"},
      {"ridge", "FLOP/B", "fp32-fma-flops / read-bandwidth: above it a kernel is compute-bound"},
  };
  return All;
}

struct DeviceProbe::Impl {
  BackendDevice& D;
  std::shared_ptr<LoadedProgram> Kernels;
  Progress OnProgress;
  bool OnHostCpu;
  double Target;  // seconds one timed batch should take
  unsigned Reps;  // timed batches per measurement; the best counts
  uint64_t Loops; // the most iterations one loop may run on this device
  Stream S, Other;
  std::map<std::string, CalibrationFact> Facts;
  double RoundTrip = 0; // an empty launch and sync, once measured

  Impl(BackendDevice& Device, std::shared_ptr<LoadedProgram> K, Progress P)
      : D(Device), Kernels(std::move(K)), OnProgress(std::move(P)),
        OnHostCpu(Device.runsOnHostCpu()), Target(OnHostCpu ? 0.03 : 0.02), Reps(OnHostCpu ? 3 : 5),
        Loops(Device.maxLoopIterations() ? Device.maxLoopIterations() - 1 : (1u << 24)),
        S(Device, Stream::nextName(" (calibration)")),
        Other(Device, Stream::nextName(" (calibration)")) {}

  const Kernel& kernel(const char* Name) const {
    return Kernels->kernel(std::string("Calibration.") + Name);
  }
  void launch(Stream& On, const char* Name, const Dims& G, std::vector<cajeta_xpu_arg> Args,
              const Submission& Sub = Submission{}) {
    kernel(Name).launch(On, G.Grid, G.Block, 0, Args.data(), Args.size(), Sub);
  }
  void launchEmpty(Stream& On) { launch(On, "empty", Dims{}, {}); }

  /// Seconds per call of Once (which enqueues on S), best of Reps batches; each batch calls it
  /// enough times to last about Target.
  double best(const std::function<void()>& Once) {
    S.sync();
    double T0 = nowSeconds();
    Once();
    S.sync();
    double Single = std::max(nowSeconds() - T0, 1e-7);
    unsigned PerBatch = unsigned(std::clamp(Target / Single, 1.0, 1000.0));
    double Best = Single;
    for (unsigned R = 0; R != Reps; ++R) {
      double Start = nowSeconds();
      for (unsigned I = 0; I != PerBatch; ++I)
        Once();
      S.sync();
      Best = std::min(Best, (nowSeconds() - Start) / PerBatch);
    }
    return Best;
  }

  /// Grows Param, which Once's launch reads, until one launch lasts about Target / 2 or Param
  /// reaches Cap.
  void grow(uint64_t& Param, uint64_t Cap, const std::function<void()>& Once) {
    Once(); // untimed: the first launch of a kernel may build its pipeline
    S.sync();
    for (;;) {
      double T0 = nowSeconds();
      Once();
      S.sync();
      double T = nowSeconds() - T0;
      if (T >= Target / 2 || Param >= Cap)
        return;
      Param = std::min<uint64_t>(Param * std::max(2.0, Target / std::max(T, 1e-6)), Cap);
    }
  }

  void set(const char* Name, double Value, std::string Note = {}) {
    CalibrationFact& F = Facts[Name];
    F.Value = Value;
    F.Absent.clear();
    F.Note = std::move(Note);
  }
  void absent(const char* Name, const std::string& Why) {
    CalibrationFact& F = Facts[Name];
    if (!F.Value)
      F.Absent = Why;
  }

  // ---- The steps ---------------------------------------------------------------------------

  void launches() {
    launchEmpty(S);
    S.sync();
    unsigned N = OnHostCpu ? 200 : 1000;
    double Issue = 1e30;
    for (unsigned R = 0; R != Reps; ++R) {
      double T0 = nowSeconds();
      for (unsigned I = 0; I != N; ++I)
        launchEmpty(S);
      Issue = std::min(Issue, (nowSeconds() - T0) / N);
      S.sync();
    }
    set("launch-cost", Issue, fmt::format("best of {} batches of {} empty launches", Reps, N));
    std::vector<double> Trips;
    for (unsigned I = 0; I != 200; ++I) {
      double T0 = nowSeconds();
      launchEmpty(S);
      S.sync();
      Trips.push_back(nowSeconds() - T0);
    }
    RoundTrip = median(Trips);
    set("launch-round-trip", RoundTrip, "median of 200");
  }

  void events() {
    unsigned N = 1000;
    double Record = 1e30;
    for (unsigned R = 0; R != Reps; ++R) {
      double T0 = nowSeconds();
      for (unsigned I = 0; I != N; ++I) {
        Command C;
        C.What = Command::Kind::Signal;
        C.Ev = std::make_shared<Event>();
        S.enqueue(std::move(C));
      }
      Record = std::min(Record, (nowSeconds() - T0) / N);
      S.sync();
    }
    set("event-cost", Record, fmt::format("best of {} batches of {} records", Reps, N));
    // Two launches and a sync on one stream, against the second on another stream ordered
    // after the first by an event.
    std::vector<double> Same, Across;
    for (unsigned I = 0; I != 100; ++I) {
      double T0 = nowSeconds();
      launchEmpty(S);
      launchEmpty(S);
      S.sync();
      Same.push_back(nowSeconds() - T0);
      T0 = nowSeconds();
      launchEmpty(S);
      Command Signal;
      Signal.What = Command::Kind::Signal;
      Signal.Ev = std::make_shared<Event>();
      std::shared_ptr<Event> Ev = Signal.Ev;
      S.enqueue(std::move(Signal));
      Command Wait;
      Wait.What = Command::Kind::Wait;
      Wait.Ev = Ev;
      Other.enqueue(std::move(Wait));
      launchEmpty(Other);
      Other.sync();
      Across.push_back(nowSeconds() - T0);
      S.sync();
    }
    double Cost = median(Across) - median(Same);
    set("inter-queue-cost", std::max(Cost, 0.0),
        fmt::format("median of 100: {:.2f} us across two streams, {:.2f} us on one",
                    1e6 * median(Across), 1e6 * median(Same)));
  }

  void fma() {
    ArgBuffer Out(D, bundle::ScalarType::F32, 1);
    // The loop form, on enough groups to fill a GPU; rounds grown until a launch lasts Target.
    uint64_t Groups = OnHostCpu ? std::max(1u, D.computeUnits()) * 4ull
                                : std::max<uint64_t>(uint64_t(D.computeUnits()) * 32, 4096);
    Dims G = grid1D(Groups, GroupSize);
    uint64_t Rounds = 4;
    auto Loop = [&] {
      launch(S, "fmaLoop", G, {Out.arg(), f32Arg(1), f32Arg(0), f32Arg(-1), u32Arg(Rounds)});
    };
    if (!OnHostCpu) { // clocks up before anything is timed
      double T0 = nowSeconds();
      while (nowSeconds() - T0 < 0.1) {
        Loop();
        S.sync();
        Rounds = std::min<uint64_t>(Rounds * 2, Loops);
      }
    }
    grow(Rounds, Loops, Loop);
    double LoopRate = double(Groups) * GroupSize * FlopsPerFmaBlock * Rounds / best(Loop);
    // The straight-line form, over enough work-items to last Target.
    uint64_t FlatGroups = 64;
    auto Flat = [&] {
      launch(S, "fmaFlat", grid2D(FlatGroups, GroupSize),
             {Out.arg(), f32Arg(1), f32Arg(0), f32Arg(-1)});
    };
    grow(FlatGroups, (1u << 24), Flat);
    double FlatRate = double(FlatGroups) * GroupSize * FlopsPerFmaBlock / best(Flat);
    set("fp32-fma-flops", std::max(LoopRate, FlatRate),
        fmt::format("best of a loop of 128 FMAs per round ({:.4g} FLOP/s) and 128 FMAs in a "
                    "straight line across work-items ({:.4g} FLOP/s)",
                    LoopRate, FlatRate));
  }

  /// The 4-byte elements of a buffer that is past every cache we know of (256 MiB beside a CPU,
  /// 1 GiB on a GPU), within what a kernel may be given.
  uint64_t bufferElements() const {
    uint64_t N = OnHostCpu ? (64ull << 20) : (256ull << 20);
    while (N * 4 > D.maxBufferArgumentBytes() && N > 1024)
      N /= 2;
    return N;
  }

  /// Measures the bandwidths over buffers of bufferElements() (halved until two fit in the
  /// device's memory); returns the elements used.
  uint64_t bandwidth() {
    uint64_t N = bufferElements();
    std::unique_ptr<ArgBuffer> X, Y;
    for (;;) {
      try {
        X = std::make_unique<ArgBuffer>(D, bundle::ScalarType::F32, N);
        Y = std::make_unique<ArgBuffer>(D, bundle::ScalarType::F32, N);
        break;
      } catch (const RuntimeError& E) {
        X.reset();
        Y.reset();
        if (E.status() != CAJETA_XPU_OUT_OF_DEVICE_MEMORY || N <= (4u << 20))
          throw;
        N /= 2;
      }
    }
    Dims G = grid2D((N / 4 + GroupSize - 1) / GroupSize, GroupSize); // 4 elements each
    std::string Size = fmt::format("{} MiB buffers, best of {}", N * 4 >> 20, Reps);
    auto Write = [&] { launch(S, "write", G, {X->arg(), f32Arg(1), u32Arg(N)}); };
    set("write-bandwidth", 4.0 * N / best(Write), Size);
    // Y's pages too, before the read kernel's (never taken) masked stores meet them: a masked
    // store to a page not yet mapped costs a microcode assist on x86 even when it stores nothing.
    launch(S, "write", G, {Y->arg(), f32Arg(1), u32Arg(N)});
    auto Read = [&] { launch(S, "read", G, {Y->arg(), X->arg(), u32Arg(N), f32Arg(-1)}); };
    set("read-bandwidth", 4.0 * N / best(Read), Size);
    sliceBandwidths(G, *X, *Y, N, Size);
    auto Copy = [&] { launch(S, "copy", G, {Y->arg(), X->arg(), u32Arg(N)}); };
    double Kernel = 8.0 * N / best(Copy);
    // The device's own copy (a CUDA memcpy, vkCmdCopyBuffer, memcpy on the CPU), as a buffer
    // resize does it: what a program gets for a copy without writing a kernel.
    auto DeviceCopy = [&] {
      S.copyWithinAndWait(Y->Handle.Impl->view().Memory, X->Handle.Impl->view().Memory, N * 4);
    };
    double Driver = 8.0 * N / best(DeviceCopy);
    set("copy-bandwidth", std::max(Kernel, Driver),
        fmt::format("{}; the better of a copy kernel ({:.4g} B/s) and the device's own copy "
                    "({:.4g} B/s), bytes read plus written",
                    Size, Kernel, Driver));
    return N;
  }

  /// The read bandwidth on slices of the device (a throughput submission's compute-unit budget
  /// confines it to one), where the device can confine a launch: the curve co-running admission
  /// cuts the device by (CoRunAdmission).
  void sliceBandwidths(const Dims& G, ArgBuffer& X, ArgBuffer& Y, uint64_t N,
                       const std::string& Size) {
    static constexpr std::pair<const char*, double> Slices[] = {
        {"read-bandwidth-quarter-slice", 0.25},
        {"read-bandwidth-half-slice", 0.5},
        {"read-bandwidth-three-quarter-slice", 0.75}};
    unsigned Step = D.sliceGranularity();
    const char* Why = !Step                      ? "the device cannot confine a launch to a slice"
                      : D.reservedComputeUnits() ? "a reservation for the latency class exists"
                      : !Scheduler::reserving()  ? "reservation is off (CAJETA_XPU_RESERVATION)"
                      : Scheduler::bypassed()    ? "the scheduler is bypassed"
                                                 : nullptr;
    for (const auto& [Name, Fraction] : Slices) {
      unsigned K = CoRunAdmission::sliceUnits(D.computeUnits(), Step, Fraction);
      if (Why || !K) {
        absent(Name, Why ? Why : "the device is too small to cut there");
        continue;
      }
      Submission Budget;
      Budget.ComputeUnits = K;
      auto Read = [&] { launch(S, "read", G, {Y.arg(), X.arg(), u32Arg(N), f32Arg(-1)}, Budget); };
      set(Name, 4.0 * N / best(Read),
          fmt::format("{} of {} compute units; {}", K, D.computeUnits(), Size));
    }
  }

  void latency(uint64_t Elements) {
    uint64_t N = 1;
    while (N * 2 <= Elements)
      N *= 2;
    ArgBuffer Next(D, bundle::ScalarType::U32, N), Out(D, bundle::ScalarType::U32, 1);
    launch(S, "chainInit", grid2D((N + GroupSize - 1) / GroupSize, GroupSize),
           {Next.arg(), u32Arg(N)});
    S.sync();
    // Each timed launch starts somewhere else on the chain, so no run finds the links of an
    // earlier one in a cache.
    uint64_t Start = 12345;
    uint64_t Steps = 256;
    auto Chase = [&] {
      Start = (Start * 2654435761u + 97) & (N - 1);
      launch(S, "chase", Dims{}, {Out.arg(), Next.arg(), u32Arg(Steps), u32Arg(Start)});
    };
    grow(Steps, Loops, Chase);
    std::vector<double> PerStep;
    for (unsigned R = 0; R != Reps; ++R) {
      double T0 = nowSeconds();
      Chase();
      S.sync();
      PerStep.push_back(std::max(nowSeconds() - T0 - RoundTrip, 0.0) / double(Steps));
    }
    double Latency = median(PerStep);
    set("memory-latency", Latency,
        fmt::format("median of {} chases of {} dependent loads over {} MiB, less the launch "
                    "round trip",
                    Reps, Steps, N * 4 >> 20));
    if (const CalibrationFact& Read = Facts["read-bandwidth"]; Read.Value)
      set("bytes-in-flight", *Read.Value * Latency, "Little's law");
    else
      absent("bytes-in-flight", "the read bandwidth was not measured");
  }

  uint32_t download(ArgBuffer& B, size_t Index) {
    std::vector<uint32_t> Host(B.count());
    S.waitFor(S.enqueue(Command::read(B.buffer(), Host.data(), Host.size())));
    return Host[Index];
  }

  /// Rounds of the spin kernel that keep Groups workgroups busy for about Seconds (a full wave
  /// shares each compute unit's issue slots, so it is measured as it will run).
  uint64_t spinRounds(double Seconds, ArgBuffer& Out, uint64_t Groups = 1) {
    uint64_t Rounds = 1024;
    for (;;) {
      double T0 = nowSeconds();
      launch(S, "spin", grid1D(Groups, GroupSize),
             {Out.arg(), f32Arg(1), f32Arg(0), f32Arg(-1), u32Arg(Rounds)});
      S.sync();
      double T = nowSeconds() - T0 - RoundTrip;
      if (T >= Seconds / 2 || Rounds >= Loops)
        return std::min<uint64_t>(Rounds * std::max(1.0, Seconds / std::max(T, 1e-6)), Loops);
      Rounds = std::min<uint64_t>(Rounds * 4, Loops);
    }
  }

  void occupancy() {
    ArgBuffer Counters(D, bundle::ScalarType::U32, 2), Out(D, bundle::ScalarType::F32, 1);
    launch(S, "zero", grid1D(1, 32), {Counters.arg(), u32Arg(2)});
    uint64_t Groups = OnHostCpu ? std::max(1u, D.computeUnits()) * 8ull : 16384;
    uint64_t Rounds = spinRounds(OnHostCpu ? 0.005 : 0.0005, Out);
    launch(S, "resident", grid1D(Groups, GroupSize),
           {Counters.arg(), Out.arg(), f32Arg(1), f32Arg(0), f32Arg(-1), u32Arg(Rounds)});
    S.sync();
    uint32_t Most = download(Counters, 1);
    set("resident-workgroups", Most,
        fmt::format("the most of {} spinning workgroups seen running at once", Groups));

    // One wave of workgroups that each hold their place for about 20 ms, and an empty launch
    // on another stream beside it.
    uint64_t Wave = std::max<uint32_t>(Most, 1);
    uint64_t Hold = spinRounds(0.02, Out, Wave);
    std::vector<double> Delays;
    double Filler = 0;
    for (unsigned R = 0; R != 3; ++R) {
      double F0 = nowSeconds();
      launch(S, "spin", grid1D(Wave, GroupSize),
             {Out.arg(), f32Arg(1), f32Arg(0), f32Arg(-1), u32Arg(Hold)});
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      double T0 = nowSeconds();
      launchEmpty(Other);
      Other.sync();
      Delays.push_back(nowSeconds() - T0);
      S.sync();
      Filler = nowSeconds() - F0;
    }
    set("scheduling-delay", median(Delays),
        fmt::format("median of 3, beside one wave of {} workgroups each running {:.1f} ms "
                    "(idle: the launch round trip)",
                    Wave, 1e3 * Filler));
  }

  /// Group.mac of Input tiles (F16 or BF16 into float32, I8 into int32) through the tile tier
  /// the device's payload of that type's program has (CalibrationTileKernels), as fact Fact.
  void tiles(bundle::ScalarType Input, const char* Fact) {
    std::shared_ptr<LoadedProgram> Program = CalibrationTileKernels::load(D, Input);
    const Kernel& K = Program->kernel(CalibrationTileKernels::KernelName);
    const bundle::TargetManifest* M = K.manifest();
    uint32_t Width = K.footprint().WaveWidth ? K.footprint().WaveWidth : D.waveWidth();
    if (!Width)
      fail(CAJETA_XPU_ERROR, "the device has no waves");
    uint32_t Waves = M && M->TileWaves ? std::min<uint32_t>(4, M->TileWaves) : 4;
    uint64_t Groups = OnHostCpu ? std::max(1u, D.computeUnits()) * 4ull
                                : std::max<uint64_t>(uint64_t(D.computeUnits()) * 32, 1024);
    Dims G = grid1D(Groups, Waves * Width);
    // Operands that are not zeros (some matrix units run faster on zeros): 1/64 for the
    // 16-bit floats (float16 0x2400, bfloat16 0x3c80); for int8 a of ones and b of rows
    // alternating 1 and -1, so the int32 sums stay 0.
    const bool Int8 = Input == bundle::ScalarType::I8;
    const uint32_t K16 = Int8 ? 32 : 16; // the product's depth
    ArgBuffer Src(D, Input, 1024);
    if (Int8) {
      std::vector<int8_t> Host(1024, 1);
      for (uint32_t Row = 0; Row != 32; ++Row)
        for (uint32_t Col = 0; Col != 16; ++Col)
          Host[512 + Row * 16 + Col] = Row % 2 ? -1 : 1;
      S.waitFor(S.enqueue(Command::write(Src.buffer(), Host.data(), Host.size())));
    } else {
      std::vector<uint16_t> Host(1024, Input == bundle::ScalarType::BF16 ? 0x3c80 : 0x2400);
      S.waitFor(S.enqueue(Command::write(Src.buffer(), Host.data(), Host.size())));
    }
    ArgBuffer Out(D, Int8 ? bundle::ScalarType::I32 : bundle::ScalarType::F32,
                  Groups * Waves * 256);
    uint64_t Rounds = 1;
    auto Mac = [&] {
      cajeta_xpu_arg Args[] = {Out.arg(), Src.arg(), u32Arg(Rounds)};
      K.launch(S, G.Grid, G.Block, 0, Args, 3, Submission{});
    };
    grow(Rounds, Loops, Mac);
    double Ops = double(Groups) * Waves * Rounds * 4 * (2.0 * 16 * 16 * K16);
    set(Fact, Ops / best(Mac),
        fmt::format("Group.mac {} into {}, 16 x {} by {} x 16 tiles, the {} tile tier",
                    bundle::scalarTypeName(Input), Int8 ? "int32" : "float32", K16, K16,
                    M && !M->TileTier.empty() ? M->TileTier : "device's"));
  }

  std::vector<CalibrationFact> run() {
    struct Step {
      const char* Name;
      double Weight;
      std::vector<const char*> Facts; // absent with the error when the step fails
      std::function<void()> Do;
    };
    uint64_t Elements = 0;
    std::vector<Step> Steps = {
        {"launch cost", 1, {"launch-cost", "launch-round-trip"}, [&] { launches(); }},
        {"event cost", 1, {"event-cost", "inter-queue-cost"}, [&] { events(); }},
        {"float32 FMA rate", 3, {"fp32-fma-flops"}, [&] { fma(); }},
        {"float16 tile rate",
         2,
         {"fp16-tile-flops"},
         [&] { tiles(bundle::ScalarType::F16, "fp16-tile-flops"); }},
        {"bfloat16 tile rate",
         2,
         {"bf16-tile-flops"},
         [&] { tiles(bundle::ScalarType::BF16, "bf16-tile-flops"); }},
        {"int8 tile rate",
         2,
         {"int8-tile-ops"},
         [&] { tiles(bundle::ScalarType::I8, "int8-tile-ops"); }},
        {"memory bandwidth",
         4,
         {"read-bandwidth", "write-bandwidth", "copy-bandwidth", "read-bandwidth-quarter-slice",
          "read-bandwidth-half-slice", "read-bandwidth-three-quarter-slice"},
         [&] { Elements = bandwidth(); }},
        {"memory latency",
         2,
         {"memory-latency", "bytes-in-flight"},
         [&] { latency(Elements ? Elements : bufferElements()); }},
        {"occupancy and scheduling delay",
         2,
         {"resident-workgroups", "scheduling-delay"},
         [&] { occupancy(); }},
    };
    double Total = 0, Done = 0;
    for (const Step& St : Steps)
      Total += St.Weight;
    for (const Step& St : Steps) {
      if (OnProgress)
        OnProgress(Done / Total, St.Name);
      try {
        St.Do();
      } catch (const std::exception& E) {
        for (const char* F : St.Facts)
          absent(F, fmt::format("the {} step failed: {}", St.Name, E.what()));
        try {
          S.sync();
        } catch (const std::exception&) {
        }
      }
      Done += St.Weight;
    }
    const CalibrationFact& Flops = Facts["fp32-fma-flops"];
    const CalibrationFact& Read = Facts["read-bandwidth"];
    if (Flops.Value && Read.Value && *Read.Value > 0)
      set("ridge", *Flops.Value / *Read.Value, "fp32-fma-flops / read-bandwidth");
    else
      absent("ridge", "needs fp32-fma-flops and read-bandwidth");
    if (OnProgress)
      OnProgress(1.0, "done");

    std::vector<CalibrationFact> Out;
    for (const FactInfo& Info : facts()) {
      CalibrationFact F = Facts[Info.Name];
      F.Name = Info.Name;
      F.Unit = Info.Unit;
      if (!F.Value && F.Absent.empty())
        F.Absent = "not measured";
      Out.push_back(std::move(F));
    }
    return Out;
  }
};

DeviceProbe::DeviceProbe(BackendDevice& Device, std::shared_ptr<LoadedProgram> Kernels,
                         Progress OnProgress)
    : P(std::make_unique<Impl>(Device, std::move(Kernels), std::move(OnProgress))) {}

DeviceProbe::~DeviceProbe() = default;

std::vector<CalibrationFact> DeviceProbe::run() {
  CoRunAdmission::Suspended Whole; // each measurement has the device to itself
  return P->run();
}

} // namespace cajeta::xpu::rt
