// Wave operations on NVPTX (native tier): every wave op over every operand type class compiles
// for sm_70 and sm_90 and assembles with ptxas; redux.sync on sm_80+ only for 32-bit integers,
// the shuffle butterfly elsewhere; a target without wave leaves reports a clean error.
#include "PtxTestSupport.h"

#include "compiler/lowering/llvm/KernelLowering.h"
#include "compiler/lowering/llvm/NvptxTarget.h"

#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <gtest/gtest.h>

#include <memory>
#include <optional>

namespace cajeta::test {
namespace {

using kir::ImplTier;
using lowering::NvptxBuildOptions;
using lowering::NvptxBuildResult;

/// A kernel with the six shuffle forms of one value type T.
std::string shuffleKernel(const std::string& T) {
  return "    @Kernel\n"
         "    public static void shuffles_" +
         T + "(KernelBuffer<" + T + "> v, KernelBuffer<uint32> s, KernelBuffer<" + T +
         "> out) {\n"
         "        uint32 i = KernelThread.globalIdX();\n"
         "        " +
         T +
         " x = v[i];\n"
         "        uint32 k = s[i];\n"
         "        out[i * 6] = Wave.shuffle(x, k);\n"
         "        out[i * 6 + 1] = Wave.shuffleUp(x, k);\n"
         "        out[i * 6 + 2] = Wave.shuffleDown(x, k);\n"
         "        out[i * 6 + 3] = Wave.shuffleXor(x, k);\n"
         "        out[i * 6 + 4] = Wave.rotate(x, k);\n"
         "        out[i * 6 + 5] = Wave.broadcastFirst(x);\n"
         "    }\n";
}

/// A kernel with the arithmetic reductions and both prefix sums of T.
std::string arithKernel(const std::string& T) {
  return "    @Kernel\n"
         "    public static void arith_" +
         T + "(KernelBuffer<" + T + "> v, KernelBuffer<" + T +
         "> out) {\n"
         "        uint32 i = KernelThread.globalIdX();\n"
         "        " +
         T +
         " x = v[i];\n"
         "        out[i * 5] = Wave.reduceSum(x);\n"
         "        out[i * 5 + 1] = Wave.reduceMin(x);\n"
         "        out[i * 5 + 2] = Wave.reduceMax(x);\n"
         "        out[i * 5 + 3] = Wave.inclusivePrefixSum(x);\n"
         "        out[i * 5 + 4] = Wave.exclusivePrefixSum(x);\n"
         "    }\n";
}

/// A kernel with the bitwise reductions of T.
std::string bitsKernel(const std::string& T) {
  return "    @Kernel\n"
         "    public static void bits_" +
         T + "(KernelBuffer<" + T + "> v, KernelBuffer<" + T +
         "> out) {\n"
         "        uint32 i = KernelThread.globalIdX();\n"
         "        " +
         T +
         " x = v[i];\n"
         "        out[i * 3] = Wave.reduceAnd(x);\n"
         "        out[i * 3 + 1] = Wave.reduceOr(x);\n"
         "        out[i * 3 + 2] = Wave.reduceXor(x);\n"
         "    }\n";
}

const char* VotesAndGeometry = R"(
    @Kernel
    public static void votes(KernelBuffer<int32> v, KernelBuffer<uint64> ballots,
                             KernelBuffer<bool> flags, KernelBuffer<uint32> lanes) {
        uint32 i = KernelThread.globalIdX();
        bool p = v[i] > 0;
        ballots[i] = Wave.ballot(p);
        flags[i * 2] = Wave.all(p);
        flags[i * 2 + 1] = Wave.any(p);
        lanes[i] = Wave.laneId() * 100u + Wave.width();
    }
    @Device
    static float32 warpSum(float32 x) { return Wave.reduceSum(x); }
    @Kernel
    public static void viaHelper(KernelBuffer<float32> v) {
        uint32 i = KernelThread.globalIdX();
        float32 s = warpSum(v[i]);
        v[i] = s;
    }
)";

std::string wrap(const std::string& Body) {
  return "import cajeta.xpu.*;\npublic final class W {\n" + Body + "}\n";
}

/// Every wave op over every operand type class.
std::string everyWaveOp() {
  std::string Body = VotesAndGeometry;
  for (const char* T :
       {"bool", "int8", "uint16", "int32", "uint32", "int64", "float16", "float32", "float64"})
    Body += shuffleKernel(T);
  for (const char* T : {"int32", "uint32", "int64", "uint64", "float32", "float64"})
    Body += arithKernel(T);
  for (const char* T : {"int32", "uint32", "int64", "uint64"})
    Body += bitsKernel(T);
  return wrap(Body);
}

std::string buildPtx(const std::string& Src, const char* Sm, ImplTier Tier = ImplTier::Native) {
  NvptxBuildOptions O;
  O.Sm = Sm;
  O.WaveTier = Tier;
  NvptxBuildResult R = buildSource(Src, O);
  EXPECT_TRUE(R.Ok) << Sm << ": " << R.Error;
  return R.Ok ? ptxText(R) : std::string();
}

TEST(NvptxWave, EveryOpAndTypeAssemblesForSm70AndSm90) {
  std::string Src = everyWaveOp();
  for (const char* Sm : {"sm_70", "sm_90"}) {
    std::string Ptx = buildPtx(Src, Sm);
    ASSERT_FALSE(Ptx.empty()) << Sm;
    EXPECT_NE(Ptx.find("shfl.sync.idx.b32"), std::string::npos) << Sm;
    EXPECT_NE(Ptx.find("vote.sync.ballot.b32"), std::string::npos) << Sm;
    EXPECT_NE(Ptx.find("vote.sync.all.pred"), std::string::npos) << Sm;
    EXPECT_NE(Ptx.find("vote.sync.any.pred"), std::string::npos) << Sm;
    EXPECT_NE(Ptx.find("%laneid"), std::string::npos) << Sm;
    if (testPtxas().empty())
      GTEST_SKIP() << "no ptxas";
    EXPECT_EQ(assembleError(Ptx, Sm), "") << Ptx;
  }
}

TEST(NvptxWave, CheckBoundsBuildAssembles) {
  for (const char* Sm : {"sm_70", "sm_90"}) {
    NvptxBuildOptions O;
    O.Sm = Sm;
    O.CheckBounds = true;
    NvptxBuildResult R = buildSource(everyWaveOp(), O);
    ASSERT_TRUE(R.Ok) << Sm << ": " << R.Error;
    if (!testPtxas().empty()) {
      EXPECT_EQ(assembleError(ptxText(R), Sm), "") << Sm;
    }
  }
}

const char* Sums = R"(
import cajeta.xpu.*;
public final class S {
    @Kernel
    public static void i32(KernelBuffer<int32> v) { v[KernelThread.globalIdX()] = Wave.reduceSum(v[KernelThread.globalIdX()]); }
    @Kernel
    public static void u32min(KernelBuffer<uint32> v) { v[KernelThread.globalIdX()] = Wave.reduceMin(v[KernelThread.globalIdX()]); }
    @Kernel
    public static void i32max(KernelBuffer<int32> v) { v[KernelThread.globalIdX()] = Wave.reduceMax(v[KernelThread.globalIdX()]); }
    @Kernel
    public static void u32xor(KernelBuffer<uint32> v) { v[KernelThread.globalIdX()] = Wave.reduceXor(v[KernelThread.globalIdX()]); }
    @Kernel
    public static void f32(KernelBuffer<float32> v) { v[KernelThread.globalIdX()] = Wave.reduceSum(v[KernelThread.globalIdX()]); }
    @Kernel
    public static void f64(KernelBuffer<float64> v) { v[KernelThread.globalIdX()] = Wave.reduceSum(v[KernelThread.globalIdX()]); }
    @Kernel
    public static void i64(KernelBuffer<int64> v) { v[KernelThread.globalIdX()] = Wave.reduceSum(v[KernelThread.globalIdX()]); }
    @Kernel
    public static void scan(KernelBuffer<float32> v) { v[KernelThread.globalIdX()] = Wave.inclusivePrefixSum(v[KernelThread.globalIdX()]); }
}
)";

