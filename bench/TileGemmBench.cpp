// Workload: C = A * B with tiles on the CPU (bench/kernels/tilegemm.cj) beside OpenBLAS's sgemm
// (float32 inputs), oneDNN's matmul (bfloat16 inputs, float32 result) and oneDNN's
// dnnl_gemm_s8s8s32 (int8 inputs, int32 result), same data, each side checked against a float64
// product of the same inputs (the int8 row: ours equal to oneDNN's everywhere, and sampled
// elements to an int64 sum). Without a peer library the row is not built and the workload says
// which package it needs.
#include "HostArray.h"
#include "PolyBenchSuite.h"
#include "Timing.h"
#include "Workloads.h"

#include <cajeta/xpu.hpp>

#include <cmath>
#include <cstdio>
#include <omp.h>
#include <optional>
#include <string>
#include <vector>

#if CAJETA_BENCH_HAVE_OPENBLAS
#include <cblas.h>
#endif
#if CAJETA_BENCH_HAVE_DNNL
#include <dnnl.hpp>
#endif

namespace cajeta::bench {

namespace xpu = cajeta::xpu;

namespace {

constexpr uint32_t BlockEdge = 64; // the kernels' C block per workgroup (one wave)

/// C = A * B in float64 over n x n row-major matrices.
std::vector<double> referenceProduct(const std::vector<double>& A, const std::vector<double>& B,
                                     uint32_t N) {
  std::vector<double> C(size_t(N) * N, 0.0);
#pragma omp parallel for schedule(static)
  for (int64_t I = 0; I < int64_t(N); ++I)
    for (uint32_t K = 0; K < N; ++K) {
      const double Aik = A[size_t(I) * N + K];
      for (uint32_t J = 0; J < N; ++J)
        C[size_t(I) * N + J] += Aik * B[size_t(K) * N + J];
    }
  return C;
}

/// Fills Row's check from both sides' errors against the float64 product.
void checkRow(ResultRow& Row, double Ours, double Peer, double Bound) {
  char Text[160];
  std::snprintf(Text, sizeof Text, "vs float64: ours %.1e, peer %.1e (bound %.0e)", Ours, Peer,
                Bound);
  Row.Check = Text;
  Row.Verified = Ours <= Bound && Peer <= Bound; // false for NaN too
  Row.PassLabel = "f64 ok";
}

void setTimes(ResultRow& Row, const PairTimes& T) {
  Row.setTimes(T);
}

#if CAJETA_BENCH_HAVE_DNNL
/// The int8 row: n x n int8 matrices over the whole range (from the float pattern's bits).
void runInt8(const BenchConfig& Config, ResultTable& Table, const std::string& Shape,
             const std::string& Size) {
  const uint32_t N = Config.TileGemmN;
  const size_t Elems = size_t(N) * N;
  HostArray FA(Elems), FB(Elems);
  fillPattern(FA, 33);
  fillPattern(FB, 34);
  std::vector<int8_t> A(Elems), B(Elems);
  for (size_t I = 0; I < Elems; ++I) {
    A[I] = int8_t(std::lround(FA[I] * 127.0f) % 128);
    B[I] = int8_t(std::lround(FB[I] * 127.0f) % 128);
  }
  xpu::KernelStream& S = xpu::KernelStream::current();
  const uint32_t Blocks = (N + BlockEdge - 1) / BlockEdge;
  const uint32_t Width = xpu::defaultDevice().waveWidth();
  xpu::KernelBuffer<int8_t> DA(Elems), DB(Elems);
  xpu::KernelBuffer<int32_t> DC(Elems);
  DA.upload(A.data(), Elems);
  DB.upload(B.data(), Elems);
  xpu::Program Program = compileKernels(Config, "tilegemmint8.cj");
  xpu::Kernel Gemm = Program.kernel("TileGemmInt8.gemmInt8");
  auto Ours = [&] {
    Gemm.launch(S, xpu::grid(Blocks, Blocks), xpu::block(Width))(DC, DA, DB, N, N, N);
    S.sync();
  };
  std::vector<int32_t> C(Elems), Got(Elems);
  const int32_t NoOffset = 0;
  auto Peer = [&] {
    dnnl_gemm_s8s8s32('N', 'N', 'F', N, N, N, 1.0f, A.data(), N, 0, B.data(), N, 0, 0.0f, C.data(),
                      N, &NoOffset);
  };
  Ours();
  Peer();
  DC.download(Got.data(), Elems);
  size_t OffPeer = 0, OffHost = 0, PeerOffHost = 0;
  for (size_t I = 0; I < Elems; ++I)
    OffPeer += Got[I] != C[I];
  for (uint32_t Sample = 0; Sample < 64; ++Sample) {
    size_t Row = (size_t(Sample) * 2654435761u) % N, Col = (size_t(Sample) * 40503u + 7) % N;
    int64_t Sum = 0;
    for (uint32_t K = 0; K < N; ++K)
      Sum += int64_t(A[Row * N + K]) * int64_t(B[size_t(K) * N + Col]);
    OffHost += Got[Row * N + Col] != Sum;
    PeerOffHost += C[Row * N + Col] != Sum;
  }
  ResultRow Row;
  Row.Workload = "tile gemm int8 " + Size + " vs oneDNN";
  Row.Note = std::string("our tiles' tier: ") + Gemm.tier("tiles");
  Row.Shape = Shape;
  Row.Check = std::to_string(OffPeer) + " of " + std::to_string(Elems) +
              " elements differ from oneDNN's, " + std::to_string(OffHost) +
              " of 64 samples from an int64 sum";
  // Without AVX512-VNNI oneDNN's s8s8s32 GEMM sums byte pairs in saturating int16 and is off the
  // exact sum itself: ours must still equal the int64 sum, and may then differ from it.
  if (PeerOffHost)
    Row.Check += " (oneDNN's own result off it in " + std::to_string(PeerOffHost) +
                 " of 64: its int16 pair sums saturate on this CPU)";
  Row.Verified = OffHost == 0 && (OffPeer == 0 || PeerOffHost > 0);
  Row.Flops = 2.0 * double(N) * double(N) * double(N);
  setTimes(Row, comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer));
  Table.add(std::move(Row));
}
#endif

} // namespace

