// Workload 5: 256-bin histogram of n uint8 values with atomics, privatised per workgroup in
// shared memory, vs the OpenMP peer with per-thread private histograms; counts compared exactly.
#include "CompareExact.h"
#include "OmpPeers.h"
#include "Timing.h"
#include "Workloads.h"

#include <cajeta/xpu.hpp>

#include <bit>
#include <cstdio>
#include <vector>

namespace cajeta::bench {

namespace xpu = cajeta::xpu;

namespace {

constexpr uint32_t BinCount = 256;

/// Deterministic bytes, skewed (the low bins are hit more often) so that some bins contend.
std::vector<uint8_t> makeBytes(uint32_t N) {
  std::vector<uint8_t> Bytes(N);
  unsigned long long S = 0x9E3779B97F4A7C15ull * 8;
  for (uint8_t& B : Bytes) {
    S ^= S << 13;
    S ^= S >> 7;
    S ^= S << 17;
    unsigned V = unsigned(S >> 40) & 0xFFFF;
    B = uint8_t((V & 0xFF) & (V >> 8 | 0x0F)); // clears high bits now and then
  }
  return Bytes;
}

} // namespace

void runHistogram(const BenchConfig& Config, ResultTable& Table) {
  const uint32_t N = Config.HistogramN;
  const uint32_t Block = Config.HistogramBlock, Groups = Config.HistogramGroups;
  std::vector<uint8_t> Data0 = makeBytes(N);
  const std::vector<uint32_t> Zero(BinCount, 0u);

  xpu::Program Program = compileKernels(Config, "histogram.cj");
  xpu::Kernel Histogram = Program.kernel("Bench.histogram");
  xpu::KernelStream& S = xpu::KernelStream::current();
  xpu::KernelBuffer<uint8_t> Data(N);
  xpu::KernelBuffer<uint32_t> Bins(BinCount);
  Data.upload(Data0.data(), N);
  std::vector<uint8_t> PData = Data0;
  std::vector<uint32_t> PBins(BinCount), Got(BinCount);

  // Each run starts from zeroed bins on both sides (the peer zeroes its own).
  auto Ours = [&] {
    Bins.upload(Zero.data(), BinCount);
    Histogram.launch(S, xpu::grid(Groups), xpu::block(Block))(Bins, Data, N);
    S.sync();
  };
  auto Peer = [&] { histogramPeer(PBins.data(), PData.data(), N); };

  Ours();
  Peer();
  Bins.download(Got.data(), BinCount);
  ResultRow Row;
  Row.Workload = "histogram256 n=" + sizeName(N) + " uint8";
  Row.Shape = "grid " + std::to_string(Groups) + " x blk " + std::to_string(Block);
  Row.Verified = compareCounts(Got.data(), PBins.data(), BinCount, Row.Check);
  uint64_t Total = 0;
  for (uint32_t C : Got)
    Total += C;
  if (Total != N) {
    Row.Verified = false;
    Row.Check += "; our counts add up to " + std::to_string(Total) + ", not n=" + std::to_string(N);
  }
  Row.Bytes = double(N) + 4.0 * BinCount; // read the bytes once, write the bins
  PairTimes T = comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer);
  Row.setTimes(T);
  Table.add(std::move(Row));
}

} // namespace cajeta::bench
