// Executes wave ops on a real Vulkan device (lavapipe in CI), native and portable tier, and
// checks every result against a model of Kir.h's WaveOp semantics: lanes are linear, shuffles keep
// the own value out of range, float reductions and scans follow the butterfly / Hillis-Steele
// orders bit for bit, float min/max follow Math.min/max (NaN wins, -0 < +0).
#include "SpirvTestSupport.h"
#include "VulkanHarness.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <type_traits>

namespace cajeta::lowering::spirv::test {
namespace {

constexpr uint32_t Block = 64, Groups = 2, N = Block * Groups;

template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T>& V) {
  std::vector<uint8_t> B(V.size() * sizeof(T));
  std::memcpy(B.data(), V.data(), B.size());
  return B;
}

template <typename T> std::vector<T> valuesOf(const std::vector<uint8_t>& B) {
  std::vector<T> V(B.size() / sizeof(T));
  std::memcpy(V.data(), B.data(), V.size() * sizeof(T));
  return V;
}

template <typename T> bool sameBits(T A, T B) {
  return std::memcmp(&A, &B, sizeof(T)) == 0;
}

/// Math.min/max on floats: NaN if either is NaN, -0 < +0.
template <typename F> F javaMinMax(bool IsMin, F A, F B) {
  if (std::isnan(A) || std::isnan(B))
    return std::numeric_limits<F>::quiet_NaN();
  if (A == B && A == F(0))
    return (std::signbit(A) == IsMin) ? A : B;
  return IsMin ? (A < B ? A : B) : (A > B ? A : B);
}

/// Kir.h's butterfly: for m = 1, 2, ..., W/2: v = op(v, v of lane ^ m), on one wave.
template <typename T> std::vector<T> butterfly(std::vector<T> V, const std::function<T(T, T)>& Op) {
  size_t W = V.size();
  for (size_t M = 1; M < W; M <<= 1) {
    std::vector<T> Next(W);
    for (size_t L = 0; L < W; ++L)
      Next[L] = Op(V[L], V[L ^ M]);
    V = Next;
  }
  return V;
}

/// Kir.h's Hillis-Steele: for d = 1, 2, ..., W/2: if (lane >= d) v = (v of lane - d) + v.
template <typename T> std::vector<T> hillisSteele(std::vector<T> V) {
  size_t W = V.size();
  for (size_t D = 1; D < W; D <<= 1) {
    std::vector<T> Next = V;
    for (size_t L = D; L < W; ++L)
      Next[L] = T(V[L - D] + V[L]);
    V = Next;
  }
  return V;
}

class SpirvWaveLavapipe : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override {
    std::string Why;
    H = VulkanHarness::create(Why);
    if (!H)
      GTEST_SKIP() << "no Vulkan device: " << Why;
  }

public: // used by the check templates below
  SpirvKernel kernel(const std::string& Source) {
    driver::FrontendResult F = frontend("W.cj", Source);
    EXPECT_TRUE(F.Ok) << F.Diagnostics;
    if (!F.Ok)
      return {};
    SpirvEmitOptions O;
    O.PortableWaveOps = GetParam();
    SpirvKernel K = emit(F, "W.run", O);
    EXPECT_TRUE(K.Ok) << K.Error;
    return K;
  }
  /// Runs K over Groups x Block with buffers Bufs and the uint32 parameter k (when it has one).
  void run(const SpirvKernel& K, std::vector<std::vector<uint8_t>>& Bufs, uint32_t Kp = 0) {
    std::vector<uint8_t> Params;
    if (!K.Slots.empty()) {
      Params.resize(K.ParamBlockBytes);
      std::memcpy(Params.data() + K.Slots[0].Offset, &Kp, 4);
    }
    std::string Error;
    ASSERT_TRUE(H->run(K, Groups, Block, Bufs, Params, 1, Error)) << Error;
  }
  /// The device's wave width, read by a kernel (and checked: lanes are linear).
  uint32_t width() {
    if (Width)
      return Width;
    SpirvKernel K = kernel(R"(import cajeta.xpu.*;
public final class W {
    @Kernel
    public static void run(KernelBuffer<uint32> out) {
        uint32 i = KernelThread.globalIdX();
        uint32 one = 1u;
        out[3u * i] = Wave.width();
        out[3u * i + 1u] = Wave.laneId();
        out[3u * i + 2u] = Wave.reduceSum(one);
    }
}
)");
    if (!K.Ok)
      return 0;
    std::vector<std::vector<uint8_t>> Bufs = {std::vector<uint8_t>(N * 3 * 4, 0xFF)};
    run(K, Bufs);
    std::vector<uint32_t> Out = valuesOf<uint32_t>(Bufs[0]);
    uint32_t W = Out[0];
    EXPECT_TRUE(W >= 4 && W <= 64 && std::has_single_bit(W)) << "width " << W;
    for (uint32_t I = 0; I < N; ++I) {
      EXPECT_EQ(Out[3 * I], W) << I;
      EXPECT_EQ(Out[3 * I + 1], I % W) << "lane of work-item " << I << " is not linear";
      EXPECT_EQ(Out[3 * I + 2], W) << I;
    }
    Width = W;
    return W;
  }

