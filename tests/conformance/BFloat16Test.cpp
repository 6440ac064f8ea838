// Conformance of bfloat16 (float32's sign and exponent, 7 mantissa bits): buffers, widening and
// narrowing casts, and arithmetic where each operation rounds to bfloat16 (reference: exact in
// double, then one round-to-nearest-even). No capability: every backend has it.
#include "ConformanceSupport.h"

#include <algorithm>

namespace conformance {
namespace {

using BF = xpu::bfloat16;
static_assert(sizeof(BF) == 2 && std::is_trivially_copyable_v<BF>);

double bfToDouble(uint16_t H) {
  double Sign = (H & 0x8000) ? -1.0 : 1.0;
  unsigned Exp = (H >> 7) & 0xFF, Frac = H & 0x7F;
  if (Exp == 0xFF)
    return Frac ? std::numeric_limits<double>::quiet_NaN()
                : Sign * std::numeric_limits<double>::infinity();
  if (Exp == 0)
    return Sign * std::ldexp(double(Frac), -133);
  return Sign * std::ldexp(double(Frac | 0x80), int(Exp) - 134);
}

/// Rounds a double to bfloat16, to nearest with ties to even (subnormals, overflow, NaN),
/// written from the format's definition rather than from the library's bit tricks.
uint16_t doubleToBf(double D) {
  uint16_t Sign = std::signbit(D) ? 0x8000 : 0;
  if (std::isnan(D))
    return 0x7FC0;
  double A = std::fabs(D);
  if (A >= 0x1.ffp127) // halfway between the largest finite (odd significand) and 2^128
    return Sign | 0x7F80;
  if (A < 0x1p-126) // subnormal: units of 2^-133; 128 units is the smallest normal
    return Sign | uint16_t(std::nearbyint(A * 0x1p133));
  int Exp;
  double Mant = std::frexp(A, &Exp); // A = Mant * 2^Exp, Mant in [0.5, 1)
  double Sig = std::nearbyint(Mant * 256.0);
  int E = Exp - 1;
  if (Sig == 256.0) {
    Sig = 128.0;
    ++E;
  }
  if (E > 127)
    return Sign | 0x7F80;
  return Sign | uint16_t((E + 127) << 7) | uint16_t(uint16_t(Sig) - 128);
}

double roundBf(double D) {
  return bfToDouble(doubleToBf(D));
}

bool isNanBits(uint16_t B) {
  return ((B >> 7) & 0xFF) == 0xFF && (B & 0x7F);
}

TEST(BFloat16, ReferenceAndHostTypeAgree) {
  EXPECT_EQ(doubleToBf(1.0), 0x3F80);
  EXPECT_EQ(doubleToBf(-2.0), 0xC000);
  EXPECT_EQ(doubleToBf(1.0 + 0x1p-8), 0x3F80);     // tie to even
  EXPECT_EQ(doubleToBf(1.0 + 3 * 0x1p-8), 0x3F82); // tie to even, up
  EXPECT_EQ(doubleToBf(0x1p-133), 0x0001);
  EXPECT_EQ(doubleToBf(0x1p-134), 0x0000);
  EXPECT_EQ(doubleToBf(0x1.fep127), 0x7F7F);
  EXPECT_EQ(doubleToBf(0x1.ffp127), 0x7F80);
  for (uint32_t B = 0; B < 0x10000; ++B) {
    if (isNanBits(uint16_t(B)))
      continue;
    ASSERT_EQ(doubleToBf(bfToDouble(uint16_t(B))), B) << "round trip of 0x" << std::hex << B;
    // The host type: exact widening, and narrowing of the value and of its neighbours' midpoints.
    ASSERT_EQ(double(float(BF::fromBits(uint16_t(B)))), bfToDouble(uint16_t(B)));
  }
  Rng R(1700);
  for (int I = 0; I < 20000; ++I) {
    double D = std::ldexp(R.uniform(-1, 1), int(R.next() % 280) - 140);
    ASSERT_EQ(BF(D).bits(), doubleToBf(D)) << D;
    ASSERT_EQ(BF(float(D)).bits(), doubleToBf(double(float(D)))) << D;
  }
  EXPECT_TRUE(isNanBits(BF(std::numeric_limits<float>::quiet_NaN()).bits()));
  EXPECT_EQ(BF(1.0 + 0x1p-8 + 0x1p-40).bits(), 0x3F81); // once from double: not a tie
}

/// Whether the device keeps float32 subnormals, which bfloat16's are (its exponent is float32's):
/// a device that flushes them (NVIDIA's Vulkan driver) flushes bfloat16's too.
bool keepsSubnormals(xpu::Program& P) {
  return P.device().supports(xpu::Capability::Float32Denormals);
}

/// N bfloat16 bit patterns: the edge values first, then random finite ones (most near 1, so
/// that products and sums stay in range and round non-trivially). Without Subnormals no value
/// is subnormal nor small enough for a product or quotient of two to be, nor so large that its
/// reciprocal is (NVIDIA's Vulkan driver divides through the reciprocal: inf / max is NaN there).
std::vector<uint16_t> bfData(size_t N, uint64_t Seed, bool Subnormals) {
  std::vector<uint16_t> Edges = {0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80,
                                 0x7FC0, 0x7F7F, 0x0080, 0x0001, 0x3F00, 0x007F};
  if (!Subnormals)
    Edges = {0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80,
             0x7FC0, 0x7E00, 0x2880, 0x5601, 0x3F00, 0xC57F};
  std::vector<uint16_t> V;
  Rng R(Seed);
  while (V.size() < N) {
    if (V.size() < Edges.size()) {
      V.push_back(Edges[V.size()]);
      continue;
    }
    uint16_t Bits = uint16_t(R.next());
    if (((Bits >> 7) & 0xFF) == 0xFF)
      continue;
    if (V.size() % 4 != 0)
      Bits = uint16_t((Bits & 0x807F) | (uint16_t(124 + R.next() % 6) << 7));
    else if (!Subnormals)
      Bits = uint16_t((Bits & 0x807F) | (uint16_t(80 + R.next() % 95) << 7));
    V.push_back(Bits);
  }
  return V;
}

std::vector<BF> toBfs(const std::vector<uint16_t>& Bits) {
  std::vector<BF> H;
  for (uint16_t B : Bits)
    H.push_back(BF::fromBits(B));
  return H;
}

void expectSameBfs(const std::vector<BF>& Got, const std::vector<double>& Want,
                   const std::string& What) {
  std::vector<double> G;
  for (BF H : Got)
    G.push_back(bfToDouble(H.bits()));
  expectSame(G, Want, What); // -0 != +0; any NaN matches any NaN
}

TEST(BFloat16, BuffersWidenAndNarrow) {
  xpu::Program P = compileProgram("BFloat16Buffers");
  const bool Subnormals = keepsSubnormals(P);
  const uint32_t N = 500;
  std::vector<uint16_t> Bits = bfData(N, 1700, Subnormals);
  auto In = toDevice(toBfs(Bits));
  auto Out32 = filledBuffer<float>(N, 9.0f);
  auto Out64 = filledBuffer<double>(N, 9.0);
  auto Copy = filledBuffer<BF>(N, BF::fromBits(0x1234));
  auto ToInt = filledBuffer<int32_t>(N, 7);
  run1D(P.kernel("BFloat16Buffers.widen"), N, 64, Out32, Out64, Copy, ToInt, In, N);
  std::vector<float> Want32;
  std::vector<double> Want64;
  std::vector<int32_t> WantInt;
  for (uint16_t B : Bits) {
    double D = bfToDouble(B);
    Want64.push_back(D);
    Want32.push_back(float(D));
    WantInt.push_back(std::isnan(D)  ? 0
                      : D >= 0x1p31  ? INT32_MAX
                      : D <= -0x1p31 ? INT32_MIN
                                     : int32_t(D));
  }
  expectSame(fromDevice(Out32), Want32, "BFloat16Buffers.widen float32");
  expectSame(fromDevice(Out64), Want64, "BFloat16Buffers.widen float64");
  expectSame(fromDevice(ToInt), WantInt, "BFloat16Buffers.widen (int32)");
  std::vector<BF> CopyBack = fromDevice(Copy);
  for (uint32_t I = 0; I < N; ++I)
    if (!isNanBits(Bits[I])) {
      EXPECT_EQ(CopyBack[I].bits(), Bits[I]) << "BFloat16Buffers.widen copy [" << I << "]";
    }

  // Narrowing: ties, overflow, subnormals, signed zeros, NaN, and random values.
  std::vector<double> In64 = {0.0,
                              -0.0,
                              1.0 + 0x1p-8,
                              1.0 + 3 * 0x1p-8,
                              0x1.fep127,
                              0x1.ffp127,
                              -1e300,
                              0x1p-133,
                              0x1p-134,
                              3 * 0x1p-134,
                              1e-45,
                              std::nan(""),
                              0.1,
                              1.0 / 3.0,
                              std::numeric_limits<double>::infinity(),
                              0x1p-126 - 0x1p-135,
                              257.0,
                              259.0,
                              -258.0,
                              1.0 + 0x1p-8 + 0x1p-40}; // rounded via float32 it would tie down
  Rng R(1701);
  while (In64.size() < N)
    In64.push_back(std::ldexp(R.uniform(-1, 1), int(R.next() % 280) - 140));
  if (!Subnormals) // the values that would round to or through a subnormal, scaled up
    for (double& D : In64)
      if (D != 0 && std::fabs(D) < 0x1p-120)
        D *= 0x1p100;
  std::vector<float> In32;
  std::vector<int32_t> InInt = {0,        1,          -1,        255,     257,     259,
                                16777217, 0x7fffffff, INT32_MIN, 0x10080, 0x10180, -0x10080};
  for (double D : In64)
    In32.push_back(float(D));
  while (InInt.size() < N)
    InInt.push_back(int32_t(R.next()) >> (R.next() % 31));
  auto DIn32 = toDevice(In32);
  auto DIn64 = toDevice(In64);
  auto DInInt = toDevice(InInt);
  auto From32 = filledBuffer<BF>(N, BF::fromBits(0x1234));
  auto From64 = filledBuffer<BF>(N, BF::fromBits(0x1234));
  auto FromInt = filledBuffer<BF>(N, BF::fromBits(0x1234));
  run1D(P.kernel("BFloat16Buffers.narrow"), N, 64, From32, From64, FromInt, DIn32, DIn64, DInInt,
        N);
  std::vector<double> WantFrom32, WantFrom64, WantFromInt;
  for (uint32_t I = 0; I < N; ++I) {
    WantFrom32.push_back(roundBf(double(In32[I])));
    WantFrom64.push_back(roundBf(In64[I]));
    WantFromInt.push_back(roundBf(double(InInt[I])));
  }
  expectSameBfs(fromDevice(From32), WantFrom32, "BFloat16Buffers.narrow from float32");
  expectSameBfs(fromDevice(From64), WantFrom64, "BFloat16Buffers.narrow from float64");
  expectSameBfs(fromDevice(FromInt), WantFromInt, "BFloat16Buffers.narrow from int32");
}

TEST(BFloat16, ArithmeticRoundsEachOperation) {
  xpu::Program P = compileProgram("BFloat16Arith");
  const bool Subnormals = keepsSubnormals(P);
  const uint32_t N = 700;
  std::vector<uint16_t> A = bfData(N, 1710, Subnormals), B = bfData(N, 1711, Subnormals),
                        C = bfData(N, 1712, Subnormals);
  std::rotate(B.begin(), B.begin() + 4, B.end());
  std::rotate(C.begin(), C.begin() + 7, C.end());
  auto DA = toDevice(toBfs(A)), DB = toDevice(toBfs(B)), DC = toDevice(toBfs(C));
  auto Fma = filledBuffer<BF>(N, BF::fromBits(0x1234));
  auto Quot = filledBuffer<BF>(N, BF::fromBits(0x1234));
  auto Acc = filledBuffer<BF>(N, BF::fromBits(0x1234));
  auto Math = filledBuffer<BF>(N, BF::fromBits(0x1234));
  auto Rev = filledBuffer<BF>(N, BF::fromBits(0x1234));
  auto Less = boolsToDevice(std::vector<uint8_t>(N, 1));
  const BF Scale = BF(1.5f);
  run1D(P.kernel("BFloat16Arith.run"), N, 64, Fma, Quot, Acc, Less, Math, Rev, DA, DB, DC, Scale,
        N);
  // + - * / and sqrt of bfloat16 values are exact in double (or rounded once to 53 bits, which
  // cannot change the later rounding to 8), so one rounding gives each result.
  std::vector<double> WantFma, WantQuot, WantAcc, WantMath, WantRev;
  std::vector<uint8_t> WantLess;
  for (uint32_t I = 0; I < N; ++I) {
    double X = bfToDouble(A[I]), Y = bfToDouble(B[I]), Z = bfToDouble(C[I]);
    WantFma.push_back(roundBf(roundBf(X * Y) + Z));
    WantQuot.push_back(-roundBf(roundBf(X - Y) / Z));
    double S = X;
    for (int K = 0; K < 4; ++K)
      S = roundBf(roundBf(S * Y) + X);
    WantAcc.push_back(S);
    WantLess.push_back(X < Y);
    WantMath.push_back(roundBf(roundBf(roundBf(std::sqrt(std::fabs(X))) * 1.5) + roundBf(0.1)));
    uint32_t Group = I / 64 * 64, Mirror = Group + 63 - I % 64;
    WantRev.push_back(Mirror < N ? bfToDouble(A[Mirror]) : 0.0);
  }
  expectSameBfs(fromDevice(Fma), WantFma, "BFloat16Arith x * y + z");
  expectSameBfs(fromDevice(Quot), WantQuot, "BFloat16Arith -((x - y) / z)");
  expectSameBfs(fromDevice(Acc), WantAcc, "BFloat16Arith a helper's loop-carried result");
  expectSame(boolsFromDevice(Less), WantLess, "BFloat16Arith x < y");
  expectSameBfs(fromDevice(Math), WantMath, "BFloat16Arith sqrt(abs(x)) * scale + 0.1");
  expectSameBfs(fromDevice(Rev), WantRev, "BFloat16Arith shared reversal");
}

} // namespace
} // namespace conformance
