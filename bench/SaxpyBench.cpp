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

  xpu::Program Program = xpu::Program::compileFile(Config.KernelDir + "/saxpy.cj");
  xpu::Kernel Saxpy = Program.kernel("Bench.saxpy");
  xpu::KernelStream& S = xpu::KernelStream::current();
  xpu::KernelBuffer<float> X(N), Y(N);
  X.upload(X0.data(), N);
  Y.upload(Y0.data(), N);
  HostArray PX(N), PY(N);
  std::copy(X0.begin(), X0.end(), PX.begin());
  std::copy(Y0.begin(), Y0.end(), PY.begin());

  auto Ours = [&] {
    Saxpy.launch(S, xpu::grid(Groups), xpu::block(Block))(Y, X, A, N);
    S.sync();
  };
  auto Peer = [&] { saxpyPeer(PY.data(), PX.data(), A, N); };

  // One run each from the same inputs, compared exactly; timing then keeps updating y in place
  // (values stay small: |y| grows by at most 0.75 per run).
  Ours();
  Peer();
  HostArray Got(N);
  Y.download(Got.data(), N);
  ResultRow Row;
  Row.Workload = Config.Smoke ? "saxpy n=" + std::to_string(N) : "saxpy n=2^24";
  Row.Shape = "grid " + std::to_string(Groups) + " x blk " + std::to_string(Block);
  Row.Verified = compareExact(Got.data(), PY.data(), N, Row.Check);
  Row.Bytes = 12.0 * N; // read x, read y, write y
  PairTimes T = comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer);
  Row.OursMs = T.OursMs;
  Row.PeerMs = T.PeerMs;
  Row.OursMinMs = T.OursMinMs;
  Row.PeerMinMs = T.PeerMinMs;
  Table.add(std::move(Row));
}

} // namespace cajeta::bench