void runTileGemm(const BenchConfig& Config, ResultTable& Table) {
#if !CAJETA_BENCH_HAVE_OPENBLAS && !CAJETA_BENCH_HAVE_DNNL
  (void)Config;
  (void)Table;
  std::printf("tilegemm: skipped: its peers need OpenBLAS (libopenblas-dev) and oneDNN "
              "(libdnnl-dev); scripts/setup.sh installs both\n");
#else
  const uint32_t N = Config.TileGemmN;
  const size_t Elems = size_t(N) * N;
  HostArray A(Elems), B(Elems), C(Elems);
  fillPattern(A, 31);
  fillPattern(B, 32);

  xpu::KernelStream& S = xpu::KernelStream::current();
  const uint32_t Width = xpu::defaultDevice().waveWidth();
  const uint32_t Blocks = (N + BlockEdge - 1) / BlockEdge;
  const std::string Shape = "grid " + std::to_string(Blocks) + "x" + std::to_string(Blocks) +
                            " x blk " + std::to_string(Width) + " (a wave)";
  const std::string Size = std::to_string(N) + "^3";
  const int Threads = omp_get_max_threads();
  xpu::KernelBuffer<float> DC(Elems);
  std::vector<float> Got(Elems);

#if CAJETA_BENCH_HAVE_OPENBLAS
  {
    openblas_set_num_threads(Threads);
    xpu::KernelBuffer<float> DA(Elems), DB(Elems);
    DA.upload(A.data(), Elems);
    DB.upload(B.data(), Elems);
    xpu::Program Program = compileKernels(Config, "tilegemm.cj");
    xpu::Kernel Gemm = Program.kernel("TileGemm.gemm32");
    auto Ours = [&] {
      Gemm.launch(S, xpu::grid(Blocks, Blocks), xpu::block(Width))(DC, DA, DB, N, N, N);
      S.sync();
    };
    auto Peer = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(N), int(N), int(N), 1.0f, A.data(),
                  int(N), B.data(), int(N), 0.0f, C.data(), int(N));
    };
    Ours();
    Peer();
    DC.download(Got.data(), Elems);
    std::vector<double> RA(A.begin(), A.end()), RB(B.begin(), B.end());
    std::vector<double> Ref = referenceProduct(RA, RB, N);
    ResultRow Row;
    Row.Workload = "tile gemm float32 " + Size + " vs OpenBLAS sgemm";
    Row.Shape = Shape;
    checkRow(Row, polybench::relativeError(Got.data(), Ref),
             polybench::relativeError(C.data(), Ref), 1e-5);
    Row.Flops = 2.0 * double(N) * double(N) * double(N);
    setTimes(Row, comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer));
    Table.add(std::move(Row));
  }
