// float32 sum built on wave ops beside CUB's DeviceReduce::Sum, on the cuda backend and
// on the Vulkan backend of the same GPU.
#include "GpuWorkloads.h"

#include <cmath>

namespace cajeta::gpubench {

namespace {

constexpr double Tolerance = 1e-5; // relative to the float64 sum of the same floats

std::string format(const char* Fmt, double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), Fmt, V);
  return Buf;
}

/// wavereduce.cj's two passes on one device: G partials of X, then their total in Out[0].
class WaveSum {
public:
  WaveSum(OursDevice& D, const std::vector<float>& Data, uint32_t G)
      : D(D), K(D.load("wavereduce").kernel("GpuBench.waveSum")), X(D.buffer(Data)),
        Partials(D.buffer(G)), Out(D.buffer(1)), N(uint32_t(Data.size())), G(G) {}

  void enqueue() {
    K.launch(D.stream(), xpu::grid(G), xpu::block(256))(Partials, X, N);
    K.launch(D.stream(), xpu::grid(1), xpu::block(256))(Out, Partials, G);
  }
  float run() {
    enqueue();
    D.stream().sync();
    float Total = 0;
    Out.download(&Total, 1);
    return Total;
  }

private:
  OursDevice& D;
  xpu::Kernel K;
  xpu::KernelBuffer<float> X, Partials, Out;
  uint32_t N, G;
};

} // namespace

void runWaveReduceBench(GpuBenchContext& C) {
  if (!C.Options.wants("wavesum"))
    return;
  const uint32_t N = C.Options.ReduceN;
  // As the shared-memory sum: enough workgroups of 256 to fill every SM, the same G on Vulkan.
  const uint32_t G = C.Cuda.device().computeUnits() * 8;
  const int Batch = C.Options.Batch;
  const double Bytes = 4.0 * N;
  std::vector<float> X = makeData(N, 3);
  double Reference = 0;
  for (float V : X)
    Reference += V;
  PeerBuffer PeerX(N), PeerOut(1);
  PeerX.upload(X.data());
  C.Peers.cubSum(PeerOut, PeerX, N, 1);
  float PeerTotal = 0;
  PeerOut.download(&PeerTotal);
  auto cub = [&](int B) { return C.Peers.cubSum(PeerOut, PeerX, N, B); };
  // The check of one side's total against the float64 sum (and CUB's beside it).
  auto checkTotal = [&](const std::string& Side, float Total) {
    double Err = std::fabs(Total - Reference) / std::fabs(Reference);
    double PeerErr = std::fabs(PeerTotal - Reference) / std::fabs(Reference);
    std::string Check =
        "rel. err " + format("%.1e", Err) + " (CUB " + format("%.1e", PeerErr) + ") vs float64 sum";
    if (Err <= Tolerance && PeerErr <= Tolerance)
      return Check;
    C.fail("wave sum on " + Side + ": " + format("%.9g", Total) + ", CUB " +
           format("%.9g", PeerTotal) + ", float64 reference " + format("%.9g", Reference) +
           ": relative error above 1e-5");
    return "MISMATCH: " + Check;
  };
  const std::string Shape = "n=" + sizeText(N) + ", 2 launches, G=" + std::to_string(G);

  if (!C.Cuda.device().supports(xpu::Capability::WaveOps)) {
    C.Table.add(ResultRow{"wave sum on cuda (" + Shape + ")", "CUB DeviceReduce::Sum", 0, 0, 0,
                          Bytes, Bytes, "GB/s", 0.95,
                          "not run: the cuda device does not report wave-ops"});
    return;
  }
  WaveSum Cuda(C.Cuda, X, G);
  float CudaTotal = Cuda.run();
  std::string Check = checkTotal("cuda", CudaTotal);
  auto cudaSum = [&] { Cuda.enqueue(); };
  Medians M = measure(C, Batch, cudaSum, cub);
  addRow(C, M,
         ResultRow{"wave sum on cuda (" + Shape + ")", "CUB DeviceReduce::Sum", M.Ours, M.PeerWall,
                   M.PeerGpu, Bytes, Bytes, "GB/s", 0.95, Check});

  // On Vulkan: against CUB too (the target is the same there), then beside cuda.
  compareBackends(C, BackendRow{"wave sum (" + Shape + ")", "wave ops", 0}, M.Ours,
                  [&](OursDevice& V, BackendRow& R) {
                    if (!V.device().supports(xpu::Capability::WaveOps)) {
                      R.Check = "not run: " + V.describe() + " does not report wave-ops";
                      return;
                    }
                    WaveSum Vulkan(V, X, G);
                    float VulkanTotal = Vulkan.run();
                    // The same partials in the same butterfly order at the same wave width (32 on
                    // NVIDIA): the totals agree bit for bit.
                    R.Check = checkAgainstCuda(C, "wave sum", {VulkanTotal}, {CudaTotal}) + " (" +
                              format("%.9g", VulkanTotal) + ")";
                    auto vulkanSum = [&] { Vulkan.enqueue(); };
                    Medians MV = measure(C, Batch, vulkanSum, cub, &V);
                    C.Table.add(ResultRow{"wave sum on Vulkan (" + Shape + ")",
                                          "CUB DeviceReduce::Sum", MV.Ours, MV.PeerWall, MV.PeerGpu,
                                          Bytes, Bytes, "GB/s", 0.95,
                                          checkTotal("vulkan", VulkanTotal)});
                    BackendMedians T = timeBackends(C, Batch, cudaSum, vulkanSum);
                    R.CudaMs = T.CudaMs;
                    R.VulkanMs = T.VulkanMs;
                  });
}

} // namespace cajeta::gpubench
