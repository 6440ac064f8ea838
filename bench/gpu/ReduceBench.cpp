// float32 sum: our two-pass shared-memory tree reduction beside CUB's DeviceReduce::Sum, and on
// the Vulkan backend beside the cuda backend.
#include "GpuWorkloads.h"

#include <cmath>

namespace cajeta::gpubench {

namespace {

constexpr double Tolerance = 1e-5; // relative to the float64 sum of the same floats

double relativeError(double Got, double Reference) {
  return std::fabs(Got - Reference) / std::fabs(Reference);
}

std::string format(const char* Fmt, double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), Fmt, V);
  return Buf;
}

} // namespace

void runReduceBench(GpuBenchContext& C) {
  if (!C.Options.wants("reduce"))
    return;
  const uint32_t N = C.Options.ReduceN;
  xpu::Program P = C.Cuda.load("reduce");
  xpu::Kernel Sum = P.kernel("GpuBench.sum");
  // Pass 1: enough workgroups of 256 to fill every SM (2048 resident work-items on sm_90); the
  // same G on Vulkan (which reports no SM count), so both add in the same order.
  const uint32_t G = C.Cuda.device().computeUnits() * 8;
  xpu::KernelStream& S = C.Cuda.stream();
  std::vector<float> X = makeData(N, 3);
  double Reference = 0;
  for (float V : X)
    Reference += V;

  xpu::KernelBuffer<float> OursX = C.Cuda.buffer(X), Partials = C.Cuda.buffer(G),
                           OursOut = C.Cuda.buffer(1);
  PeerBuffer PeerX(N), PeerOut(1);
  PeerX.upload(X.data());
  auto ours = [&] {
    Sum.launch(S, xpu::grid(G), xpu::block(256))(Partials, OursX, N);
    Sum.launch(S, xpu::grid(1), xpu::block(256))(OursOut, Partials, G);
  };
  ours();
  S.sync();
  C.Peers.cubSum(PeerOut, PeerX, N, 1);
  float OursTotal = 0, PeerTotal = 0;
  OursOut.download(&OursTotal, 1);
  PeerOut.download(&PeerTotal);
  double OursErr = relativeError(OursTotal, Reference);
  double PeerErr = relativeError(PeerTotal, Reference);
  std::string Check = "rel. err " + format("%.1e", OursErr) + " (CUB " + format("%.1e", PeerErr) +
                      ") vs float64 sum";
  if (!(OursErr <= Tolerance) || !(PeerErr <= Tolerance)) {
    C.fail("sum: ours " + format("%.9g", OursTotal) + ", CUB " + format("%.9g", PeerTotal) +
           ", float64 reference " + format("%.9g", Reference) + ": relative error above 1e-5");
    Check = "MISMATCH: " + Check;
  }
  Medians M = measure(C, C.Options.Batch, ours,
                      [&](int B) { return C.Peers.cubSum(PeerOut, PeerX, N, B); });
  const double Bytes = 4.0 * N;
  const std::string Name = "sum n=" + sizeText(N) + " (2 launches, G=" + std::to_string(G) + ")";
  addRow(C, M,
         ResultRow{Name, "CUB DeviceReduce::Sum", M.Ours, M.PeerWall, M.PeerGpu, Bytes, Bytes,
                   "GB/s", 0.95, Check});
  compareBackends(C, BackendRow{Name, "barrier-heavy", BarrierHeavyTarget}, M.Ours,
                  [&](OursDevice& V, BackendRow& R) {
                    xpu::Kernel VSum = V.load("reduce").kernel("GpuBench.sum");
                    xpu::KernelBuffer<float> VX = V.buffer(X), VPartials = V.buffer(G),
                                             VOut = V.buffer(1);
                    auto vulkan = [&] {
                      VSum.launch(V.stream(), xpu::grid(G), xpu::block(256))(VPartials, VX, N);
                      VSum.launch(V.stream(), xpu::grid(1), xpu::block(256))(VOut, VPartials, G);
                    };
                    vulkan();
                    V.stream().sync();
                    float VulkanTotal = 0;
                    VOut.download(&VulkanTotal, 1);
                    // The same partials in the same tree order: the totals agree bit for bit.
                    R.Check = checkAgainstCuda(C, "sum", {VulkanTotal}, {OursTotal}) + " (" +
                              format("%.9g", VulkanTotal) + ")";
                    BackendMedians T = timeBackends(C, C.Options.Batch, ours, vulkan);
                    R.CudaMs = T.CudaMs;
                    R.VulkanMs = T.VulkanMs;
                  });
}

} // namespace cajeta::gpubench
