// Workload 7: PolyBench/GPU's kernels on our CPU backend beside their OpenMP peers, same data,
// both checked against a float64 reference; rate in GFLOP/s (operations as written).
#include "HostArray.h"
#include "PolyBenchPeers.h"
#include "PolyBenchSuite.h"
#include "PolyBenchTarget.h"
#include "Timing.h"
#include "Workloads.h"

#include <cajeta/xpu.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace cajeta::bench {

namespace xpu = cajeta::xpu;
namespace pb = cajeta::polybench;

namespace {

ResultRow runCase(const BenchConfig& Config, const xpu::Program& Program, const pb::Case& C) {
  xpu::KernelStream& S = xpu::KernelStream::current();
  pb::PolyBenchTarget Target(Program, S.device(), S, C);
  std::vector<HostArray> Peer;
  std::vector<float*> PeerArrays;
  for (const std::vector<float>& Init : C.Init) {
    Peer.emplace_back(Init.size());
    std::memcpy(Peer.back().data(), Init.data(), Init.size() * sizeof(float));
    PeerArrays.push_back(Peer.back().data());
  }
  const pb::OmpPeer PeerRun = pb::ompPeer(C.Name);
  auto ours = [&] {
    C.Ours(Target, C.D);
    S.sync();
  };
  auto peer = [&] { PeerRun(PeerArrays.data(), C.D); };

  // One run of each side from the initial data, checked; the timed runs then continue from
  // where it left the arrays (every case stays finite over them).
  ours();
  peer();
  const std::vector<std::vector<double>> Ref = pb::referenceResult(C);
  double OursErr = 0, PeerErr = 0;
  bool Ok = true;
  for (size_t A : C.Checked) {
    std::vector<float> Got = Target.download(A);
    double E = pb::relativeError(Got.data(), Ref[A]), P = pb::relativeError(Peer[A].data(), Ref[A]);
    Ok = Ok && E <= pb::ErrorBound && P <= pb::ErrorBound; // false on NaN
    OursErr = std::isnan(E) ? E : std::max(OursErr, E);
    PeerErr = std::isnan(P) ? P : std::max(PeerErr, P);
  }
  ResultRow Row;
  Row.Workload = "polybench " + C.Name + " " + C.Size;
  Row.Shape = C.Geometry;
  Row.Flops = C.Flops;
  Row.Verified = Ok;
  Row.PassLabel = "f64 ok";
  char Check[160];
  std::snprintf(Check, sizeof Check,
                "relative error vs float64: ours %.1e, OpenMP %.1e (bound %.0e)", OursErr, PeerErr,
                pb::ErrorBound);
  Row.Check = Check;
  if (!Config.Smoke || !Ok) { // the timed table shows only a failed row's check
    std::printf("%-40s %s%s\n", Row.Workload.c_str(), Check, Ok ? "" : "  WRONG");
    std::fflush(stdout);
  }
  PairTimes T = comparePair(Config.Warmup, Config.Reps, Config.Rounds, ours, peer);
  Row.setTimes(T);
  return Row;
}

} // namespace

void runPolyBench(const BenchConfig& Config, ResultTable& Table) {
  xpu::Program Program = compileKernels(Config, "polybench.cj");
  double LogSum = 0;
  unsigned Count = 0;
  for (const std::string& Name : pb::caseNames()) {
    if (!runsPolyBenchCase(Config, Name))
      continue;
    ResultRow Row = runCase(Config, Program, pb::makeCase(Name, Config.PolySizes));
    LogSum += std::log(Row.PeerMs / Row.OursMs);
    ++Count;
    Table.add(std::move(Row));
  }
  if (Count && !Config.Smoke)
    std::printf("polybench: geometric mean of the ratios (OpenMP ms / ours ms) over %u kernels: "
                "%.3fx\n",
                Count, std::exp(LogSum / Count));
}

} // namespace cajeta::bench