  std::unique_ptr<VulkanHarness> H;
  uint32_t Width = 0;
};

TEST_P(SpirvWaveLavapipe, WidthLaneAndSumOfOnes) {
  uint32_t W = width();
  ASSERT_NE(W, 0u);
  ASSERT_EQ(Block % W, 0u);
  std::printf("[ wave ] %s: Wave.width() = %u, lanes linear (%s tier)\n", H->deviceName().c_str(),
              W, GetParam() ? "portable" : "native");
}

// ---------------------------------------------------------------------------------------------
// Shuffles: the same lane arithmetic for every type (values compared bit for bit).

std::string shuffleKernel(const std::string& T) {
  return "import cajeta.xpu.*;\npublic final class W {\n    @Kernel\n"
         "    public static void run(KernelBuffer<" +
         T + "> out, KernelBuffer<" + T +
         "> in, uint32 k) {\n"
         "        uint32 i = KernelThread.globalIdX();\n"
         "        " +
         T +
         " v = in[i];\n"
         "        uint32 l = Wave.laneId();\n"
         "        out[6u * i] = Wave.shuffle(v, l * 3u + k);\n"
         "        out[6u * i + 1u] = Wave.shuffleUp(v, k);\n"
         "        out[6u * i + 2u] = Wave.shuffleDown(v, k);\n"
         "        out[6u * i + 3u] = Wave.shuffleXor(v, k);\n"
         "        out[6u * i + 4u] = Wave.rotate(v, k);\n"
         "        out[6u * i + 5u] = Wave.broadcastFirst(v);\n"
         "    }\n}\n";
}

/// The source lane of each shuffle (Kir.h); Own for "keeps its own value".
void expectedSources(uint32_t Lane, uint32_t W, uint32_t K, uint32_t Src[6]) {
  Src[0] = (Lane * 3u + K) & (W - 1);
  Src[1] = Lane >= K ? Lane - K : Lane;
  Src[2] = uint64_t(Lane) + K < W ? Lane + K : Lane;
  Src[3] = (Lane ^ K) < W ? Lane ^ K : Lane;
  Src[4] = (Lane + K) & (W - 1);
  Src[5] = 0;
}

template <typename T>
void checkShuffles(SpirvWaveLavapipe& Fx, const std::string& TypeName, const std::vector<T>& In) {
  uint32_t W = Fx.width();
  ASSERT_NE(W, 0u);
  SpirvKernel K = Fx.kernel(shuffleKernel(TypeName));
  ASSERT_TRUE(K.Ok);
  for (uint32_t Kp : {0u, 1u, 3u, 5u, W - 1, W, W + 3, 100u, 0x80000000u, 0xFFFFFFFFu}) {
    std::vector<std::vector<uint8_t>> Bufs = {
        std::vector<uint8_t>(N * 6 * sizeof(T), 0), bytesOf(In), {}};
    Fx.run(K, Bufs, Kp);
    std::vector<T> Out = valuesOf<T>(Bufs[0]);
    for (uint32_t I = 0; I < N; ++I) {
      uint32_t Base = I - I % W, Src[6];
      expectedSources(I % W, W, Kp, Src);
      for (int J = 0; J < 6; ++J)
        ASSERT_TRUE(sameBits(Out[6 * I + J], In[Base + Src[J]]))
            << TypeName << " op " << J << " k=" << Kp << " item " << I << " width " << W;
    }
  }
}

