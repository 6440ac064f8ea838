// Conformance of element-wise kernels of the `if (i < n)` form (programs/ElementWise.cj). The
// GPUs run them four work-items to a work-item where the count is within the launch (the quad
// entries, each buffer's four elements in one access); every backend must give one work-item per
// element's results, for counts around multiples of four and of the block, a grid larger than
// the count, and a count past the grid (where only the launched work-items may write).
#include "ConformanceSupport.h"

#include <cajeta/xpu/Float16.hpp>

#include <cmath>

namespace conformance {
namespace {

struct Launch {
  uint32_t N;      // the count the kernel's guard compares with
  uint32_t Groups; // of Block work-items
};

constexpr uint32_t Block = 64;

std::vector<Launch> launches() {
  std::vector<Launch> L;
  for (uint32_t N : {1u, 2u, 3u, 4u, 5u, 63u, 64u, 65u, 255u, 256u, 257u, 1021u, 4099u})
    L.push_back({N, groupsFor(N, Block)});
  L.push_back({1000, 40}); // a grid of 2,560 work-items for 1,000 elements
  L.push_back({1000, 7});  // 448 work-items: elements 448 and on are never touched
  L.push_back({1024, 16}); // exactly one element per work-item, in whole quads
  return L;
}

std::string label(const char* Kernel, const Launch& L) {
  return std::string(Kernel) + ", n " + std::to_string(L.N) + ", " + std::to_string(L.Groups) +
         " groups";
}

TEST(ElementWise, TriadOnEveryCountAndGrid) {
  xpu::Program P = compileProgram("ElementWise");
  for (const Launch& L : launches()) {
    size_t Len = L.N + 8; // room past n that must stay untouched
    std::vector<float> B = uniformData<float>(Len, 11 + L.N, -4, 4);
    std::vector<float> C = uniformData<float>(Len, 12 + L.N, -4, 4);
    auto A = filledBuffer<float>(Len, -7.0f);
    runKernel(P.kernel("ElementWise.triad"), xpu::grid(L.Groups), xpu::block(Block), A, toDevice(B),
              toDevice(C), 0.75f, L.N);
    std::vector<float> Want(Len, -7.0f);
    uint32_t Items = L.Groups * Block;
    for (uint32_t I = 0; I < L.N && I < Items; ++I)
      Want[I] = std::fma(0.75f, C[I], B[I]); // @FastMath: contracted on every backend
    std::vector<float> Got = fromDevice(A);
    for (size_t I = 0; I < Len; ++I) { // contracted or not: within one rounding of the fma
      if (Got[I] != Want[I]) {
        EXPECT_NEAR(Got[I], B[I] + 0.75f * C[I], 1e-5f) << label("triad", L) << " at " << I;
      }
    }
  }
}

TEST(ElementWise, SignedIndicesAndCountsCompareSigned) {
  xpu::Program P = compileProgram("ElementWise");
  std::vector<std::pair<int32_t, uint32_t>> Runs; // count, groups
  for (const Launch& L : launches())
    Runs.push_back({int32_t(L.N), L.Groups});
  for (int32_t N : {0, -1, -4097}) // nothing runs: every index compares above the count
    Runs.push_back({N, 4});
  for (auto [N, Groups] : Runs) {
    const std::string Label = "n " + std::to_string(N) + ", " + std::to_string(Groups) + " groups";
    const uint32_t Items = Groups * Block, Done = N > 0 ? std::min(uint32_t(N), Items) : 0;
    const size_t Len = std::max<int32_t>(N, 0) + 8; // room past n that must stay untouched
    std::vector<float> X = uniformData<float>(Len, 51 + Len, -4, 4);
    std::vector<float> Y0 = uniformData<float>(Len, 52 + Len, -4, 4);
    auto Y = toDevice(Y0);
    runKernel(P.kernel("ElementWise.saxpyInt"), xpu::grid(Groups), xpu::block(Block), Y,
              toDevice(X), 0.5f, N);
    std::vector<float> Got = fromDevice(Y);
    for (size_t I = 0; I < Len; ++I) {
      volatile float Product = 0.5f * X[I];
      EXPECT_EQ(Got[I], I < Done ? Product + Y0[I] : Y0[I]) << "saxpyInt, " << Label << " at " << I;
    }
    std::vector<int32_t> In(Len);
    for (size_t I = 0; I < Len; ++I)
      In[I] = int32_t(I * 7919u) - 1000;
    auto Out = filledBuffer<int32_t>(Len, 77);
    runKernel(P.kernel("ElementWise.negateInt"), xpu::grid(Groups), xpu::block(Block), Out,
              toDevice(In), N);
    std::vector<int32_t> Neg = fromDevice(Out);
    for (size_t I = 0; I < Len; ++I)
      EXPECT_EQ(Neg[I], I < Done ? -In[I] : 77) << "negateInt, " << Label << " at " << I;
  }
}

TEST(ElementWise, TheRangeFormOnEveryCountAndGrid) {
  xpu::Program P = compileProgram("ElementWise");
  std::vector<Launch> All = launches();
  All.push_back({4099, 1}); // 64 work-items walk 4,099 elements
  All.push_back({100000, 3});
  for (const Launch& L : All) {
    size_t Len = L.N + 8;
    std::vector<float> B = uniformData<float>(Len, 41 + L.N, -4, 4);
    std::vector<float> C = uniformData<float>(Len, 42 + L.N, -4, 4);
    auto A = filledBuffer<float>(Len, -7.0f);
    runKernel(P.kernel("ElementWise.triadRange"), xpu::grid(L.Groups), xpu::block(Block), A,
              toDevice(B), toDevice(C), 0.75f, L.N);
    std::vector<float> Got = fromDevice(A);
    for (size_t I = 0; I < Len; ++I) {
      float Want = I < L.N ? std::fma(0.75f, C[I], B[I]) : -7.0f;
      if (Got[I] != Want) { // contracted or not: within one rounding of the fma
        EXPECT_NEAR(Got[I], I < L.N ? B[I] + 0.75f * C[I] : -7.0f, 1e-5f)
            << label("triadRange", L) << " at " << I;
      }
    }
  }
}

TEST(ElementWise, AGroupTheQuadEntryCannotTakeRunsThePlainOne) {
  xpu::Program P = compileProgram("ElementWise");
  const uint32_t N = 3000;
  std::vector<float> In = uniformData<float>(32 * size_t(N), 51, -1, 1);
  for (uint32_t GroupSize : {1024u, 64u}) {
    auto Out = filledBuffer<float>(N, -5.0f);
    runKernel(P.kernel("ElementWise.wide"), xpu::grid(groupsFor(N, GroupSize)),
              xpu::block(GroupSize), Out, toDevice(In), N);
    std::vector<float> Got = fromDevice(Out);
    for (uint32_t I = 0; I < N; ++I) {
      double Mean = 0, Want = 0;
      for (uint32_t K = 0; K < 32; ++K)
        Mean += In[I + K * N] / 32.0;
      for (uint32_t K = 0; K < 32; ++K)
        Want += (In[I + K * N] - Mean) * (In[I + K * N] - Mean);
      ASSERT_NEAR(Got[I], Want, 1e-4 * (1 + Want))
          << "wide, groups of " << GroupSize << ", at " << I;
    }
  }
}

TEST(ElementWise, StatementsLocalsAndANeighbourUnderASelect) {
  xpu::Program P = compileProgram("ElementWise");
  for (const Launch& L : launches()) {
    size_t Len = L.N + 8;
    std::vector<float> In = uniformData<float>(Len, 21 + L.N, -2, 2);
    std::vector<uint32_t> Index(Len);
    for (size_t I = 0; I < Len; ++I)
      Index[I] = uint32_t(I * 7 % 13);
    auto Out = filledBuffer<float>(Len, -1.0f);
    auto DIndex = toDevice(Index);
    runKernel(P.kernel("ElementWise.steps"), xpu::grid(L.Groups), xpu::block(Block), Out, DIndex,
              toDevice(In), L.N);
    std::vector<float> Want(Len, -1.0f);
    std::vector<uint32_t> WantIndex = Index;
    uint32_t Items = L.Groups * Block;
    for (uint32_t I = 0; I < L.N && I < Items; ++I) {
      float Left = I > 0 ? In[I - 1] : 0.0f;
      float D = In[I] - Left;
      float Square = D * D; // no @FastMath (and -ffp-contract=off here): rounded before the adds
      Want[I] = Square + float(Index[I]) + float(I);
      WantIndex[I] = Index[I] * 3u + I;
    }
    expectSame(fromDevice(Out), Want, label("steps", L));
    expectSame(fromDevice(DIndex), WantIndex, label("steps (index)", L));
  }
}

TEST(ElementWise, BranchesInsideEachElement) {
  xpu::Program P = compileProgram("ElementWise");
  for (const Launch& L : launches()) {
    size_t Len = L.N + 8;
    std::vector<float> In = uniformData<float>(Len, 61 + L.N, -2, 2);
    auto Out = filledBuffer<float>(Len, -9.0f);
    runKernel(P.kernel("ElementWise.clamp"), xpu::grid(L.Groups), xpu::block(Block), Out,
              toDevice(In), -0.5f, L.N);
    std::vector<float> Want(Len, -9.0f);
    for (uint32_t I = 0; I < L.N && I < L.Groups * Block; ++I) {
      Want[I] = In[I] < -0.5f ? -0.5f : In[I] * 2.0f;
      if (In[I] > 1.0f)
        Want[I] = Want[I] + 1.0f;
    }
    expectSame(fromDevice(Out), Want, label("clamp", L));
  }
}

TEST(ElementWise, OneTwoAndEightByteElements) {
  xpu::Program P = compileProgram("ElementWise");
  for (const Launch& L : launches()) {
    size_t Len = L.N + 8;
    uint32_t Items = L.Groups * Block;
    uint32_t Done = std::min(L.N, Items);

    std::vector<xpu::float16> Halves(Len);
    for (size_t I = 0; I < Len; ++I)
      Halves[I] = xpu::float16(float(int(I % 129) - 64) * 0.25f); // in * 2 + 1 is exact
    auto HalfOut = filledBuffer<xpu::float16>(Len, xpu::float16(-3.0f));
    runKernel(P.kernel("ElementWise.halves"), xpu::grid(L.Groups), xpu::block(Block), HalfOut,
              toDevice(Halves), L.N);
    std::vector<xpu::float16> GotHalves = fromDevice(HalfOut);
    for (size_t I = 0; I < Len; ++I) {
      float Want = I < Done ? float(Halves[I]) * 2.0f + 1.0f : -3.0f;
      EXPECT_EQ(float(GotHalves[I]), Want) << label("halves", L) << " at " << I;
    }

    std::vector<double> X = uniformData<double>(Len, 31 + L.N, -3, 3);
    std::vector<double> Y = uniformData<double>(Len, 32 + L.N, -3, 3);
    auto DoubleOut = filledBuffer<double>(Len, -1.0);
    runKernel(P.kernel("ElementWise.doubles"), xpu::grid(L.Groups), xpu::block(Block), DoubleOut,
              toDevice(X), toDevice(Y), L.N);
    std::vector<double> WantDoubles(Len, -1.0);
    for (uint32_t I = 0; I < Done; ++I)
      WantDoubles[I] = std::sqrt(X[I] * X[I] + Y[I] * Y[I]);
    expectSame(fromDevice(DoubleOut), WantDoubles, label("doubles", L));

    std::vector<uint8_t> Bytes(Len);
    for (size_t I = 0; I < Len; ++I)
      Bytes[I] = uint8_t(I * 37 + 5);
    auto ByteOut = filledBuffer<uint8_t>(Len, 0xEE);
    runKernel(P.kernel("ElementWise.bytes"), xpu::grid(L.Groups), xpu::block(Block), ByteOut,
              toDevice(Bytes), L.N);
    std::vector<uint8_t> WantBytes(Len, 0xEE);
    for (uint32_t I = 0; I < Done; ++I)
      WantBytes[I] = uint8_t(Bytes[I] ^ 0x5a);
    expectSame(fromDevice(ByteOut), WantBytes, label("bytes", L));
  }
}

} // namespace
} // namespace conformance
