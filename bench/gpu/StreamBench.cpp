// saxpy and triad, ours beside nvcc's on the same data, and triad against cuMemcpyDtoD bandwidth.
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

  xpu::KernelBuffer<float> OursX(N), OursY(N), OursA(N);
  PeerBuffer PeerX(N), PeerY(N), PeerA(N);
  OursX.upload(X);
  PeerX.upload(X.data());
  const double Bytes = 12.0 * N; // saxpy: x, y read, y written; triad: b, c read, a written

  if (C.Options.wants("saxpy")) {
    xpu::Program P = C.load("saxpy");
    xpu::Kernel Saxpy = P.kernel("GpuBench.saxpy");
    // One step on fresh data, checked, before the timed steps.
    OursY.upload(Y);
    PeerY.upload(Y.data());
    Saxpy.launch(C.Stream, xpu::grid(Blocks), xpu::block(256))(OursY, OursX, A, N);
    C.Stream.sync();
    C.Peers.saxpy(PeerY, PeerX, A, N, 1);
    std::vector<float> Ours, Peer(N), Host(N);
    OursY.download(Ours);
    PeerY.download(Peer.data());
    for (uint32_t I = 0; I < N; ++I)
      Host[I] = std::fma(A, X[I], Y[I]);
    std::string Check = checkExact(C, "saxpy", Ours, Peer, Host);
    Medians M = measure(
        C, Batch,
        [&] { Saxpy.launch(C.Stream, xpu::grid(Blocks), xpu::block(256))(OursY, OursX, A, N); },
        [&](int B) { return C.Peers.saxpy(PeerY, PeerX, A, N, B); });
    addRow(C, M,
           ResultRow{"saxpy n=" + sizeText(N), "nvcc -O3 sm_90", M.Ours, M.PeerWall, M.PeerGpu,
                     Bytes, Bytes, "GB/s", 0.95, Check});
  }

  if (!C.Options.wants("triad"))
    return;
  xpu::Program P = C.load("triad");
  xpu::Kernel Triad = P.kernel("GpuBench.triad");
  // a = b + s*c with b = Y, c = X.
  OursY.upload(Y);
  PeerY.upload(Y.data());
  Triad.launch(C.Stream, xpu::grid(Blocks), xpu::block(256))(OursA, OursY, OursX, A, N);
  C.Stream.sync();
  C.Peers.triad(PeerA, PeerY, PeerX, A, N, 1);
  std::vector<float> Ours, Peer(N), Host(N);
  OursA.download(Ours);
  PeerA.download(Peer.data());
  for (uint32_t I = 0; I < N; ++I)
    Host[I] = std::fma(A, X[I], Y[I]);
  std::string Check = checkExact(C, "triad", Ours, Peer, Host);
  Medians M = measure(
      C, Batch,
      [&] {
        Triad.launch(C.Stream, xpu::grid(Blocks), xpu::block(256))(OursA, OursY, OursX, A, N);
      },
      [&](int B) { return C.Peers.triad(PeerA, PeerY, PeerX, A, N, B); });
  addRow(C, M,
         ResultRow{"triad n=" + sizeText(N), "nvcc -O3 sm_90", M.Ours, M.PeerWall, M.PeerGpu, Bytes,
                   Bytes, "GB/s", 0.95, Check});

  // The copy peer: N floats device to device, 8 N bytes moved; our triad (12 N) against it.
  std::vector<float> Copied(N);
  C.Peers.copyDtoD(PeerA, PeerX, 1);
  PeerA.download(Copied.data());
  size_t First = 0;
  std::string CopyCheck = countBitDifferences(Copied, X, First) ? "copy MISMATCH" : "copy exact";
  if (CopyCheck != "copy exact")
    C.fail("cuMemcpyDtoDAsync did not copy x exactly");
  Medians Copy = measure(
      C, Batch,
      [&] {
        Triad.launch(C.Stream, xpu::grid(Blocks), xpu::block(256))(OursA, OursY, OursX, A, N);
      },
      [&](int B) { return C.Peers.copyDtoD(PeerA, PeerX, B); });
  addRow(C, Copy,
         ResultRow{"triad vs copy bandwidth n=" + sizeText(N), "cuMemcpyDtoDAsync", Copy.Ours,
                   Copy.PeerWall, Copy.PeerGpu, Bytes, 8.0 * N, "GB/s", 0.92, CopyCheck});

  // The same triad as a grid-stride loop over a fixed grid (16 workgroups of 256 per SM), the
  // shape STREAM-like kernels use to keep every SM's memory pipeline full; same check, same peer.
  xpu::Kernel Strided = P.kernel("GpuBench.triadStrided");
  const uint32_t StridedBlocks = P.device().computeUnits() * 16;
  OursA.upload(std::vector<float>(N, 0.0f));
  Strided.launch(C.Stream, xpu::grid(StridedBlocks), xpu::block(256))(OursA, OursY, OursX, A, N);
  C.Stream.sync();
  std::vector<float> OursStrided;
  OursA.download(OursStrided);
  std::string StridedCheck = checkExact(C, "triad grid-stride", OursStrided, Peer, Host);
  Medians S = measure(
      C, Batch,
      [&] {
        Strided.launch(C.Stream, xpu::grid(StridedBlocks), xpu::block(256))(OursA, OursY, OursX, A,
                                                                            N);
      },
      [&](int B) { return C.Peers.copyDtoD(PeerA, PeerX, B); });
  addRow(C, S,
         ResultRow{"triad grid-stride (" + std::to_string(StridedBlocks) +
                       "x256) vs copy bandwidth n=" + sizeText(N),
                   "cuMemcpyDtoDAsync", S.Ours, S.PeerWall, S.PeerGpu, Bytes, 8.0 * N, "GB/s", 0.92,
                   StridedCheck});
}

} // namespace cajeta::gpubench
