// The KIR polyfill (kir/transforms/Polyfill): the shapes its rules leave in KIR, and the rules
// run on the CPU with the SPIR-V target's config (the LLVM walk lowers the raw primitives).
#include "KirBuilder.h"
#include "LoadedPayload.h"

#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/Pipeline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

namespace cajeta::test {
namespace {

using kir::Polyfill;
using kir::PolyfillConfig;

/// Kernel "K.f"(x: int32, d: int32, out: int32[]): out[0] = Make(x, d).
template <typename MakeFn> kir::Function& scalarKernel(kir::Module& M, MakeFn Make) {
  KirBuilder K(M);
  K.kernel("K.f");
  uint32_t X = K.param("x", scalar(ScalarType::I32));
  uint32_t D = K.param("d", scalar(ScalarType::I32));
  uint32_t O = K.param("out", buffer(ScalarType::I32));
  K.body({K.eval(K.store(O, K.u32(0), Make(K, K.p(X), K.p(D))))});
  return K.current();
}

/// The value stored by the kernel's first statement.
const Expr* storedValue(const kir::Function& F) {
  return F.Body->Body[0]->E->Ops[2];
}

unsigned count(const kir::Function& F, std::function<bool(const Expr*)> Pred) {
  unsigned N = 0;
  kir::forEachExprIn(F.Body, [&](const Expr* E) { N += Pred(E) ? 1 : 0; });
  return N;
}

bool isBinary(const Expr* E, BinaryOp Op) {
  return E->K == Expr::Kind::Binary && E->BOp == Op;
}
bool isIntrinsic(const Expr* E, IntrinsicOp Op) {
  return E->K == Expr::Kind::Intrinsic && E->IOp == Op;
}

TEST(Polyfill, SignedDivBecomesTheGuardedForm) {
  kir::Module M;
  kir::Function& F =
      scalarKernel(M, [](KirBuilder& K, Expr* X, Expr* D) { return K.bin(BinaryOp::Div, X, D); });
  Polyfill::run(M, F, PolyfillConfig::llvm());
  // DivTrunc(x, d == 0 | d == -1 ? 1 : d) * (d == 0 ? 0 : d == -1 ? -1 : 1), leaves read again.
  const Expr* V = storedValue(F);
  ASSERT_TRUE(isBinary(V, BinaryOp::Mul));
  const Expr* Q = V->Ops[0];
  ASSERT_TRUE(isIntrinsic(Q, IntrinsicOp::DivTrunc));
  EXPECT_EQ(Q->Ty, scalar(ScalarType::I32));
  EXPECT_EQ(Q->Ops[0]->K, Expr::Kind::Param);
  EXPECT_EQ(Q->Ops[1]->K, Expr::Kind::Select);
  EXPECT_EQ(V->Ops[1]->K, Expr::Kind::Select);
  EXPECT_EQ(count(F, [](const Expr* E) { return isBinary(E, BinaryOp::Div); }), 0u);
  EXPECT_TRUE(F.Locals.empty()); // leaves need no temporaries
  // The SPIR-V config divides magnitudes as unsigned.
  kir::Module M2;
  kir::Function& F2 =
      scalarKernel(M2, [](KirBuilder& K, Expr* X, Expr* D) { return K.bin(BinaryOp::Rem, X, D); });
  Polyfill::run(M2, F2, PolyfillConfig::spirv());
  EXPECT_EQ(count(F2, [](const Expr* E) { return isBinary(E, BinaryOp::Rem); }), 0u);
  EXPECT_EQ(count(F2,
                  [](const Expr* E) {
                    return isIntrinsic(E, IntrinsicOp::RemTrunc) &&
                           E->Ty == scalar(ScalarType::U32);
                  }),
            1u);
}

TEST(Polyfill, ConstantDivisorsNeedNoGuard) {
  kir::Module M;
  kir::Function& F = scalarKernel(M, [](KirBuilder& K, Expr* X, Expr*) {
    return K.bin(BinaryOp::Add, K.bin(BinaryOp::Div, X, K.i32(4)),
                 K.bin(BinaryOp::Add, K.bin(BinaryOp::Div, K.shallowCopy(X), K.i32(-1)),
                       K.bin(BinaryOp::Rem, K.shallowCopy(X), K.i32(0))));
  });
  Polyfill::run(M, F, PolyfillConfig::llvm());
  const Expr* V = storedValue(F);
  ASSERT_TRUE(isIntrinsic(V->Ops[0], IntrinsicOp::DivTrunc));
  EXPECT_EQ(V->Ops[0]->Ops[1]->K, Expr::Kind::Const);
  const Expr* R = V->Ops[1];
  EXPECT_TRUE(R->Ops[0]->K == Expr::Kind::Unary && R->Ops[0]->UOp == UnaryOp::Neg); // x / -1
  EXPECT_EQ(R->Ops[1]->K, Expr::Kind::Const);                                       // x % 0
  EXPECT_EQ(count(F, [](const Expr* E) { return E->K == Expr::Kind::Select; }), 0u);
}

TEST(Polyfill, NothingChangesWhenAFlagIsOff) {
  auto Make = [](KirBuilder& K, Expr* X, Expr* D) {
    Expr* F = K.cast(scalar(ScalarType::F32), X);
    Expr* Shift = K.bin(BinaryOp::Shl, K.bin(BinaryOp::Div, K.shallowCopy(X), D), K.shallowCopy(D));
    Expr* MinF = K.math(IntrinsicOp::Min, {F, K.constFloat(ScalarType::F32, 1.0)});
    return K.bin(BinaryOp::Add, Shift, K.cast(scalar(ScalarType::I32), MinF));
  };
  kir::Module M;
  kir::Function& F = scalarKernel(M, Make);
  std::string Before = kir::dump(M);
  Polyfill::run(M, F, PolyfillConfig{});
  EXPECT_EQ(kir::dump(M), Before);
  // One flag: only its rule applies.
  PolyfillConfig OnlyShifts;
  OnlyShifts.ShiftMask = true;
  Polyfill::run(M, F, OnlyShifts);
  EXPECT_EQ(count(F, [](const Expr* E) { return isBinary(E, BinaryOp::Shl); }), 0u);
  EXPECT_EQ(count(F, [](const Expr* E) { return isBinary(E, BinaryOp::Div); }), 1u);
  EXPECT_EQ(count(F, [](const Expr* E) { return isIntrinsic(E, IntrinsicOp::Min); }), 1u);
  EXPECT_EQ(count(F, [](const Expr* E) { return isIntrinsic(E, IntrinsicOp::FToIUnchecked); }), 0u);
  // The LLVM targets keep casts and Math.min for LLVM (fptosi.sat, llvm.minimum).
  Polyfill::run(M, F, PolyfillConfig::llvm());
  EXPECT_EQ(count(F, [](const Expr* E) { return isBinary(E, BinaryOp::Div); }), 0u);
  EXPECT_EQ(count(F, [](const Expr* E) { return isIntrinsic(E, IntrinsicOp::Min); }), 1u);
  EXPECT_EQ(count(F, [](const Expr* E) { return isIntrinsic(E, IntrinsicOp::FToIUnchecked); }), 0u);
  Polyfill::run(M, F, PolyfillConfig::spirv());
  EXPECT_EQ(count(F, [](const Expr* E) { return isIntrinsic(E, IntrinsicOp::Min); }), 0u);
  EXPECT_EQ(count(F, [](const Expr* E) { return isIntrinsic(E, IntrinsicOp::FToIUnchecked); }), 1u);
}

TEST(Polyfill, OperandsWithEffectsAreBoundOnceInOrder) {
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.f");
  uint32_t A = K.param("a", buffer(ScalarType::I32));
  uint32_t O = K.param("out", buffer(ScalarType::I32));
  K.body({K.eval(
      K.store(O, K.u32(0), K.bin(BinaryOp::Div, K.load(A, K.u32(0)), K.load(A, K.u32(1)))))});
  kir::Function& F = K.current();
  Polyfill::run(M, F, PolyfillConfig::spirv());
  // Seq(t0 = a[0], t1 = a[1], rule(t0, t1)): each load once, the dividend first.
  const Expr* V = storedValue(F);
  ASSERT_EQ(V->K, Expr::Kind::Seq);
  ASSERT_EQ(V->Ops.size(), 3u);
  ASSERT_EQ(F.Locals.size(), 2u);
  for (uint32_t I = 0; I < 2; ++I) {
    const Expr* Set = V->Ops[I];
    ASSERT_EQ(Set->K, Expr::Kind::Assign);
    EXPECT_EQ(Set->Index, I);
    ASSERT_EQ(Set->Ops[0]->K, Expr::Kind::Load);
    EXPECT_EQ(Set->Ops[0]->Ops[1]->IntValue, I);
  }
  EXPECT_EQ(count(F, [](const Expr* E) { return E->K == Expr::Kind::Load; }), 2u);
}

TEST(Polyfill, PipelineLegalizesACopyOnly) {
  kir::Module M;
  scalarKernel(M, [](KirBuilder& K, Expr* X, Expr* D) {
    return K.bin(BinaryOp::Rem, K.bin(BinaryOp::UShr, X, D), K.shallowCopy(D));
  });
  std::string Before = kir::dump(M);
  kir::PipelineConfig C;
  C.Backend = "cpu";
  C.Polyfill = PolyfillConfig::llvm();
  std::string Error;
  kir::PipelineTrace Trace;
  std::string Out;
  Trace.PrintAfter = {"polyfill"};
  Trace.Out = &Out;
  std::unique_ptr<kir::Module> P = kir::runPipeline(M, C, Error, &Trace);
  ASSERT_TRUE(P) << Error;
  EXPECT_EQ(kir::dump(M), Before);
  const kir::Function& F = *P->Functions[0];
  EXPECT_EQ(count(F,
                  [](const Expr* E) {
                    return E->K == Expr::Kind::Binary && E->Ty.isInteger() &&
                           (E->BOp == BinaryOp::Rem || E->BOp == BinaryOp::UShr);
                  }),
            0u);
  EXPECT_NE(Out.find("KIR after polyfill"), std::string::npos);
  EXPECT_NE(Out.find("rem_trunc"), std::string::npos) << Out;
  EXPECT_NE(Out.find("shift_right"), std::string::npos) << Out;
}

/// Equal bits, or both NaN.
template <typename T> bool sameBits(T A, T B) {
  if (A != A && B != B)
    return true;
  return std::memcmp(&A, &B, sizeof(T)) == 0;
}

// --- run on the CPU ---------------------------------------------------------------------------

/// Builds M after applying C to every function, for the CPU (whose own pipeline then finds
/// nothing more to legalize).
std::unique_ptr<LoadedPayload> buildWith(kir::Module& M, const PolyfillConfig& C) {
  for (size_t I = 0; I < M.Functions.size(); ++I) // a rule may add helpers
    Polyfill::run(M, *M.Functions[I], C);
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  EXPECT_TRUE(P) << Error;
  return P;
}

TEST(Polyfill, EffectsInOperandsRunOnceInOrder) {
  // out[i] = (c = a[i], c = c * 3, c) OP (c = c + 1, c); out2[i] = c. Dividend first: 3a OP 3a+1.
  for (const PolyfillConfig& C : {PolyfillConfig::llvm(), PolyfillConfig::spirv()}) {
    for (BinaryOp Op : {BinaryOp::Div, BinaryOp::Rem}) {
      kir::Module M;
      KirBuilder K(M);
      K.kernel("K.f");
      uint32_t A = K.param("a", buffer(ScalarType::I32));
      uint32_t O = K.param("out", buffer(ScalarType::I32));
      uint32_t O2 = K.param("out2", buffer(ScalarType::I32));
      uint32_t I = K.local("i", scalar(ScalarType::U32));
      uint32_t Cv = K.local("c", scalar(ScalarType::I32));
      Expr* X = K.seq({K.assign(Cv, K.load(A, K.l(I))),
                       K.assign(Cv, K.bin(BinaryOp::Mul, K.l(Cv), K.i32(3))), K.l(Cv)});
      Expr* D = K.seq({K.assign(Cv, K.bin(BinaryOp::Add, K.l(Cv), K.i32(1))), K.l(Cv)});
      K.body({K.eval(K.assign(I, K.geom(IntrinsicOp::GlobalId, 0))), K.eval(K.assign(Cv, K.i32(0))),
              K.ifThen(K.bin(BinaryOp::Lt, K.cast(scalar(ScalarType::U64), K.l(I)), K.length(A)),
                       K.block({K.eval(K.store(O, K.l(I), K.bin(Op, X, D))),
                                K.eval(K.store(O2, K.l(I), K.l(Cv)))}))});
      auto P = buildWith(M, C);
      ASSERT_TRUE(P);
      std::vector<int32_t> In = {5, -5, 0, 7}, Out(4), Out2(4);
      CajetaCpuLaunch L = P->run("cj_K_f", {bufferArg(In), bufferArg(Out), bufferArg(Out2)}, 1, 4);
      EXPECT_EQ(L.Failed, 0u);
      for (size_t J = 0; J < In.size(); ++J) {
        int32_t Xv = 3 * In[J], Dv = Xv + 1;
        EXPECT_EQ(Out[J], Op == BinaryOp::Div ? Xv / Dv : Xv % Dv) << In[J];
        EXPECT_EQ(Out2[J], Dv) << In[J];
      }
    }
  }
}

uint16_t halfBits(_Float16 H) {
  uint16_t B;
  std::memcpy(&B, &H, 2);
  return B;
}

TEST(Polyfill, Float64ToFloat16RoundsOnce) {
  // 1 + 2^-11 + 2^-30 lies just above the midpoint between the float16 neighbours 1 and
  // 1 + 2^-10: correctly rounded it goes up. Through a float32 rounded to nearest it would first
  // become the midpoint (2^-30 is below a float32 ulp) and then tie to even, 1.0.
  const double Up = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30);
  const double Down = 1.0 + std::ldexp(1.0, -11) - std::ldexp(1.0, -30);
  std::vector<double> In = {Up,
                            Down,
                            -Up,
                            65520.0 - std::ldexp(1.0, -20),
                            65520.0,
                            1e300,
                            std::ldexp(1.0, -25) + std::ldexp(1.0, -60),
                            -0.0,
                            std::nan("")};
  std::vector<uint16_t> Want = {0x3c01, 0x3c00, 0xbc01, 0x7bff, 0x7c00, 0x7c00, 0x0001, 0x8000};
  for (const PolyfillConfig& C : {PolyfillConfig::llvm(), PolyfillConfig::spirv()}) {
    kir::Module M;
    KirBuilder K(M);
    K.kernel("K.f");
    uint32_t A = K.param("a", buffer(ScalarType::F64));
    uint32_t O = K.param("out", buffer(ScalarType::F16));
    uint32_t I = K.local("i", scalar(ScalarType::U32));
    K.body(
        {K.eval(K.assign(I, K.geom(IntrinsicOp::GlobalId, 0))),
         K.ifThen(K.bin(BinaryOp::Lt, K.cast(scalar(ScalarType::U64), K.l(I)), K.length(A)),
                  K.eval(K.store(O, K.l(I), K.cast(scalar(ScalarType::F16), K.load(A, K.l(I))))))});
    auto P = buildWith(M, C);
    ASSERT_TRUE(P);
    std::vector<_Float16> Out(In.size());
    EXPECT_EQ(P->run("cj_K_f", {bufferArg(In), bufferArg(Out)}, 2, 8).Failed, 0u);
    for (size_t J = 0; J < Want.size(); ++J)
      EXPECT_EQ(halfBits(Out[J]), Want[J]) << In[J] << " (SPIR-V rules: " << C.F64ToF16Once << ")";
    EXPECT_TRUE(std::isnan(float(Out.back())));
  }
}

TEST(Polyfill, JavaMinMaxOnFloat64AndFloat16) {
  auto Bits64 = [](double D) {
    uint64_t B;
    std::memcpy(&B, &D, 8);
    return B;
  };
  const double Nan = std::nan("");
  std::vector<double> A = {-0.0, 0.0, Nan, 1.0, -2.0, 3.0}, B = {0.0, -0.0, 1.0, Nan, -2.0, -3.0};
  for (IntrinsicOp Op : {IntrinsicOp::Min, IntrinsicOp::Max}) {
    kir::Module M;
    KirBuilder K(M);
    K.kernel("K.f");
    uint32_t Pa = K.param("a", buffer(ScalarType::F64));
    uint32_t Pb = K.param("b", buffer(ScalarType::F64));
    uint32_t O = K.param("out", buffer(ScalarType::F64));
    uint32_t Oh = K.param("outh", buffer(ScalarType::F16));
    uint32_t I = K.local("i", scalar(ScalarType::U32));
    auto Half = [&](uint32_t Buf) { return K.cast(scalar(ScalarType::F16), K.load(Buf, K.l(I))); };
    K.body({K.eval(K.assign(I, K.geom(IntrinsicOp::GlobalId, 0))),
            K.ifThen(K.bin(BinaryOp::Lt, K.cast(scalar(ScalarType::U64), K.l(I)), K.length(Pa)),
                     K.block({K.eval(K.store(O, K.l(I),
                                             K.math(Op, {K.load(Pa, K.l(I)), K.load(Pb, K.l(I))}))),
                              K.eval(K.store(Oh, K.l(I), K.math(Op, {Half(Pa), Half(Pb)})))}))});
    auto P = buildWith(M, PolyfillConfig::spirv());
    ASSERT_TRUE(P);
    std::vector<double> Out(A.size());
    std::vector<_Float16> OutH(A.size());
    EXPECT_EQ(P->run("cj_K_f", {bufferArg(A), bufferArg(B), bufferArg(Out), bufferArg(OutH)}, 1, 8)
                  .Failed,
              0u);
    bool IsMin = Op == IntrinsicOp::Min;
    std::vector<double> Want = {IsMin ? -0.0 : 0.0, IsMin ? -0.0 : 0.0, Nan, Nan, -2.0,
                                IsMin ? -3.0 : 3.0};
    for (size_t J = 0; J < A.size(); ++J) {
      if (std::isnan(Want[J])) {
        EXPECT_TRUE(std::isnan(Out[J])) << J;
        EXPECT_TRUE(std::isnan(float(OutH[J]))) << J;
        continue;
      }
      EXPECT_EQ(Bits64(Out[J]), Bits64(Want[J])) << J;
      EXPECT_EQ(halfBits(OutH[J]), halfBits(_Float16(Want[J]))) << J;
    }
  }
}

TEST(Polyfill, ExactFloatRemainderThroughOneHelperPerWidth) {
  // x % y as C's fmod, on the bits: exact for huge quotients and subnormals, x's sign on zeros.
  const float Inf32 = std::numeric_limits<float>::infinity();
  const float Sub32 = std::numeric_limits<float>::denorm_min();
  std::vector<float> A = {5.5f,  -5.5f, 1e30f, -1e30f, 3.0f, -3.0f,  Sub32 * 7,   1.0f,
                          Inf32, 1.0f,  0.0f,  -0.0f,  7.0f, 1e-40f, 16777217.0f, 2.5f},
                     B = {2.0f, 2.0f,  3.0f, 7e-3f, 3.0f,  3.0f,   Sub32 * 2, 0.0f,
                          2.0f, Inf32, 5.0f, 5.0f,  -2.0f, 3e-41f, 0.3f,      std::nanf("")};
  std::vector<double> AD(A.begin(), A.end()), BD(B.begin(), B.end());
  AD.push_back(1e300);
  BD.push_back(1e-300);
  AD.push_back(-4.9e-324 * 9);
  BD.push_back(4.9e-324 * 4);
  for (const PolyfillConfig& C : {PolyfillConfig::llvm(), PolyfillConfig::spirv()}) {
    kir::Module M;
    KirBuilder K(M);
    K.kernel("K.f");
    uint32_t Pa = K.param("a", buffer(ScalarType::F32));
    uint32_t Pb = K.param("b", buffer(ScalarType::F32));
    uint32_t Pad = K.param("ad", buffer(ScalarType::F64));
    uint32_t Pbd = K.param("bd", buffer(ScalarType::F64));
    uint32_t O = K.param("out", buffer(ScalarType::F32));
    uint32_t Od = K.param("outd", buffer(ScalarType::F64));
    uint32_t Oh = K.param("outh", buffer(ScalarType::F16));
    uint32_t I = K.local("i", scalar(ScalarType::U32));
    auto Rem = [&](Expr* X, Expr* Y) { return K.bin(BinaryOp::Rem, X, Y); };
    auto Half = [&](uint32_t Buf) { return K.cast(scalar(ScalarType::F16), K.load(Buf, K.l(I))); };
    auto Below = [&](uint32_t Buf) {
      return K.bin(BinaryOp::Lt, K.cast(scalar(ScalarType::U64), K.l(I)), K.length(Buf));
    };
    K.body(
        {K.eval(K.assign(I, K.geom(IntrinsicOp::GlobalId, 0))),
         K.ifThen(Below(Pa),
                  K.block({K.eval(K.store(O, K.l(I), Rem(K.load(Pa, K.l(I)), K.load(Pb, K.l(I))))),
                           K.eval(K.store(Oh, K.l(I), Rem(Half(Pa), Half(Pb))))})),
         K.ifThen(Below(Pad),
                  K.eval(K.store(Od, K.l(I), Rem(K.load(Pad, K.l(I)), K.load(Pbd, K.l(I))))))});
    auto P = buildWith(M, C);
    ASSERT_TRUE(P);
    // One helper per width used (float16 shares float32's), none for the LLVM targets.
    EXPECT_EQ(M.Functions.size(), C.ExactFRem ? 3u : 1u);
    std::vector<float> Out(A.size());
    std::vector<double> OutD(AD.size());
    std::vector<_Float16> OutH(A.size());
    EXPECT_EQ(P->run("cj_K_f",
                     {bufferArg(A), bufferArg(B), bufferArg(AD), bufferArg(BD), bufferArg(Out),
                      bufferArg(OutD), bufferArg(OutH)},
                     3, 8)
                  .Failed,
              0u);
    for (size_t J = 0; J < A.size(); ++J) {
      float Want = std::fmod(A[J], B[J]);
      EXPECT_TRUE(sameBits(Out[J], Want)) << A[J] << " % " << B[J] << " = " << Out[J];
      _Float16 WantH = _Float16(std::fmod(float(_Float16(A[J])), float(_Float16(B[J]))));
      EXPECT_TRUE(sameBits(OutH[J], WantH)) << "half " << A[J] << " % " << B[J];
    }
    for (size_t J = 0; J < AD.size(); ++J)
      EXPECT_TRUE(sameBits(OutD[J], std::fmod(AD[J], BD[J])))
          << AD[J] << " % " << BD[J] << " = " << OutD[J];
  }
}

} // namespace
} // namespace cajeta::test