TEST(NvptxWave, Sm90ReducesInt32WithRedux) {
  std::string Ptx = buildPtx(Sums, "sm_90");
  ASSERT_FALSE(Ptx.empty());
  std::string I32 = entryBody(Ptx, "S_i32");
  ASSERT_FALSE(I32.empty()) << Ptx;
  EXPECT_NE(I32.find("redux.sync.add.s32"), std::string::npos) << I32;
  EXPECT_EQ(I32.find("shfl.sync"), std::string::npos) << I32;
  EXPECT_NE(entryBody(Ptx, "S_u32min").find("redux.sync.min.u32"), std::string::npos);
  EXPECT_NE(entryBody(Ptx, "S_i32max").find("redux.sync.max.s32"), std::string::npos);
  EXPECT_NE(entryBody(Ptx, "S_u32xor").find("redux.sync.xor.b32"), std::string::npos);
  // Floats and 64-bit integers have no redux: the butterfly, log2(32) = 5 steps of 32-bit
  // shuffles (two per step for 64-bit values).
  std::string F32 = entryBody(Ptx, "S_f32");
  EXPECT_EQ(F32.find("redux"), std::string::npos) << F32;
  EXPECT_EQ(countOf(F32, "shfl.sync"), 5u) << F32;
  EXPECT_EQ(countOf(entryBody(Ptx, "S_f64"), "shfl.sync"), 10u);
  std::string I64 = entryBody(Ptx, "S_i64");
  EXPECT_EQ(I64.find("redux"), std::string::npos) << I64;
  EXPECT_EQ(countOf(I64, "shfl.sync"), 10u) << I64;
  EXPECT_EQ(countOf(entryBody(Ptx, "S_scan"), "shfl.sync"), 5u);
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90"), "");
  }
}

