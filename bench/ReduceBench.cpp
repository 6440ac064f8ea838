// Workload 3: sum of n float32 in two passes (G partials on the device, their sum on the host),
// ours vs the OpenMP peer with the same partition, in the portable and the CPU-tiled shapes.
#include "CompareExact.h"
#include "HostArray.h"
#include "OmpPeers.h"
#include "Timing.h"
#include "Workloads.h"

#include <cajeta/xpu.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace cajeta::bench {

namespace xpu = cajeta::xpu;

namespace {

/// Runs one variant: OursRun and PeerRun each fill their partials; Total* get the host sums.
template <class OursFn, class PeerFn>
void measure(const BenchConfig& Config, ResultRow& Row, xpu::KernelBuffer<float>& Partials,
             HostArray& OursPartials, HostArray& PeerPartials, OursFn OursRun, PeerFn PeerRun,
             double Exact) {
  const uint32_t G = uint32_t(OursPartials.size());
  float OursTotal = 0, PeerTotal = 0;
  auto Ours = [&] {
    OursRun();
    Partials.download(OursPartials.data(), G);
    OursTotal = sumPartials(OursPartials.data(), G);
  };
  auto Peer = [&] {
    PeerRun();
    PeerTotal = sumPartials(PeerPartials.data(), G);
  };
  Ours();
  Peer();
  Row.Verified = compareExact(OursPartials.data(), PeerPartials.data(), G, Row.Check) &&
                 std::memcmp(&OursTotal, &PeerTotal, sizeof(float)) == 0;
  char Line[200];
  std::snprintf(Line, sizeof Line,
                "sum %.9g (ours) / %.9g (peer); float64 reference %.9g, relative error %.2g",
                double(OursTotal), double(PeerTotal), Exact,
                std::fabs(double(OursTotal) - Exact) / std::max(1e-30, std::fabs(Exact)));
  Row.Check += std::string("; ") + Line;
  PairTimes T = comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer);
  Row.setTimes(T);
}

} // namespace

void runReduce(const BenchConfig& Config, ResultTable& Table) {
  const uint32_t N = Config.ReduceN;
  const uint32_t Block = Config.ReduceBlock, Groups = Config.ReduceGroups;
  const uint32_t G = Block * Groups, Tile = Config.ReduceTile;
  const uint32_t TileItems = (G + Tile - 1) / Tile;
  HostArray X0(N);
  fillPattern(X0, 4);
  double Exact = 0;
  for (float V : X0)
    Exact += V;

  xpu::Program Program = compileKernels(Config, "reduce.cj");
  xpu::Kernel Strided = Program.kernel("Bench.partialSums");
  xpu::Kernel Tiled = Program.kernel("Bench.partialSumsTiled");
  xpu::KernelStream& S = xpu::KernelStream::current();
  xpu::KernelBuffer<float> X(N), Partials(G);
  X.upload(X0.data(), N);
  HostArray PX(N), OursPartials(G), PeerPartials(G);
  std::copy(X0.begin(), X0.end(), PX.begin());

  ResultRow Row;
  Row.Workload = "sum n=" + sizeName(N) + ", G=" + std::to_string(G) + " strided";
  Row.Shape = "grid " + std::to_string(Groups) + " x blk " + std::to_string(Block);
  Row.Bytes = 4.0 * N + 8.0 * G; // read x once; write and read back the partials
  measure(
      Config, Row, Partials, OursPartials, PeerPartials,
      [&] {
        Strided.launch(S, xpu::grid(Groups), xpu::block(Block))(Partials, X, N);
        S.sync();
      },
      [&] { partialSumsPeer(PeerPartials.data(), PX.data(), N, G); }, Exact);
  Table.add(Row);

  ResultRow TiledRow;
  TiledRow.Workload = "sum n=" + sizeName(N) + ", G=" + std::to_string(G) + " tiled";
  TiledRow.Shape = "grid " + std::to_string(TileItems) + " x blk 1";
  TiledRow.Bytes = Row.Bytes;
  measure(
      Config, TiledRow, Partials, OursPartials, PeerPartials,
      [&] {
        Tiled.launch(S, xpu::grid(TileItems), xpu::block(1))(Partials, X, N, G, Tile);
        S.sync();
      },
      [&] { partialSumsPeerInterchanged(PeerPartials.data(), PX.data(), N, G, Tile); }, Exact);
  Table.add(TiledRow);

  // The wave shape (the CPU runs wave ops in the portable tier: shared-memory exchanges).
  const uint32_t W = xpu::defaultDevice().waveWidth();
  if (!W || G % W || Block % W)
    return;
  xpu::Kernel WaveK = Program.kernel("Bench.partialSumsWave");
  xpu::KernelBuffer<float> WavePartials(G / W);
  HostArray OursWave(G / W), PeerWave(G / W), PeerScratch(G);
  ResultRow WaveRow;
  WaveRow.Workload = "sum n=" + sizeName(N) + ", G=" + std::to_string(G) + " wave (width " +
                     std::to_string(W) + ")";
  WaveRow.Shape = Row.Shape;
  WaveRow.Bytes = 4.0 * N + 8.0 * (G / W);
  measure(
      Config, WaveRow, WavePartials, OursWave, PeerWave,
      [&] {
        WaveK.launch(S, xpu::grid(Groups), xpu::block(Block))(WavePartials, X, N);
        S.sync();
      },
      [&] { waveSumsPeer(PeerWave.data(), PeerScratch.data(), PX.data(), N, G, W); }, Exact);
  Table.add(WaveRow);
}

} // namespace cajeta::bench
