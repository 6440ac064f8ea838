// Conformance of float16 (IEEE binary16): buffers, widening and narrowing casts, and arithmetic
// where each operation rounds to binary16 (reference: exact in double, then one RNE rounding).
#include "ConformanceSupport.h"

#include <algorithm>

namespace conformance {
namespace {

using Half = xpu::float16;
static_assert(sizeof(Half) == 2 && std::is_trivially_copyable_v<Half>);

Half halfFromBits(uint16_t Bits) {
  return std::bit_cast<Half>(Bits);
}
uint16_t bitsOf(Half H) {
  return std::bit_cast<uint16_t>(H);
}

double halfToDouble(uint16_t H) {
  double Sign = (H & 0x8000) ? -1.0 : 1.0;
  unsigned Exp = (H >> 10) & 0x1F, Frac = H & 0x3FF;
  if (Exp == 0x1F)
    return Frac ? std::numeric_limits<double>::quiet_NaN()
                : Sign * std::numeric_limits<double>::infinity();
  if (Exp == 0)
    return Sign * std::ldexp(double(Frac), -24);
  return Sign * std::ldexp(double(Frac | 0x400), int(Exp) - 25);
}

/// Rounds a double to binary16, to nearest with ties to even (subnormals, overflow to inf, NaN).
uint16_t doubleToHalf(double D) {
  uint16_t Sign = std::signbit(D) ? 0x8000 : 0;
  if (std::isnan(D))
    return 0x7E00;
  double A = std::fabs(D);
  if (A >= 65520.0) // halfway between 65504 (odd significand) and 2^16: ties go to infinity
    return Sign | 0x7C00;
  if (A < 0x1p-14) {
    // Subnormal: units of 2^-24; 1024 units is the smallest normal, encoded the same way.
    double Units = std::nearbyint(A * 0x1p24);
    return Sign | uint16_t(Units);
  }
  int Exp;
  double Mant = std::frexp(A, &Exp); // A = Mant * 2^Exp, Mant in [0.5, 1)
  double Sig = std::nearbyint(Mant * 2048.0);
  int E = Exp - 1;
  if (Sig == 2048.0) {
    Sig = 1024.0;
    ++E;
  }
  if (E > 15)
    return Sign | 0x7C00;
  return Sign | uint16_t((E + 15) << 10) | uint16_t(uint16_t(Sig) - 1024);
}

double roundHalf(double D) {
  return halfToDouble(doubleToHalf(D));
}

TEST(Float16, ReferenceRoundingHelper) {
  // The helper itself, against values whose binary16 encodings are known.
  EXPECT_EQ(doubleToHalf(1.0), 0x3C00);
  EXPECT_EQ(doubleToHalf(-2.0), 0xC000);
  EXPECT_EQ(doubleToHalf(65504.0), 0x7BFF);
  EXPECT_EQ(doubleToHalf(65519.0), 0x7BFF);
  EXPECT_EQ(doubleToHalf(65520.0), 0x7C00);
  EXPECT_EQ(doubleToHalf(1.0 + 0x1p-11), 0x3C00); // tie to even
  EXPECT_EQ(doubleToHalf(1.0 + 3 * 0x1p-11), 0x3C02);
  EXPECT_EQ(doubleToHalf(0x1p-24), 0x0001);
  EXPECT_EQ(doubleToHalf(0x1p-25), 0x0000);           // tie to even (zero)
  EXPECT_EQ(doubleToHalf(3 * 0x1p-25), 0x0002);       // tie to even (two units)
  EXPECT_EQ(doubleToHalf(0x1p-14 - 0x1p-26), 0x0400); // rounds up into the normals
  EXPECT_EQ(doubleToHalf(-0.0), 0x8000);
  for (uint32_t B = 0; B < 0x10000; ++B)
    if (((B >> 10) & 0x1F) != 0x1F || (B & 0x3FF) == 0) {
      ASSERT_EQ(doubleToHalf(halfToDouble(uint16_t(B))), B) << "round trip of 0x" << std::hex << B;
    }
}

/// N half bit patterns: the edge values first, then random finite ones.
std::vector<uint16_t> halfData(size_t N, uint64_t Seed) {
  std::vector<uint16_t> Edges = {0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00,
                                 0x7E00, 0x7BFF, 0x0400, 0x0001, 0x3800, 0x03FF};
  std::vector<uint16_t> V;
  Rng R(Seed);
  while (V.size() < N) {
    if (V.size() < Edges.size()) {
      V.push_back(Edges[V.size()]);
      continue;
    }
    uint16_t Bits = uint16_t(R.next());
    if (((Bits >> 10) & 0x1F) == 0x1F)
      continue;
    // Keep most values near 1 so products and sums stay in range and round non-trivially.
    if (V.size() % 4 != 0)
      Bits = uint16_t((Bits & 0x83FF) | (uint16_t(13 + R.next() % 5) << 10));
    V.push_back(Bits);
  }
  return V;
}

std::vector<Half> toHalves(const std::vector<uint16_t>& Bits) {
  std::vector<Half> H;
  for (uint16_t B : Bits)
    H.push_back(halfFromBits(B));
  return H;
}

void expectSameHalves(const std::vector<Half>& Got, const std::vector<double>& Want,
                      const std::string& What) {
  std::vector<double> G;
  for (Half H : Got)
    G.push_back(halfToDouble(bitsOf(H)));
  expectSame(G, Want, What); // -0 != +0; any NaN matches any NaN
}

TEST(Float16, BuffersWidenAndNarrow) {
  xpu::Program P = compileProgram("Float16Buffers");
  CONFORMANCE_REQUIRE(P, Float16);
  const uint32_t N = 500;
  std::vector<uint16_t> Bits = halfData(N, 1600);
  auto In = toDevice(toHalves(Bits));
  auto Out32 = filledBuffer<float>(N, 9.0f);
  auto Out64 = filledBuffer<double>(N, 9.0);
  auto Copy = filledBuffer<Half>(N, halfFromBits(0x1234));
  run1D(P.kernel("Float16Buffers.widen"), N, 64, Out32, Out64, Copy, In, N);
  std::vector<float> Want32;
  std::vector<double> Want64;
  for (uint16_t B : Bits) {
    Want64.push_back(halfToDouble(B));
    Want32.push_back(float(halfToDouble(B)));
  }
  expectSame(fromDevice(Out32), Want32, "Float16Buffers.widen float32");
  expectSame(fromDevice(Out64), Want64, "Float16Buffers.widen float64");
  std::vector<Half> CopyBack = fromDevice(Copy);
  for (uint32_t I = 0; I < N; ++I)
    if (((Bits[I] >> 10) & 0x1F) != 0x1F || (Bits[I] & 0x3FF) == 0) { // NaN payloads may change
      EXPECT_EQ(bitsOf(CopyBack[I]), Bits[I]) << "Float16Buffers.widen copy [" << I << "]";
    }

  // Narrowing: ties, overflow, subnormals, signed zeros, NaN, and random values.
  std::vector<double> In64 = {0.0,
                              -0.0,
                              1.0 + 0x1p-11,
                              1.0 + 3 * 0x1p-11,
                              65519.0,
                              65520.0,
                              -65536.0,
                              0x1p-25,
                              3 * 0x1p-25,
                              0x1p-26,
                              1e-10,
                              std::nan(""),
                              -1e300,
                              0.1,
                              1.0 / 3.0,
                              std::numeric_limits<double>::infinity(),
                              0x1p-14 - 0x1p-26,
                              2049.0,
                              2051.0,
                              -2050.0,
                              1.0 + 0x1p-11 + 0x1p-40}; // rounded via float32 it would tie down
  Rng R(1601);
  while (In64.size() < N)
    In64.push_back(std::ldexp(R.uniform(-1, 1), int(R.next() % 44) - 28));
  std::vector<float> In32;
  for (double D : In64)
    In32.push_back(float(D));
  auto DIn32 = toDevice(In32);
  auto DIn64 = toDevice(In64);
  auto From32 = filledBuffer<Half>(N, halfFromBits(0x1234));
  auto From64 = filledBuffer<Half>(N, halfFromBits(0x1234));
  run1D(P.kernel("Float16Buffers.narrow"), N, 64, From32, From64, DIn32, DIn64, N);
  std::vector<double> WantFrom32, WantFrom64;
  for (uint32_t I = 0; I < N; ++I) {
    WantFrom32.push_back(roundHalf(double(In32[I])));
    WantFrom64.push_back(roundHalf(In64[I]));
  }
  expectSameHalves(fromDevice(From32), WantFrom32, "Float16Buffers.narrow from float32");
  expectSameHalves(fromDevice(From64), WantFrom64, "Float16Buffers.narrow from float64");
}

TEST(Float16, ArithmeticRoundsEachOperation) {
  xpu::Program P = compileProgram("Float16Arith");
  CONFORMANCE_REQUIRE(P, Float16);
  const uint32_t N = 700;
  std::vector<uint16_t> A = halfData(N, 1610), B = halfData(N, 1611), C = halfData(N, 1612);
  std::rotate(B.begin(), B.begin() + 4, B.end());
  std::rotate(C.begin(), C.begin() + 7, C.end());
  auto DA = toDevice(toHalves(A)), DB = toDevice(toHalves(B)), DC = toDevice(toHalves(C));
  auto Fma = filledBuffer<Half>(N, halfFromBits(0x1234));
  auto Quot = filledBuffer<Half>(N, halfFromBits(0x1234));
  auto Acc = filledBuffer<Half>(N, halfFromBits(0x1234));
  auto Less = boolsToDevice(std::vector<uint8_t>(N, 1));
  run1D(P.kernel("Float16Arith.run"), N, 64, Fma, Quot, Acc, Less, DA, DB, DC, N);
  // + - * / of two binary16 values are exact in double (or, for /, rounded once to 53 bits,
  // which cannot change the later rounding to 11 bits), so one RNE rounding gives the result.
  std::vector<double> WantFma, WantQuot, WantAcc;
  std::vector<uint8_t> WantLess;
  for (uint32_t I = 0; I < N; ++I) {
    double X = halfToDouble(A[I]), Y = halfToDouble(B[I]), Z = halfToDouble(C[I]);
    WantFma.push_back(roundHalf(roundHalf(X * Y) + Z));
    WantQuot.push_back(-roundHalf(roundHalf(X - Y) / Z));
    double S = X;
    for (int K = 0; K < 4; ++K)
      S = roundHalf(roundHalf(S * Y) + X);
    WantAcc.push_back(S);
    WantLess.push_back(X < Y);
  }
  expectSameHalves(fromDevice(Fma), WantFma, "Float16Arith x * y + z");
  expectSameHalves(fromDevice(Quot), WantQuot, "Float16Arith -((x - y) / z)");
  expectSameHalves(fromDevice(Acc), WantAcc, "Float16Arith loop-carried local");
  expectSame(boolsFromDevice(Less), WantLess, "Float16Arith x < y");
}

} // namespace
} // namespace conformance
