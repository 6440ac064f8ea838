// Conformance of conversions and literals (programs Cast*, ImplicitWidening, Literals).
#include "ConformanceSupport.h"

#include <cstring>

namespace conformance {
namespace {

constexpr size_t N = 901;
constexpr uint32_t Block = 96;

TEST(Casts, IntToIntFromInt64) {
  xpu::Program P = compileProgram("CastIntInt");
  std::vector<int64_t> In = intData<int64_t>(N, 200);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<int64_t>(N * 8, 0x55);
  run1D(P.kernel("CastIntInt.fromInt64"), N, Block, Out, DIn, uint32_t(N));
  std::vector<int64_t> Want(N * 8);
  for (size_t I = 0; I < N; ++I) {
    int64_t X = In[I];
    int64_t* W = &Want[I * 8];
    W[0] = static_cast<int8_t>(X);
    W[1] = static_cast<int16_t>(X);
    W[2] = static_cast<int32_t>(X);
    W[3] = X;
    W[4] = static_cast<uint8_t>(X);
    W[5] = static_cast<uint16_t>(X);
    W[6] = static_cast<uint32_t>(X);
    W[7] = X;
  }
  expectSame(fromDevice(Out), Want, "CastIntInt.fromInt64");
}

TEST(Casts, IntToIntToUInt64) {
  xpu::Program P = compileProgram("CastIntInt");
  std::vector<int32_t> In = intData<int32_t>(N, 201);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<uint64_t>(N * 6, 0x55);
  run1D(P.kernel("CastIntInt.toUInt64"), N, Block, Out, DIn, uint32_t(N));
  std::vector<uint64_t> Want(N * 6);
  for (size_t I = 0; I < N; ++I) {
    int32_t X = In[I];
    uint64_t* W = &Want[I * 6];
    W[0] = static_cast<uint64_t>(int64_t(static_cast<int8_t>(X)));
    W[1] = static_cast<uint8_t>(X);
    W[2] = static_cast<uint64_t>(int64_t(X));
    W[3] = static_cast<uint32_t>(X);
    W[4] = static_cast<uint64_t>(int64_t(static_cast<int16_t>(static_cast<uint16_t>(X))));
    W[5] = static_cast<uint64_t>(
        int64_t(static_cast<int8_t>(static_cast<uint8_t>(static_cast<int16_t>(X)))));
  }
  expectSame(fromDevice(Out), Want, "CastIntInt.toUInt64");
}

// Values around every integer type's bounds, the edges, and wide random values.
template <class F> std::vector<F> castData() {
  std::vector<F> V = floatData<F>(N, 210, -3e10, 3e10);
  std::vector<double> Near = {127.5,         -128.9,       128.0,        -129.0,
                              255.9,         256.0,        -0.9,         0.9,
                              32767.9,       32768.0,      -32769.0,     65535.5,
                              65536.0,       2147483520.0, 2147483648.0, -2147483904.0,
                              -2147483648.0, 4294967040.0, 4294967296.0, 9.2233715e18,
                              9.3e18,        -9.3e18,      1.8446743e19, 1.9e19,
                              -1.5,          1.5,          -2.5,         2.5};
  for (size_t I = 0; I < Near.size(); ++I)
    V[12 + I] = static_cast<F>(Near[I]);
  Rng R(211);
  for (size_t I = 12 + Near.size(); I < N;
       I += 3) // small values: the narrow types' interesting range
    V[I] = static_cast<F>(R.uniform(-70000, 70000));
  return V;
}

template <class F> void checkFloatToInt(const std::string& Name) {
  xpu::Program P = compileProgram(Name);
  std::vector<F> In = castData<F>();
  auto DIn = toDevice(In);
  auto Out = filledBuffer<int64_t>(N * 8, 0x55);
  run1D(P.kernel(Name + ".run"), N, Block, Out, DIn, uint32_t(N));
  std::vector<int64_t> Want(N * 8);
  for (size_t I = 0; I < N; ++I) {
    F X = In[I];
    int64_t* W = &Want[I * 8];
    W[0] = cjFloatToInt<int8_t>(X);
    W[1] = cjFloatToInt<int16_t>(X);
    W[2] = cjFloatToInt<int32_t>(X);
    W[3] = cjFloatToInt<int64_t>(X);
    W[4] = cjFloatToInt<uint8_t>(X);
    W[5] = cjFloatToInt<uint16_t>(X);
    W[6] = cjFloatToInt<uint32_t>(X);
    W[7] = static_cast<int64_t>(cjFloatToInt<uint64_t>(X));
  }
  // Spot checks of the reference itself.
  EXPECT_EQ(Want[6 * 8 + 2], 0);        // NaN -> 0
  EXPECT_EQ(Want[4 * 8 + 0], INT8_MAX); // +inf saturates
  EXPECT_EQ(Want[5 * 8 + 6], 0);        // -inf -> 0 for unsigned
  expectSame(fromDevice(Out), Want, Name);
}

TEST(Casts, Float32ToIntSaturating) {
  checkFloatToInt<float>("CastFloat32ToInt");
}
TEST(Casts, Float64ToIntSaturating) {
  checkFloatToInt<double>("CastFloat64ToInt");
}

TEST(Casts, IntToFloat) {
  xpu::Program P = compileProgram("CastIntToFloat");
  std::vector<int64_t> In = intData<int64_t>(N, 220);
  Rng R(221);
  for (size_t I = 12; I < N; I += 2) // values that need rounding in float32 but are not huge
    In[I] = static_cast<int64_t>(R.next() >> (20 + R.next() % 40)) * ((I % 4) ? 1 : -1);
  In[12] = (1LL << 24) + 1; // ties and just-above-ties for float32
  In[13] = (1LL << 24) + 3;
  In[14] = (1LL << 53) + 1; // a tie for float64
  In[15] = 0x7FFFFFFFFFFFFDFFLL;
  auto DIn = toDevice(In);
  auto F = filledBuffer<float>(N * 4, 0.0f);
  auto D = filledBuffer<double>(N * 4, 0.0);
  run1D(P.kernel("CastIntToFloat.run"), N, Block, F, D, DIn, uint32_t(N));
  std::vector<float> WantF(N * 4);
  std::vector<double> WantD(N * 4);
  for (size_t I = 0; I < N; ++I) {
    int64_t X = In[I];
    WantF[I * 4] = static_cast<float>(X);
    WantF[I * 4 + 1] = static_cast<float>(static_cast<uint64_t>(X));
    WantF[I * 4 + 2] = static_cast<float>(static_cast<int32_t>(X));
    WantF[I * 4 + 3] = static_cast<float>(static_cast<uint32_t>(X));
    WantD[I * 4] = static_cast<double>(X);
    WantD[I * 4 + 1] = static_cast<double>(static_cast<uint64_t>(X));
    WantD[I * 4 + 2] = static_cast<double>(static_cast<int32_t>(X));
    WantD[I * 4 + 3] = static_cast<double>(static_cast<int16_t>(X));
  }
  expectSame(fromDevice(F), WantF, "CastIntToFloat float32");
  expectSame(fromDevice(D), WantD, "CastIntToFloat float64");
}

TEST(Casts, FloatToFloat) {
  CONFORMANCE_REQUIRE_DEVICE(Float32Denormals); // narrowing to float32 makes subnormals
  xpu::Program P = compileProgram("CastFloatFloat");
  std::vector<double> In = floatData<double>(N, 230, -1, 1);
  Rng R(231);
  for (size_t I = 12; I < N; ++I) // magnitudes from 1e-50 to 1e50: underflow, denormals, overflow
    In[I] = std::pow(10.0, R.uniform(-50, 50)) * ((I & 1) ? -1 : 1);
  In[12] = 3.4028235677973366e38; // rounds to FLT_MAX
  In[13] = 3.4028235677973367e38; // just past the rounding boundary: inf
  In[14] = 1.0000000596046448;    // a float32 tie: rounds to even (1.0)
  In[15] = 7.006492321624085e-46; // half the smallest denormal: rounds to 0 (tie to even)
  auto DIn = toDevice(In);
  auto Out = filledBuffer<float>(N, 0.0f);
  run1D(P.kernel("CastFloatFloat.narrow"), N, Block, Out, DIn, uint32_t(N));
  std::vector<float> Want(N);
  for (size_t I = 0; I < N; ++I)
    Want[I] = static_cast<float>(In[I]);
  expectSame(fromDevice(Out), Want, "CastFloatFloat.narrow");

  std::vector<float> In32 = floatData<float>(N, 232, -1e30, 1e30);
  auto DIn32 = toDevice(In32);
  auto Out64 = filledBuffer<double>(N * 2, 0.0);
  run1D(P.kernel("CastFloatFloat.widen"), N, Block, Out64, DIn32, uint32_t(N));
  std::vector<double> Want64(N * 2);
  for (size_t I = 0; I < N; ++I) {
    Want64[I * 2] = In32[I];
    Want64[I * 2 + 1] = static_cast<double>(In32[I]) * 3.0;
  }
  expectSame(fromDevice(Out64), Want64, "CastFloatFloat.widen");
}

TEST(Casts, BoolConversions) {
  CONFORMANCE_REQUIRE_DEVICE(Float32Denormals); // (bool) of a subnormal is true
  xpu::Program P = compileProgram("CastBool");
  std::vector<int32_t> Xs = intData<int32_t>(N, 240);
  Xs[12] = 256; // (uint8) 256 == 0 -> false
  std::vector<float> Ys = floatData<float>(N, 241, -2, 2);
  for (size_t I = 12; I < N; I += 4)
    Ys[I] = 0.0f;
  auto DX = toDevice(Xs);
  auto DY = toDevice(Ys);
  auto B = boolsToDevice(std::vector<uint8_t>(N * 3, 0));
  auto Ints = filledBuffer<int32_t>(N * 2, -5);
  auto Floats = filledBuffer<float>(N, -5.0f);
  run1D(P.kernel("CastBool.run"), N, Block, B, Ints, Floats, DX, DY, uint32_t(N));
  std::vector<uint8_t> WantB(N * 3);
  std::vector<int32_t> WantI(N * 2);
  std::vector<float> WantF(N);
  for (size_t I = 0; I < N; ++I) {
    bool p = Xs[I] != 0;
    bool q = Ys[I] != 0.0f; // NaN != 0 is true, -0 != 0 is false
    WantB[I * 3] = p;
    WantB[I * 3 + 1] = q;
    WantB[I * 3 + 2] = static_cast<uint8_t>(Xs[I]) != 0;
    WantI[I * 2] = int32_t(p) + int32_t(q) * 2;
    WantI[I * 2 + 1] = int32_t(q);
    WantF[I] = float(p) - float(q);
  }
  expectSame(boolsFromDevice(B), WantB, "CastBool bools");
  expectSame(fromDevice(Ints), WantI, "CastBool ints");
  expectSame(fromDevice(Floats), WantF, "CastBool floats");
}

TEST(Casts, ImplicitWidening) {
  CONFORMANCE_REQUIRE_DEVICE(Float32Denormals); // the data include subnormals
  xpu::Program P = compileProgram("ImplicitWidening");
  std::vector<int32_t> Xs = intData<int32_t>(N, 250);
  std::vector<float> Fs = floatData<float>(N, 251, -1e4, 1e4);
  auto DX = toDevice(Xs);
  auto DF = toDevice(Fs);
  auto S = filledBuffer<int64_t>(N * 7, 0x55);
  auto D = filledBuffer<double>(N * 4, -5.0);
  run1D(P.kernel("ImplicitWidening.run"), N, Block, S, D, DX, DF, uint32_t(N));
  std::vector<int64_t> WantS(N * 7);
  std::vector<double> WantD(N * 4);
  for (size_t I = 0; I < N; ++I) {
    int32_t x = Xs[I];
    float f = Fs[I];
    int8_t a8 = static_cast<int8_t>(x);
    uint8_t u8 = static_cast<uint8_t>(x);
    uint16_t u16 = static_cast<uint16_t>(x);
    uint32_t u32 = static_cast<uint32_t>(x);
    int64_t* W = &WantS[I * 7];
    W[0] = a8;
    W[1] = wrapMul(int64_t(x), int64_t(3));
    W[2] = u32;
    W[3] = u8;
    W[4] = int64_t(x) + int64_t(x);
    W[5] = int64_t(u32) + int64_t(u32);
    W[6] = int32_t(a8) + int32_t(u8) + int32_t(u16);
    WantD[I * 4] = a8;
    WantD[I * 4 + 1] = f;
    WantD[I * 4 + 2] = double(f) * double(x);
    WantD[I * 4 + 3] = double(float(x) + f);
  }
  expectSame(fromDevice(S), WantS, "ImplicitWidening ints");
  expectSame(fromDevice(D), WantD, "ImplicitWidening floats");
}

TEST(Casts, Literals) {
  xpu::Program P = compileProgram("Literals");
  auto S = filledBuffer<int64_t>(11, -1);
  auto U = filledBuffer<uint64_t>(6, 0);
  auto D = filledBuffer<double>(5, 0.0);
  auto F = filledBuffer<float>(5, 0.0f);
  const float X = 1.1f;
  runKernel(P.kernel("Literals.run"), xpu::grid(2), xpu::block(3), S, U, D, F, X);
  expectSame(fromDevice(S),
             std::vector<int64_t>{42, 42, 42, 1000000, 0xFFFFFFFFLL, INT64_MAX, 3000000000LL, 128,
                                  -128, 0x7FFF, 58},
             "Literals int64");
  expectSame(fromDevice(U),
             std::vector<uint64_t>{200, 255, 4000000000ull, UINT64_MAX, 0xDEADBEEFull, 7},
             "Literals uint64");
  expectSame(fromDevice(D), std::vector<double>{1.5, 2.5, 0.1, 1.5, double(0.1f)},
             "Literals float64");
  expectSame(fromDevice(F), std::vector<float>{0.5f, X * 2.0f, 0.1f, X / 3.0f + 0.1f, 1000.25f},
             "Literals float32");
}

// Raw bit views keep every bit: NaN payloads (quiet and signalling), -0, infinities, denormals.
TEST(Casts, BitViewsKeepEveryBit) {
  xpu::Program P = compileProgram("BitViews");
  std::vector<uint32_t> Words = intData<uint32_t>(N, 41);
  std::vector<uint32_t> Nans = {0x7fc00000u, 0x7f800001u, 0xffbfffffu, 0x7fa5a5a5u,
                                0x80000000u, 0x00000001u, 0x7f800000u};
  for (size_t I = 0; I < Nans.size(); ++I)
    Words[20 + I] = Nans[I];
  std::vector<float> F(N);
  std::memcpy(F.data(), Words.data(), N * 4); // the same patterns as floats
  auto Bits = filledBuffer<int32_t>(N, 0);
  auto Back = filledBuffer<float>(2 * N, 0.f);
  auto DF = toDevice(F);
  auto DW = toDevice(Words);
  run1D(P.kernel("BitViews.f32"), N, Block, Bits, Back, DF, DW, uint32_t(N));
  std::vector<int32_t> GotBits = fromDevice(Bits);
  std::vector<float> GotBack = fromDevice(Back);
  for (size_t I = 0; I < N; ++I) {
    uint32_t B0, B1;
    std::memcpy(&B0, &GotBack[2 * I], 4);
    std::memcpy(&B1, &GotBack[2 * I + 1], 4);
    ASSERT_EQ(uint32_t(GotBits[I]), Words[I]) << "floatToRawIntBits, element " << I;
    ASSERT_EQ(B0, Words[I]) << "intBitsToFloat(uint32), element " << I;
    ASSERT_EQ(B1, Words[I]) << "intBitsToFloat(int32), element " << I;
  }
  std::vector<uint64_t> Longs = intData<uint64_t>(N, 42);
  Longs[20] = 0x7ff0000000000001ull; // a signalling NaN
  Longs[21] = 0xfff8000000000123ull;
  std::vector<double> D(N);
  std::memcpy(D.data(), Longs.data(), N * 8);
  auto Bits64 = filledBuffer<int64_t>(N, 0);
  auto Back64 = filledBuffer<double>(N, 0.0);
  auto DD = toDevice(D);
  auto DL = toDevice(Longs);
  run1D(P.kernel("BitViews.f64"), N, Block, Bits64, Back64, DD, DL, uint32_t(N));
  std::vector<int64_t> GotBits64 = fromDevice(Bits64);
  std::vector<double> GotBack64 = fromDevice(Back64);
  for (size_t I = 0; I < N; ++I) {
    uint64_t B;
    std::memcpy(&B, &GotBack64[I], 8);
    ASSERT_EQ(uint64_t(GotBits64[I]), Longs[I]) << "doubleToRawLongBits, element " << I;
    ASSERT_EQ(B, Longs[I]) << "longBitsToDouble, element " << I;
  }
}

} // namespace
} // namespace conformance
