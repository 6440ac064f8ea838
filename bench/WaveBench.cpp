// Workload: kernels made of wave operations, each beside an OpenMP loop computing the same
// values in the same order: a workgroup's inclusive prefix sums (Wave.inclusivePrefixSum and the
// waves' totals through shared memory), butterfly sums of squares (Wave.reduceSum on float32),
// and votes (Wave.ballot, Wave.any). The results are compared bit for bit.
#include "HostArray.h"
#include "OmpPeers.h"
#include "Timing.h"
#include "Workloads.h"

#include <cajeta/xpu.hpp>

#include <bit>
#include <cstdio>
#include <cstring>
#include <vector>

namespace cajeta::bench {

namespace xpu = cajeta::xpu;

namespace {

/// Whether Ours and Peer hold the same values bit for bit; Detail says where not.
template <class T>
bool sameBits(const std::vector<T>& Ours, const std::vector<T>& Peer, std::string& Detail) {
  size_t Bad = 0, First = 0;
  for (size_t I = 0; I < Ours.size(); ++I)
    if (std::memcmp(&Ours[I], &Peer[I], sizeof(T)) != 0 && Bad++ == 0)
      First = I;
  if (!Bad) {
    Detail = std::to_string(Ours.size()) + " values bit-identical";
    return true;
  }
  Detail = std::to_string(Bad) + " of " + std::to_string(Ours.size()) + " values differ, first [" +
           std::to_string(First) + "]";
  return false;
}

/// Runs our launch and the peer once, compares what our kernel wrote to Out with PeerOut, times
/// both sides, and adds the row.
template <class T, class OursFn, class PeerFn>
void addRow(const BenchConfig& Config, ResultTable& Table, ResultRow Row, xpu::KernelBuffer<T>& Out,
            const std::vector<T>& PeerOut, OursFn Ours, PeerFn Peer) {
  Ours();
  Peer();
  std::vector<T> Got(PeerOut.size());
  Out.download(Got.data(), Got.size());
  Row.Verified = sameBits(Got, PeerOut, Row.Check);
  PairTimes Times = comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer);
  Row.setTimes(Times);
  Table.add(std::move(Row));
}

} // namespace

void runWave(const BenchConfig& Config, ResultTable& Table) {
  const uint32_t Width = xpu::defaultDevice().waveWidth();
  const uint32_t N = Config.WaveN, Block = Config.WaveBlock;
  if (!Width || Block % Width || N % Block) {
    std::printf("wave: skipped (wave width %u does not divide the workgroup of %u)\n", Width,
                Block);
    return;
  }
  const uint32_t Groups = N / Block;
  xpu::Program Program = compileKernels(Config, "wave.cj");
  xpu::KernelStream& S = xpu::KernelStream::current();
  auto RowNamed = [&](const std::string& What, double BytesPerValue) {
    ResultRow Row;
    Row.Workload = What + " n=" + sizeName(N) + " (width " + std::to_string(Width) + ")";
    Row.Shape = "grid " + std::to_string(Groups) + " x blk " + std::to_string(Block);
    Row.Bytes = BytesPerValue * N;
    return Row;
  };
  auto Launch = [&](const char* Kernel, auto&... Args) {
    Program.kernel(Kernel).launch(S, xpu::grid(Groups), xpu::block(Block))(Args...);
    S.sync();
  };

  HostArray X0(N);
  fillPattern(X0, 7);
  std::vector<float> XHost(X0.begin(), X0.end());
  xpu::KernelBuffer<float> X(N);
  X.upload(XHost.data(), N);

  { // The block scan over uint32 values.
    std::vector<uint32_t> Values(N), PeerOut(N);
    for (uint32_t I = 0; I < N; ++I)
      Values[I] = std::bit_cast<uint32_t>(XHost[I]) >> 3;
    xpu::KernelBuffer<uint32_t> In(N), Out(N);
    In.upload(Values.data(), N);
    addRow(
        Config, Table, RowNamed("block scan uint32", 8.0), Out, PeerOut,
        [&] { Launch("Bench.blockScan", Out, In); },
        [&] { blockScanPeer(PeerOut.data(), Values.data(), N, Block); });
  }
  { // Butterfly sums of squares over each wave.
    std::vector<float> PeerOut(N);
    xpu::KernelBuffer<float> Out(N);
    addRow(
        Config, Table, RowNamed("wave sums float32", 8.0), Out, PeerOut,
        [&] { Launch("Bench.waveSums", Out, X); },
        [&] { waveSumsOfSquaresPeer(PeerOut.data(), XHost.data(), N, Width); });
  }
  { // Ballots and a vote.
    const float T = 0.5f;
    std::vector<uint64_t> PeerOut(N);
    xpu::KernelBuffer<uint64_t> Out(N);
    addRow(
        Config, Table, RowNamed("wave votes", 12.0), Out, PeerOut,
        [&] { Launch("Bench.waveVotes", Out, X, T); },
        [&] { waveVotesPeer(PeerOut.data(), XHost.data(), N, Width, T); });
  }
}

} // namespace cajeta::bench
