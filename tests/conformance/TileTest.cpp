// Conformance of tiles (Kir.h TileOp): Group.mac of float16 into float32 against a float64
// reference (sizes that are not multiples of the tile, edges masked by the valid rows and
// columns), and a GEMM epilogue (column-major load, scale, add, convert to float16). Every tier
// is checked against the reference, not against another tier (their sum orders differ).
#include "ConformanceSupport.h"
#include "MatrixReference.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>

namespace conformance {
namespace {

using Half = xpu::float16;

/// Row-major C = A . B in float64 and the sum of |a| |b| per element (the error scale).
void reference(const std::vector<Half>& A, const std::vector<Half>& B, uint32_t M, uint32_t N,
               uint32_t K, std::vector<double>& C, std::vector<double>& Scale) {
  C.assign(size_t(M) * N, 0);
  Scale.assign(size_t(M) * N, 0);
  for (uint32_t I = 0; I < M; ++I)
    for (uint32_t J = 0; J < N; ++J) {
      DotRef R = dot(
          K, [&](uint32_t L) { return float(A[size_t(I) * K + L]); },
          [&](uint32_t L) { return float(B[size_t(L) * N + J]); });
      C[size_t(I) * N + J] = R.Sum;
      Scale[size_t(I) * N + J] = R.Scale;
    }
}

TEST(Tile, GemmFloat16IntoFloat32AnySize) {
  xpu::Program P = compileProgram("Tiles");
  CONFORMANCE_REQUIRE(P, Float16);
  struct Case {
    uint32_t M, N, K, Groups, Block;
  };
  for (Case C : {Case{16, 16, 16, 1, 64}, Case{37, 50, 70, 2, 64}, Case{64, 48, 32, 3, 128},
                 Case{5, 3, 9, 1, 64}, Case{100, 20, 130, 4, 64}}) {
    std::vector<Half> A = halfData(size_t(C.M) * C.K, 4000 + C.M),
                      B = halfData(size_t(C.K) * C.N, 5000 + C.N);
    auto DA = toDevice(A), DB = toDevice(B);
    auto Out = filledBuffer<float>(size_t(C.M) * C.N + 7, -7.0f); // + 7: nothing past C written
    runKernel(P.kernel("Tiles.gemm"), xpu::grid(C.Groups), xpu::block(C.Block), Out, DA, DB, C.M,
              C.N, C.K);
    std::vector<double> Want, Scale;
    reference(A, B, C.M, C.N, C.K, Want, Scale);
    std::vector<float> Got = fromDevice(Out);
    std::string What =
        "Tiles.gemm " + std::to_string(C.M) + "x" + std::to_string(C.N) + "x" + std::to_string(C.K);
    size_t Bad = 0;
    for (size_t I = 0; I < Want.size(); ++I) {
      // float16 products are exact in float32; the sums round K times at most.
      double Tol = 1e-6 * Scale[I] + 1e-30;
      if (!(std::fabs(Got[I] - Want[I]) <= Tol) && Bad++ < 5)
        ADD_FAILURE() << What << ": element " << I << " is " << Got[I] << ", want " << Want[I];
    }
    EXPECT_EQ(Bad, 0u) << What;
    for (size_t I = Want.size(); I < Got.size(); ++I)
      EXPECT_EQ(Got[I], -7.0f) << What << ": written past C at " << I;
  }
}

TEST(Tile, StoresAtAnyOffsetStrideAndEdge) {
  xpu::Program P = compileProgram("Tiles");
  CONFORMANCE_REQUIRE(P, Float16);
  std::vector<Half> A = halfData(256, 4100), B = halfData(256, 5100);
  auto DA = toDevice(A), DB = toDevice(B);
  std::vector<double> Want, Scale;
  reference(A, B, 16, 16, 16, Want, Scale);
  struct Case {
    uint32_t At, Stride, Rows, Cols;
  };
  // Even offsets and strides store whole pairs of columns where the native tiers can; an odd
  // one, an odd count of columns (a pair cut in two) and cut rows take single elements.
  for (Case C : {Case{0, 16, 16, 16}, Case{1, 16, 16, 16}, Case{0, 17, 16, 16}, Case{2, 18, 16, 15},
                 Case{4, 20, 7, 9}, Case{3, 21, 5, 1}, Case{6, 40, 16, 2}, Case{0, 16, 0, 16},
                 Case{8, 24, 13, 0}}) {
    const size_t Size = C.At + size_t(C.Stride) * 16 + 16 + 7;
    auto Out = filledBuffer<float>(Size, -7.0f);
    runKernel(P.kernel("Tiles.storeAnywhere"), xpu::grid(1), xpu::block(64), Out, DA, DB, C.At,
              C.Stride, C.Rows, C.Cols);
    std::vector<float> Got = fromDevice(Out);
    const std::string What = "at " + std::to_string(C.At) + ", stride " + std::to_string(C.Stride) +
                             ", " + std::to_string(C.Rows) + " x " + std::to_string(C.Cols);
    size_t Bad = 0;
    for (size_t I = 0; I < Size; ++I) {
      const size_t Off = I - C.At, R = Off / C.Stride, Col = Off % C.Stride;
      const bool Inside = I >= C.At && R < C.Rows && Col < C.Cols;
      const double W = Inside ? Want[R * 16 + Col] : -7.0;
      const double Tol = Inside ? 1e-6 * Scale[R * 16 + Col] + 1e-30 : 0;
      if (!(std::fabs(Got[I] - W) <= Tol) && Bad++ < 5)
        ADD_FAILURE() << What << ": element " << I << " is " << Got[I] << ", want " << W;
    }
    EXPECT_EQ(Bad, 0u) << What;
  }
}

TEST(Tile, GemmThroughSharedAlignedAndNot) {
  xpu::Program P = compileProgram("Tiles");
  CONFORMANCE_REQUIRE(P, Float16);
  const uint32_t Groups = 2;
  // 24 columns end in a half mma block; 32 are whole fragments everywhere.
  for (const char* Kernel :
       {"Tiles.gemmShared", "Tiles.gemmSharedColMajor", "Tiles.gemmShared32"}) {
    const std::string Name = Kernel;
    const uint32_t Cols = Name == "Tiles.gemmShared32" ? 32 : 24;
    std::vector<Half> A = halfData(Groups * 512, 51), B = halfData(Groups * 32 * Cols, 52);
    auto DA = toDevice(A), DB = toDevice(B);
    for (uint32_t Pad : {32u, 40u, 33u}) {
      auto Out = filledBuffer<float>(Groups * 16 * Cols, -3.0f);
      runKernel(P.kernel(Name), xpu::grid(Groups), xpu::block(32), Out, DA, DB, Pad);
      std::vector<float> Got = fromDevice(Out);
      size_t Bad = 0;
      for (uint32_t G = 0; G < Groups; ++G)
        for (uint32_t I = 0; I < 16; ++I)
          for (uint32_t J = 0; J < Cols; ++J) {
            DotRef R = dot(
                32, [&](uint32_t L) { return float(A[G * 512 + I * 32 + L]); },
                [&](uint32_t L) { return float(B[(G * 32 + L) * Cols + J]); });
            double Sum = R.Sum, Scale = R.Scale;
            float V = Got[(G * 16 + I) * Cols + J];
            if (!(std::fabs(V - Sum) <= 1e-6 * Scale) && Bad++ < 5)
              ADD_FAILURE() << Name << " pad " << Pad << " group " << G << " (" << I << ", " << J
                            << ") is " << V << ", want " << Sum;
          }
      EXPECT_EQ(Bad, 0u) << Name << " pad " << Pad;
    }
  }
}

// The device's list of native tile products: present exactly where tiles are native, each
// "MxNxK:a:b:c:result".
TEST(Tile, TheDeviceListsItsProductsExactlyWhereTilesAreNative) {
  xpu::Program P = compileProgram("Tiles");
  xpu::Device D = P.device();
  std::vector<std::string> Shapes = D.matrixShapes();
  EXPECT_EQ(!Shapes.empty(), D.supports(xpu::Capability::CooperativeMatrix)) << D.name();
  const std::regex Form("[0-9]+x[0-9]+x[0-9]+(:[a-z]+[0-9]+){4}");
  for (const std::string& S : Shapes)
    EXPECT_TRUE(std::regex_match(S, Form)) << S << " on " << D.name();
}

// Which tier each kernel's loaded code uses: on Vulkan the cooperative-matrix variant wherever
// the device lists its products (a tile that is not whole fragments keeps the software tile);
// mma.sync on sm_80+ CUDA; the software tile on the CPU.
TEST(Tile, EachKernelSaysItsTier) {
  xpu::Program P = compileProgram("Tiles");
  CONFORMANCE_REQUIRE(P, Float16);
  xpu::Device D = P.device();
  const char* Override = std::getenv("CAJETA_GPU_COOPMATRIX_IMPL");
  // The CPU's native tier takes bfloat16 and 8-bit integers, not float16: these tiles keep the
  // software tile there (Tile.BFloat16TilesTakeTheNativeTierWhereTheDeviceHasIt and
  // TileInt8.EachKernelTakesTheNativeTierWhereTheDeviceHasIt cover its native tier).
  const bool Native = D.supports(xpu::Capability::CooperativeMatrix) &&
                      !(Override && std::string(Override) == "software") && D.backend() != "cpu";
  for (const char* K :
       {"Tiles.gemm", "Tiles.epilogue", "Tiles.explicitRoles", "Tiles.gemmShared32"})
    EXPECT_EQ(P.kernel(K).tier("tiles"), Native ? "native" : "portable") << K;
  bool HalfBlocks = D.backend() == "cuda"; // mma.sync's 16x8 blocks take 24 columns
  for (const char* K : {"Tiles.gemmShared", "Tiles.gemmSharedColMajor"})
    EXPECT_EQ(P.kernel(K).tier("tiles"), Native && HalfBlocks ? "native" : "portable") << K;
  EXPECT_EQ(P.kernel("Tiles.gemm").tier("rays"), "");

  // The other products: native only on Vulkan (mma.sync takes float16 into float32 alone, so
  // CUDA demotes this whole program), and never the float32 tile (no such fragment).
  xpu::Program Others = compileProgram("TilesOtherTypes");
  const bool Vulkan = Native && D.backend() == "vulkan";
  for (const char* K :
       {"TilesOtherTypes.int8s", "TilesOtherTypes.uint8s", "TilesOtherTypes.halves"})
    EXPECT_EQ(Others.kernel(K).tier("tiles"), Vulkan ? "native" : "portable") << K;
  EXPECT_EQ(Others.kernel("TilesOtherTypes.float32s").tier("tiles"), "portable");
}

TEST(Tile, CooperativeMatrixWithDeclaredRoles) {
  xpu::Program P = compileProgram("Tiles");
  CONFORMANCE_REQUIRE(P, Float16);
  const uint32_t Groups = 2;
  std::vector<Half> A = halfData(Groups * 256, 41), Bt = halfData(Groups * 256, 42);
  auto DA = toDevice(A), DBt = toDevice(Bt);
  auto Out = filledBuffer<float>(Groups * 256, -2.0f);
  runKernel(P.kernel("Tiles.explicitRoles"), xpu::grid(Groups), xpu::block(32), Out, DA, DBt);
  std::vector<float> Got = fromDevice(Out);
  for (uint32_t G = 0; G < Groups; ++G)
    for (uint32_t I = 0; I < 16; ++I)
      for (uint32_t J = 0; J < 16; ++J) {
        DotRef R = dot(
            16, [&](uint32_t K) { return float(A[G * 256 + I * 16 + K]); },
            [&](uint32_t K) { return float(Bt[G * 256 + J * 16 + K]); });
        double Sum = R.Sum, Scale = R.Scale;
        EXPECT_NEAR(Got[G * 256 + I * 16 + J], Sum, 1e-6 * Scale + 1e-30)
            << "Tiles.explicitRoles group " << G << " (" << I << ", " << J << ")";
      }
}

TEST(Tile, EpilogueColumnMajorScaleAddConvert) {
  xpu::Program P = compileProgram("Tiles");
  CONFORMANCE_REQUIRE(P, Float16);
  const uint32_t Groups = 2;
  std::vector<Half> A = halfData(Groups * 512, 61), Bt = halfData(Groups * 512, 62);
  std::vector<float> D = uniformData<float>(Groups * 256, 63, -4, 4);
  const float Alpha = -1.5f;
  auto DA = toDevice(A), DBt = toDevice(Bt);
  auto DD = toDevice(D);
  auto Out = filledBuffer<Half>(Groups * 256, Half(9.0f));
  runKernel(P.kernel("Tiles.epilogue"), xpu::grid(Groups), xpu::block(32), Out, DA, DBt, DD, Alpha);
  std::vector<Half> Got = fromDevice(Out);
  size_t Bad = 0;
  for (uint32_t G = 0; G < Groups; ++G)
    for (uint32_t I = 0; I < 16; ++I)
      for (uint32_t J = 0; J < 16; ++J) {
        DotRef R = dot(
            32, [&](uint32_t L) { return float(A[G * 512 + I * 32 + L]); },
            [&](uint32_t L) { return float(Bt[G * 512 + J * 32 + L]); });
        double Sum = R.Sum, Scale = R.Scale;
        double Want = Alpha * Sum + D[G * 256 + I * 16 + J];
        double GotV = float(Got[G * 256 + I * 16 + J]);
        // One float16 rounding at the end (relative 2^-11), float32 sums before it.
        double Tol = std::fabs(Want) * 0x1p-11 + 1e-6 * (std::fabs(Alpha) * Scale + 4) + 0x1p-24;
        if (!(std::fabs(GotV - Want) <= Tol) && Bad++ < 5)
          ADD_FAILURE() << "Tiles.epilogue group " << G << " (" << I << ", " << J << ") is " << GotV
                        << ", want " << Want;
      }
  EXPECT_EQ(Bad, 0u);
}

template <class In> void checkInt8Tiles(const char* Kernel, bool WithC0) {
  xpu::Program P = compileProgram("TilesOtherTypes");
  const uint32_t Groups = 3;
  std::vector<In> A = intData<In>(Groups * 512, 71), B = intData<In>(Groups * 512, 72);
  std::vector<int32_t> C0 = intData<int32_t>(Groups * 256, 73);
  auto DA = toDevice(A), DB = toDevice(B);
  auto DC0 = toDevice(C0);
  auto Out = filledBuffer<int32_t>(Groups * 256, 5);
  if (WithC0)
    runKernel(P.kernel(Kernel), xpu::grid(Groups), xpu::block(64), Out, DA, DB, DC0);
  else
    runKernel(P.kernel(Kernel), xpu::grid(Groups), xpu::block(64), Out, DA, DB);
  std::vector<int32_t> Want(Groups * 256);
  for (uint32_t G = 0; G < Groups; ++G)
    for (uint32_t I = 0; I < 16; ++I)
      for (uint32_t J = 0; J < 16; ++J) {
        int64_t Sum = WithC0 ? C0[G * 256 + I * 16 + J] : 0;
        for (uint32_t L = 0; L < 32; ++L)
          Sum += int64_t(A[G * 512 + I * 32 + L]) * int64_t(B[G * 512 + L * 16 + J]);
        Want[G * 256 + I * 16 + J] = int32_t(uint32_t(Sum)); // int32 accumulators wrap
      }
  expectSame(fromDevice(Out), Want, Kernel);
}

TEST(Tile, Int8IntoInt32Exact) {
  checkInt8Tiles<int8_t>("TilesOtherTypes.int8s", true);
}

TEST(Tile, Uint8IntoInt32Exact) {
  checkInt8Tiles<uint8_t>("TilesOtherTypes.uint8s", false);
}

TEST(Tile, Float32ShapesThatAreNotFragments) {
  xpu::Program P = compileProgram("TilesOtherTypes");
  const uint32_t Groups = 2;
  std::vector<float> A = uniformData<float>(Groups * 32, 81, -2, 2),
                     B = uniformData<float>(Groups * 32, 82, -2, 2);
  auto DA = toDevice(A), DB = toDevice(B);
  auto Out = filledBuffer<float>(Groups * 64, 0);
  const float S = 0.75f;
  runKernel(P.kernel("TilesOtherTypes.float32s"), xpu::grid(Groups), xpu::block(32), Out, DA, DB,
            S);
  std::vector<float> Got = fromDevice(Out);
  for (uint32_t G = 0; G < Groups; ++G)
    for (uint32_t I = 0; I < 8; ++I)
      for (uint32_t J = 0; J < 8; ++J) {
        // The accumulator starts at 1 (Tile.fill(1.0f)).
        DotRef R = dot(
            4, [&](uint32_t L) { return A[G * 32 + I * 4 + L]; },
            [&](uint32_t L) { return B[G * 32 + L * 8 + J]; });
        EXPECT_NEAR(Got[G * 64 + I * 8 + J], S * (1 + R.Sum), 4e-7 * S * (1 + R.Scale))
            << "TilesOtherTypes.float32s group " << G << " (" << I << ", " << J << ")";
      }
}

// Float32 tiles in 4 x 16 blocks: each element adds its products in k order after the fill, as
// c = c + a * b in float32 (no fma: the kernel is not @FastMath), so the float64 reference is
// close and, on the CPU, the register-blocked product gives the row loops' bits
// (CAJETA_CPU_TILE_F32_DOT=0).
std::vector<float> runFloat32Blocks(const std::vector<float>& A, const std::vector<float>& B,
                                    uint32_t Groups) {
  xpu::Program P = compileProgram("TilesOtherTypes");
  auto DA = toDevice(A), DB = toDevice(B);
  auto Out = filledBuffer<float>(Groups * 512, 0);
  runKernel(P.kernel("TilesOtherTypes.float32Blocks"), xpu::grid(Groups), xpu::block(32), Out, DA,
            DB);
  return fromDevice(Out);
}

TEST(Tile, Float32BlocksInKOrder) {
  const uint32_t Groups = 2;
  std::vector<float> A = uniformData<float>(Groups * 768, 91, -2, 2),
                     B = uniformData<float>(Groups * 1536, 92, -2, 2);
  std::vector<float> Got = runFloat32Blocks(A, B, Groups);
  for (uint32_t G = 0; G < Groups; ++G)
    for (uint32_t I = 0; I < 16; ++I)
      for (uint32_t J = 0; J < 32; ++J) {
        DotRef R = dot(
            48, [&](uint32_t L) { return A[G * 768 + I * 48 + L]; },
            [&](uint32_t L) { return B[G * 1536 + L * 32 + J]; });
        EXPECT_NEAR(Got[G * 512 + I * 32 + J], 0.5 + R.Sum, 1e-6 * (0.5 + R.Scale))
            << "TilesOtherTypes.float32Blocks group " << G << " (" << I << ", " << J << ")";
      }
  if (xpu::defaultDevice().backend() != "cpu")
    return;
  ScopedEnv Rows("CAJETA_CPU_TILE_F32_DOT", "0");
  std::vector<float> RowLoops = runFloat32Blocks(A, B, Groups);
  for (size_t I = 0; I < Got.size(); ++I)
    ASSERT_EQ(std::bit_cast<uint32_t>(Got[I]), std::bit_cast<uint32_t>(RowLoops[I]))
        << "element " << I << ": " << Got[I] << " against the row loops' " << RowLoops[I];
}

TEST(Tile, Float16IntoFloat16) {
  xpu::Program P = compileProgram("TilesOtherTypes");
  CONFORMANCE_REQUIRE(P, Float16);
  std::vector<Half> A = halfData(256, 91), B = halfData(256, 92);
  auto DA = toDevice(A), DB = toDevice(B);
  auto Out = filledBuffer<Half>(256, Half(3.0f));
  runKernel(P.kernel("TilesOtherTypes.halves"), xpu::grid(1), xpu::block(32), Out, DA, DB);
  std::vector<Half> Got = fromDevice(Out);
  for (uint32_t I = 0; I < 16; ++I)
    for (uint32_t J = 0; J < 16; ++J) {
      DotRef R = dot(
          16, [&](uint32_t L) { return float(A[I * 16 + L]); },
          [&](uint32_t L) { return float(B[L * 16 + J]); });
      double Sum = R.Sum, Scale = R.Scale;
      // Every product and sum rounds to float16 (relative 2^-11 each, 32 roundings).
      EXPECT_NEAR(float(Got[I * 16 + J]), Sum, 32 * 0x1p-11 * Scale + 0x1p-14)
          << "TilesOtherTypes.halves (" << I << ", " << J << ")";
    }
}

// bfloat16 into float32: any size, edges masked. The products are exact in float32, as for
// float16, so the same bound holds; against a float64 reference of the bfloat16 inputs.
void checkBFloat16Gemm() {
  xpu::Program P = compileProgram("TilesBFloat16");
  struct Case {
    uint32_t M, N, K, Groups, Block;
  };
  for (Case C : {Case{16, 16, 16, 1, 64}, Case{37, 50, 70, 2, 64}, Case{5, 3, 9, 1, 64},
                 Case{100, 20, 130, 4, 64}}) {
    std::vector<xpu::bfloat16> A = bfloat16Data(size_t(C.M) * C.K, 6000 + C.M),
                               B = bfloat16Data(size_t(C.K) * C.N, 7000 + C.N);
    auto DA = toDevice(A), DB = toDevice(B);
    auto Out = filledBuffer<float>(size_t(C.M) * C.N + 7, -7.0f);
    runKernel(P.kernel("TilesBFloat16.gemm"), xpu::grid(C.Groups), xpu::block(C.Block), Out, DA, DB,
              C.M, C.N, C.K);
    std::vector<float> Got = fromDevice(Out);
    std::string What = "TilesBFloat16.gemm " + std::to_string(C.M) + "x" + std::to_string(C.N) +
                       "x" + std::to_string(C.K);
    size_t Bad = 0;
    double Err = 0, Norm = 0;
    for (uint32_t I = 0; I < C.M; ++I)
      for (uint32_t J = 0; J < C.N; ++J) {
        DotRef R = dot(
            C.K, [&](uint32_t L) { return float(A[size_t(I) * C.K + L]); },
            [&](uint32_t L) { return float(B[size_t(L) * C.N + J]); });
        double V = Got[size_t(I) * C.N + J];
        Err += (V - R.Sum) * (V - R.Sum);
        Norm += R.Sum * R.Sum;
        if (!(std::fabs(V - R.Sum) <= 1e-6 * R.Scale + 1e-30) && Bad++ < 5)
          ADD_FAILURE() << What << ": (" << I << ", " << J << ") is " << V << ", want " << R.Sum;
      }
    EXPECT_EQ(Bad, 0u) << What;
    EXPECT_LT(std::sqrt(Err / Norm), 1e-2) << What << ": relative norm";
    for (size_t I = size_t(C.M) * C.N; I < Got.size(); ++I)
      EXPECT_EQ(Got[I], -7.0f) << What << ": written past C at " << I;
  }
}

TEST(Tile, GemmBFloat16IntoFloat32AnySize) {
  checkBFloat16Gemm();
}

// Where the CPU has AMX, its tiles take the bfloat16 products; the AVX512-BF16 dot products, which
// take the shapes AMX's tiles do not, run the same GEMMs with CAJETA_CPU_AMX=0.
TEST(Tile, BFloat16GemmOnTheAvx512LeafWhereTheCpuHasAmxToo) {
  if (!cpuListsTileProduct("16x16x32:bf16:bf16:f32:f32") ||
      !cpuListsTileProduct("4x16x2:bf16:bf16:f32:f32"))
    GTEST_SKIP() << "not a CPU device with both AMX-BF16 and AVX512-BF16";
  ScopedEnv Avx512("CAJETA_CPU_AMX", "0");
  checkBFloat16Gemm();
}

// Through shared memory (ldmatrix on CUDA where the rows are 16-byte aligned) and back to
// bfloat16: each element one rounding of alpha times the float32 sum.
TEST(Tile, BFloat16ThroughSharedIntoABFloat16Epilogue) {
  xpu::Program P = compileProgram("TilesBFloat16");
  const uint32_t Groups = 2;
  std::vector<xpu::bfloat16> A = bfloat16Data(Groups * 512, 61),
                             B = bfloat16Data(Groups * 1024, 62);
  auto DA = toDevice(A), DB = toDevice(B);
  const float Alpha = 0.75f;
  for (uint32_t Pad : {32u, 40u, 33u}) {
    auto Out = filledBuffer<xpu::bfloat16>(Groups * 512, xpu::bfloat16(3.0f));
    runKernel(P.kernel("TilesBFloat16.sharedEpilogue"), xpu::grid(Groups), xpu::block(32), Out, DA,
              DB, Pad, Alpha);
    std::vector<xpu::bfloat16> Got = fromDevice(Out);
    size_t Bad = 0;
    for (uint32_t G = 0; G < Groups; ++G)
      for (uint32_t I = 0; I < 16; ++I)
        for (uint32_t J = 0; J < 32; ++J) {
          DotRef R = dot(
              32, [&](uint32_t L) { return float(A[G * 512 + I * 32 + L]); },
              [&](uint32_t L) { return float(B[G * 1024 + L * 32 + J]); });
          double V = float(Got[G * 512 + I * 32 + J]), Want = Alpha * R.Sum;
          // One bfloat16 rounding (half a unit: 2^-8 relative) after a float32 sum and scale.
          if (!(std::fabs(V - Want) <= 0x1p-8 * std::fabs(Want) + 1e-6 * R.Scale) && Bad++ < 5)
            ADD_FAILURE() << "TilesBFloat16.sharedEpilogue pad " << Pad << " group " << G << " ("
                          << I << ", " << J << ") is " << V << ", want " << Want;
        }
    EXPECT_EQ(Bad, 0u) << "pad " << Pad;
  }
}

// mma.sync takes bfloat16 on CUDA; Vulkan's cooperative matrices take it where the device
// lists the bfloat16 product (VK_KHR_shader_bfloat16), but never as an accumulator (the
// epilogue's bfloat16 tile keeps that kernel on the software tile); the CPU takes it with
// AVX512-BF16, every tile of both kernels being row-major in shared memory there.
TEST(Tile, BFloat16TilesTakeTheNativeTierWhereTheDeviceHasIt) {
  xpu::Program P = compileProgram("TilesBFloat16");
  xpu::Device D = P.device();
  const char* Override = std::getenv("CAJETA_GPU_COOPMATRIX_IMPL");
  const bool Native = D.supports(xpu::Capability::CooperativeMatrix) &&
                      !(Override && std::string(Override) == "software");
  const std::vector<std::string> Shapes = D.matrixShapes();
  const bool Cuda = Native && D.backend() == "cuda";
  const bool Cpu =
      Native && D.backend() == "cpu" &&
      std::find(Shapes.begin(), Shapes.end(), "4x16x2:bf16:bf16:f32:f32") != Shapes.end();
  const bool VulkanBf16 =
      Native && D.backend() == "vulkan" &&
      std::find(Shapes.begin(), Shapes.end(), "16x16x16:bf16:bf16:f32:f32") != Shapes.end();
  EXPECT_EQ(P.kernel("TilesBFloat16.gemm").tier("tiles"),
            Cuda || Cpu || VulkanBf16 ? "native" : "portable");
  EXPECT_EQ(P.kernel("TilesBFloat16.sharedEpilogue").tier("tiles"),
            Cuda || Cpu ? "native" : "portable");
}

} // namespace
} // namespace conformance