template <typename T> std::vector<T> randomValues(uint32_t Seed) {
  std::mt19937_64 Rng(Seed);
  std::vector<T> V(N);
  for (T& X : V) {
    uint64_t Bits = Rng();
    std::memcpy(&X, &Bits, sizeof(T));
  }
  return V;
}

TEST_P(SpirvWaveLavapipe, ShufflesOfInt32) {
  checkShuffles(*this, "int32", randomValues<int32_t>(1));
}

TEST_P(SpirvWaveLavapipe, ShufflesOfUint64) {
  checkShuffles(*this, "uint64", randomValues<uint64_t>(2));
}

TEST_P(SpirvWaveLavapipe, ShufflesOfInt8AndUint16) {
  checkShuffles(*this, "int8", randomValues<int8_t>(3));
  checkShuffles(*this, "uint16", randomValues<uint16_t>(4));
}

TEST_P(SpirvWaveLavapipe, ShufflesOfFloats) {
  std::mt19937 Rng(5);
  std::uniform_real_distribution<double> D(-1e6, 1e6);
  std::vector<float> F32(N);
  std::vector<double> F64(N);
  std::vector<uint16_t> F16(N); // float16 bits: finite values only (no NaN payload questions)
  for (uint32_t I = 0; I < N; ++I) {
    F32[I] = float(D(Rng));
    F64[I] = D(Rng) * 1e-300 * (I % 3);
    F16[I] = uint16_t(Rng() % 0x7C00) | uint16_t(I % 2 ? 0x8000 : 0);
  }
  F32[7] = -0.0f;
  checkShuffles(*this, "float32", F32);
  checkShuffles(*this, "float64", F64);
  checkShuffles(*this, "float16", F16);
}

TEST_P(SpirvWaveLavapipe, ShufflesOfBool) {
  std::vector<uint8_t> B(N);
  for (uint32_t I = 0; I < N; ++I)
    B[I] = (I * 7 + I / 5) % 3 == 0;
  checkShuffles(*this, "bool", B);
}

// ---------------------------------------------------------------------------------------------
// Reductions and scans.

std::string arithKernel(const std::string& T, bool Bits) {
  std::string S = "import cajeta.xpu.*;\npublic final class W {\n    @Kernel\n"
                  "    public static void run(KernelBuffer<" +
                  T + "> out, KernelBuffer<" + T +
                  "> in) {\n"
                  "        uint32 i = KernelThread.globalIdX();\n"
                  "        " +
                  T +
                  " v = in[i];\n"
                  "        out[8u * i] = Wave.reduceSum(v);\n"
                  "        out[8u * i + 1u] = Wave.reduceMin(v);\n"
                  "        out[8u * i + 2u] = Wave.reduceMax(v);\n"
                  "        out[8u * i + 3u] = Wave.inclusivePrefixSum(v);\n"
                  "        out[8u * i + 4u] = Wave.exclusivePrefixSum(v);\n";
  if (Bits)
    S += "        out[8u * i + 5u] = Wave.reduceAnd(v);\n"
         "        out[8u * i + 6u] = Wave.reduceOr(v);\n"
         "        out[8u * i + 7u] = Wave.reduceXor(v);\n";
  return S + "    }\n}\n";
}

