// Conformance of POD parameters: C++ structs with mixed field types and padding, @PushConstant,
// and PODs passed on to @Device helpers.
#include "ConformanceSupport.h"

#include <cstddef>

namespace conformance {
namespace {

// The C layout of class Mixed in PodMixed.cj (natural alignment, 48 bytes with padding).
struct Mixed {
  int8_t a;
  double b;
  uint16_t c;
  int32_t d;
  bool e;
  float f;
  uint64_t g;
  int16_t h;
};
static_assert(sizeof(Mixed) == 48 && offsetof(Mixed, b) == 8 && offsetof(Mixed, c) == 16 &&
              offsetof(Mixed, d) == 20 && offsetof(Mixed, e) == 24 && offsetof(Mixed, f) == 28 &&
              offsetof(Mixed, g) == 32 && offsetof(Mixed, h) == 40);

struct Window {
  float scale;
  float offset;
  uint32_t first;
  uint32_t count;
};

struct Affine {
  double mul;
  double add;
};

struct Clip {
  int32_t lo;
  int32_t hi;
  uint8_t shift;
};
static_assert(sizeof(Clip) == 12);

/// A POD whose padding bytes hold garbage, as a careless host would pass it.
template <class T> T withDirtyPadding() {
  T V;
  std::memset(static_cast<void*>(&V), 0xCD, sizeof(T));
  return V;
}

TEST(Pod, MixedFieldsWithPadding) {
  xpu::Program P = compileProgram("PodMixed");
  const uint32_t N = 301;
  for (bool Flag : {true, false}) {
    Mixed M = withDirtyPadding<Mixed>();
    M.a = -128;
    M.b = Flag ? -0.375 : 1e300;
    M.c = 65535;
    M.d = std::numeric_limits<int32_t>::min() + 5;
    M.e = Flag;
    M.f = Flag ? 1.5f : -std::numeric_limits<float>::infinity();
    M.g = std::numeric_limits<uint64_t>::max() - 3; // + i wraps
    M.h = -32768;
    auto Ints = filledBuffer<int64_t>(N, 1);
    auto Wide = filledBuffer<uint64_t>(N, 1);
    auto Reals = filledBuffer<double>(N, 1.0);
    auto Flags = boolsToDevice(std::vector<uint8_t>(N, 1));
    run1D(P.kernel("PodMixed.run"), N, 64, Ints, Wide, Reals, Flags, M, N);
    std::vector<int64_t> WantInts(N);
    std::vector<uint64_t> WantWide(N);
    std::vector<double> WantReals(N);
    std::vector<uint8_t> WantFlags(N);
    for (uint32_t I = 0; I < N; ++I) {
      WantInts[I] = int64_t(M.a) * 1000000 + int64_t(M.c) * 1000 + int64_t(M.d) + int64_t(M.h) * I;
      WantWide[I] = M.g + I;
      WantReals[I] = M.b * double(I) + double(M.f);
      WantFlags[I] = M.e && I % 2 == 0;
    }
    std::string What = std::string("PodMixed e = ") + (Flag ? "true" : "false");
    expectSame(fromDevice(Ints), WantInts, What + " integer fields");
    expectSame(fromDevice(Wide), WantWide, What + " uint64 field");
    expectSame(fromDevice(Reals), WantReals, What + " float fields");
    expectSame(boolsFromDevice(Flags), WantFlags, What + " bool field");
  }
}

TEST(Pod, PushConstantParameter) {
  xpu::Program P = compileProgram("PodPushConstant");
  const uint32_t N = 500;
  std::vector<float> In = floatData<float>(N, 1400, -100, 100);
  auto DIn = toDevice(In);
  Window W{-2.5f, 0.125f, 37, 400};
  auto Out = filledBuffer<float>(N, 8.0f);
  run1D(P.kernel("PodPushConstant.run"), N, 128, Out, DIn, W, N);
  std::vector<float> Want(N, 8.0f);
  for (uint32_t I = W.first; I < W.first + W.count; ++I)
    Want[I] = In[I] * W.scale + W.offset;
  expectSame(fromDevice(Out), Want, "PodPushConstant.run");
}

TEST(Pod, PassedOnToHelpers) {
  xpu::Program P = compileProgram("PodHelper");
  const uint32_t N = 333;
  std::vector<double> InF = floatData<double>(N, 1410, -1e3, 1e3);
  std::vector<int32_t> InI = intData<int32_t>(N, 1411);
  auto DInF = toDevice(InF);
  auto DInI = toDevice(InI);
  Affine T{1.25, -3.5};
  Clip C = withDirtyPadding<Clip>();
  C.lo = -1000000;
  C.hi = 70000000;
  C.shift = 33; // masked to the int32 width: >> 1
  auto OutF = filledBuffer<double>(N, 0.0);
  auto OutI = filledBuffer<int32_t>(N, 0);
  run1D(P.kernel("PodHelper.run"), N, 64, OutF, OutI, DInF, DInI, T, C, N);
  std::vector<double> WantF(N);
  std::vector<int32_t> WantI(N);
  for (uint32_t I = 0; I < N; ++I) {
    double Once = T.mul * InF[I] + T.add;
    WantF[I] = T.mul * Once + T.add;
    int32_t S = InI[I] >> (C.shift & 31);
    WantI[I] = std::min(std::max(S, C.lo), C.hi);
  }
  expectSame(fromDevice(OutF), WantF, "PodHelper affine");
  expectSame(fromDevice(OutI), WantI, "PodHelper clip");
}

} // namespace
} // namespace conformance
