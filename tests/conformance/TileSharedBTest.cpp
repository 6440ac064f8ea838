// Conformance of tiles whose b operand every wave of a group multiplies by from shared memory
// (programs/TilesSharedB.cj): NVIDIA's sm_90a code takes them with wgmma where the group is whole
// warpgroups and the tile starts at a multiple of 1024 bytes, and with mma.sync otherwise; every
// other device loads them as any tile. Each staging offset and group shape is checked against a
// float64 reference, whichever path it takes.
#include "ConformanceSupport.h"
#include "MatrixReference.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <tuple>

namespace conformance {
namespace {

/// Got (C, m x n, then elements that must stay -5) is A (m x k) . B (k x n) within Band of the
/// float64 reference.
template <class In>
void expectProduct(const std::vector<In>& A, const std::vector<In>& B,
                   const std::vector<float>& Got, uint32_t M, uint32_t N, uint32_t K, double Band,
                   const std::string& What) {
  size_t Bad = 0;
  for (uint32_t I = 0; I < M; ++I)
    for (uint32_t J = 0; J < N; ++J) {
      DotRef R = dot(
          K, [&](uint32_t L) { return float(A[size_t(I) * K + L]); },
          [&](uint32_t L) { return float(B[size_t(L) * N + J]); });
      float V = Got[size_t(I) * N + J];
      if (!(std::fabs(V - R.Sum) <= Band * R.Scale + 1e-30) && Bad++ < 5)
        ADD_FAILURE() << What << ": (" << I << ", " << J << ") is " << V << ", want " << R.Sum;
    }
  EXPECT_EQ(Bad, 0u) << What;
  for (size_t I = size_t(M) * N; I < Got.size(); ++I)
    EXPECT_EQ(Got[I], -5.0f) << What << ": written past C at " << I;
}

/// Kernel (a step Depth deep, blocks Cols wide) on sizes that are not multiples of its blocks,
/// for every group shape and staging offset; false when the device's workgroup memory cannot
/// hold it.
template <class In>
bool checkGemm(const xpu::Program& P, const std::string& Kernel, uint32_t Depth, uint64_t Seed,
               std::vector<In> (*Data)(size_t, uint64_t), double Band, uint32_t Cols = 64) {
  const uint32_t Width = P.device().waveWidth();
  EXPECT_GT(Width, 0u);
  // The portable tile's scratch (per wave: the 16 x Cols float32 accumulator, a 16 x Depth and
  // b Depth x Cols) beside the largest staging, for four waves.
  const uint32_t MaxPast = Cols == 64 ? 64 : 512; // elements past the period, below
  const size_t Staging = (64 * Depth + MaxPast + Depth * Cols) * sizeof(In);
  const size_t Scratch = 4 * (16 * Cols * 4 + (16 * Depth + Depth * Cols) * sizeof(In));
  // The portable tile's scratch: past the workgroup memory (lavapipe), or static and sized for
  // fewer than four waves (CUDA under the software override, b two atoms wide).
  const xpu::Kernel K = P.kernel(Kernel);
  const uint32_t MaxThreads = K.footprint().maxThreads;
  if (K.tier("tiles") == "portable" && (Scratch + Staging > P.device().maxDynamicSharedBytes() ||
                                        (MaxThreads && MaxThreads < 4 * Width)))
    return false;
  struct Case {
    uint32_t M, N, K;
  };
  for (Case C : {Case{64, 64, 32}, Case{70, 100, 90}, Case{17, 64, 200}, Case{130, 129, 64}}) {
    std::vector<In> A = Data(size_t(C.M) * C.K, Seed + C.M),
                    B = Data(size_t(C.K) * C.N, Seed + 7 * C.N);
    auto DA = toDevice(A), DB = toDevice(B);
    // Four waves (one warpgroup on NVIDIA) and three (not a whole warpgroup); b staged at the
    // swizzle's period, 128 bytes past it, 16 bytes past it, and 8 (no 16-byte rows: element
    // loads on NVIDIA); b two atoms wide also 1024 bytes past it (the period, not a block of
    // its 8 rows: mma.sync on NVIDIA).
    for (uint32_t Waves : {4u, 3u})
      for (uint32_t Past : {0u, 512u, 64u, 8u, 4u}) {
        if (Past == 512 && Cols == 64)
          continue;
        const uint32_t Rows = 16 * Waves, BOff = Rows * Depth + Past;
        const uint32_t Bytes = (BOff + Depth * Cols) * uint32_t(sizeof(In));
        auto Out = filledBuffer<float>(size_t(C.M) * C.N + 5, -5.0f);
        runKernelShared(P.kernel(Kernel),
                        xpu::grid((C.N + Cols - 1) / Cols, (C.M + Rows - 1) / Rows),
                        xpu::block(Waves * Width), Bytes, Out, DA, DB, C.M, C.N, C.K, BOff);
        std::vector<float> Got = fromDevice(Out);
        const std::string What = Kernel + " " + std::to_string(C.M) + "x" + std::to_string(C.N) +
                                 "x" + std::to_string(C.K) + " waves " + std::to_string(Waves) +
                                 " b at +" + std::to_string(Past);
        expectProduct(A, B, Got, C.M, C.N, C.K, Band, What);
      }
  }
  return true;
}

TEST(TileSharedB, Float16AtEveryOffsetAndGroupShape) {
  xpu::Program P = compileProgram("TilesSharedB");
  CONFORMANCE_REQUIRE(P, Float16);
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  // float16 products are exact in float32; the sums round K times at most (K up to 200 here).
  if (!checkGemm<xpu::float16>(P, "TilesSharedB.gemm", 32, 300, halfData, 1e-5))
    GTEST_SKIP() << "the portable tile's scratch and the staging exceed the workgroup memory of "
                 << P.device().name() << " (TileSharedB.BFloat16AtEveryOffsetAndGroupShape "
                 << "takes half of it)";
}

TEST(TileSharedB, Float16TwoAtomsWideAtEveryOffsetAndGroupShape) {
  xpu::Program P = compileProgram("TilesSharedB");
  CONFORMANCE_REQUIRE(P, Float16);
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  if (!checkGemm<xpu::float16>(P, "TilesSharedB.gemmWide", 32, 500, halfData, 1e-5, 128))
    GTEST_SKIP() << "the portable tile's scratch and the staging do not fit four waves on "
                 << P.device().name();
}

// A staged in rows as wide as B's, each wave's 16 rows after the previous wave's: on sm_90a a
// warpgroup's four tiles are read as one block from shared memory where a tile starts a block's
// first row with its 32 columns (64 bytes) inside one atom (A at +0, 16, 32, 64, 96 elements and
// row 8), and take mma.sync elsewhere (16 bytes in, row 4); groups of one and two warpgroups, and
// of three waves.
TEST(TileSharedB, Float16ATilesAsOneBlockAtEveryOffsetAndGroupShape) {
  xpu::Program P = compileProgram("TilesSharedB");
  CONFORMANCE_REQUIRE(P, Float16);
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  const uint32_t Width = P.device().waveWidth();
  ASSERT_GT(Width, 0u);
  const xpu::Kernel K = P.kernel("TilesSharedB.gemmSharedA");
  const uint32_t MaxThreads = K.footprint().maxThreads;
  struct Case {
    uint32_t M, N, K;
  };
  unsigned Ran = 0;
  for (uint32_t Waves : {4u, 8u, 3u}) {
    const uint32_t Rows = 16 * Waves;
    // The portable tile's scratch per wave: the 16 x 128 float32 accumulator, a 16 x 32, b.
    const size_t Scratch = Waves * (16 * 128 * 4 + (16 * 32 + 32 * 128) * 2);
    const size_t Largest = (2048 + Rows * 128 + 1024 + 32 * 128) * 2;
    // On Vulkan the cooperative-matrix tier's scratch fragment sits beside the staging, sized
    // at launch for the group's waves (1536 bytes a wave on the H100; 2048 allowed).
    const bool Portable = K.tier("tiles") == "portable";
    const size_t Max = P.device().maxDynamicSharedBytes();
    if ((Portable && (Scratch + Largest > Max || (MaxThreads && MaxThreads < Waves * Width))) ||
        (!Portable && P.device().backend() == "vulkan" && Largest + Waves * 2048 > Max))
      continue;
    ++Ran;
    for (Case C : {Case{64, 128, 32}, Case{70, 200, 90}, Case{130, 129, 64}}) {
      std::vector<xpu::float16> A = halfData(size_t(C.M) * C.K, 700 + C.M),
                                B = halfData(size_t(C.K) * C.N, 800 + C.N);
      auto DA = toDevice(A), DB = toDevice(B);
      for (uint32_t AOff : {0u, 16u, 32u, 64u, 96u, 1024u, 8u, 512u}) {
        const uint32_t BOff = (AOff + Rows * 128 + 1023) / 1024 * 1024;
        auto Out = filledBuffer<float>(size_t(C.M) * C.N + 5, -5.0f);
        runKernelShared(K, xpu::grid((C.N + 127) / 128, (C.M + Rows - 1) / Rows),
                        xpu::block(Waves * Width), (BOff + 32 * 128) * 2, Out, DA, DB, C.M, C.N,
                        C.K, AOff, BOff);
        const std::string What = "gemmSharedA " + std::to_string(C.M) + "x" + std::to_string(C.N) +
                                 "x" + std::to_string(C.K) + " waves " + std::to_string(Waves) +
                                 " a at +" + std::to_string(AOff);
        expectProduct(A, B, fromDevice(Out), C.M, C.N, C.K, 1e-5, What);
      }
    }
  }
  if (!Ran)
    GTEST_SKIP() << "the portable tile's scratch and the staging fit no group shape on "
                 << P.device().name();
}

TEST(TileSharedB, BFloat16AtEveryOffsetAndGroupShape) {
  xpu::Program P = compileProgram("TilesSharedB");
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  ASSERT_TRUE(checkGemm<xpu::bfloat16>(P, "TilesSharedB.gemmBf16", 16, 400, bfloat16Data, 1e-5))
      << "the staging does not fit " << P.device().name();
}

// Products in flight together (two accumulators, one b, an accumulator touched between them, b's
// stage rewritten and loaded again), in groups of four waves (wgmma on compute capability 9.0)
// and three.
TEST(TileSharedB, ProductsInFlightTogetherAndAStageRewritten) {
  xpu::Program P = compileProgram("TilesSharedB");
  CONFORMANCE_REQUIRE(P, Float16);
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  const uint32_t Width = P.device().waveWidth();
  ASSERT_GT(Width, 0u);
  // Per wave: three 16 x 64 float32 accumulators, a 16 x 32 and two 32 x 64 float16 tiles.
  const size_t Scratch = 4 * (3 * 16 * 64 * 4 + (16 * 32 + 2 * 32 * 64) * 2);
  const uint32_t Groups = 3;
  for (uint32_t Waves : {4u, 3u}) {
    const uint32_t Rows = 16 * Waves, BOff = Rows * 32, Bytes = (BOff + 2048) * 2;
    // The portable tile's scratch: past the workgroup memory (lavapipe), or sized for fewer
    // waves than the group has (a static scratch, as on CUDA under the software override).
    const xpu::Kernel K = P.kernel("TilesSharedB.chained");
    const uint32_t MaxThreads = K.footprint().maxThreads;
    if (K.tier("tiles") == "portable" && (Scratch + Bytes > P.device().maxDynamicSharedBytes() ||
                                          (MaxThreads && MaxThreads < Waves * Width)))
      GTEST_SKIP() << "the portable tile's scratch does not hold " << Waves << " waves on "
                   << P.device().name();
    std::vector<xpu::float16> A = halfData(size_t(Groups) * Rows * 32, 600 + Waves),
                              B = halfData(32 * 64, 700 + Waves);
    auto DA = toDevice(A), DB = toDevice(B);
    const size_t Total = size_t(Groups) * Rows * 64;
    auto Out = filledBuffer<float>(2 * Total, -1.0f);
    runKernelShared(P.kernel("TilesSharedB.chained"), xpu::grid(Groups), xpu::block(Waves * Width),
                    Bytes, Out, DA, DB, BOff);
    std::vector<float> Got = fromDevice(Out);
    size_t Bad = 0;
    for (size_t I = 0; I < Total / 64; ++I)
      for (uint32_t J = 0; J < 64; ++J) {
        DotRef R = dot(
            32, [&](uint32_t L) { return float(A[I * 32 + L]); },
            [&](uint32_t L) { return float(B[L * 64 + J]); });
        const float Pv = Got[I * 64 + J], Qv = Got[Total + I * 64 + J];
        if (!(std::fabs(Pv - R.Sum) <= 1e-5 * R.Scale + 1e-30) && Bad++ < 5)
          ADD_FAILURE() << Waves << " waves: p(" << I << ", " << J << ") is " << Pv << ", want "
                        << R.Sum;
        if (!(std::fabs(Qv - 4 * R.Sum) <= 4e-5 * R.Scale + 1e-30) && Bad++ < 5)
          ADD_FAILURE() << Waves << " waves: q(" << I << ", " << J << ") is " << Qv << ", want "
                        << 4 * R.Sum;
      }
    EXPECT_EQ(Bad, 0u) << Waves << " waves";
  }
}

// Two stages, each step's products then the next step's copies into the other stage: on compute
// capability 9.0 the products stay in flight across the copies in groups of four waves, and
// groups of eight (past the bound the compiler proved the copies for) and of three take mma.sync.
TEST(TileSharedB, PipelinedCopiesBesideTheProductsInFlight) {
  xpu::Program P = compileProgram("TilesSharedB");
  CONFORMANCE_REQUIRE(P, Float16);
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  const uint32_t Width = P.device().waveWidth();
  ASSERT_GT(Width, 0u);
  const xpu::Kernel K = P.kernel("TilesSharedB.pipelined");
  const uint32_t Staging = 2 * 5120 * 2, MaxThreads = K.footprint().maxThreads;
  struct Case {
    uint32_t M, N, K;
  };
  unsigned Ran = 0;
  for (uint32_t Waves : {4u, 3u, 8u}) {
    // The portable tile's scratch per wave: the 16 x 64 float32 accumulator, a 16 x 16 and b.
    const size_t Scratch = Waves * (16 * 64 * 4 + (16 * 16 + 16 * 64) * 2);
    if (Waves * Width > P.device().maxWorkgroupSize() ||
        (K.tier("tiles") == "portable" && (Scratch + Staging > P.device().maxDynamicSharedBytes() ||
                                           (MaxThreads && MaxThreads < Waves * Width))))
      continue;
    ++Ran;
    const uint32_t Rows = 16 * Waves;
    for (Case C : {Case{64, 64, 16}, Case{70, 100, 90}, Case{17, 64, 200}, Case{130, 129, 64}}) {
      std::vector<xpu::float16> A = halfData(size_t(C.M) * C.K, 800 + C.M),
                                B = halfData(size_t(C.K) * C.N, 900 + C.N);
      auto DA = toDevice(A), DB = toDevice(B);
      auto Out = filledBuffer<float>(size_t(C.M) * C.N + 5, -5.0f);
      runKernelShared(K, xpu::grid((C.N + 63) / 64, (C.M + Rows - 1) / Rows),
                      xpu::block(Waves * Width), Staging, Out, DA, DB, C.M, C.N, C.K);
      std::vector<float> Got = fromDevice(Out);
      const std::string What = std::to_string(C.M) + "x" + std::to_string(C.N) + "x" +
                               std::to_string(C.K) + " waves " + std::to_string(Waves);
      expectProduct(A, B, Got, C.M, C.N, C.K, 1e-5, What);
    }
  }
  if (!Ran)
    GTEST_SKIP() << "the portable tile's scratch and the stages fit no group shape on "
                 << P.device().name();
}

// Four stages, copies two steps ahead (programs/TilesCarried.cj): on compute capability 9.0 each
// step's products stay in flight into the next step (across its barrier and copies) in groups of
// four and eight waves (every turn waits for its own with CAJETA_GPU_WGMMA_CARRY=0); groups of
// three take mma.sync. Sizes whose
// steps leave a partial last step, one step, and many.
TEST(TileSharedB, ProductsInFlightIntoTheNextStep) {
  xpu::Program P = compileProgram("TilesCarried");
  CONFORMANCE_REQUIRE(P, Float16);
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  const uint32_t Width = P.device().waveWidth();
  ASSERT_GT(Width, 0u);
  const xpu::Kernel K = P.kernel("TilesCarried.carried");
  const uint32_t Staging = 4 * 10240 * 2, MaxThreads = K.footprint().maxThreads;
  const size_t Max = P.device().maxDynamicSharedBytes();
  struct Case {
    uint32_t M, N, K;
  };
  unsigned Ran = 0;
  for (uint32_t Waves : {4u, 8u, 3u}) {
    const uint32_t Group = Waves * Width, Rows = 16 * Waves;
    // The portable tile's scratch per wave: the 16 x 64 float32 accumulator, a 16 x 32, b.
    const size_t Scratch = Waves * (16 * 64 * 4 + (16 * 32 + 32 * 64) * 2);
    // Each work-item copies at most four chunks of A (Rows * 4) and of B (256).
    if (Group > P.device().maxWorkgroupSize() || Rows * 4 > 4 * Group || 256 > 4 * Group ||
        Staging + (K.tier("tiles") == "portable" ? Scratch : 0) > Max ||
        (MaxThreads && MaxThreads < Group))
      continue;
    ++Ran;
    for (Case C : {Case{64, 64, 32}, Case{70, 100, 90}, Case{130, 129, 300}, Case{17, 128, 64}}) {
      std::vector<xpu::float16> A = halfData(size_t(C.M) * C.K, 600 + C.M),
                                B = halfData(size_t(C.K) * C.N, 500 + C.N);
      auto DA = toDevice(A), DB = toDevice(B);
      auto Out = filledBuffer<float>(size_t(C.M) * C.N + 5, -5.0f);
      runKernelShared(K, xpu::grid((C.N + 63) / 64, (C.M + Rows - 1) / Rows), xpu::block(Group),
                      Staging, Out, DA, DB, C.M, C.N, C.K);
      const std::string What = "carried " + std::to_string(C.M) + "x" + std::to_string(C.N) + "x" +
                               std::to_string(C.K) + " waves " + std::to_string(Waves);
      expectProduct(A, B, fromDevice(Out), C.M, C.N, C.K, 1e-5, What);
    }
  }
  if (!Ran)
    GTEST_SKIP() << "the stages fit no group shape on " << P.device().name();
}

// Four stages filled by AsyncCopy.copyBlock two steps ahead (programs/TilesBlockCopied.cj), b
// two atoms wide (a's rows pairing up in the array's rows), one and four (wider: wgmma's n = 256):
// on compute capability 9.0 the blocks go through the tensor memory accelerator where every row
// stride is a multiple of 16 bytes (the first two sizes; the others take the plain entry's chunk
// copies), in groups of four and eight waves (wgmma) and three (mma.sync). alternateRows gives each
// wave two accumulators of alternate rows, whose a tiles wgmma reads from shared memory, and stores
// them at a stride of two rows. widePersistent is wide on three workgroups that take C's blocks
// in turn, its copies running ahead across them (their coordinates from helpers).
TEST(TileSharedB, StagesFilledByBlockCopies) {
  xpu::Program P = compileProgram("TilesBlockCopied");
  CONFORMANCE_REQUIRE(P, Float16);
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  const uint32_t Width = P.device().waveWidth();
  ASSERT_GT(Width, 0u);
  struct Case {
    uint32_t M, N, K;
  };
  unsigned Ran = 0;
  // Kernel, its block's columns, a stage's elements, rows a wave, accumulators a wave, and
  // whether it is persistent (three workgroups taking the blocks in turn).
  for (auto [Name, Cols, Stage, WaveRows, Accumulators, Persistent] :
       {std::tuple{"wide", 128u, 16384u, 16u, 1u, false},
        {"narrow", 64u, 12288u, 16u, 1u, false},
        {"alternateRows", 128u, 24576u, 32u, 2u, false},
        {"wider", 256u, 24576u, 16u, 1u, false},
        {"widePersistent", 128u, 16384u, 16u, 1u, true}}) {
    const xpu::Kernel K = P.kernel(std::string("TilesBlockCopied.") + Name);
    // No tile tier: no code for this target (wider's 16 x 256 tiles do not fit the portable tier
    // of an NVIDIA target; the build warns, and a launch would say so).
    if (K.tier("tiles").empty())
      continue;
    const uint32_t Staging = 4 * Stage * 2, MaxThreads = K.footprint().maxThreads;
    for (uint32_t Waves : {4u, 8u, 3u}) {
      const uint32_t Group = Waves * Width, Rows = WaveRows * Waves;
      // The portable tile's scratch per wave: the 16 x Cols float32 accumulators, a and b.
      const size_t Scratch = Waves * (Accumulators * 16 * Cols * 4 + (16 * 32 + 32 * Cols) * 2);
      if (Group > P.device().maxWorkgroupSize() ||
          Staging + (K.tier("tiles") == "portable" ? Scratch : 0) >
              P.device().maxDynamicSharedBytes() ||
          (MaxThreads && MaxThreads < Group))
        continue;
      ++Ran;
      for (Case C :
           {Case{128, 128, 128}, Case{70, 136, 200}, Case{17, 128, 300}, Case{130, 129, 64}}) {
        std::vector<xpu::float16> A = halfData(size_t(C.M) * C.K, 800 + C.M),
                                  B = halfData(size_t(C.K) * C.N, 900 + C.N);
        auto DA = toDevice(A), DB = toDevice(B);
        auto Out = filledBuffer<float>(size_t(C.M) * C.N + 5, -5.0f);
        runKernelShared(K,
                        Persistent ? xpu::grid(3)
                                   : xpu::grid((C.N + Cols - 1) / Cols, (C.M + Rows - 1) / Rows),
                        xpu::block(Group), Staging, Out, DA, DB, C.M, C.N, C.K);
        const std::string What = std::string(Name) + " " + std::to_string(C.M) + "x" +
                                 std::to_string(C.N) + "x" + std::to_string(C.K) + " waves " +
                                 std::to_string(Waves);
        expectProduct(A, B, fromDevice(Out), C.M, C.N, C.K, 1e-5, What);
      }
    }
  }
  if (!Ran)
    GTEST_SKIP() << "the stages fit no group shape on " << P.device().name();
}

// int8 or uint8 b read K-major (bt: n x k row-major, staged in rows of 128 bytes of K), into int32:
// exact, modulo 2^32, at every staging offset and group shape. On sm_90a, wgmma takes the
// products whose b starts a block's first row 0, 32 or 64 bytes into it (64 deep: past 64 the
// tile leaves the atom), mma.sync the others (a later row, 8 bytes in).
template <class In> void checkEightBitGemm(const char* Kernel, uint64_t Seed) {
  xpu::Program P = compileProgram("TilesSharedB");
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  const uint32_t Width = P.device().waveWidth();
  ASSERT_GT(Width, 0u);
  const xpu::Kernel K = P.kernel(Kernel);
  const uint32_t MaxThreads = K.footprint().maxThreads;
  struct Case {
    uint32_t M, N, K;
  };
  unsigned Ran = 0;
  for (uint32_t Waves : {4u, 3u}) {
    // The portable tile's scratch per wave: the 16 x 64 int32 accumulator, a 16 x 64 and b.
    const size_t Scratch = Waves * (16 * 64 * 4 + 16 * 64 + 64 * 64);
    const uint32_t Rows = 16 * Waves, Largest = Rows * 128 + 1024 + 64 * 128;
    if (K.tier("tiles") == "portable" && (Scratch + Largest > P.device().maxDynamicSharedBytes() ||
                                          (MaxThreads && MaxThreads < Waves * Width)))
      continue;
    ++Ran;
    for (Case C : {Case{64, 64, 128}, Case{70, 100, 90}, Case{17, 64, 300}, Case{130, 129, 64}}) {
      std::vector<In> A = intData<In>(size_t(C.M) * C.K, Seed + C.M),
                      Bt = intData<In>(size_t(C.N) * C.K, Seed + 100 + C.N);
      auto DA = toDevice(A), DB = toDevice(Bt);
      for (uint32_t Past : {0u, 32u, 64u, 1024u, 128u, 8u}) {
        const uint32_t BOff = Rows * 128 + Past;
        auto Out = filledBuffer<int32_t>(size_t(C.M) * C.N + 5, -5);
        runKernelShared(K, xpu::grid((C.N + 63) / 64, (C.M + Rows - 1) / Rows),
                        xpu::block(Waves * Width), BOff + 64 * 128, Out, DA, DB, C.M, C.N, C.K,
                        BOff);
        std::vector<int32_t> Got = fromDevice(Out);
        const std::string What = std::string(Kernel) + " " + std::to_string(C.M) + "x" +
                                 std::to_string(C.N) + "x" + std::to_string(C.K) + " waves " +
                                 std::to_string(Waves) + " b at +" + std::to_string(Past);
        size_t Bad = 0;
        for (uint32_t I = 0; I < C.M; ++I)
          for (uint32_t J = 0; J < C.N; ++J) {
            int64_t Sum = 0;
            for (uint32_t L = 0; L < C.K; ++L)
              Sum += int64_t(A[size_t(I) * C.K + L]) * int64_t(Bt[size_t(J) * C.K + L]);
            const int32_t Want = int32_t(uint32_t(uint64_t(Sum)));
            if (Got[size_t(I) * C.N + J] != Want && Bad++ < 5)
              ADD_FAILURE() << What << ": (" << I << ", " << J << ") is "
                            << Got[size_t(I) * C.N + J] << ", want " << Want;
          }
        EXPECT_EQ(Bad, 0u) << What;
        for (size_t I = size_t(C.M) * C.N; I < Got.size(); ++I)
          EXPECT_EQ(Got[I], -5) << What << ": written past C at " << I;
      }
    }
  }
  if (!Ran)
    GTEST_SKIP() << "the portable tile's scratch and the staging fit no group shape on "
                 << P.device().name();
}

TEST(TileSharedB, Int8KMajorAtEveryOffsetAndGroupShape) {
  checkEightBitGemm<int8_t>("TilesSharedB.gemmInt8", 1100);
}

TEST(TileSharedB, Uint8KMajorAtEveryOffsetAndGroupShape) {
  checkEightBitGemm<uint8_t>("TilesSharedB.gemmUint8", 1300);
}

// The wgmma products are taken exactly where the device lists them (NVIDIA compute capability
// 9.0, whose bundle code is sm_90a) and the tiles are native.
TEST(TileSharedB, WgmmaIsTakenWhereTheDeviceListsItsProducts) {
  xpu::Program P = compileProgram("TilesSharedB");
  std::vector<std::string> Shapes = P.device().matrixShapes();
  const char* Override = std::getenv("CAJETA_GPU_COOPMATRIX_IMPL");
  const bool Wgmma =
      std::find(Shapes.begin(), Shapes.end(), "64x64x16:f16:f16:f32:f32") != Shapes.end() &&
      !(Override && std::string(Override) == "software");
  for (const char* K : {"TilesSharedB.gemm", "TilesSharedB.gemmSharedA", "TilesSharedB.gemmBf16",
                        "TilesSharedB.chained", "TilesSharedB.pipelined", "TilesSharedB.gemmInt8",
                        "TilesSharedB.gemmUint8"})
    EXPECT_EQ(P.kernel(K).tier("wgmma"), Wgmma ? "native" : "") << K << " on " << P.device().name();
}

} // namespace
} // namespace conformance
