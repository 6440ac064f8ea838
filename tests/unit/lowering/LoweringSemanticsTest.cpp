// Lowering tests of value semantics: integer wrap, division, shifts, saturating casts, bool in
// memory, float16, and math builtins against libm, each run and compared with a C++ reference.
#include "KirBuilder.h"
#include "LoadedPayload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace cajeta::test {
namespace {

/// Adds kernel "K.<Name>"(a, b, out): i = globalIdX; if (i < a.length()) out[i] = Make(a[i], b[i]).
template <typename MakeFn>
void addElementwise(kir::Module& M, const std::string& Name, ScalarType In, ScalarType Out,
                    MakeFn Make) {
  KirBuilder K(M);
  K.kernel("K." + Name);
  uint32_t A = K.param("a", buffer(In));
  uint32_t B = K.param("b", buffer(In));
  uint32_t O = K.param("out", buffer(Out));
  uint32_t I = K.local("i", scalar(ScalarType::U32));
  K.body({
      K.eval(K.assign(I, K.geom(IntrinsicOp::GlobalId, 0))),
      K.ifThen(K.bin(BinaryOp::Lt, K.cast(scalar(ScalarType::U64), K.l(I)), K.length(A)),
               K.eval(K.store(O, K.l(I), Make(K, K.load(A, K.l(I)), K.load(B, K.l(I)))))),
  });
}

template <typename Out, typename In>
std::vector<Out> runElementwise(const LoadedPayload& P, const std::string& Name, std::vector<In> A,
                                std::vector<In> B) {
  std::vector<Out> O(A.size());
  CajetaCpuLaunch L = P.run("cj_K_" + Name, {bufferArg(A), bufferArg(B), bufferArg(O)},
                            uint32_t((A.size() + 7) / 8), 8);
  EXPECT_EQ(L.Failed, 0u);
  return O;
}

template <typename T> using U = std::make_unsigned_t<T>;

template <typename T> T refDiv(T A, T B) {
  if (B == 0)
    return 0;
  if (std::is_signed_v<T> && A == std::numeric_limits<T>::min() && B == T(-1))
    return A;
  return T(A / B);
}
template <typename T> T refRem(T A, T B) {
  if (B == 0 || (std::is_signed_v<T> && B == T(-1)))
    return 0;
  return T(A % B);
}
template <typename T> T refShl(T A, T B) {
  return T(U<T>(U<T>(A) << (unsigned(B) & (sizeof(T) * 8 - 1))));
}
template <typename T> T refShr(T A, T B) {
  return T(A >> (unsigned(B) & (sizeof(T) * 8 - 1)));
}
template <typename T> T refUShr(T A, T B) {
  return T(U<T>(A) >> (unsigned(B) & (sizeof(T) * 8 - 1)));
}
template <typename T> T refAdd(T A, T B) {
  return T(U<T>(U<T>(A) + U<T>(B)));
}
template <typename T> T refMul(T A, T B) {
  return T(U<T>(uint64_t(U<T>(A)) * uint64_t(U<T>(B))));
}

template <typename T> void checkIntegerOps(ScalarType ST, std::vector<T> A, std::vector<T> B) {
  kir::Module M;
  struct Op {
    const char* Name;
    BinaryOp Kir;
    T (*Ref)(T, T);
  };
  const Op Ops[] = {{"div", BinaryOp::Div, refDiv<T>},    {"rem", BinaryOp::Rem, refRem<T>},
                    {"shl", BinaryOp::Shl, refShl<T>},    {"shr", BinaryOp::Shr, refShr<T>},
                    {"ushr", BinaryOp::UShr, refUShr<T>}, {"add", BinaryOp::Add, refAdd<T>},
                    {"mul", BinaryOp::Mul, refMul<T>}};
  for (const Op& O : Ops)
    addElementwise(M, O.Name, ST, ST,
                   [&](KirBuilder& K, Expr* X, Expr* Y) { return K.bin(O.Kir, X, Y); });
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  for (const Op& O : Ops) {
    std::vector<T> R = runElementwise<T>(*P, O.Name, A, B);
    for (size_t I = 0; I < A.size(); ++I)
      EXPECT_EQ(int64_t(R[I]), int64_t(O.Ref(A[I], B[I])))
          << O.Name << "(" << int64_t(A[I]) << ", " << int64_t(B[I]) << ")";
  }
}

TEST(LoweringSemantics, Int32DivRemShiftWrap) {
  const int32_t Min = std::numeric_limits<int32_t>::min(),
                Max = std::numeric_limits<int32_t>::max();
  checkIntegerOps<int32_t>(ScalarType::I32, {7, -7, 7, Min, Min, 5, Max, -1, 100, -100, 1, Max},
                           {0, 2, -2, -1, 0, 33, 1, 31, -3, 7, 32, Max});
}

TEST(LoweringSemantics, UInt32DivRemShift) {
  checkIntegerOps<uint32_t>(ScalarType::U32, {7, 0xffffffffu, 10, 0x80000000u, 1, 12345, 9, 0},
                            {0, 2, 3, 31, 32, 33, 0xffffffffu, 0});
}

TEST(LoweringSemantics, Int8MasksShiftsToItsWidth) {
  checkIntegerOps<int8_t>(ScalarType::I8, {-128, -128, 64, -1, 100, 127, -7, 3},
                          {-1, 0, 9, 7, 2, 1, 2, 8});
}

TEST(LoweringSemantics, Int64DivRem) {
  const int64_t Min = std::numeric_limits<int64_t>::min();
  checkIntegerOps<int64_t>(ScalarType::I64, {Min, Min, 1ll << 40, -5, 9}, {-1, 0, 3, 65, 63});
}

TEST(LoweringSemantics, NegationAndAbsWrapAtMin) {
  kir::Module M;
  addElementwise(M, "neg", ScalarType::I32, ScalarType::I32,
                 [](KirBuilder& K, Expr* X, Expr*) { return K.un(UnaryOp::Neg, X); });
  addElementwise(M, "abs", ScalarType::I32, ScalarType::I32,
                 [](KirBuilder& K, Expr* X, Expr*) { return K.math(IntrinsicOp::Abs, {X}); });
  addElementwise(M, "min", ScalarType::I32, ScalarType::I32, [](KirBuilder& K, Expr* X, Expr* Y) {
    return K.math(IntrinsicOp::Min, {X, Y});
  });
  addElementwise(M, "bitnot", ScalarType::I32, ScalarType::I32,
                 [](KirBuilder& K, Expr* X, Expr*) { return K.un(UnaryOp::BitNot, X); });
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  const int32_t Min = std::numeric_limits<int32_t>::min();
  std::vector<int32_t> A = {Min, -3, 0, 5}, B = {0, -4, 0, 2};
  EXPECT_EQ(runElementwise<int32_t>(*P, "neg", A, B), (std::vector<int32_t>{Min, 3, 0, -5}));
  EXPECT_EQ(runElementwise<int32_t>(*P, "abs", A, B), (std::vector<int32_t>{Min, 3, 0, 5}));
  EXPECT_EQ(runElementwise<int32_t>(*P, "min", A, B), (std::vector<int32_t>{Min, -4, 0, 2}));
  EXPECT_EQ(runElementwise<int32_t>(*P, "bitnot", A, B), (std::vector<int32_t>{~Min, 2, -1, -6}));
}

template <typename I, typename F> I refSat(F X) {
  if (std::isnan(X))
    return 0;
  long double T = std::trunc((long double)X);
  if (T <= (long double)std::numeric_limits<I>::min())
    return std::numeric_limits<I>::min();
  if (T >= (long double)std::numeric_limits<I>::max())
    return std::numeric_limits<I>::max();
  return I(T);
}

TEST(LoweringSemantics, FloatToIntCastsSaturateAndNaNIsZero) {
  kir::Module M;
  auto CastTo = [](ScalarType T) {
    return [T](KirBuilder& K, Expr* X, Expr*) { return K.cast(scalar(T), X); };
  };
  addElementwise(M, "f2i32", ScalarType::F32, ScalarType::I32, CastTo(ScalarType::I32));
  addElementwise(M, "f2u8", ScalarType::F32, ScalarType::U8, CastTo(ScalarType::U8));
  addElementwise(M, "f2u32", ScalarType::F32, ScalarType::U32, CastTo(ScalarType::U32));
  addElementwise(M, "f2i64", ScalarType::F32, ScalarType::I64, CastTo(ScalarType::I64));
  addElementwise(M, "d2i16", ScalarType::F64, ScalarType::I16, CastTo(ScalarType::I16));
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  const float Inf = std::numeric_limits<float>::infinity();
  std::vector<float> In = {std::nanf(""), Inf,   -Inf,          1e10f, -1e10f,        3.7f, -3.7f,
                           255.5f,        -1.0f, 2147483520.0f, -0.9f, 4294967040.0f, 1e20f};
  std::vector<float> Zero(In.size(), 0.0f);
  auto I32 = runElementwise<int32_t>(*P, "f2i32", In, Zero);
  auto U8 = runElementwise<uint8_t>(*P, "f2u8", In, Zero);
  auto U32 = runElementwise<uint32_t>(*P, "f2u32", In, Zero);
  auto I64 = runElementwise<int64_t>(*P, "f2i64", In, Zero);
  for (size_t I = 0; I < In.size(); ++I) {
    EXPECT_EQ(I32[I], (refSat<int32_t>(In[I]))) << In[I];
    EXPECT_EQ(U8[I], (refSat<uint8_t>(In[I]))) << In[I];
    EXPECT_EQ(U32[I], (refSat<uint32_t>(In[I]))) << In[I];
    EXPECT_EQ(I64[I], (refSat<int64_t>(In[I]))) << In[I];
  }
  std::vector<double> D = {std::nan(""), 40000.0, -40000.0, -32768.9, 12.99};
  auto I16 = runElementwise<int16_t>(*P, "d2i16", D, std::vector<double>(D.size()));
  EXPECT_EQ(I16, (std::vector<int16_t>{0, 32767, -32768, -32768, 12}));
}

TEST(LoweringSemantics, IntegerCastsFollowTheSourceSignedness) {
  kir::Module M;
  addElementwise(M, "i8toi32", ScalarType::I8, ScalarType::I32,
                 [](KirBuilder& K, Expr* X, Expr*) { return K.cast(scalar(ScalarType::I32), X); });
  addElementwise(M, "u8toi32", ScalarType::U8, ScalarType::I32,
                 [](KirBuilder& K, Expr* X, Expr*) { return K.cast(scalar(ScalarType::I32), X); });
  addElementwise(M, "i32toi8", ScalarType::I32, ScalarType::I8,
                 [](KirBuilder& K, Expr* X, Expr*) { return K.cast(scalar(ScalarType::I8), X); });
  addElementwise(M, "u32tof32", ScalarType::U32, ScalarType::F32,
                 [](KirBuilder& K, Expr* X, Expr*) { return K.cast(scalar(ScalarType::F32), X); });
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  EXPECT_EQ(runElementwise<int32_t>(*P, "i8toi32", std::vector<int8_t>{-1, 127, -128},
                                    std::vector<int8_t>(3)),
            (std::vector<int32_t>{-1, 127, -128}));
  EXPECT_EQ(runElementwise<int32_t>(*P, "u8toi32", std::vector<uint8_t>{255, 127, 128},
                                    std::vector<uint8_t>(3)),
            (std::vector<int32_t>{255, 127, 128}));
  EXPECT_EQ(runElementwise<int8_t>(*P, "i32toi8", std::vector<int32_t>{255, 384, -129},
                                   std::vector<int32_t>(3)),
            (std::vector<int8_t>{-1, -128, 127}));
  EXPECT_EQ(runElementwise<float>(*P, "u32tof32", std::vector<uint32_t>{0xffffffffu, 16777217u},
                                  std::vector<uint32_t>(2)),
            (std::vector<float>{4294967296.0f, 16777216.0f}));
}

TEST(LoweringSemantics, BoolIsAByteInMemory) {
  kir::Module M;
  addElementwise(M, "not", ScalarType::Bool, ScalarType::Bool,
                 [](KirBuilder& K, Expr* X, Expr*) { return K.un(UnaryOp::Not, X); });
  addElementwise(M, "b2i", ScalarType::Bool, ScalarType::I32, [](KirBuilder& K, Expr* X, Expr* Y) {
    return K.bin(BinaryOp::Add, K.cast(scalar(ScalarType::I32), X),
                 K.cast(scalar(ScalarType::I32), K.bin(BinaryOp::Xor, X, Y)));
  });
  addElementwise(M, "f2b", ScalarType::F32, ScalarType::Bool,
                 [](KirBuilder& K, Expr* X, Expr*) { return K.cast(scalar(ScalarType::Bool), X); });
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  std::vector<uint8_t> A = {0, 1, 2, 255}, B = {1, 1, 0, 0};
  EXPECT_EQ(runElementwise<uint8_t>(*P, "not", A, B), (std::vector<uint8_t>{1, 0, 0, 0}));
  EXPECT_EQ(runElementwise<int32_t>(*P, "b2i", A, B), (std::vector<int32_t>{1, 1, 2, 2}));
  std::vector<float> F = {0.0f, -0.0f, std::nanf(""), 0.5f};
  EXPECT_EQ(runElementwise<uint8_t>(*P, "f2b", F, F), (std::vector<uint8_t>{0, 0, 1, 1}));
}

TEST(LoweringSemantics, Float16ArithmeticAndConversions) {
  kir::Module M;
  addElementwise(M, "hadd", ScalarType::F16, ScalarType::F16,
                 [](KirBuilder& K, Expr* X, Expr* Y) { return K.bin(BinaryOp::Add, X, Y); });
  addElementwise(M, "h2f", ScalarType::F16, ScalarType::F32, [](KirBuilder& K, Expr* X, Expr* Y) {
    return K.cast(scalar(ScalarType::F32), K.math(IntrinsicOp::Sqrt, {X}));
  });
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  std::vector<_Float16> A, B;
  for (float V : {1.0f, 0.1f, 65504.0f, 2.0f})
    A.push_back(_Float16(V));
  for (float V : {2.0f, 0.2f, 65504.0f, -0.5f})
    B.push_back(_Float16(V));
  auto Sum = runElementwise<_Float16>(*P, "hadd", A, B);
  for (size_t I = 0; I < A.size(); ++I)
    EXPECT_EQ(float(Sum[I]), float(_Float16(A[I] + B[I]))) << I;
  auto Root = runElementwise<float>(*P, "h2f", A, B);
  for (size_t I = 0; I < A.size(); ++I)
    EXPECT_EQ(Root[I], float(_Float16(std::sqrt(float(A[I]))))) << I;
}

bool sameFloat(float A, float B) {
  if (std::isnan(A) && std::isnan(B))
    return true;
  return std::memcmp(&A, &B, sizeof(float)) == 0;
}

float javaMin(float A, float B) {
  if (std::isnan(A) || std::isnan(B))
    return std::nanf("");
  if (A == 0 && B == 0)
    return std::signbit(A) ? A : B;
  return A < B ? A : B;
}

TEST(LoweringSemantics, MathMatchesLibm) {
  kir::Module M;
  struct Unary {
    const char* Name;
    IntrinsicOp Op;
    float (*Ref)(float);
  };
  const Unary Unaries[] = {
      {"exp", IntrinsicOp::Exp, [](float X) { return std::exp(X); }},
      {"log", IntrinsicOp::Log, [](float X) { return std::log(X); }},
      {"sin", IntrinsicOp::Sin, [](float X) { return std::sin(X); }},
      {"cos", IntrinsicOp::Cos, [](float X) { return std::cos(X); }},
      {"tanh", IntrinsicOp::Tanh, [](float X) { return std::tanh(X); }},
      {"sqrt", IntrinsicOp::Sqrt, [](float X) { return std::sqrt(X); }},
      {"rsqrt", IntrinsicOp::Rsqrt, [](float X) { return 1.0f / std::sqrt(X); }},
      {"floor", IntrinsicOp::Floor, [](float X) { return std::floor(X); }},
      {"ceil", IntrinsicOp::Ceil, [](float X) { return std::ceil(X); }},
      {"fabs", IntrinsicOp::Abs, [](float X) { return std::fabs(X); }},
  };
  for (const Unary& U : Unaries)
    addElementwise(M, U.Name, ScalarType::F32, ScalarType::F32,
                   [&](KirBuilder& K, Expr* X, Expr*) { return K.math(U.Op, {X}); });
  addElementwise(M, "pow", ScalarType::F32, ScalarType::F32, [](KirBuilder& K, Expr* X, Expr* Y) {
    return K.math(IntrinsicOp::Pow, {X, Y});
  });
  addElementwise(M, "fmin", ScalarType::F32, ScalarType::F32, [](KirBuilder& K, Expr* X, Expr* Y) {
    return K.math(IntrinsicOp::Min, {X, Y});
  });
  addElementwise(M, "fma", ScalarType::F32, ScalarType::F32, [](KirBuilder& K, Expr* X, Expr* Y) {
    return K.math(IntrinsicOp::Fma, {X, Y, K.constFloat(ScalarType::F32, -1.0)});
  });
  addElementwise(M, "exp64", ScalarType::F64, ScalarType::F64,
                 [](KirBuilder& K, Expr* X, Expr*) { return K.math(IntrinsicOp::Exp, {X}); });
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  std::vector<float> A, B;
  for (int I = 0; I < 37; ++I) {
    A.push_back(-6.0f + 0.37f * float(I));
    B.push_back(0.5f - 0.11f * float(I));
  }
  A.push_back(std::nanf(""));
  B.push_back(1.0f);
  A.push_back(0.0f);
  B.push_back(-0.0f);
  for (const Unary& U : Unaries) {
    auto R = runElementwise<float>(*P, U.Name, A, B);
    for (size_t I = 0; I < A.size(); ++I)
      EXPECT_TRUE(sameFloat(R[I], U.Ref(A[I]))) << U.Name << "(" << A[I] << ") = " << R[I];
  }
  auto Pow = runElementwise<float>(*P, "pow", A, B);
  auto Min = runElementwise<float>(*P, "fmin", A, B);
  auto Fma = runElementwise<float>(*P, "fma", A, B);
  for (size_t I = 0; I < A.size(); ++I) {
    EXPECT_TRUE(sameFloat(Pow[I], std::pow(A[I], B[I]))) << "pow " << A[I] << " " << B[I];
    EXPECT_TRUE(sameFloat(Min[I], javaMin(A[I], B[I]))) << "min " << A[I] << " " << B[I];
    EXPECT_TRUE(sameFloat(Fma[I], std::fma(A[I], B[I], -1.0f))) << "fma " << A[I];
  }
  std::vector<double> D = {-1.5, 0.0, 1.0, 700.0};
  auto Exp64 = runElementwise<double>(*P, "exp64", D, D);
  for (size_t I = 0; I < D.size(); ++I)
    EXPECT_EQ(Exp64[I], std::exp(D[I]));
}

} // namespace
} // namespace cajeta::test
