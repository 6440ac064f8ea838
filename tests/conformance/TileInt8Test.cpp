// Conformance of 8-bit tiles (TilesInt8.cj): int8 and uint8 into int32 are exact on every tier
// (int32 sums wrap), so each tier is checked for equality with the reference: GEMMs of sizes that
// are not multiples of the tile, the product through shared memory with aligned and unaligned
// rows, and a float32 epilogue. Which tier each kernel takes is checked beside them.
#include "ConformanceSupport.h"

#include <algorithm>
#include <cstdlib>

namespace conformance {
namespace {

struct GemmCase {
  uint32_t M, N, K;
};

const GemmCase Cases[] = {{16, 16, 32}, {37, 50, 70}, {5, 3, 9}, {100, 20, 130}, {32, 48, 64}};

/// Row-major A (m x k) . B (k x n) in int32 arithmetic that wraps, as the tiles' accumulators do.
template <class In>
std::vector<int32_t> product(const std::vector<In>& A, const std::vector<In>& B, GemmCase C) {
  std::vector<int32_t> Out(size_t(C.M) * C.N);
  for (uint32_t I = 0; I < C.M; ++I)
    for (uint32_t J = 0; J < C.N; ++J) {
      int64_t Sum = 0;
      for (uint32_t L = 0; L < C.K; ++L)
        Sum += int64_t(A[size_t(I) * C.K + L]) * int64_t(B[size_t(L) * C.N + J]);
      Out[size_t(I) * C.N + J] = int32_t(uint32_t(uint64_t(Sum)));
    }
  return Out;
}

/// Runs Kernel (gemm's signature) on each case and compares with product; Groups(C) groups of
/// 64 work-items.
template <class In>
void checkGemm(const char* Kernel, const std::function<uint32_t(GemmCase)>& Groups) {
  xpu::Program P = compileProgram("TilesInt8");
  for (GemmCase C : Cases) {
    std::vector<In> A = intData<In>(size_t(C.M) * C.K, 300 + C.M),
                    B = intData<In>(size_t(C.K) * C.N, 400 + C.N);
    auto DA = toDevice(A), DB = toDevice(B);
    auto Out = filledBuffer<int32_t>(size_t(C.M) * C.N + 7, -7);
    runKernel(P.kernel(Kernel), xpu::grid(Groups(C)), xpu::block(64), Out, DA, DB, C.M, C.N, C.K);
    std::vector<int32_t> Got = fromDevice(Out);
    std::vector<int32_t> Want = product(A, B, C);
    Want.resize(Got.size(), -7); // nothing written past C
    expectSame(Got, Want,
               std::string(Kernel) + " " + std::to_string(C.M) + "x" + std::to_string(C.N) + "x" +
                   std::to_string(C.K));
  }
}

uint32_t tilesOf(GemmCase C) {
  return (C.M + 15) / 16 * ((C.N + 15) / 16);
}

TEST(TileInt8, GemmAnySizeExact) {
  checkGemm<int8_t>("TilesInt8.gemm", [](GemmCase C) { return std::min(3u, tilesOf(C)); });
}

TEST(TileInt8, GemmOfUint8AnySizeExact) {
  checkGemm<uint8_t>("TilesInt8.gemmUnsigned", tilesOf);
}

// Where the CPU has AMX, its tiles take these products; the AVX512-VNNI dot products, which take
// the shapes AMX's tiles do not, run the same GEMMs with CAJETA_CPU_AMX=0.
TEST(TileInt8, GemmOnTheAvx512LeafWhereTheCpuHasAmxToo) {
  if (!cpuListsTileProduct("16x16x64:s8:s8:s32:s32") ||
      !cpuListsTileProduct("4x16x4:s8:s8:s32:s32"))
    GTEST_SKIP() << "not a CPU device with both AMX-INT8 and AVX512-VNNI";
  ScopedEnv Avx512("CAJETA_CPU_AMX", "0");
  checkGemm<int8_t>("TilesInt8.gemm", [](GemmCase C) { return std::min(3u, tilesOf(C)); });
  checkGemm<uint8_t>("TilesInt8.gemmUnsigned", tilesOf);
}

// Through shared memory (ldmatrix for a, and for b staged by columns, on CUDA where lines are
// 16-byte aligned: pads 32 and 48; 33 takes the element loads) and into float32: each element is
// alpha times the int32 sum, each rounded to float32 once, as the reference does.
TEST(TileInt8, ThroughSharedIntoAFloat32Epilogue) {
  xpu::Program P = compileProgram("TilesInt8");
  const uint32_t Groups = 2;
  std::vector<int8_t> A = intData<int8_t>(Groups * 512, 51), B = intData<int8_t>(Groups * 1024, 52);
  std::vector<int32_t> C0 = intData<int32_t>(Groups * 512, 53);
  auto DA = toDevice(A), DB = toDevice(B);
  auto DC0 = toDevice(C0);
  const float Alpha = 0.75f;
  for (uint32_t Pad : {32u, 48u, 33u})
    for (const char* Kernel : {"TilesInt8.sharedEpilogue", "TilesInt8.sharedColMajor"}) {
      auto Out = filledBuffer<float>(Groups * 512, 3.0f);
      runKernel(P.kernel(Kernel), xpu::grid(Groups), xpu::block(32), Out, DA, DB, DC0, Pad, Alpha);
      std::vector<float> Got = fromDevice(Out), Want(Groups * 512);
      for (uint32_t G = 0; G < Groups; ++G)
        for (uint32_t I = 0; I < 16; ++I)
          for (uint32_t J = 0; J < 32; ++J) {
            int64_t Sum = C0[G * 512 + I * 32 + J];
            for (uint32_t L = 0; L < 32; ++L)
              Sum += int64_t(A[G * 512 + I * 32 + L]) * int64_t(B[G * 1024 + L * 32 + J]);
            volatile float Converted = float(int32_t(uint32_t(uint64_t(Sum))));
            Want[G * 512 + I * 32 + J] = Alpha * Converted;
          }
      expectSame(Got, Want, std::string(Kernel) + " pad " + std::to_string(Pad));
    }
}

// mma.sync takes 8-bit products on CUDA (sm_80+); Vulkan's cooperative matrices take each kernel
// whose product the device lists; the CPU takes them with AVX512-VNNI (a whole program's tiles at
// once there: these are all in 4 x 16 x 4 blocks).
TEST(TileInt8, EachKernelTakesTheNativeTierWhereTheDeviceHasIt) {
  xpu::Program P = compileProgram("TilesInt8");
  xpu::Device D = P.device();
  const char* Override = std::getenv("CAJETA_GPU_COOPMATRIX_IMPL");
  const bool Native = D.supports(xpu::Capability::CooperativeMatrix) &&
                      !(Override && std::string(Override) == "software");
  const std::vector<std::string> Shapes = D.matrixShapes();
  auto Lists = [&](const char* Shape) {
    return std::find(Shapes.begin(), Shapes.end(), Shape) != Shapes.end();
  };
  const bool Cuda = Native && D.backend() == "cuda";
  const bool Vulkan = Native && D.backend() == "vulkan";
  const bool Cpu = Native && D.backend() == "cpu" && Lists("4x16x4:s8:s8:s32:s32");
  EXPECT_EQ(P.kernel("TilesInt8.gemm").tier("tiles"),
            Cuda || Cpu || (Vulkan && Lists("16x16x32:s8:s8:s32:s32")) ? "native" : "portable");
  for (const char* K : {"TilesInt8.sharedEpilogue", "TilesInt8.sharedColMajor"})
    EXPECT_EQ(P.kernel(K).tier("tiles"),
              Cuda || Cpu || (Vulkan && Lists("16x16x32:s8:s8:s32:s32")) ? "native" : "portable")
        << K;
  EXPECT_EQ(P.kernel("TilesInt8.gemmUnsigned").tier("tiles"),
            Cuda || Cpu || (Vulkan && Lists("16x16x32:u8:u8:u32:u32")) ? "native" : "portable");
  if (Cuda) {
    EXPECT_TRUE(Lists("16x8x32:s8:s8:s32:s32")) << "the CUDA device lists its int8 product";
    EXPECT_TRUE(Lists("16x8x32:u8:u8:s32:s32")) << "the CUDA device lists its uint8 product";
  }
}

} // namespace
} // namespace conformance