TEST(NvptxWave, Sm70UsesTheButterflyOnly) {
  std::string Ptx = buildPtx(Sums, "sm_70");
  ASSERT_FALSE(Ptx.empty());
  EXPECT_EQ(Ptx.find("redux"), std::string::npos) << Ptx;
  EXPECT_EQ(countOf(entryBody(Ptx, "S_i32"), "shfl.sync"), 5u) << Ptx;
  EXPECT_EQ(countOf(entryBody(Ptx, "S_u32min"), "shfl.sync"), 5u);
  EXPECT_NE(entryBody(Ptx, "S_u32min").find("min.u32"), std::string::npos);
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_70"), "");
  }
}

TEST(NvptxWave, FloatMinMaxFollowMathMinMax) {
  // NaN wins and -0 < +0, as Math.min/max: on sm_80+ PTX's min.NaN; below, LLVM's expansion.
  const char* Src = R"(
import cajeta.xpu.*;
public final class M {
    @Kernel
    public static void f(KernelBuffer<float32> v) { v[KernelThread.globalIdX()] = Wave.reduceMin(v[KernelThread.globalIdX()]); }
}
)";
  std::string Ptx = buildPtx(Src, "sm_90");
  EXPECT_NE(Ptx.find("min.NaN.f32"), std::string::npos) << Ptx;
  EXPECT_EQ(countOf(Ptx, "shfl.sync"), 5u);
}

TEST(NvptxWave, PortableTierUsesNoWarpInstructions) {
  // CAJETA_GPU_WAVE_IMPL=software: the KIR rewrite (PortableWave) runs before the walk, so no
  // shfl/vote/redux remains, and the PTX still assembles.
  std::string Ptx = buildPtx(Sums, "sm_90", ImplTier::Portable);
  ASSERT_FALSE(Ptx.empty());
  EXPECT_EQ(Ptx.find("shfl.sync"), std::string::npos) << Ptx;
  EXPECT_EQ(Ptx.find("redux.sync"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("bar.sync"), std::string::npos) << Ptx;
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90"), "");
  }
}

// ---------------------------------------------------------------------------------------------
// A target without wave leaves: the NVPTX target with the wave hooks left at their defaults.

class NoWaveTarget final : public lowering::LoweringTarget {
public:
  explicit NoWaveTarget(std::unique_ptr<LoweringTarget> Inner) : Inner(std::move(Inner)) {}
  llvm::TargetMachine& targetMachine() override { return Inner->targetMachine(); }
  unsigned bufferAddressSpace() const override { return Inner->bufferAddressSpace(); }
  unsigned sharedAddressSpace() const override { return Inner->sharedAddressSpace(); }
  llvm::Function* emitKernel(llvm::Module& LM, const kir::Function& KF,
                             lowering::BodyEmitter EmitBody, std::string& Error) override {
    return Inner->emitKernel(LM, KF, EmitBody, Error);
  }
  std::vector<llvm::Type*> helperHiddenParams(llvm::LLVMContext& C) const override {
    return Inner->helperHiddenParams(C);
  }
  llvm::Value* coordinate(llvm::IRBuilder<>& B, const lowering::WorkItemContext& W,
                          kir::IntrinsicOp Op, unsigned Dim) override {
    return Inner->coordinate(B, W, Op, Dim);
  }
  void emitBoundsFailure(llvm::IRBuilder<>& B, const lowering::WorkItemContext& W,
                         llvm::Value* ParamIndex, llvm::Value* Index,
                         llvm::Value* Length) override {
    Inner->emitBoundsFailure(B, W, ParamIndex, Index, Length);
  }
  llvm::Value* emitHasFailed(llvm::IRBuilder<>& B, const lowering::WorkItemContext& W) override {
    return Inner->emitHasFailed(B, W);
  }
  bool hasNativeBarrier() const override { return true; }
  // Native, so the walk itself meets the wave ops (no portable rewrite first).
  kir::ImplTier tierFor(kir::Feature F) const override { return ImplTier::Native; }

private:
  std::unique_ptr<LoweringTarget> Inner;
};

