// Workload 1: saxpy (y = a*x + y) on n float32, ours vs the OpenMP peer.
#include "CompareExact.h"
#include "HostArray.h"
#include "OmpPeers.h"
#include "Timing.h"
#include "Workloads.h"

#include <cajeta/xpu.hpp>

#include <algorithm>

namespace cajeta::bench {

namespace xpu = cajeta::xpu;

void runSaxpy(const BenchConfig& Config, ResultTable& Table) {
  const uint32_t N = Config.SaxpyN;
  const uint32_t Block = 256, Groups = (N + Block - 1) / Block;
  const float A = 0.75f;
  HostArray X0(N), Y0(N);
  fillPattern(X0, 1);
  fillPattern(Y0, 2);

  xpu::Program Program = compileKernels(Config, "saxpy.cj");
  xpu::KernelStream& S = xpu::KernelStream::current();
  xpu::KernelBuffer<float> X(N), Y(N);
  X.upload(X0.data(), N);
  HostArray PX(N), PY(N), Got(N);
  std::copy(X0.begin(), X0.end(), PX.begin());

  // One row per kernel and grid: one run each from the same inputs, compared exactly; timing
  // then keeps updating y in place (values stay small: |y| grows by at most 0.75 per run).
  auto row = [&](const char* Kernel, const char* Suffix, uint32_t Grid) {
    xpu::Kernel K = Program.kernel(Kernel);
    Y.upload(Y0.data(), N);
    std::copy(Y0.begin(), Y0.end(), PY.begin());
    auto Ours = [&] {
      K.launch(S, xpu::grid(Grid), xpu::block(Block))(Y, X, A, N);
      S.sync();
    };
    auto Peer = [&] { saxpyPeer(PY.data(), PX.data(), A, N); };
    Ours();
    Peer();
    Y.download(Got.data(), N);
    ResultRow Row;
    Row.Workload =
        (Config.Smoke ? "saxpy n=" + std::to_string(N) : std::string("saxpy n=2^24")) + Suffix;
    Row.Shape = "grid " + std::to_string(Grid) + " x blk " + std::to_string(Block);
    Row.Verified = compareExact(Got.data(), PY.data(), N, Row.Check);
    Row.Bytes = 12.0 * N; // read x, read y, write y
    PairTimes T = comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer);
    Row.setTimes(T);
    Table.add(std::move(Row));
  };
  row("Bench.saxpy", "", Groups);
  // The grid-stride form over the same grid (one step each) and over 64 groups (many steps).
  row("Bench.saxpyRange", " range", Groups);
  row("Bench.saxpyRange", " range", std::min<uint32_t>(Groups, 64));
}

} // namespace cajeta::bench
