// Workload 4: tiled matrix multiply C = A * B (n x n float32, 16x16 shared-memory tiles), ours
// vs the OpenMP peer with the same tiling and summation order; rate in GFLOP/s (2 n^3).
#include "CompareExact.h"
#include "HostArray.h"
#include "OmpPeers.h"
#include "Timing.h"
#include "Workloads.h"

#include <cajeta/xpu.hpp>

#include <algorithm>

namespace cajeta::bench {

namespace xpu = cajeta::xpu;

void runMatmul(const BenchConfig& Config, ResultTable& Table) {
  const uint32_t N = Config.MatmulN, Tile = 16;
  const uint32_t Tiles = (N + Tile - 1) / Tile;
  const size_t Elems = size_t(N) * N;
  HostArray A0(Elems), B0(Elems);
  fillPattern(A0, 5);
  fillPattern(B0, 6);

  xpu::Program Program = compileKernels(Config, "matmul.cj");
  xpu::Kernel Matmul = Program.kernel("Bench.matmul");
  xpu::KernelStream& S = xpu::KernelStream::current();
  xpu::KernelBuffer<float> A(Elems), B(Elems), C(Elems);
  A.upload(A0.data(), Elems);
  B.upload(B0.data(), Elems);
  HostArray PA(Elems), PB(Elems), PC(Elems), Got(Elems);
  std::copy(A0.begin(), A0.end(), PA.begin());
  std::copy(B0.begin(), B0.end(), PB.begin());

  auto Ours = [&] {
    Matmul.launch(S, xpu::grid(Tiles, Tiles), xpu::block(Tile, Tile))(C, A, B, N);
    S.sync();
  };
  auto Peer = [&] { matmulTiledPeer(PC.data(), PA.data(), PB.data(), N); };

  Ours();
  Peer();
  C.download(Got.data(), Elems);
  ResultRow Row;
  Row.Workload = "matmul " + std::to_string(N) + "x" + std::to_string(N) + " tiled 16x16";
  Row.Shape = "grid " + std::to_string(Tiles) + "x" + std::to_string(Tiles) + " x blk 16x16";
  Row.Verified = compareExact(Got.data(), PC.data(), Elems, Row.Check);
  Row.Bytes = 12.0 * double(Elems); // read A and B once, write C once (the minimum)
  Row.Flops = 2.0 * double(N) * double(N) * double(N);
  PairTimes T = comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer);
  Row.setTimes(T);
  Table.add(std::move(Row));
}

} // namespace cajeta::bench