std::unique_ptr<llvm::TargetMachine> nvptxMachine() {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  std::string Err;
  const llvm::Target* T = llvm::TargetRegistry::lookupTarget("nvptx64-nvidia-cuda", Err);
  if (!T)
    return nullptr;
  return std::unique_ptr<llvm::TargetMachine>(T->createTargetMachine(
      "nvptx64-nvidia-cuda", "sm_90", "", llvm::TargetOptions(), std::nullopt));
}

TEST(NvptxWave, TargetWithoutWaveLeavesReportsTheOp) {
  driver::FrontendResult F = driver::Compiler::runFrontend("test.cj", Sums);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  std::unique_ptr<llvm::TargetMachine> TM = nvptxMachine();
  ASSERT_TRUE(TM);
  lowering::NvptxTargetOptions TO;
  TO.Module = F.Kir.get();
  NoWaveTarget Target(lowering::createNvptxTarget(*TM, TO));
  llvm::LLVMContext Ctx;
  llvm::Module M("t", Ctx);
  lowering::LoweringOptions LO;
  LO.Backend = "cuda";
  // As the payload builder does: the target's KIR pipeline first. With no wave primitives it
  // leaves the wave ops to the walk, which reports them.
  std::string Error;
  std::unique_ptr<kir::Module> Prepared =
      kir::runPipeline(*F.Kir, lowering::KernelLowering::pipelineConfig(Target, LO), Error);
  ASSERT_TRUE(Prepared) << Error;
  lowering::KernelLowering KL(*Prepared, M, Target, LO);
  EXPECT_FALSE(KL.emitModule(Error));
  EXPECT_NE(Error.find("'Wave.reduceSum': wave operations need the portable tier on this "
                       "backend (cuda)"),
            std::string::npos)
      << Error;
  EXPECT_EQ(Error.find("malformed"), std::string::npos) << Error;
}

// kir_tests (PipelineVerifyTest) verifies every pass of these configurations over the
// conformance programs: they must be the NVPTX target's own.
TEST(NvptxWave, PipelineConfigsAreTheOnesTheKirTestsVerify) {
  std::unique_ptr<llvm::TargetMachine> TM = nvptxMachine();
  ASSERT_TRUE(TM);
  kir::Module Empty;
  lowering::NvptxTargetOptions TO;
  TO.Module = &Empty;
  std::unique_ptr<lowering::LoweringTarget> Target = lowering::createNvptxTarget(*TM, TO);
  lowering::LoweringOptions LO;
  LO.Backend = "cuda";
  kir::PipelineConfig C = lowering::KernelLowering::pipelineConfig(*Target, LO);
  EXPECT_EQ(C.Backend, "cuda");
  EXPECT_FALSE(C.InlineBarrierHelpers);
  EXPECT_EQ(C.WaveTier, ImplTier::Native);
  EXPECT_TRUE(C.Polyfill.IntDivRem && C.Polyfill.ShiftMask && !C.Polyfill.SaturatingFToI &&
              !C.Polyfill.JavaMinMax && !C.Polyfill.ExactFRem);
  EXPECT_TRUE(C.Wave.Available);
  EXPECT_EQ(C.Wave.ConstantWidth, 32u);
  EXPECT_FALSE(C.Wave.ScanInt32 || C.Wave.Int64Arithmetic || C.Wave.BroadcastFirstWord);
  LO.WaveTier = ImplTier::Portable; // CAJETA_GPU_WAVE_IMPL=software
  EXPECT_EQ(lowering::KernelLowering::pipelineConfig(*Target, LO).WaveTier, ImplTier::Portable);
}

} // namespace
} // namespace cajeta::test