template <typename T> void checkIntArith(SpirvWaveLavapipe& Fx, const std::string& Name) {
  uint32_t W = Fx.width();
  ASSERT_NE(W, 0u);
  SpirvKernel K = Fx.kernel(arithKernel(Name, true));
  ASSERT_TRUE(K.Ok);
  using U = std::make_unsigned_t<T>;
  auto Add = [](T A, T B) { return T(U(A) + U(B)); }; // wrapping
  std::vector<T> In = randomValues<T>(11);
  for (uint32_t I = 0; I < W; ++I) // one wave of small values (sums that do not wrap)
    In[W + I] = T(Add(T(I % 5), T(-2)));
  std::vector<std::vector<uint8_t>> Bufs = {std::vector<uint8_t>(N * 8 * sizeof(T), 0),
                                            bytesOf(In)};
  Fx.run(K, Bufs);
  std::vector<T> Out = valuesOf<T>(Bufs[0]);
  for (uint32_t Base = 0; Base < N; Base += W) {
    T Sum = 0, Min = In[Base], Max = In[Base], And = T(~T(0)), Or = 0, Xor = 0, Run = 0;
    for (uint32_t L = 0; L < W; ++L) {
      T V = In[Base + L];
      Sum = Add(Sum, V);
      Min = std::min(Min, V);
      Max = std::max(Max, V);
      And &= V;
      Or |= V;
      Xor ^= V;
    }
    for (uint32_t L = 0; L < W; ++L) {
      const T* O = &Out[8 * (Base + L)];
      T Exclusive = Run;
      Run = Add(Run, In[Base + L]);
      std::string Where = Name + " wave at " + std::to_string(Base) + " lane " + std::to_string(L);
      ASSERT_EQ(O[0], Sum) << Where << " reduceSum";
      ASSERT_EQ(O[1], Min) << Where << " reduceMin";
      ASSERT_EQ(O[2], Max) << Where << " reduceMax";
      ASSERT_EQ(O[3], Run) << Where << " inclusivePrefixSum";
      ASSERT_EQ(O[4], Exclusive) << Where << " exclusivePrefixSum";
      ASSERT_EQ(O[5], And) << Where << " reduceAnd";
      ASSERT_EQ(O[6], Or) << Where << " reduceOr";
      ASSERT_EQ(O[7], Xor) << Where << " reduceXor";
    }
  }
}

TEST_P(SpirvWaveLavapipe, IntegerReductionsAndScans) {
  checkIntArith<int32_t>(*this, "int32");
  checkIntArith<uint32_t>(*this, "uint32");
  checkIntArith<int64_t>(*this, "int64");
  checkIntArith<uint64_t>(*this, "uint64");
}

template <typename F> void checkFloatArith(SpirvWaveLavapipe& Fx, const std::string& Name) {
  uint32_t W = Fx.width();
  ASSERT_NE(W, 0u);
  SpirvKernel K = Fx.kernel(arithKernel(Name, false));
  ASSERT_TRUE(K.Ok);
  // Magnitudes far apart, so the order of the additions shows in the result.
  std::mt19937 Rng(21);
  std::uniform_real_distribution<double> Mant(-1.0, 1.0);
  std::vector<F> In(N);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = F(std::ldexp(Mant(Rng), int(Rng() % 60) - 30));
  // Special waves: one with a NaN, one with zeros of both signs only.
  if (4 * W <= N) {
    In[2 * W + 3] = std::numeric_limits<F>::quiet_NaN();
    for (uint32_t L = 0; L < W; ++L)
      In[3 * W + L] = L % 3 == 1 ? F(-0.0) : F(0.0);
  }
  std::vector<std::vector<uint8_t>> Bufs = {std::vector<uint8_t>(N * 8 * sizeof(F), 0),
                                            bytesOf(In)};
  Fx.run(K, Bufs);
  std::vector<F> Out = valuesOf<F>(Bufs[0]);
  auto Same = [](F A, F B) { return (std::isnan(A) && std::isnan(B)) || sameBits(A, B); };
  for (uint32_t Base = 0; Base < N; Base += W) {
    std::vector<F> Wave(In.begin() + Base, In.begin() + Base + W);
    std::vector<F> Sum = butterfly<F>(Wave, [](F A, F B) { return F(A + B); });
    std::vector<F> Min = butterfly<F>(Wave, [](F A, F B) { return javaMinMax(true, A, B); });
    std::vector<F> Max = butterfly<F>(Wave, [](F A, F B) { return javaMinMax(false, A, B); });
    std::vector<F> Inc = hillisSteele(Wave);
    for (uint32_t L = 0; L < W; ++L) {
      const F* O = &Out[8 * (Base + L)];
      F Exclusive = L == 0 ? F(0) : Inc[L - 1];
      std::string Where = Name + " wave at " + std::to_string(Base) + " lane " + std::to_string(L);
      ASSERT_TRUE(Same(O[0], Sum[L])) << Where << " reduceSum " << O[0] << " vs " << Sum[L];
      ASSERT_TRUE(Same(O[1], Min[L])) << Where << " reduceMin " << O[1] << " vs " << Min[L];
      ASSERT_TRUE(Same(O[2], Max[L])) << Where << " reduceMax " << O[2] << " vs " << Max[L];
      ASSERT_TRUE(Same(O[3], Inc[L])) << Where << " inclusive " << O[3] << " vs " << Inc[L];
      ASSERT_TRUE(Same(O[4], Exclusive)) << Where << " exclusive " << O[4] << " vs " << Exclusive;
    }
  }
}

