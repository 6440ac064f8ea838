// Workload: kernels made of wave operations, each beside an OpenMP loop computing the same
// values in the same order: a workgroup's inclusive prefix sums (Wave.inclusivePrefixSum and the
// waves' totals through shared memory), butterfly sums of squares (Wave.reduceSum on float32),
// and votes (Wave.ballot, Wave.any). The results are compared bit for bit.
#include "CompareExact.h"
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

std::string sizeName(uint32_t N) {
  if (N && (N & (N - 1)) == 0)
    return "2^" + std::to_string(std::countr_zero(N));
  return std::to_string(N);
}

/// Whether the N values of Ours and Peer are equal bit for bit; Detail says where not.
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

void fillTimes(ResultRow& Row, const PairTimes& T) {
  Row.OursMs = T.OursMs;
  Row.PeerMs = T.PeerMs;
  Row.OursMinMs = T.OursMinMs;
  Row.PeerMinMs = T.PeerMinMs;
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
  const std::string Shape = "grid " + std::to_string(Groups) + " x blk " + std::to_string(Block);
  const std::string Tail = " n=" + sizeName(N) + " (width " + std::to_string(Width) + ")";

  HostArray X0(N);
  fillPattern(X0, 7);
  std::vector<float> XHost(X0.begin(), X0.end());
  xpu::KernelBuffer<float> X(N);
  X.upload(XHost.data(), N);

  { // The block scan over uint32 values.
    std::vector<uint32_t> Values(N), OursOut(N), PeerOut(N);
    for (uint32_t I = 0; I < N; ++I)
      Values[I] = std::bit_cast<uint32_t>(XHost[I]) >> 3;
    xpu::KernelBuffer<uint32_t> In(N), Out(N);
    In.upload(Values.data(), N);
    xpu::Kernel K = Program.kernel("Bench.blockScan");
    auto Ours = [&] {
      K.launch(S, xpu::grid(Groups), xpu::block(Block))(Out, In);
      S.sync();
    };
    auto Peer = [&] { blockScanPeer(PeerOut.data(), Values.data(), N, Block); };
    Ours();
    Peer();
    Out.download(OursOut.data(), N);
    ResultRow Row;
    Row.Workload = "block scan uint32" + Tail;
    Row.Shape = Shape;
    Row.Bytes = 8.0 * N;
    Row.Verified = sameBits(OursOut, PeerOut, Row.Check);
    fillTimes(Row, comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer));
    Table.add(std::move(Row));
  }
  { // Butterfly sums of squares over each wave.
    std::vector<float> OursOut(N), PeerOut(N);
    xpu::KernelBuffer<float> Out(N);
    xpu::Kernel K = Program.kernel("Bench.waveSums");
    auto Ours = [&] {
      K.launch(S, xpu::grid(Groups), xpu::block(Block))(Out, X);
      S.sync();
    };
    auto Peer = [&] { waveSumsOfSquaresPeer(PeerOut.data(), XHost.data(), N, Width); };
    Ours();
    Peer();
    Out.download(OursOut.data(), N);
    ResultRow Row;
    Row.Workload = "wave sums float32" + Tail;
    Row.Shape = Shape;
    Row.Bytes = 8.0 * N;
    Row.Verified = sameBits(OursOut, PeerOut, Row.Check);
    fillTimes(Row, comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer));
    Table.add(std::move(Row));
  }
  { // Ballots and a vote.
    const float T = 0.5f;
    std::vector<uint64_t> OursOut(N), PeerOut(N);
    xpu::KernelBuffer<uint64_t> Out(N);
    xpu::Kernel K = Program.kernel("Bench.waveVotes");
    auto Ours = [&] {
      K.launch(S, xpu::grid(Groups), xpu::block(Block))(Out, X, T);
      S.sync();
    };
    auto Peer = [&] { waveVotesPeer(PeerOut.data(), XHost.data(), N, Width, T); };
    Ours();
    Peer();
    Out.download(OursOut.data(), N);
    ResultRow Row;
    Row.Workload = "wave votes" + Tail;
    Row.Shape = Shape;
    Row.Bytes = 12.0 * N;
    Row.Verified = sameBits(OursOut, PeerOut, Row.Check);
    fillTimes(Row, comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer));
    Table.add(std::move(Row));
  }
}

} // namespace cajeta::bench
