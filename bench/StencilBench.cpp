// Workload 2: a 2D 5-point stencil on a W x H float32 grid, ours (2D launch) vs the OpenMP peer,
// plus a sweep over block shapes for our launch.
#include "CompareExact.h"
#include "HostArray.h"
#include "OmpPeers.h"
#include "Timing.h"
#include "Workloads.h"

#include <cajeta/xpu.hpp>

#include <algorithm>
#include <cstdio>

namespace cajeta::bench {

namespace xpu = cajeta::xpu;

namespace {

struct BlockShape {
  uint32_t X, Y;
};

std::string shapeName(uint32_t GX, uint32_t GY, BlockShape B) {
  return "blk " + std::to_string(B.X) + "x" + std::to_string(B.Y) + " grid " + std::to_string(GX) +
         "x" + std::to_string(GY);
}

} // namespace

void runStencil(const BenchConfig& Config, ResultTable& Table) {
  const uint32_t W = Config.StencilW, H = Config.StencilH;
  const size_t Cells = size_t(W) * H;
  const float C0 = 0.5f, C1 = 0.125f;
  HostArray In0(Cells), Zero(Cells);
  fillPattern(In0, 3);
  std::fill(Zero.begin(), Zero.end(), 0.0f);

  xpu::Program Program = compileKernels(Config, "stencil.cj");
  xpu::Kernel Stencil = Program.kernel("Bench.stencil");
  xpu::KernelStream& S = xpu::KernelStream::current();
  xpu::KernelBuffer<float> In(Cells), Out(Cells);
  In.upload(In0.data(), Cells);
  HostArray PIn(Cells), POut(Cells), Got(Cells);
  std::copy(In0.begin(), In0.end(), PIn.begin());

  auto peer = [&] { stencilPeer(POut.data(), PIn.data(), W, H, C0, C1); };
  auto oursWith = [&](BlockShape B) {
    uint32_t GX = (W + B.X - 1) / B.X, GY = (H + B.Y - 1) / B.Y;
    return [&, B, GX, GY] {
      Stencil.launch(S, xpu::grid(GX, GY), xpu::block(B.X, B.Y))(Out, In, W, H, C0, C1);
      S.sync();
    };
  };
  // Boundary cells are never written: both outputs start at zero, so they compare too.
  auto verify = [&](BlockShape B, std::string& Detail) {
    Out.upload(Zero.data(), Cells);
    oursWith(B)();
    Out.download(Got.data(), Cells);
    return compareExact(Got.data(), POut.data(), Cells, Detail);
  };
  std::fill(POut.begin(), POut.end(), 0.0f);
  peer();

  const BlockShape Kept{Config.StencilBlockX, Config.StencilBlockY};
  const uint32_t GX = (W + Kept.X - 1) / Kept.X, GY = (H + Kept.Y - 1) / Kept.Y;
  ResultRow Row;
  Row.Workload = "stencil5 " + std::to_string(W) + "x" + std::to_string(H);
  Row.Shape = shapeName(GX, GY, Kept);
  Row.Verified = verify(Kept, Row.Check);
  Row.Bytes = 8.0 * (double(W) - 2) * (double(H) - 2); // read in once, write out once
  PairTimes T = comparePair(Config.Warmup, Config.Reps, Config.Rounds, oursWith(Kept), peer);
  Row.setTimes(T);
  Table.add(Row);
  if (!Config.SweepBlocks || Config.Smoke)
    return;

  // The sweep: each shape verified, then timed with fewer runs (it is a guide, not the table).
  const BlockShape Shapes[] = {{32, 8},  {16, 16}, {8, 32},  {64, 4},  {128, 2},
                               {256, 1}, {64, 16}, {128, 8}, {1024, 1}};
  std::printf("stencil block-shape sweep (each shape timed beside the peer, 2 rounds of 3):\n");
  for (BlockShape B : Shapes) {
    std::string Detail;
    bool Ok = verify(B, Detail);
    PairTimes T = comparePair(2, 6, 2, oursWith(B), peer);
    double Ms = T.OursMs;
    std::printf(
        "  block %4ux%-3u  ours %8.3f ms  peer %8.3f ms  ratio %5.2fx  min ratio %5.2fx  %s\n", B.X,
        B.Y, Ms, T.PeerMs, T.PeerMs / Ms, T.PeerMinMs / T.OursMinMs, Ok ? "exact" : Detail.c_str());
    if (Ok)
      continue;
    ResultRow Bad; // a wrong result in the sweep fails the run like one in the table
    Bad.Workload = "stencil5 sweep";
    Bad.Shape = shapeName((W + B.X - 1) / B.X, (H + B.Y - 1) / B.Y, B);
    Bad.Check = Detail;
    Bad.OursMs = Bad.PeerMs = Ms;
    Table.add(std::move(Bad));
  }
}

} // namespace cajeta::bench