TEST_P(SpirvWaveLavapipe, FloatReductionsAndScansInKirOrder) {
  checkFloatArith<float>(*this, "float32");
  checkFloatArith<double>(*this, "float64");
}

// ---------------------------------------------------------------------------------------------
// Votes.

TEST_P(SpirvWaveLavapipe, BallotAllAny) {
  uint32_t W = width();
  ASSERT_NE(W, 0u);
  SpirvKernel K = kernel(R"(import cajeta.xpu.*;
public final class W {
    @Kernel
    public static void run(KernelBuffer<uint64> mask, KernelBuffer<uint32> votes,
                           KernelBuffer<bool> in) {
        uint32 i = KernelThread.globalIdX();
        bool b = in[i];
        mask[i] = Wave.ballot(b);
        votes[i] = ((uint32) Wave.all(b)) * 2u + (uint32) Wave.any(b);
    }
}
)");
  ASSERT_TRUE(K.Ok);
  std::vector<uint8_t> In(N);
  std::mt19937 Rng(31);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = I < W ? 1 : I < 2 * W ? 0 : uint8_t(Rng() % 2);
  std::vector<std::vector<uint8_t>> Bufs = {std::vector<uint8_t>(N * 8, 0),
                                            std::vector<uint8_t>(N * 4, 0), In};
  run(K, Bufs);
  std::vector<uint64_t> Mask = valuesOf<uint64_t>(Bufs[0]);
  std::vector<uint32_t> Votes = valuesOf<uint32_t>(Bufs[1]);
  for (uint32_t Base = 0; Base < N; Base += W) {
    uint64_t Want = 0;
    for (uint32_t L = 0; L < W; ++L)
      Want |= uint64_t(In[Base + L]) << L;
    bool All = Want == (W == 64 ? ~uint64_t(0) : (uint64_t(1) << W) - 1), Any = Want != 0;
    for (uint32_t L = 0; L < W; ++L) {
      ASSERT_EQ(Mask[Base + L], Want) << "wave at " << Base << " lane " << L;
      ASSERT_EQ(Votes[Base + L], uint32_t(All) * 2 + uint32_t(Any)) << Base << " lane " << L;
    }
  }
}

// The native tier (GroupNonUniform instructions) and the portable one (PortableWave: shared
// memory and barriers; only Wave.width() stays a subgroup builtin) give the same results.
INSTANTIATE_TEST_SUITE_P(Tier, SpirvWaveLavapipe, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& I) {
                           return I.param ? "Portable" : "Native";
                         });

} // namespace
} // namespace cajeta::lowering::spirv::test