#endif
#if CAJETA_BENCH_HAVE_DNNL
  {
    // The same values rounded to bfloat16 once; both sides read these bits.
    std::vector<xpu::bfloat16> HA(A.begin(), A.end()), HB(B.begin(), B.end());
    xpu::KernelBuffer<xpu::bfloat16> DA(Elems), DB(Elems);
    DA.upload(HA.data(), Elems);
    DB.upload(HB.data(), Elems);
    xpu::Program Program = compileKernels(Config, "tilegemmbf16.cj");
    xpu::Kernel Gemm = Program.kernel("TileGemmBf16.gemmBf16");
    auto Ours = [&] {
      Gemm.launch(S, xpu::grid(Blocks, Blocks), xpu::block(Width))(DC, DA, DB, N, N, N);
      S.sync();
    };
    using dnnl::memory;
    dnnl::engine Engine(dnnl::engine::kind::cpu, 0);
    dnnl::stream Stream(Engine);
    const memory::dims Dims = {int64_t(N), int64_t(N)};
    memory::desc InDesc(Dims, memory::data_type::bf16, memory::format_tag::ab);
    memory::desc OutDesc(Dims, memory::data_type::f32, memory::format_tag::ab);
    // oneDNN 2.6 has no bfloat16 matmul for CPUs without AVX-512: the row is then skipped.
    std::optional<dnnl::matmul::primitive_desc> Pd;
    try {
      Pd.emplace(dnnl::matmul::desc(InDesc, InDesc, OutDesc), Engine);
    } catch (const dnnl::error& E) {
      std::printf("tilegemm: the bfloat16 row is skipped: oneDNN makes no bfloat16 matmul on "
                  "this CPU (%s)\n",
                  E.what());
    }
    if (!Pd) {
      runInt8(Config, Table, Shape, Size);
      return;
    }
    dnnl::matmul Matmul(*Pd);
    memory MA(InDesc, Engine, HA.data()), MB(InDesc, Engine, HB.data()),
        MC(OutDesc, Engine, C.data());
    auto Peer = [&] {
      Matmul.execute(Stream, {{DNNL_ARG_SRC, MA}, {DNNL_ARG_WEIGHTS, MB}, {DNNL_ARG_DST, MC}});
      Stream.wait();
    };
    Ours();
    Peer();
    DC.download(Got.data(), Elems);
    std::vector<double> RA(Elems), RB(Elems);
    for (size_t I = 0; I < Elems; ++I) {
      RA[I] = double(float(HA[I]));
      RB[I] = double(float(HB[I]));
    }
    std::vector<double> Ref = referenceProduct(RA, RB, N);
    ResultRow Row;
    Row.Workload = "tile gemm bfloat16 " + Size + " vs oneDNN";
    Row.Note = std::string("our tiles' tier: ") + Gemm.tier("tiles");
    Row.Shape = Shape;
    checkRow(Row, polybench::relativeError(Got.data(), Ref),
             polybench::relativeError(C.data(), Ref), 1e-5);
    Row.Flops = 2.0 * double(N) * double(N) * double(N);
    setTimes(Row, comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer));
    Table.add(std::move(Row));
  }
  runInt8(Config, Table, Shape, Size);
#else
  std::printf("tilegemm: the bfloat16 and int8 rows are skipped: their peer needs oneDNN "
              "(libdnnl-dev)\n");
#endif
#if !CAJETA_BENCH_HAVE_OPENBLAS
  std::printf("tilegemm: the float32 row is skipped: its peer needs OpenBLAS (libopenblas-dev)\n");
#endif
#endif
}

} // namespace cajeta::bench
