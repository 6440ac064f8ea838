// Conformance of workgroup-shared arrays: several static arrays of different types, length(), and
// the dynamic array sized at launch (several sizes, alone and beside a static one).
#include "ConformanceSupport.h"

#include <algorithm>

namespace conformance {
namespace {

TEST(Shared, StaticArraysOfSeveralTypes) {
  xpu::Program P = compileProgram("SharedStatic");
  const uint32_t N = 300, Block = 128; // the last workgroup holds 44 elements
  std::vector<double> InF = floatData<double>(N, 1100, -1e9, 1e9);
  std::vector<int16_t> InS = intData<int16_t>(N, 1101);
  auto DInF = toDevice(InF);
  auto DInS = toDevice(InS);
  auto OutF = filledBuffer<double>(N, -5.0);
  auto OutS = filledBuffer<int16_t>(N, 77);
  run1D(P.kernel("SharedStatic.reverse"), N, Block, OutF, OutS, DInF, DInS, N);
  std::vector<double> WantF(N);
  std::vector<int16_t> WantS(N);
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t Base = I / Block * Block, Valid = std::min(Block, N - Base);
    uint32_t From = Base + Valid - 1 - I % Block;
    WantF[I] = InF[From];
    WantS[I] = InS[From];
  }
  expectSame(fromDevice(OutF), WantF, "SharedStatic.reverse float64");
  expectSame(fromDevice(OutS), WantS, "SharedStatic.reverse int16");
}

TEST(Shared, StaticLengthAndSameNamesInAnotherKernel) {
  xpu::Program P = compileProgram("SharedStatic");
  const uint32_t N = 250, Block = 96;
  auto Out = filledBuffer<uint64_t>(N + 1, 1);
  run1D(P.kernel("SharedStatic.lengths"), N, Block, Out, N);
  std::vector<uint64_t> Want(N + 1, 1);
  for (uint32_t I = 0; I < N; ++I) {
    uint64_t Mirror = uint64_t(I / Block) * Block + (Block - 1 - I % Block);
    Want[I] = 3 * 10000 + 1000 + Mirror * 3;
  }
  expectSame(fromDevice(Out), Want, "SharedStatic.lengths");
}

TEST(Shared, DynamicArraySizedAtLaunch) {
  xpu::Program P = compileProgram("SharedDynamic");
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  const uint32_t N = 1000, Block = 64;
  std::vector<int32_t> In = intData<int32_t>(N, 1110);
  auto DIn = toDevice(In);
  struct Case {
    uint32_t Bytes, Elements;
  };
  // 403 bytes hold 100 whole int32 elements: length() counts only what fits.
  for (Case C : {Case{256, 64}, Case{800, 200}, Case{4000, 1000}, Case{148, 37}, Case{403, 100}}) {
    uint32_t Groups = groupsFor(N, C.Elements);
    auto Out = filledBuffer<int32_t>(N, -1);
    auto Lens = filledBuffer<uint64_t>(Groups + 1, 9);
    runKernelShared(P.kernel("SharedDynamic.reverseChunks"), xpu::grid(Groups), xpu::block(Block),
                    C.Bytes, Out, DIn, Lens, N);
    std::vector<int32_t> Want(N);
    for (uint32_t I = 0; I < N; ++I) {
      uint32_t Base = I / C.Elements * C.Elements, Valid = std::min(C.Elements, N - Base);
      Want[I] = In[Base + Valid - 1 - (I - Base)];
    }
    std::vector<uint64_t> WantLens(Groups, C.Elements);
    WantLens.push_back(9);
    std::string What = "SharedDynamic.reverseChunks " + std::to_string(C.Bytes) + " bytes";
    expectSame(fromDevice(Out), Want, What);
    expectSame(fromDevice(Lens), WantLens, What + " length()");
  }
}

TEST(Shared, DynamicBesideStatic) {
  xpu::Program P = compileProgram("SharedDynamic");
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  const uint32_t N = 300;
  std::vector<float> In = floatData<float>(N, 1120, -50, 50);
  auto DIn = toDevice(In);
  for (uint32_t Block : {128u, 32u}) {
    auto Out = filledBuffer<float>(N, 3.0f);
    runKernelShared(P.kernel("SharedDynamic.withStatic"), xpu::grid(groupsFor(N, Block)),
                    xpu::block(Block), Block * 4, Out, DIn, N);
    std::vector<float> Want(N);
    for (uint32_t I = 0; I < N; ++I) {
      uint32_t Base = I / Block * Block, Next = Base + (I - Base + 1) % Block;
      float Neighbour = Next < N ? In[Next] : 0.0f;
      Want[I] = Neighbour + (float(I / Block) + 0.5f);
    }
    expectSame(fromDevice(Out), Want, "SharedDynamic.withStatic block " + std::to_string(Block));
  }
}

// 40 KiB of static shared memory and 12 KiB of dynamic: together past the 48 KiB a CUDA kernel
// takes without opting in, which the runtime does for it.
TEST(Shared, DynamicBesideALargeStaticArray) {
  xpu::Program P = compileProgram("SharedDynamic");
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  const uint32_t Dynamic = 12288;
  if (P.device().maxDynamicSharedBytes() < 40960 + Dynamic)
    GTEST_SKIP() << P.device().name() << " has " << P.device().maxDynamicSharedBytes()
                 << " bytes of workgroup memory";
  const uint32_t N = 300, Block = 128;
  std::vector<float> In = floatData<float>(N, 1130, -50, 50);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<float>(N, 3.0f);
  runKernelShared(P.kernel("SharedDynamic.withLargeStatic"), xpu::grid(groupsFor(N, Block)),
                  xpu::block(Block), Dynamic, Out, DIn, N);
  std::vector<float> Want(N);
  for (uint32_t I = 0; I < N; ++I)
    Want[I] = In[I] + float((I % Block + 1) % Block);
  expectSame(fromDevice(Out), Want, "SharedDynamic.withLargeStatic");
}

// 112 KiB of static arrays (on NVIDIA past PTX's 48 KiB of `.shared`, so kept at the start of
// the dynamic shared memory, which the launch grows by as much) beside 8 KiB of dynamic.
TEST(Shared, StaticArraysPastTheStaticLimitBesideTheDynamicOne) {
  xpu::Program P = compileProgram("SharedDynamic");
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  const uint32_t Dynamic = 8192, Static = 98304 + 16384;
  if (P.device().maxDynamicSharedBytes() < Static + Dynamic)
    GTEST_SKIP() << P.device().name() << " has " << P.device().maxDynamicSharedBytes()
                 << " bytes of workgroup memory";
  const uint32_t N = 300, Block = 128, Len = Dynamic / 4;
  std::vector<float> In = floatData<float>(N, 1140, -50, 50);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<float>(N, 3.0f);
  runKernelShared(P.kernel("SharedDynamic.pastTheStaticLimit"), xpu::grid(groupsFor(N, Block)),
                  xpu::block(Block), Dynamic, Out, DIn, N);
  std::vector<float> Want(N);
  for (uint32_t I = 0; I < N; ++I) {
    const uint32_t T = I % Block, K = Len - 1 - T; // d[K]: written by work-item K % Block
    const uint32_t Writer = I / Block * Block + K % Block;
    const float D = Writer < N ? In[Writer] + float(K) : 0.0f;
    Want[I] = (float(24575 - T) + 0.25f) + float(3 * (4095 - T)) + D;
  }
  expectSame(fromDevice(Out), Want, "SharedDynamic.pastTheStaticLimit");
}

TEST(Shared, DynamicTreeReductionSeveralSizes) {
  xpu::Program P = compileProgram("ReduceDynamic");
  CONFORMANCE_REQUIRE(P, DynamicSharedMemory);
  const uint32_t N = 1000;
  std::vector<uint32_t> In = intData<uint32_t>(N, 1130);
  auto DIn = toDevice(In);
  for (uint32_t Block : {16u, 64u, 256u, 1u}) {
    uint32_t Groups = groupsFor(N, Block);
    auto Partial = filledBuffer<uint32_t>(Groups, 0xABCDu);
    runKernelShared(P.kernel("ReduceDynamic.sum"), xpu::grid(Groups), xpu::block(Block), Block * 4,
                    Partial, DIn, N);
    std::vector<uint32_t> Want(Groups, 0);
    for (uint32_t I = 0; I < N; ++I)
      Want[I / Block] += In[I];
    expectSame(fromDevice(Partial), Want, "ReduceDynamic.sum block " + std::to_string(Block));
  }
}

} // namespace
} // namespace conformance
