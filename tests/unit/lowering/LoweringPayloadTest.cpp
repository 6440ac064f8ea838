// Lowering tests of the payload as a whole: saxpy end to end, vectorisation, the payload's
// attributes and manifests, and clear errors on bad input.
#include "KirBuilder.h"
#include "LoadedPayload.h"
#include "compiler/lowering/llvm/CpuTarget.h"
#include "compiler/lowering/llvm/KernelLowering.h"

#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Host.h>

#include <gtest/gtest.h>

#include <optional>

namespace cajeta::test {
namespace {

/// K.saxpy(KernelBuffer<float32> y, KernelBuffer<float32> x, float32 a, uint32 n):
///   uint32 i = KernelThread.globalIdX(); if (i < n) y[i] = a * x[i] + y[i];
void buildSaxpy(kir::Module& M, bool FastMath = false) {
  KirBuilder K(M);
  K.kernel("K.saxpy");
  K.current().FastMath = FastMath;
  uint32_t Y = K.param("y", buffer(ScalarType::F32));
  uint32_t X = K.param("x", buffer(ScalarType::F32));
  uint32_t A = K.param("a", scalar(ScalarType::F32));
  uint32_t N = K.param("n", scalar(ScalarType::U32));
  uint32_t I = K.local("i", scalar(ScalarType::U32));
  K.body({
      K.eval(K.assign(I, K.geom(IntrinsicOp::GlobalId, 0))),
      K.ifThen(K.bin(BinaryOp::Lt, K.l(I), K.p(N)),
               K.eval(K.store(Y, K.l(I),
                              K.bin(BinaryOp::Add, K.bin(BinaryOp::Mul, K.p(A), K.load(X, K.l(I))),
                                    K.load(Y, K.l(I)))))),
  });
}

TEST(LoweringPayload, SaxpyRunsAndMatchesReference) {
  kir::Module M;
  buildSaxpy(M);
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  const uint32_t N = 1000;
  std::vector<float> X(1024), Y(1024), Ref(1024);
  for (uint32_t I = 0; I < 1024; ++I) {
    X[I] = 0.25f * float(I) - 7.0f;
    Y[I] = 1.0f / float(I + 1);
  }
  const float A = 3.0f;
  for (uint32_t I = 0; I < 1024; ++I) {
    volatile float Product = A * X[I]; // no contraction in the reference either
    Ref[I] = I < N ? Product + Y[I] : Y[I];
  }
  CajetaCpuLaunch L =
      P->run("cj_K_saxpy", {bufferArg(Y), bufferArg(X), scalarArg(A), scalarArg(N)}, 4, 256);
  EXPECT_EQ(L.Failed, 0u);
  for (uint32_t I = 0; I < 1024; ++I)
    ASSERT_EQ(Y[I], Ref[I]) << "at " << I;
}

TEST(LoweringPayload, GroupRangeRunsOnlyThoseGroups) {
  kir::Module M;
  buildSaxpy(M);
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  std::vector<float> X(64, 1.0f), Y(64, 0.0f);
  std::vector<CajetaCpuArg> Args = {bufferArg(Y), bufferArg(X), scalarArg(2.0f), scalarArg(64u)};
  CajetaCpuLaunch L{};
  L.GridDim[0] = 4;
  L.GridDim[1] = L.GridDim[2] = 1;
  L.BlockDim[0] = 16;
  L.BlockDim[1] = L.BlockDim[2] = 1;
  P->kernel("cj_K_saxpy")(Args.data(), &L, 1, 3); // groups 1 and 2 only
  for (uint32_t I = 0; I < 64; ++I)
    EXPECT_EQ(Y[I], I >= 16 && I < 48 ? 2.0f : 0.0f) << "at " << I;
}

TEST(LoweringPayload, SaxpyWorkItemLoopVectorizes) {
  kir::Module M;
  buildSaxpy(M);
  std::string Raw = lowering::CpuPayloadBuilder::emitLlvmIr(M, {}, false);
  EXPECT_NE(Raw.find("llvm.loop.parallel_accesses"), std::string::npos) << Raw;
  EXPECT_NE(Raw.find("!llvm.access.group"), std::string::npos);
  std::string Opt = lowering::CpuPayloadBuilder::emitLlvmIr(M, {}, true);
  bool Vector =
      Opt.find("<8 x float>") != std::string::npos || Opt.find("<16 x float>") != std::string::npos;
  EXPECT_TRUE(Vector) << Opt;
}

/// K.rowdot(KernelBuffer<float32> out, KernelBuffer<float32> a, KernelBuffer<float32> x,
///          uint32 rows, uint32 cols):
///   uint32 i = KernelThread.globalIdX();
///   if (i < rows) {
///     float32 sum = 0;
///     for (uint32 j = 0; j < cols; j++) sum += a[i * cols + j] * x[j];
///     out[i] = sum;
///   }
void buildRowDot(kir::Module& M) {
  KirBuilder K(M);
  K.kernel("K.rowdot");
  uint32_t Out = K.param("out", buffer(ScalarType::F32));
  uint32_t A = K.param("a", buffer(ScalarType::F32));
  uint32_t X = K.param("x", buffer(ScalarType::F32));
  uint32_t Rows = K.param("rows", scalar(ScalarType::U32));
  uint32_t Cols = K.param("cols", scalar(ScalarType::U32));
  uint32_t I = K.local("i", scalar(ScalarType::U32));
  uint32_t Sum = K.local("sum", scalar(ScalarType::F32));
  uint32_t J = K.local("j", scalar(ScalarType::U32));
  Expr* Element = K.load(A, K.bin(BinaryOp::Add, K.bin(BinaryOp::Mul, K.l(I), K.p(Cols)), K.l(J)));
  K.body({
      K.eval(K.assign(I, K.geom(IntrinsicOp::GlobalId, 0))),
      K.ifThen(K.bin(BinaryOp::Lt, K.l(I), K.p(Rows)),
               K.block({K.eval(K.assign(Sum, K.constFloat(ScalarType::F32, 0.0))),
                        K.eval(K.assign(J, K.u32(0))),
                        K.loop(K.bin(BinaryOp::Lt, K.l(J), K.p(Cols)),
                               K.eval(K.assign(
                                   Sum, K.bin(BinaryOp::Add, K.l(Sum),
                                              K.bin(BinaryOp::Mul, Element, K.load(X, K.l(J)))))),
                               K.eval(K.assign(J, K.bin(BinaryOp::Add, K.l(J), K.u32(1))))),
                        K.eval(K.store(Out, K.l(I), K.l(Sum)))})),
  });
}

/// The most float phis one block of the function named Function in IR has.
unsigned mostFloatPhisInABlock(const std::string& IR, const std::string& Function) {
  size_t At = IR.find("@" + Function + "(");
  size_t End = IR.find("\n}\n", At);
  unsigned Most = 0, InBlock = 0;
  size_t Line = IR.find('\n', At);
  while (Line != std::string::npos && Line < End) {
    size_t Next = IR.find('\n', Line + 1);
    std::string Text = IR.substr(Line + 1, Next - Line - 1);
    if (!Text.empty() && Text[0] != ' ')
      InBlock = 0; // a block's label
    else if (Text.find("= phi float") != std::string::npos)
      Most = std::max(Most, ++InBlock);
    Line = Next;
  }
  return Most;
}

/// Runs the row-dot kernel of M (buildRowDot) on rows x cols hashed values in Groups groups of
/// Block work-items and expects each row's sum exactly as one work-item adds it in order, and
/// the outputs past the rows untouched.
void expectRowDotsInOrder(const kir::Module& M, uint32_t Rows, uint32_t Cols, uint32_t Groups,
                          uint32_t Block) {
  std::string Error;
  auto P = LoadedPayload::build(M, Error);
  ASSERT_TRUE(P) << Error;
  std::vector<float> A(Rows * Cols), X(Cols), Out(Groups * Block, -1.0f);
  for (uint32_t E = 0; E < Rows * Cols; ++E)
    A[E] = float((E * 37) % 101) / 7.0f - 6.0f;
  for (uint32_t J = 0; J < Cols; ++J)
    X[J] = 1.0f / float(J + 3);
  CajetaCpuLaunch L = P->run(
      "cj_K_rowdot", {bufferArg(Out), bufferArg(A), bufferArg(X), scalarArg(Rows), scalarArg(Cols)},
      Groups, Block);
  EXPECT_EQ(L.Failed, 0u);
  for (uint32_t I = 0; I < Rows; ++I) {
    float Sum = 0.0f;
    for (uint32_t J = 0; J < Cols; ++J) {
      volatile float Product = A[I * Cols + J] * X[J];
      Sum += Product;
    }
    EXPECT_EQ(Out[I], Sum) << "row " << I;
  }
  for (uint32_t I = Rows; I < Groups * Block; ++I)
    EXPECT_EQ(Out[I], -1.0f) << "past the rows, " << I;
}

TEST(LoweringPayload, RowWalksRunFourWorkItemsAtOnceInTheirOwnOrder) {
  kir::Module M;
  buildRowDot(M);
  // The row loop inside the loop over work-items is jammed: one loop carries four sums.
  std::string Opt = lowering::CpuPayloadBuilder::emitLlvmIr(M, {}, true);
  EXPECT_GE(mostFloatPhisInABlock(Opt, "cj_K_rowdot"), 4u) << Opt;
  // The last of 8-item groups partly idle, 23 = 5 * 4 + 3.
  expectRowDotsInOrder(M, 23, 13, 3, 8);
}

TEST(LoweringPayload, RowWalksRunAsVectorsOfWorkItemsWithTheirRowsTransposed) {
  kir::Module M;
  buildRowDot(M);
  // The jammed rows become one vector loop across the work-items (RowTranspose), fed by row
  // loads and shuffles, in front of the scalar jammed loop that finishes each row.
  std::string Opt = lowering::CpuPayloadBuilder::emitLlvmIr(M, {}, true);
  EXPECT_NE(Opt.find("rowt.body:"), std::string::npos) << Opt;
  EXPECT_NE(Opt.find("shufflevector <"), std::string::npos) << Opt;
  // Rows of 16-wide jams and a remainder, each row two vector blocks and a scalar tail.
  expectRowDotsInOrder(M, 45, 41, 2, 24);
}

TEST(LoweringPayload, NoContractionUnlessFastMath) {
  kir::Module Strict, Fast;
  buildSaxpy(Strict);
  buildSaxpy(Fast, /*FastMath=*/true);
  std::string S = lowering::CpuPayloadBuilder::emitLlvmIr(Strict, {}, false);
  std::string F = lowering::CpuPayloadBuilder::emitLlvmIr(Fast, {}, false);
  EXPECT_NE(S.find("fmul float"), std::string::npos) << S;
  EXPECT_EQ(S.find("contract"), std::string::npos) << S;
  EXPECT_NE(F.find("fmul contract float"), std::string::npos) << F;
  EXPECT_NE(F.find("fadd contract float"), std::string::npos) << F;
}

TEST(LoweringPayload, PayloadAttributesAndManifests) {
  kir::Module M;
  buildSaxpy(M);
  lowering::CpuBuildResult R = lowering::CpuPayloadBuilder::build(M, {});
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(R.Payload.Target, "cpu-x86_64");
  EXPECT_EQ(R.Payload.Format, "elf-shared-object");
  EXPECT_EQ(R.Payload.Attributes.at("triple"), "x86_64-unknown-linux-gnu");
  EXPECT_FALSE(R.Payload.Attributes.at("cpu").empty());
  const std::string& Features = R.Payload.Attributes.at("features");
  ASSERT_FALSE(Features.empty());
  EXPECT_EQ(Features[0], '+');
  EXPECT_EQ(Features.find(",-"), std::string::npos) << "only enabled features: " << Features;
  EXPECT_NE(Features.find("+sse2"), std::string::npos) << Features;
  ASSERT_GE(R.Payload.Bytes.size(), 4u);
  EXPECT_EQ(R.Payload.Bytes[0], 0x7f);
  EXPECT_EQ(R.Payload.Bytes[1], 'E');
  ASSERT_EQ(R.Manifests.size(), 1u);
  const bundle::TargetManifest& TM = R.Manifests.at("K.saxpy");
  EXPECT_EQ(TM.Symbol, "cj_K_saxpy");
  EXPECT_NE(TM.CodeHash, 0u);

  // The same module hashes the same; a different kernel body hashes differently.
  lowering::CpuBuildResult Again = lowering::CpuPayloadBuilder::build(M, {});
  ASSERT_TRUE(Again.Ok) << Again.Error;
  EXPECT_EQ(Again.Manifests.at("K.saxpy").CodeHash, TM.CodeHash);
  kir::Module Fast;
  buildSaxpy(Fast, true);
  lowering::CpuBuildResult Other = lowering::CpuPayloadBuilder::build(Fast, {});
  ASSERT_TRUE(Other.Ok) << Other.Error;
  EXPECT_NE(Other.Manifests.at("K.saxpy").CodeHash, TM.CodeHash);
}

TEST(LoweringPayload, NamedCpuBuildsWithItsFeatures) {
  kir::Module M;
  buildSaxpy(M);
  lowering::CpuBuildOptions O;
  O.Cpu = "x86-64-v3";
  lowering::CpuBuildResult R = lowering::CpuPayloadBuilder::build(M, O);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(R.Payload.Attributes.at("cpu"), "x86-64-v3");
  EXPECT_NE(R.Payload.Attributes.at("features").find("+avx2"), std::string::npos);
  EXPECT_EQ(R.Payload.Attributes.at("features").find("+avx512f"), std::string::npos);
}

TEST(LoweringPayload, UnknownCpuIsAnError) {
  kir::Module M;
  buildSaxpy(M);
  lowering::CpuBuildOptions O;
  O.Cpu = "pentium-9000";
  lowering::CpuBuildResult R = lowering::CpuPayloadBuilder::build(M, O);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("unknown CPU 'pentium-9000'"), std::string::npos) << R.Error;
}

// kir_tests (PipelineVerifyTest) verifies every pass of this configuration over the conformance
// programs: it must be the CPU target's own.
TEST(LoweringPayload, CpuPipelineInlinesBarrierHelpersAndRunsWavesAsSteps) {
  llvm::InitializeNativeTarget();
  std::string Err, Triple = llvm::sys::getProcessTriple();
  const llvm::Target* T = llvm::TargetRegistry::lookupTarget(Triple, Err);
  ASSERT_TRUE(T) << Err;
  std::unique_ptr<llvm::TargetMachine> TM(
      T->createTargetMachine(Triple, "generic", "", llvm::TargetOptions(), std::nullopt));
  ASSERT_TRUE(TM);
  std::unique_ptr<lowering::LoweringTarget> Target = lowering::createCpuTarget(*TM, {});
  lowering::LoweringOptions LO;
  LO.Backend = "cpu";
  kir::PipelineConfig C = lowering::KernelLowering::pipelineConfig(*Target, LO);
  EXPECT_EQ(C.Backend, "cpu");
  EXPECT_TRUE(C.InlineBarrierHelpers);
  // Waves as vectors of the work-item loop, as wide as the CPU's vectors of 32-bit lanes.
  EXPECT_EQ(C.WaveTier, kir::ImplTier::Native);
  EXPECT_TRUE(C.WaveSteps);
  EXPECT_TRUE(C.Wave.Available);
  EXPECT_EQ(C.Wave.ConstantWidth, 8u); // CpuTargetOptions' default width
  // The override gives the portable tier.
  LO.WaveTier = kir::ImplTier::Portable;
  C = lowering::KernelLowering::pipelineConfig(*Target, LO);
  EXPECT_EQ(C.WaveTier, kir::ImplTier::Portable);
  EXPECT_FALSE(C.WaveSteps);
}

// The walk assumes verified KIR; the pipeline verifies its input, so hand-made malformed KIR is
// the verifier's error (each invariant is tested in tests/unit/kir/VerifierTest.cpp).
TEST(LoweringPayload, MalformedKirIsAnErrorNotACrash) {
  kir::Module M;
  KirBuilder K(M);
  K.kernel("K.bad");
  uint32_t Out = K.param("out", buffer(ScalarType::I32));
  Expr* BadLocal = K.i32(0);
  BadLocal->K = Expr::Kind::Local;
  BadLocal->Index = 7; // no such local
  K.body({K.eval(K.store(Out, K.i32(0), BadLocal))});
  lowering::CpuBuildResult R = lowering::CpuPayloadBuilder::build(M, {});
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("no local 7"), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find("K.bad"), std::string::npos) << R.Error;
  EXPECT_NE(R.Error.find("invalid KIR given to the cpu pipeline"), std::string::npos) << R.Error;

  kir::Module M2;
  KirBuilder K2(M2);
  K2.kernel("K.mixed");
  uint32_t O2 = K2.param("out", buffer(ScalarType::I32));
  K2.body({K2.eval(K2.store(
      O2, K2.i32(0), K2.bin(BinaryOp::Add, K2.i32(1), K2.constFloat(ScalarType::F32, 1.0))))});
  R = lowering::CpuPayloadBuilder::build(M2, {});
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("different"), std::string::npos) << R.Error;

  kir::Module M3;
  KirBuilder K3(M3);
  K3.kernel("K.loose");
  K3.body({K3.brk(42)});
  R = lowering::CpuPayloadBuilder::build(M3, {});
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("loop 42"), std::string::npos) << R.Error;
  EXPECT_EQ(lowering::CpuPayloadBuilder::emitLlvmIr(M3, {}, false).rfind("; error: ", 0), 0u);
}

} // namespace
} // namespace cajeta::test
