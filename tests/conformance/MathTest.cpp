// Conformance of Math.*: exact functions bit for bit, transcendental ones within a ULP bound.
//
// ULP bounds: exp, log, pow, sin, cos, tanh and rsqrt are checked within 2 ULP of the C++ <cmath>
// result of the same type (float32 and float64 alike; rsqrt's reference is 1 / sqrt(x) rounded
// in that type). sqrt, floor, ceil, fma, abs, min and max are correctly rounded: bit-exact.
// NaN must give NaN and an infinity the same infinity, whatever the bound.
#include "ConformanceSupport.h"

namespace conformance {
namespace {

constexpr size_t N = 700;
constexpr uint32_t Block = 64;
constexpr uint64_t TranscendentalUlp = 2;

// Data for the min/max of MathExact*: NaN and zeros are left out here (every other edge stays in);
// MinMaxEdges pairs them all.
template <class F> std::vector<F> minMaxData(uint64_t Seed) {
  std::vector<F> V = floatData<F>(N, Seed, -100, 100);
  for (F& X : V)
    if (std::isnan(X) || X == F(0))
      X = F(0.25);
  return V;
}

template <class F> void checkExact(const std::string& Name) {
  xpu::Program P = compileProgram(Name);
  CONFORMANCE_REQUIRE(P, CorrectlyRoundedFma);
  std::vector<F> Xs = floatData<F>(N, 700, -1000, 1000);
  Rng R(701);
  for (size_t I = 12; I < N; I += 3) // halves and near-integers for floor / ceil
    Xs[I] = static_cast<F>(std::round(R.uniform(-20, 20)) + ((I % 2) ? 0.5 : -0.25));
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<F>(N * 4, F(0));
  run1D(P.kernel(Name + ".unary"), N, Block, Out, DX, uint32_t(N));
  std::vector<F> Want(N * 4);
  for (size_t I = 0; I < N; ++I) {
    Want[I * 4] = std::sqrt(Xs[I]);
    Want[I * 4 + 1] = std::floor(Xs[I]);
    Want[I * 4 + 2] = std::ceil(Xs[I]);
    Want[I * 4 + 3] = std::fabs(Xs[I]);
  }
  expectSame(fromDevice(Out), Want, Name + ".unary");

  std::vector<F> As = minMaxData<F>(702), Bs = minMaxData<F>(703), Cs = minMaxData<F>(704);
  auto DA = toDevice(As), DB = toDevice(Bs), DC = toDevice(Cs);
  auto Out3 = filledBuffer<F>(N * 3, F(0));
  run1D(P.kernel(Name + ".ternary"), N, Block, Out3, DA, DB, DC, uint32_t(N));
  std::vector<F> Want3(N * 3);
  for (size_t I = 0; I < N; ++I) {
    Want3[I * 3] = std::fma(As[I], Bs[I], Cs[I]);
    Want3[I * 3 + 1] = std::min(As[I], Bs[I]);
    Want3[I * 3 + 2] = std::max(As[I], std::min(Bs[I], Cs[I]));
  }
  expectSame(fromDevice(Out3), Want3, Name + ".ternary");
}

/// Every ordered pair of the edge values (NaN, both zeros, infinities, ...) and a few ordinary
/// ones.
template <class F> void checkMinMaxEdges(const std::string& Kernel) {
  xpu::Program P = compileProgram("MathMinMaxEdges");
  std::vector<F> Edges = floatData<F>(16, 705, -3, 3);
  std::vector<F> As, Bs;
  for (F A : Edges)
    for (F B : Edges) {
      As.push_back(A);
      Bs.push_back(B);
    }
  uint32_t Count = uint32_t(As.size());
  auto DA = toDevice(As), DB = toDevice(Bs);
  auto Out = filledBuffer<F>(Count * 2, F(7));
  run1D(P.kernel("MathMinMaxEdges." + Kernel), Count, Block, Out, DA, DB, Count);
  std::vector<F> Want(Count * 2);
  for (uint32_t I = 0; I < Count; ++I) {
    Want[I * 2] = ieeeMin(As[I], Bs[I]);
    Want[I * 2 + 1] = ieeeMax(As[I], Bs[I]);
  }
  expectSame(fromDevice(Out), Want, "MathMinMaxEdges." + Kernel);
}

TEST(Math, MinMaxNaNAndSignedZeroFloat32) {
  CONFORMANCE_REQUIRE_DEVICE(Float32Denormals); // the edge pairs include subnormals
  checkMinMaxEdges<float>("run32");
}
TEST(Math, MinMaxNaNAndSignedZeroFloat64) {
  checkMinMaxEdges<double>("run64");
}

TEST(Math, ExactFloat32) {
  checkExact<float>("MathExact32");
}
TEST(Math, ExactFloat64) {
  checkExact<double>("MathExact64");
}

template <class F> void checkTranscendental(const std::string& Name) {
  xpu::Program P = compileProgram(Name);
  CONFORMANCE_REQUIRE(P, PreciseTranscendentals);
  std::vector<F> Xs = floatData<F>(N, 710, -20, 20);
  Rng R(711);
  for (size_t I = 12; I < N;
       I += 4) // also small magnitudes, and larger ones for the trig functions
    Xs[I] = static_cast<F>(R.uniform(-1, 1) * ((I % 8) ? 1e-3 : 300.0));
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<F>(N * 6, F(0));
  run1D(P.kernel(Name + ".unary"), N, Block, Out, DX, uint32_t(N));
  std::vector<F> Got = fromDevice(Out);
  for (size_t I = 0; I < N; ++I) {
    F x = Xs[I];
    std::string At = Name + " x=" + ::testing::PrintToString(x);
    expectUlpNear(Got[I * 6], std::exp(x), TranscendentalUlp, At + " exp");
    expectUlpNear(Got[I * 6 + 1], std::log(x), TranscendentalUlp, At + " log");
    expectUlpNear(Got[I * 6 + 2], std::sin(x), TranscendentalUlp, At + " sin");
    expectUlpNear(Got[I * 6 + 3], std::cos(x), TranscendentalUlp, At + " cos");
    expectUlpNear(Got[I * 6 + 4], std::tanh(x), TranscendentalUlp, At + " tanh");
    expectUlpNear(Got[I * 6 + 5], F(1) / std::sqrt(x), TranscendentalUlp, At + " rsqrt");
  }

  // pow: edge bases against integral, half-integral, zero, infinite and NaN exponents.
  std::vector<F> Bases = floatData<F>(N, 712, 0, 10), Exps(N);
  std::vector<F> ExpEdges = {F(0),
                             F(-0.0),
                             F(1),
                             F(-1),
                             F(2),
                             F(3),
                             F(-3),
                             F(0.5),
                             F(-0.5),
                             std::numeric_limits<F>::infinity(),
                             -std::numeric_limits<F>::infinity(),
                             std::numeric_limits<F>::quiet_NaN()};
  for (size_t I = 0; I < N; ++I) {
    if (I < 144) { // every edge base with every edge exponent
      Bases[I] = floatData<F>(12, 712, 0, 1)[I / 12];
      Exps[I] = ExpEdges[I % 12];
    } else {
      Exps[I] = static_cast<F>(R.uniform(-8, 8));
      if (I % 5 == 0)
        Bases[I] = -Bases[I]; // negative base: NaN unless the exponent is integral
      if (I % 10 == 0)
        Exps[I] = std::round(Exps[I]);
    }
  }
  auto DB = toDevice(Bases), DE = toDevice(Exps);
  auto OutPow = filledBuffer<F>(N, F(0));
  run1D(P.kernel(Name + ".power"), N, Block, OutPow, DB, DE, uint32_t(N));
  std::vector<F> GotPow = fromDevice(OutPow);
  for (size_t I = 0; I < N; ++I)
    expectUlpNear(GotPow[I], std::pow(Bases[I], Exps[I]), TranscendentalUlp,
                  Name + " pow(" + ::testing::PrintToString(Bases[I]) + ", " +
                      ::testing::PrintToString(Exps[I]) + ")");
}

TEST(Math, TranscendentalFloat32) {
  checkTranscendental<float>("MathTransc32");
}
TEST(Math, TranscendentalFloat64) {
  checkTranscendental<double>("MathTransc64");
}

TEST(Math, IntegerAbsMinMax) {
  xpu::Program P = compileProgram("MathInt");
  std::vector<int32_t> A = intData<int32_t>(N, 720), B = intData<int32_t>(N, 721);
  std::vector<int64_t> C = intData<int64_t>(N, 722), D = intData<int64_t>(N, 723);
  auto DA = toDevice(A), DB = toDevice(B);
  auto DC = toDevice(C), DD = toDevice(D);
  auto O32 = filledBuffer<int32_t>(N * 3, 0x55);
  auto O64 = filledBuffer<int64_t>(N * 3, 0x55);
  run1D(P.kernel("MathInt.signedOps"), N, Block, O32, O64, DA, DB, DC, DD, uint32_t(N));
  std::vector<int32_t> W32(N * 3);
  std::vector<int64_t> W64(N * 3);
  for (size_t I = 0; I < N; ++I) {
    W32[I * 3] = A[I] < 0 ? wrapNeg(A[I]) : A[I]; // abs(MIN) == MIN
    W32[I * 3 + 1] = std::min(A[I], B[I]);
    W32[I * 3 + 2] = std::max(A[I], B[I]);
    W64[I * 3] = C[I] < 0 ? wrapNeg(C[I]) : C[I];
    W64[I * 3 + 1] = std::min(C[I], D[I]);
    W64[I * 3 + 2] = std::max(C[I], D[I]);
  }
  expectSame(fromDevice(O32), W32, "MathInt int32");
  expectSame(fromDevice(O64), W64, "MathInt int64");

  std::vector<uint32_t> UA = intData<uint32_t>(N, 724), UB = intData<uint32_t>(N, 725);
  std::vector<uint64_t> UC = intData<uint64_t>(N, 726), UD = intData<uint64_t>(N, 727);
  auto DUA = toDevice(UA), DUB = toDevice(UB);
  auto DUC = toDevice(UC), DUD = toDevice(UD);
  auto U32 = filledBuffer<uint32_t>(N * 2, 0x55);
  auto U64 = filledBuffer<uint64_t>(N * 2, 0x55);
  run1D(P.kernel("MathInt.unsignedOps"), N, Block, U32, U64, DUA, DUB, DUC, DUD, uint32_t(N));
  std::vector<uint32_t> WU32(N * 2);
  std::vector<uint64_t> WU64(N * 2);
  for (size_t I = 0; I < N; ++I) {
    WU32[I * 2] = std::min(UA[I], UB[I]);
    WU32[I * 2 + 1] = std::max(UA[I], UB[I]);
    WU64[I * 2] = std::min(UC[I], UD[I]);
    WU64[I * 2 + 1] = std::max(UC[I], UD[I]);
  }
  expectSame(fromDevice(U32), WU32, "MathInt uint32");
  expectSame(fromDevice(U64), WU64, "MathInt uint64");
}

TEST(Math, MixedPrecisionArguments) {
  xpu::Program P = compileProgram("MathMixed");
  CONFORMANCE_REQUIRE(P, CorrectlyRoundedFma);
  CONFORMANCE_REQUIRE(P, PreciseTranscendentals);
  std::vector<float> Xs = floatData<float>(N, 730, -10, 10);
  std::vector<double> Ys = floatData<double>(N, 731, -4, 4);
  auto DX = toDevice(Xs);
  auto DY = toDevice(Ys);
  auto D = filledBuffer<double>(N * 3, 0.0);
  auto F = filledBuffer<float>(N * 2, 0.0f);
  run1D(P.kernel("MathMixed.run"), N, Block, D, F, DX, DY, uint32_t(N));
  std::vector<double> GotD = fromDevice(D);
  std::vector<float> GotF = fromDevice(F);
  std::vector<double> WantExactD(N * 2);
  std::vector<double> GotExactD(N * 2);
  std::vector<float> WantF(N * 2);
  for (size_t I = 0; I < N; ++I) {
    double x = Xs[I], y = Ys[I];
    // pow of float32 and float64 is the float64 pow: 2 ULP.
    expectUlpNear(GotD[I * 3], std::pow(x, y), TranscendentalUlp, "MathMixed pow");
    GotExactD[I * 2] = GotD[I * 3 + 1];
    GotExactD[I * 2 + 1] = GotD[I * 3 + 2];
    WantExactD[I * 2] = std::fma(x, x, y);
    WantExactD[I * 2 + 1] = std::floor(y) + double(std::ceil(Xs[I]));
    WantF[I * 2] = std::sqrt(Xs[I] * Xs[I] + 2.0f * 2.0f);
    WantF[I * 2 + 1] = std::fabs(Xs[I]) + std::sqrt(std::fabs(Xs[I]));
  }
  expectSame(GotExactD, WantExactD, "MathMixed fma/floor/ceil");
  expectSame(GotF, WantF, "MathMixed float32");
}

} // namespace
} // namespace conformance
