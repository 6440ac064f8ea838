// Tiled shared-memory matrix multiply, ours beside the same algorithm in CUDA C++ (nvcc), and on
// the Vulkan backend beside the cuda backend.
#include "GpuWorkloads.h"

#include <cmath>

namespace cajeta::gpubench {

void runMatMulBench(GpuBenchContext& C) {
  if (!C.Options.wants("matmul"))
    return;
  const uint32_t N = C.Options.MatN;
  const size_t Elems = size_t(N) * N;
  xpu::Program P = C.Cuda.load("matmul");
  xpu::Kernel MatMul = P.kernel("GpuBench.matmul");
  xpu::KernelStream& S = C.Cuda.stream();
  std::vector<float> A = makeData(Elems, 4), B = makeData(Elems, 5);
  xpu::KernelBuffer<float> OursA = C.Cuda.buffer(A), OursB = C.Cuda.buffer(B),
                           OursC = C.Cuda.buffer(Elems);
  PeerBuffer PeerA(Elems), PeerB(Elems), PeerC(Elems);
  PeerA.upload(A.data());
  PeerB.upload(B.data());
  const uint32_t Tiles = (N + 15) / 16;
  const xpu::Dim3 Grid = xpu::grid(Tiles, Tiles), Block = xpu::block(16, 16);
  auto ours = [&] { MatMul.launch(S, Grid, Block)(OursC, OursA, OursB, N, N, N); };
  ours();
  S.sync();
  C.Peers.matmul(PeerC, PeerA, PeerB, N, N, N, 1);
  std::vector<float> Ours, Peer(Elems);
  OursC.download(Ours);
  PeerC.download(Peer.data());
  size_t First = 0;
  size_t Diff = countBitDifferences(Ours, Peer, First);
  std::string Check = "bit-exact vs peer";
  if (Diff) {
    C.fail("matmul: ours and the nvcc peer differ in " + std::to_string(Diff) +
           " elements, first at " + std::to_string(First));
    Check = "MISMATCH vs peer (" + std::to_string(Diff) + " elements)";
  }
  // 64 elements against a float64 dot product on the host.
  double Worst = 0;
  for (uint32_t S = 0; S < 64; ++S) {
    size_t Row = (size_t(S) * 2654435761u) % N, Col = (size_t(S) * 40503u + 7) % N;
    double Ref = 0;
    for (uint32_t K = 0; K < N; ++K)
      Ref += double(A[Row * N + K]) * double(B[size_t(K) * N + Col]);
    Worst = std::max(Worst, std::fabs(Ours[Row * N + Col] - Ref) / std::max(1e-30, std::fabs(Ref)));
  }
  char Buf[96];
  std::snprintf(Buf, sizeof(Buf), "; 64 samples within %.1e of float64", Worst);
  Check += Buf;
  if (!(Worst <= 1e-4)) {
    C.fail("matmul: a sampled element is off the float64 reference by " + std::to_string(Worst));
    Check = "MISMATCH: " + Check;
  }
  const int Batch = std::max(1, C.Options.Batch / 5);
  Medians M = measure(C, Batch, ours,
                      [&](int Bt) { return C.Peers.matmul(PeerC, PeerA, PeerB, N, N, N, Bt); });
  const double Flops = 2.0 * N * double(N) * N;
  const std::string Name = "tiled matmul 16x16 " + std::to_string(N) + "^2";
  addRow(C, M,
         ResultRow{Name, "nvcc -O3 sm_90", M.Ours, M.PeerWall, M.PeerGpu, Flops, Flops, "TFLOP/s",
                   0.95, Check});
  compareBackends(
      C, BackendRow{Name, "barrier-heavy", BarrierHeavyTarget}, M.Ours,
      [&](OursDevice& V, BackendRow& R) {
        xpu::Kernel VMatMul = V.load("matmul").kernel("GpuBench.matmul");
        xpu::KernelBuffer<float> VA = V.buffer(A), VB = V.buffer(B), VC = V.buffer(Elems);
        auto vulkan = [&] { VMatMul.launch(V.stream(), Grid, Block)(VC, VA, VB, N, N, N); };
        vulkan();
        V.stream().sync();
        std::vector<float> Got;
        VC.download(Got);
        R.Check = checkAgainstCuda(C, "matmul", Got, Ours);
        BackendMedians T = timeBackends(C, Batch, ours, vulkan);
        R.CudaMs = T.CudaMs;
        R.VulkanMs = T.VulkanMs;
      });
}

} // namespace cajeta::gpubench
