// saxpy and triad, ours beside nvcc's on the same data, and triad against cuMemcpyDtoD bandwidth;
// each of ours also on the Vulkan backend beside the cuda backend.
#include "GpuWorkloads.h"

#include <cmath>

namespace cajeta::gpubench {

namespace {

/// Compares ours with the peer's and with the host's fma reference, all bit for bit.
std::string checkExact(GpuBenchContext& C, const char* What, const std::vector<float>& Ours,
                       const std::vector<float>& Peer, const std::vector<float>& Host) {
  size_t First = 0;
  size_t PeerDiff = countBitDifferences(Ours, Peer, First);
  if (PeerDiff) {
    C.fail(std::string(What) + ": ours and the nvcc peer differ in " + std::to_string(PeerDiff) +
           " elements, first at " + std::to_string(First) + " (" + std::to_string(Ours[First]) +
           " vs " + std::to_string(Peer[First]) + ")");
    return "MISMATCH vs peer (" + std::to_string(PeerDiff) + " elements)";
  }
  size_t HostDiff = countBitDifferences(Ours, Host, First);
  if (HostDiff) {
    C.fail(std::string(What) + ": differs from the host fma reference in " +
           std::to_string(HostDiff) + " elements, first at " + std::to_string(First));
    return "MISMATCH vs host fma (" + std::to_string(HostDiff) + " elements)";
  }
  return "bit-exact (peer, host fma)";
}

} // namespace

void runStreamBench(GpuBenchContext& C) {
  const uint32_t N = C.Options.StreamN;
  const uint32_t Blocks = (N + 255) / 256;
  const float A = 1.5f;
  const int Batch = C.Options.Batch;
  std::vector<float> X = makeData(N, 1), Y = makeData(N, 2);
  xpu::KernelStream& S = C.Cuda.stream();
  const xpu::Dim3 Grid = xpu::grid(Blocks), Block = xpu::block(256);

  xpu::KernelBuffer<float> OursX = C.Cuda.buffer(X), OursY = C.Cuda.buffer(N),
                           OursA = C.Cuda.buffer(N);
  PeerBuffer PeerX(N), PeerY(N), PeerA(N);
  PeerX.upload(X.data());
  const double Bytes = 12.0 * N; // saxpy: x, y read, y written; triad: b, c read, a written

  if (C.Options.wants("saxpy")) {
    xpu::Program P = C.Cuda.load("saxpy");
    xpu::Kernel Saxpy = P.kernel("GpuBench.saxpy");
    // One step on fresh data, checked, before the timed steps.
    OursY.upload(Y);
    PeerY.upload(Y.data());
    Saxpy.launch(S, Grid, Block)(OursY, OursX, A, N);
    S.sync();
    C.Peers.saxpy(PeerY, PeerX, A, N, 1);
    std::vector<float> Ours, Peer(N), Host(N);
    OursY.download(Ours);
    PeerY.download(Peer.data());
    for (uint32_t I = 0; I < N; ++I)
      Host[I] = std::fma(A, X[I], Y[I]);
    std::string Check = checkExact(C, "saxpy", Ours, Peer, Host);
    auto cudaSaxpy = [&] { Saxpy.launch(S, Grid, Block)(OursY, OursX, A, N); };
    Medians M =
        measure(C, Batch, cudaSaxpy, [&](int B) { return C.Peers.saxpy(PeerY, PeerX, A, N, B); });
    addRow(C, M,
           ResultRow{"saxpy n=" + sizeText(N), "nvcc -O3 sm_90", M.Ours, M.PeerWall, M.PeerGpu,
                     Bytes, Bytes, "GB/s", 0.95, Check});
    compareBackends(C, BackendRow{"saxpy n=" + sizeText(N), "memory-bound", MemoryBoundTarget},
                    M.Ours, [&](OursDevice& V, BackendRow& R) {
                      xpu::Kernel VSaxpy = V.load("saxpy").kernel("GpuBench.saxpy");
                      xpu::KernelBuffer<float> VX = V.buffer(X), VY = V.buffer(Y);
                      VSaxpy.launch(V.stream(), Grid, Block)(VY, VX, A, N);
                      V.stream().sync();
                      std::vector<float> Got;
                      VY.download(Got);
                      R.Check = checkAgainstCuda(C, "saxpy", Got, Ours);
                      BackendMedians T = timeBackends(C, Batch, cudaSaxpy, [&] {
                        VSaxpy.launch(V.stream(), Grid, Block)(VY, VX, A, N);
                      });
                      R.CudaMs = T.CudaMs;
                      R.VulkanMs = T.VulkanMs;
                    });
  }

  if (C.Options.wants("saxpy")) {
    // The round trip: one launch of a 4 M-element saxpy, then sync, alone; Vulkan at most 1.5x
    // the CUDA time.
    constexpr uint32_t Small = 1u << 22;
    std::vector<float> SmallX(X.begin(), X.begin() + Small), SmallY(Y.begin(), Y.begin() + Small);
    xpu::Kernel Saxpy = C.Cuda.load("saxpy").kernel("GpuBench.saxpy");
    xpu::KernelBuffer<float> CX = C.Cuda.buffer(SmallX), CY = C.Cuda.buffer(SmallY);
    const xpu::Dim3 SmallGrid = xpu::grid(Small / 256);
    auto cudaOnce = [&] { Saxpy.launch(S, SmallGrid, Block)(CY, CX, A, Small); };
    cudaOnce();
    S.sync();
    std::vector<float> Ours;
    CY.download(Ours);
    compareBackends(C, BackendRow{"saxpy n=2^22, one launch + sync", "round trip", 1.5}, 0,
                    [&](OursDevice& V, BackendRow& R) {
                      xpu::Kernel VSaxpy = V.load("saxpy").kernel("GpuBench.saxpy");
                      xpu::KernelBuffer<float> VX = V.buffer(SmallX), VY = V.buffer(SmallY);
                      auto vulkanOnce = [&] {
                        VSaxpy.launch(V.stream(), SmallGrid, Block)(VY, VX, A, Small);
                      };
                      vulkanOnce();
                      V.stream().sync();
                      std::vector<float> Got;
                      VY.download(Got);
                      R.Check = checkAgainstCuda(C, "saxpy", Got, Ours);
                      BackendMedians T = timeBackends(C, 1, cudaOnce, vulkanOnce);
                      R.CudaMs = T.CudaMs;
                      R.VulkanMs = T.VulkanMs;
                    });
  }

  if (!C.Options.wants("triad"))
    return;
  xpu::Program P = C.Cuda.load("triad");
  xpu::Kernel Triad = P.kernel("GpuBench.triad");
  // a = b + s*c with b = Y, c = X.
  OursY.upload(Y);
  PeerY.upload(Y.data());
  Triad.launch(S, Grid, Block)(OursA, OursY, OursX, A, N);
  S.sync();
  C.Peers.triad(PeerA, PeerY, PeerX, A, N, 1);
  std::vector<float> Ours, Peer(N), Host(N);
  OursA.download(Ours);
  PeerA.download(Peer.data());
  for (uint32_t I = 0; I < N; ++I)
    Host[I] = std::fma(A, X[I], Y[I]);
  std::string Check = checkExact(C, "triad", Ours, Peer, Host);
  auto cudaTriad = [&] { Triad.launch(S, Grid, Block)(OursA, OursY, OursX, A, N); };
  Medians M = measure(C, Batch, cudaTriad,
                      [&](int B) { return C.Peers.triad(PeerA, PeerY, PeerX, A, N, B); });
  addRow(C, M,
         ResultRow{"triad n=" + sizeText(N), "nvcc -O3 sm_90", M.Ours, M.PeerWall, M.PeerGpu, Bytes,
                   Bytes, "GB/s", 0.95, Check});
  compareBackends(C, BackendRow{"triad n=" + sizeText(N), "memory-bound", MemoryBoundTarget},
                  M.Ours, [&](OursDevice& V, BackendRow& R) {
                    xpu::Kernel VTriad = V.load("triad").kernel("GpuBench.triad");
                    xpu::KernelBuffer<float> VA = V.buffer(N), VB = V.buffer(Y), VC = V.buffer(X);
                    VTriad.launch(V.stream(), Grid, Block)(VA, VB, VC, A, N);
                    V.stream().sync();
                    std::vector<float> Got;
                    VA.download(Got);
                    R.Check = checkAgainstCuda(C, "triad", Got, Ours);
                    BackendMedians T = timeBackends(C, Batch, cudaTriad, [&] {
                      VTriad.launch(V.stream(), Grid, Block)(VA, VB, VC, A, N);
                    });
                    R.CudaMs = T.CudaMs;
                    R.VulkanMs = T.VulkanMs;
                  });

  // The copy peer: N floats device to device, 8 N bytes moved; our triad (12 N) against it.
  std::vector<float> Copied(N);
  C.Peers.copyDtoD(PeerA, PeerX, 1);
  PeerA.download(Copied.data());
  size_t First = 0;
  std::string CopyCheck = countBitDifferences(Copied, X, First) ? "copy MISMATCH" : "copy exact";
  if (CopyCheck != "copy exact")
    C.fail("cuMemcpyDtoDAsync did not copy x exactly");
  Medians Copy =
      measure(C, Batch, cudaTriad, [&](int B) { return C.Peers.copyDtoD(PeerA, PeerX, B); });
  addRow(C, Copy,
         ResultRow{"triad vs copy bandwidth n=" + sizeText(N), "cuMemcpyDtoDAsync", Copy.Ours,
                   Copy.PeerWall, Copy.PeerGpu, Bytes, 8.0 * N, "GB/s", 0.92, CopyCheck});

  // The same triad as a grid-stride loop over a fixed grid (16 workgroups of 256 per SM), the
  // shape STREAM-like kernels use to keep every SM's memory pipeline full; same check, same peer.
  // The grid comes from the cuda device's SM count on both backends (Vulkan does not report
  // one), so both run the same geometry on the same GPU.
  xpu::Kernel Strided = P.kernel("GpuBench.triadStrided");
  const uint32_t StridedBlocks = C.Cuda.device().computeUnits() * 16;
  const xpu::Dim3 StridedGrid = xpu::grid(StridedBlocks);
  OursA.upload(std::vector<float>(N, 0.0f));
  Strided.launch(S, StridedGrid, Block)(OursA, OursY, OursX, A, N);
  S.sync();
  std::vector<float> OursStrided;
  OursA.download(OursStrided);
  std::string StridedCheck = checkExact(C, "triad grid-stride", OursStrided, Peer, Host);
  auto cudaStrided = [&] { Strided.launch(S, StridedGrid, Block)(OursA, OursY, OursX, A, N); };
  Medians St =
      measure(C, Batch, cudaStrided, [&](int B) { return C.Peers.copyDtoD(PeerA, PeerX, B); });
  const std::string StridedName =
      "triad grid-stride (" + std::to_string(StridedBlocks) + "x256) n=" + sizeText(N);
  addRow(C, St,
         ResultRow{"triad grid-stride (" + std::to_string(StridedBlocks) +
                       "x256) vs copy bandwidth n=" + sizeText(N),
                   "cuMemcpyDtoDAsync", St.Ours, St.PeerWall, St.PeerGpu, Bytes, 8.0 * N, "GB/s",
                   0.92, StridedCheck});
  compareBackends(C, BackendRow{StridedName, "memory-bound", MemoryBoundTarget}, St.Ours,
                  [&](OursDevice& V, BackendRow& R) {
                    xpu::Kernel VStrided = V.load("triad").kernel("GpuBench.triadStrided");
                    xpu::KernelBuffer<float> VA = V.buffer(std::vector<float>(N, 0.0f)),
                                             VB = V.buffer(Y), VC = V.buffer(X);
                    VStrided.launch(V.stream(), StridedGrid, Block)(VA, VB, VC, A, N);
                    V.stream().sync();
                    std::vector<float> Got;
                    VA.download(Got);
                    R.Check = checkAgainstCuda(C, "triad grid-stride", Got, OursStrided);
                    BackendMedians T = timeBackends(C, Batch, cudaStrided, [&] {
                      VStrided.launch(V.stream(), StridedGrid, Block)(VA, VB, VC, A, N);
                    });
                    R.CudaMs = T.CudaMs;
                    R.VulkanMs = T.VulkanMs;
                  });
}

} // namespace cajeta::gpubench
