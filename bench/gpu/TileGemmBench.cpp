// Tile GEMM: C (float32) = A * B (float16 or bfloat16, row-major), our tile kernel beside cuBLAS's
// cublasGemmEx on the same data, checked against cuBLAS and against float64 on the host; and
// C (int32) = A * B (int8, B given transposed) beside cublasGemmEx's int8 form, exact.
#include "CutlassPeers.h"
#include "GpuWorkloads.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <type_traits>

namespace cajeta::gpubench {

namespace {

// Our kernel and its launch geometry, all in one place:
//   gemm16(KernelBuffer<float32> c, KernelBuffer<float16> a, KernelBuffer<float16> b,
//          uint32 m, uint32 n, uint32 k)
// with block(BlockThreads) work-items per workgroup, each workgroup computing a BlockM x BlockN
// block of C, grid(ceil(n / BlockN), ceil(m / BlockM)).
constexpr const char* BundleName = "tilegemm"; // BundleDir/tilegemm.cjx
constexpr const char* KernelName = "TileGemm.gemm16";
constexpr const char* BFloat16KernelName = "TileGemm.gemmBf16"; // the same with bfloat16 inputs
constexpr const char* Int8KernelName = "TileGemm.gemmInt8";     // int8, B transposed
constexpr uint32_t Int8DynamicSharedBytes = 110592;             // its 3 stages of A and bt
// 256 x 128 blocks of two warpgroups, four stages copied by AsyncCopy.copyBlock, a read from
// shared memory: wgmma's 8-bit products and the TMA on sm_90a.
constexpr const char* Int8BlockCopyKernelName = "TileGemm.gemmInt8t";
constexpr const char* Int8PersistentKernelName = "TileGemm.gemmInt8tp"; // gemmInt8t, persistent
constexpr const char* Int8VulkanKernelName = "TileGemm.gemmInt8v";      // 2 stages, for Vulkan
constexpr uint32_t Int8VulkanSharedBytes = 40960;
constexpr const char* Int8VulkanRowBKernelName = "TileGemm.gemmInt8vRowB"; // b k x n
constexpr uint32_t Int8VulkanRowBSharedBytes = 38912;
constexpr uint32_t BlockThreads = 128;
constexpr uint32_t BlockM = 128;                // rows of C per workgroup (grid y)
constexpr uint32_t BlockN = 128;                // columns of C per workgroup (grid x)
constexpr uint32_t DynamicSharedBytes = 107520; // the kernel's 3 stages of A and B
// On Vulkan (48 KiB of workgroup memory on the H200): the same kernel two stages deep, whose
// tiles are cooperative matrices where the device lists float16 into float32.
constexpr const char* VulkanKernelName = "TileGemm.gemm16v";
constexpr uint32_t VulkanDynamicSharedBytes = 37888;
constexpr uint32_t VulkanEightWaveSharedBytes = 33792;       // A's rows not padded
constexpr uint32_t VulkanEightWavePaddedSharedBytes = 37888; // as gemm16v's
constexpr double VulkanTarget = 1.5; // Vulkan time at most this times our CUDA time
// An element is right when |got - float64| <= Tolerance * sum_k |a_ik| |b_kj|.
constexpr double Tolerance = 1e-3;
constexpr uint32_t Samples = 64;    // elements checked against float64 on the host
constexpr double Target = 0.75;     // ratio ours / cuBLAS to reach with the mma.sync tier
constexpr double WgmmaTarget = 0.9; // with the wgmma tier (the 256 x 64 kernels, on sm_90a)

/// A kernel and its launch: block(Threads) work-items computing a BlockM x BlockN block of C
/// each, grid(ceil(n / BlockN), ceil(m / BlockM)), SharedBytes of dynamic shared memory.
struct Geometry {
  const char* Kernel;
  uint32_t BlockM, BlockN, Threads, SharedBytes;
  double Target;
  bool Vulkan;             // also run on the Vulkan backend beside our CUDA time
  const char* Label = "";  // what the row's name adds to the block's shape (" 4-stage")
  bool Persistent = false; // one workgroup a multiprocessor, each taking the blocks in turn
};

using Half = xpu::float16;
using BFloat16 = xpu::bfloat16;

/// A block of C a workgroup, or, for a persistent kernel, a workgroup a multiprocessor (at
/// most one a block).
xpu::Dim3 launchGrid(const Geometry& G, uint32_t M, uint32_t N, xpu::Device& Dev) {
  const uint32_t Across = (N + G.BlockN - 1) / G.BlockN, Down = (M + G.BlockM - 1) / G.BlockM;
  return G.Persistent ? xpu::grid(std::min(Across * Down, std::max(1u, Dev.computeUnits())))
                      : xpu::grid(Across, Down);
}

/// What differs between the float16 and the bfloat16 GEMM.
template <class T> struct Inputs;
template <> struct Inputs<Half> {
  static constexpr const char* Name = "f16";
  // 256 x 128 blocks of eight waves, b two atoms wide (98304 bytes of stages): mma.sync, or
  // wgmma's n = 128 on sm_90a (mma.sync where built with CAJETA_GPU_WGMMA_WIDE=0).
  static constexpr const char* WideKernel = "TileGemm.gemm16n";
  // 256 x 128 blocks, four stages copied by AsyncCopy.copyBlock (the TMA on sm_90a), a and b
  // read from shared memory (wgmma's n = 128), the workgroups grouped by eight block rows.
  static constexpr const char* SharedABlockKernel = "TileGemm.gemm16tg";
  // wgmma's n = 256: 128 x 256 blocks, B's stages in rows of four atoms, grouped.
  static constexpr const char* N256Kernel = "TileGemm.gemm16xg";
  // gemm16xg on one workgroup a multiprocessor, each computing blocks in turn, its copies
  // running ahead across them.
  static constexpr const char* PersistentKernel = "TileGemm.gemm16xp";
  static constexpr const char* VulkanKernel = VulkanKernelName;
  // The same geometry with its tiles loaded straight from the buffers (no workgroup memory).
  static constexpr const char* VulkanBufferKernel = "TileGemm.gemm16vg";
  // gemm16v with eight waves of 32 x 64 (half the registers a work-item).
  static constexpr const char* VulkanEightWaveKernel = "TileGemm.gemm16v8";
  // gemm16v8 with A's rows padded as gemm16v's.
  static constexpr const char* VulkanEightWavePaddedKernel = "TileGemm.gemm16v8p";
  // gemm16v8p with each step's copies waited for between its k-halves.
  static constexpr const char* VulkanEightWaveMidWaitKernel = "TileGemm.gemm16v8s";
  // gemm16v with each k-half's fragments loaded just before its product.
  static constexpr const char* VulkanHalfStepKernel = "TileGemm.gemm16vr";
  // gemm16vr with each step's copies waited for (stored, on Vulkan) between its k-halves.
  static constexpr const char* VulkanMidWaitKernel = "TileGemm.gemm16vs";
  static PeerTime peer(GpuBenchContext& C, PeerBuffer& Out, const PeerBytes& A, const PeerBytes& B,
                       uint32_t M, uint32_t N, uint32_t K, int Batch) {
    return C.Peers.gemmF16(Out, A, B, M, N, K, Batch);
  }
};
template <> struct Inputs<BFloat16> {
  static constexpr const char* Name = "bf16";
  static constexpr const char* WideKernel = "TileGemm.gemmBf16n";
  static constexpr const char* SharedABlockKernel = "TileGemm.gemmBf16t"; // not grouped
  static constexpr const char* N256Kernel = "TileGemm.gemmBf16xg";
  static constexpr const char* PersistentKernel = "TileGemm.gemmBf16xp";
  static constexpr const char* VulkanKernel = "TileGemm.gemmBf16v";
  static constexpr const char* VulkanBufferKernel = nullptr;
  static constexpr const char* VulkanEightWaveKernel = nullptr;
  static constexpr const char* VulkanHalfStepKernel = nullptr;
  static constexpr const char* VulkanEightWavePaddedKernel = nullptr;
  static constexpr const char* VulkanMidWaitKernel = nullptr;
  static constexpr const char* VulkanEightWaveMidWaitKernel = nullptr;
  static PeerTime peer(GpuBenchContext& C, PeerBuffer& Out, const PeerBytes& A, const PeerBytes& B,
                       uint32_t M, uint32_t N, uint32_t K, int Batch) {
    return C.Peers.gemmBf16(Out, A, B, M, N, K, Batch);
  }
};

/// N values of T, never zero: magnitude in [0.25, 1), sign random, from a hash of (Seed,
/// index) as makeData, so every run and both sides see the same matrices.
template <class T> std::vector<T> makeInputData(size_t N, uint32_t Seed) {
  std::vector<T> V(N);
  for (size_t I = 0; I < N; ++I) {
    uint64_t H = dataHash(Seed, I);
    float Mag = 0.25f + 0.75f * (float(H >> 40) * (1.0f / 16777216.0f));
    V[I] = T((H & 1) ? -Mag : Mag);
  }
  return V;
}

std::string sci(double V) {
  char Buf[32];
  std::snprintf(Buf, sizeof(Buf), "%.1e", V);
  return Buf;
}

/// Our mma.sync kernel (Ours enqueues one GEMM) beside the fastest of CUTLASS's sm80 GEMMs on
/// the same inputs: the hand-written form of the same tier. CUTLASS's result must lie within
/// Band(row, column) of cuBLAS's (Cublas); the row says which kernel won and the others' times.
template <class T>
void besideCutlass(GpuBenchContext& C, const std::function<void()>& Ours, const PeerBytes& A,
                   const PeerBytes& B, PeerBuffer& Out, const std::vector<float>& Cublas,
                   uint32_t M, uint32_t N, uint32_t K, const std::function<double(size_t)>& Band,
                   const std::string& Name, int Batch) {
  const std::vector<std::string>& Kernels = cutlassSm80Kernels();
  if (Kernels.empty())
    return;
  const bool IsBFloat16 = std::is_same_v<T, BFloat16>;
  auto enqueue = [&](size_t Kn) {
    return [&, Kn](void* Stream) {
      cutlassSm80Gemm(Kn, IsBFloat16, Out.data(), A.data(), B.data(), M, N, K, Stream);
    };
  };
  size_t Best = 0;
  double BestMs = 0;
  std::string Times;
  try {
    for (size_t Kn = 0; Kn < Kernels.size(); ++Kn) {
      C.Peers.timed(Batch, enqueue(Kn)); // warm-up
      double Ms = C.Peers.timed(Batch, enqueue(Kn)).GpuMs;
      Times += (Times.empty() ? "" : ", ") + Kernels[Kn] + " " + std::to_string(Ms) + " ms";
      if (Kn == 0 || Ms < BestMs)
        Best = Kn, BestMs = Ms;
    }
    C.Peers.timed(1, enqueue(Best));
  } catch (const std::exception& E) {
    C.fail(Name + " beside CUTLASS: " + E.what());
    return;
  }
  std::vector<float> Got(size_t(M) * N);
  Out.download(Got.data());
  size_t Off = 0;
  for (size_t X = 0; X < Got.size(); ++X)
    Off += !(std::fabs(double(Got[X]) - Cublas[X]) <= Band(X));
  std::string Check = "CUTLASS " +
                      std::string(Off ? std::to_string(Off) + " elements off" : "within") +
                      " cuBLAS's band; fastest of " + Times;
  if (Off)
    C.fail(Name + ": CUTLASS's product is off cuBLAS's on " + std::to_string(Off) + " elements");
  Medians Md = measure(C, Batch, Ours, [&](int Bt) { return C.Peers.timed(Bt, enqueue(Best)); });
  const double Flops = 2.0 * M * double(N) * K;
  addRow(C, Md,
         ResultRow{Name + " vs CUTLASS", cutlassVersion() + " sm80 " + Kernels[Best], Md.Ours,
                   Md.PeerWall, Md.PeerGpu, Flops, Flops, "TFLOP/s", 0, Check});
}

template <class T>
void runOne(GpuBenchContext& C, xpu::Kernel& Gemm, const Geometry& G, uint32_t Size,
            uint32_t Seed) {
  const uint32_t BlockM = G.BlockM, BlockN = G.BlockN, BlockThreads = G.Threads;
  const uint32_t M = Size, N = Size, K = Size;
  const size_t ElemsA = size_t(M) * K, ElemsB = size_t(K) * N, ElemsC = size_t(M) * N;
  xpu::KernelStream& S = C.Cuda.stream();
  xpu::Device& Dev = C.Cuda.device();
  std::vector<T> A = makeInputData<T>(ElemsA, Seed), B = makeInputData<T>(ElemsB, Seed + 1);
  xpu::KernelBuffer<T> OursA(Dev, ElemsA), OursB(Dev, ElemsB);
  xpu::KernelBuffer<float> OursC(Dev, ElemsC);
  OursA.upload(A);
  OursB.upload(B);
  PeerBytes PeerA(ElemsA * sizeof(T)), PeerB(ElemsB * sizeof(T));
  PeerBuffer PeerC(ElemsC);
  PeerA.upload(A.data());
  PeerB.upload(B.data());
  const xpu::Dim3 Grid = launchGrid(G, M, N, Dev), Block = xpu::block(BlockThreads);
  auto ours = [&] {
    Gemm.launch(S, Grid, Block,
                C.Options.TileGemmSharedBytes && G.Vulkan
                    ? C.Options.TileGemmSharedBytes
                    : G.SharedBytes)(OursC, OursA, OursB, M, N, K);
  };

  // C starts as NaN, so an element the kernel never writes cannot pass.
  std::vector<float> Ours(ElemsC, std::numeric_limits<float>::quiet_NaN()), Peer(ElemsC);
  OursC.upload(Ours);
  ours();
  S.sync();
  Inputs<T>::peer(C, PeerC, PeerA, PeerB, M, N, K, 1);
  OursC.download(Ours);
  PeerC.download(Peer.data());

  // Every element against cuBLAS, within the band on a bound of sum_k |a_ik| |b_kj| that costs
  // no GEMM on the host: K * max_k |a_ik| * max_k |b_kj| (at most 16x the sum here).
  std::vector<float> RowMaxA(M, 0.0f), ColMaxB(N, 0.0f);
  for (uint32_t I = 0; I < M; ++I)
    for (uint32_t Kk = 0; Kk < K; ++Kk)
      RowMaxA[I] = std::max(RowMaxA[I], std::fabs(float(A[size_t(I) * K + Kk])));
  for (uint32_t Kk = 0; Kk < K; ++Kk)
    for (uint32_t J = 0; J < N; ++J)
      ColMaxB[J] = std::max(ColMaxB[J], std::fabs(float(B[size_t(Kk) * N + J])));
  size_t NonFinite = 0, OffPeer = 0, First = ElemsC;
  for (uint32_t I = 0; I < M; ++I)
    for (uint32_t J = 0; J < N; ++J) {
      size_t X = size_t(I) * N + J;
      double Got = Ours[X], Want = Peer[X];
      bool Bad = !std::isfinite(Got);
      NonFinite += Bad;
      if (!Bad && std::fabs(Got - Want) > Tolerance * double(K) * RowMaxA[I] * ColMaxB[J]) {
        Bad = true;
        ++OffPeer;
      }
      if (Bad && First == ElemsC)
        First = X;
    }

  // Samples elements (the four corners first): both sides against float64 and ours against
  // cuBLAS, each error relative to that element's sum_k |a_ik| |b_kj|; the worst is reported.
  double WorstOurs = 0, WorstPeer = 0, WorstVsPeer = 0;
  for (uint32_t Sm = 0; Sm < Samples; ++Sm) {
    size_t Row = Sm < 4 ? (Sm & 1 ? M - 1 : 0) : (size_t(Sm) * 2654435761u) % M;
    size_t Col = Sm < 4 ? (Sm & 2 ? N - 1 : 0) : (size_t(Sm) * 40503u + 7) % N;
    double Ref = 0, AbsSum = 0;
    for (uint32_t Kk = 0; Kk < K; ++Kk) {
      double P = double(float(A[Row * K + Kk])) * double(float(B[size_t(Kk) * N + Col]));
      Ref += P;
      AbsSum += std::fabs(P);
    }
    double Got = Ours[Row * N + Col], Want = Peer[Row * N + Col];
    auto err = [&](double V, double R) {
      double E = std::fabs(V - R) / AbsSum;
      return std::isnan(E) ? std::numeric_limits<double>::infinity() : E;
    };
    WorstOurs = std::max(WorstOurs, err(Got, Ref));
    WorstPeer = std::max(WorstPeer, err(Want, Ref));
    WorstVsPeer = std::max(WorstVsPeer, err(Got, Want));
  }

  const std::string Name = std::string("tile gemm ") + Inputs<T>::Name + "->f32 " +
                           std::to_string(BlockM) + "x" + std::to_string(BlockN) + G.Label + " " +
                           std::to_string(Size) + "^3";
  std::string Check = (Gemm.tier("wgmma") == "native" ? "wgmma; " : "") +
                      std::string("64 samples: vs f64 ") + sci(WorstOurs) + " (cuBLAS " +
                      sci(WorstPeer) + "), vs cuBLAS " + sci(WorstVsPeer) + " of sum|a||b|";
  bool Ok = true;
  if (NonFinite || OffPeer) {
    C.fail("tilegemm " + std::to_string(Size) + ": " + std::to_string(NonFinite) +
           " elements not finite (or never written) and " + std::to_string(OffPeer) +
           " off cuBLAS by more than " + sci(Tolerance) + " of K max|a| max|b|, first at row " +
           std::to_string(First / N) + " column " + std::to_string(First % N));
    Check += "; " + std::to_string(NonFinite + OffPeer) + " elements wrong";
    Ok = false;
  }
  if (!(WorstOurs <= Tolerance) || !(WorstVsPeer <= Tolerance)) {
    C.fail("tilegemm " + std::to_string(Size) + ": a sampled element is off by " +
           sci(std::max(WorstOurs, WorstVsPeer)) + " of its sum|a||b| (band " + sci(Tolerance) +
           ")");
    Ok = false;
  }
  if (!(WorstPeer <= Tolerance))
    std::fprintf(stderr, "cajeta_gpu_bench: tilegemm %u: cuBLAS itself is off float64 by %s\n",
                 Size, sci(WorstPeer).c_str());
  if (!Ok)
    Check = "MISMATCH: " + Check;

  const int Batch = std::max(1, C.Options.Batch / 5);
  Medians Md = measure(
      C, Batch, ours, [&](int Bt) { return Inputs<T>::peer(C, PeerC, PeerA, PeerB, M, N, K, Bt); });
  const double Flops = 2.0 * M * double(N) * K;
  addRow(C, Md,
         ResultRow{Name, C.Peers.cublasVersion() + " GemmEx " + Inputs<T>::Name, Md.Ours,
                   Md.PeerWall, Md.PeerGpu, Flops, Flops, "TFLOP/s", G.Target, Check});
  if (G.Vulkan) // the mma.sync tier's kernel: also beside CUTLASS's mma.sync GEMMs
    besideCutlass<T>(
        C, ours, PeerA, PeerB, PeerC, Peer, M, N, K,
        [&](size_t X) { return Tolerance * double(K) * RowMaxA[X / N] * ColMaxB[X % N]; }, Name,
        Batch);
  if (!G.Vulkan)
    return;

  // The same GEMM on the Vulkan backend of the same GPU, against our CUDA result (the tiers'
  // sum orders may differ: the band above, not bit equality): the kernel staged through
  // workgroup memory and, for float16, the one that loads its tiles from the buffers.
  struct VulkanForm {
    const char* Kernel;
    uint32_t SharedBytes;
    const char* Label;
    uint32_t Threads; // the workgroup's size
  };
  std::vector<VulkanForm> Forms = {
      {Inputs<T>::VulkanKernel, VulkanDynamicSharedBytes, "", BlockThreads}};
  if (Inputs<T>::VulkanEightWaveKernel) {
    Forms.push_back({Inputs<T>::VulkanHalfStepKernel, VulkanDynamicSharedBytes,
                     ", a k-half's fragments at a time", BlockThreads});
    Forms.push_back({Inputs<T>::VulkanMidWaitKernel, VulkanDynamicSharedBytes,
                     ", copies stored between the k-halves", BlockThreads});
    Forms.push_back(
        {Inputs<T>::VulkanEightWaveKernel, VulkanEightWaveSharedBytes, ", eight waves", 256});
    Forms.push_back({Inputs<T>::VulkanEightWavePaddedKernel, VulkanEightWavePaddedSharedBytes,
                     ", eight waves, A padded", 256});
    Forms.push_back({Inputs<T>::VulkanEightWaveMidWaitKernel, VulkanEightWavePaddedSharedBytes,
                     ", eight waves, A padded, copies stored between the k-halves", 256});
  }
  if (Inputs<T>::VulkanBufferKernel)
    Forms.push_back({Inputs<T>::VulkanBufferKernel, 0, ", tiles from the buffers", BlockThreads});
  for (const VulkanForm& Form : Forms) {
    auto Run = [&](OursDevice& V, BackendRow& R) {
      xpu::Kernel VGemm = V.load(BundleName).kernel(Form.Kernel);
      xpu::KernelBuffer<T> VA = V.buffer(A), VB = V.buffer(B);
      xpu::KernelBuffer<float> VC = V.buffer(Ours);
      auto vulkan = [&] {
        VGemm.launch(V.stream(), Grid, xpu::block(Form.Threads), Form.SharedBytes)(VC, VA, VB, M, N,
                                                                                   K);
      };
      vulkan();
      V.stream().sync();
      std::vector<float> Got;
      VC.download(Got);
      size_t Off = 0;
      for (uint32_t I = 0; I < M; ++I)
        for (uint32_t J = 0; J < N; ++J) {
          size_t X = size_t(I) * N + J;
          Off += !(std::fabs(double(Got[X]) - Ours[X]) <=
                   Tolerance * double(K) * RowMaxA[I] * ColMaxB[J]);
        }
      R.Check = "tiles " + VGemm.tier("tiles") + "; " +
                (Off ? std::to_string(Off) + " elements off CUDA's"
                     : "within " + sci(Tolerance) + " of CUDA's");
      if (Off)
        C.fail("tilegemm " + std::to_string(Size) + " on Vulkan (" + Form.Kernel + "): " + R.Check);
      BackendMedians Times = timeBackends(C, Batch, ours, vulkan);
      R.CudaMs = Times.CudaMs;
      R.VulkanMs = Times.VulkanMs;
    };
    compareBackends(C, BackendRow{Name + Form.Label, "tensor-core", VulkanTarget}, Md.Ours, Run);
  }
}

/// N int8 values from the same hash as makeInputData, spread over the whole range.
std::vector<int8_t> makeInt8Data(size_t N, uint32_t Seed) {
  std::vector<int8_t> V(N);
  for (size_t I = 0; I < N; ++I)
    V[I] = int8_t(uint8_t(dataHash(Seed, I) >> 40));
  return V;
}

/// The int8 GEMM of Size^3: ours and cuBLAS must agree exactly on every element (int32 sums of
/// at most 2^14 K products each fit), and sampled elements match an int64 sum on the host.
void runInt8(GpuBenchContext& C, xpu::Kernel& Gemm, const Geometry& G, uint32_t Size,
             uint32_t Seed) {
  const uint32_t M = Size, N = Size, K = Size;
  const size_t ElemsA = size_t(M) * K, ElemsB = size_t(K) * N, ElemsC = size_t(M) * N;
  xpu::KernelStream& S = C.Cuda.stream();
  xpu::Device& Dev = C.Cuda.device();
  std::vector<int8_t> A = makeInt8Data(ElemsA, Seed), Bt = makeInt8Data(ElemsB, Seed + 1);
  xpu::KernelBuffer<int8_t> OursA(Dev, ElemsA), OursBt(Dev, ElemsB);
  xpu::KernelBuffer<int32_t> OursC(Dev, ElemsC);
  OursA.upload(A);
  OursBt.upload(Bt);
  PeerBytes PeerA(ElemsA), PeerBt(ElemsB), PeerC(ElemsC * 4);
  PeerA.upload(A.data());
  PeerBt.upload(Bt.data());
  const xpu::Dim3 Grid = launchGrid(G, M, N, Dev), Block = xpu::block(G.Threads);
  auto ours = [&] { Gemm.launch(S, Grid, Block, G.SharedBytes)(OursC, OursA, OursBt, M, N, K); };
  // C starts as a value no product here reaches (|sum| <= K 2^14), so an unwritten element fails.
  const int32_t Unwritten = std::numeric_limits<int32_t>::min();
  std::vector<int32_t> Ours(ElemsC, Unwritten), Peer(ElemsC);
  OursC.upload(Ours);
  ours();
  S.sync();
  C.Peers.gemmInt8(PeerC, PeerA, PeerBt, M, N, K, 1);
  OursC.download(Ours);
  PeerC.download(Peer.data());
  size_t Off = 0, First = ElemsC;
  for (size_t X = 0; X < ElemsC; ++X)
    if (Ours[X] != Peer[X] && Off++ == 0)
      First = X;
  size_t OffHost = 0;
  for (uint32_t Sm = 0; Sm < Samples; ++Sm) {
    size_t Row = Sm < 4 ? (Sm & 1 ? M - 1 : 0) : (size_t(Sm) * 2654435761u) % M;
    size_t Col = Sm < 4 ? (Sm & 2 ? N - 1 : 0) : (size_t(Sm) * 40503u + 7) % N;
    int64_t Ref = 0;
    for (uint32_t Kk = 0; Kk < K; ++Kk)
      Ref += int64_t(A[Row * K + Kk]) * int64_t(Bt[Col * K + Kk]);
    OffHost += Ours[Row * N + Col] != Ref;
  }
  std::string Check = "exact: every element equals cuBLAS's, 64 samples equal an int64 sum";
  if (Off || OffHost) {
    C.fail(std::string("tilegemm int8 ") + G.Kernel + " " + std::to_string(Size) + ": " +
           std::to_string(Off) + " elements differ from cuBLAS (first at row " +
           std::to_string(First / N) + " column " + std::to_string(First % N) + "), " +
           std::to_string(OffHost) + " of 64 samples from the host's int64 sum");
    Check = "MISMATCH: " + std::to_string(Off) + " elements off cuBLAS, " +
            std::to_string(OffHost) + " samples off the host";
  }
  const int Batch = std::max(1, C.Options.Batch / 5);
  Medians Md = measure(C, Batch, ours, [&](int Items) {
    return C.Peers.gemmInt8(PeerC, PeerA, PeerBt, M, N, K, Items);
  });
  const double Ops = 2.0 * M * double(N) * K;
  const std::string Name = "tile gemm s8->s32 (B transposed) " + std::to_string(G.BlockM) + "x" +
                           std::to_string(G.BlockN) + G.Label + " " + std::to_string(Size) + "^3";
  if (Gemm.tier("wgmma") == "native") // as the float rows say it
    Check = "wgmma; " + Check;
  addRow(C, Md,
         ResultRow{Name, C.Peers.cublasVersion() + " GemmEx int8 TN", Md.Ours, Md.PeerWall,
                   Md.PeerGpu, Ops, Ops, "TOP/s", G.Target, Check});
  if (!G.Vulkan)
    return;

  // The same GEMM on the Vulkan backend of the same GPU, equal to our CUDA result on every
  // element: gemmInt8v (48 KiB of stages) on bt, whose b fragments load column-major, and
  // gemmInt8vRowB on b as it is (k x n), whose fragments load row-major.
  std::vector<int8_t> B(ElemsB);
  for (uint32_t Kk = 0; Kk < K; ++Kk)
    for (uint32_t J = 0; J < N; ++J)
      B[size_t(Kk) * N + J] = Bt[size_t(J) * K + Kk];
  struct VulkanForm {
    const char* Kernel;
    const std::vector<int8_t>* Second;
    uint32_t SharedBytes;
    const char* Label;
  };
  for (VulkanForm Form :
       {VulkanForm{Int8VulkanKernelName, &Bt, Int8VulkanSharedBytes, ""},
        VulkanForm{Int8VulkanRowBKernelName, &B, Int8VulkanRowBSharedBytes, ", b row-major"}})
    compareBackends(
        C, BackendRow{Name + Form.Label, "tensor-core", VulkanTarget}, Md.Ours,
        [&](OursDevice& V, BackendRow& R) {
          xpu::Kernel VGemm = V.load(BundleName).kernel(Form.Kernel);
          xpu::KernelBuffer<int8_t> VA = V.buffer(A), VB = V.buffer(*Form.Second);
          xpu::KernelBuffer<int32_t> VC = V.buffer(std::vector<int32_t>(ElemsC, Unwritten));
          auto vulkan = [&] {
            VGemm.launch(V.stream(), Grid, Block, Form.SharedBytes)(VC, VA, VB, M, N, K);
          };
          vulkan();
          V.stream().sync();
          std::vector<int32_t> Got;
          VC.download(Got);
          size_t VOff = 0;
          for (size_t X = 0; X < ElemsC; ++X)
            VOff += Got[X] != Ours[X];
          R.Check =
              "tiles " + VGemm.tier("tiles") + "; " +
              (VOff ? std::to_string(VOff) + " elements differ from CUDA's" : "equal to CUDA's");
          if (VOff)
            C.fail("tilegemm int8 " + std::to_string(Size) + " on Vulkan (" + Form.Kernel +
                   "): " + R.Check);
          BackendMedians Times = timeBackends(C, Batch, ours, vulkan);
          R.CudaMs = Times.CudaMs;
          R.VulkanMs = Times.VulkanMs;
        });
}

} // namespace

void runTileGemmBench(GpuBenchContext& C) {
  if (!C.Options.wants("tilegemm"))
    return;
  const std::string Path = C.Options.BundleDir + "/" + BundleName + ".cjx";
  if (!std::filesystem::exists(Path)) {
    std::printf("tilegemm: skipped: no bundle %s (it is built only with cmake "
                "-DCAJETA_GPU_BENCH_TILES=ON, once the compiler has tiles)\n\n",
                Path.c_str());
    std::fflush(stdout);
    return;
  }
  // Each kernel's rows: the mma.sync tier's 128 x 128 kernel (also on Vulkan), then the wider
  // sm_90a forms, float16 and bfloat16 alike.
  auto forms = [](auto Type, const char* MmaSyncKernel) {
    using T = decltype(Type);
    return std::vector<Geometry>{
        {MmaSyncKernel, BlockM, BlockN, BlockThreads, DynamicSharedBytes, Target, true},
        {Inputs<T>::WideKernel, 256, 128, 256, 98304, Target, false},
        {Inputs<T>::SharedABlockKernel, 256, 128, 256, 196608, WgmmaTarget, false,
         " 4-stage, block copies, a shared"},
        {Inputs<T>::N256Kernel, 128, 256, 256, 0, WgmmaTarget, false,
         " 4-stage, block copies, a shared, n = 256, grouped"},
        {Inputs<T>::PersistentKernel, 128, 256, 256, 0, WgmmaTarget, false,
         " 4-stage, block copies, a shared, n = 256, grouped, persistent", true}};
  };
  const std::vector<Geometry> HalfForms = forms(Half(), KernelName),
                              BFloat16Forms = forms(BFloat16(), BFloat16KernelName),
                              Int8Forms = {{Int8KernelName, BlockM, BlockN, BlockThreads,
                                            Int8DynamicSharedBytes, Target, true},
                                           {Int8BlockCopyKernelName, 256, 128, 256, 196608,
                                            WgmmaTarget, false, " 4-stage, block copies, a shared"},
                                           {Int8PersistentKernelName, 256, 128, 256, 196608,
                                            WgmmaTarget, false,
                                            " 4-stage, block copies, a shared, persistent", true}};
  std::map<std::string, xpu::Kernel> Kernels; // every kernel loaded before the first runs
  const char* Loading = KernelName;
  try {
    for (const std::vector<Geometry>* Forms : {&HalfForms, &BFloat16Forms, &Int8Forms})
      for (const Geometry& G : *Forms) {
        Loading = G.Kernel;
        Kernels.emplace(G.Kernel, C.Cuda.load(BundleName).kernel(G.Kernel));
      }
  } catch (const xpu::Error& E) {
    C.fail(std::string("tilegemm: cannot load ") + Loading + " from " + Path + ": " + E.what());
    return;
  }
  uint32_t Seed = 11;
  for (uint32_t Size : C.Options.TileGemmSizes) {
    for (size_t I = 0; I < HalfForms.size(); ++I) {
      runOne<Half>(C, Kernels.at(HalfForms[I].Kernel), HalfForms[I], Size, Seed);
      runOne<BFloat16>(C, Kernels.at(BFloat16Forms[I].Kernel), BFloat16Forms[I], Size, Seed);
    }
    for (const Geometry& G : Int8Forms)
      runInt8(C, Kernels.at(G.Kernel), G, Size, Seed);
    Seed += 2; // fresh matrices for every size
  }
}

} // namespace cajeta::gpubench
