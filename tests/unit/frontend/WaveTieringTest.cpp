// Wave ops through the whole compiler: the [wave-tiering] note per backend, the
// CAJETA_GPU_WAVE_IMPL override, what the manifest records, and the portable rewrite's KIR.
#include "compiler/driver/Compiler.h"
#include "compiler/kir/transforms/PortableWave.h"
#include "compiler/kir/transforms/WaveExpand.h"
#include "compiler/kir/transforms/WaveSteps.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

using cajeta::driver::Compiler;

namespace {

const char* WaveSource = R"(import cajeta.xpu.*;
class K {
    @Device
    static float32 total(float32 v) {
        return Wave.reduceSum(v);
    }
    @Kernel
    static void k(KernelBuffer<float32> x, KernelBuffer<uint64> b) {
        uint32 i = KernelThread.globalIdX();
        float32 s = total(x[i]);
        x[i] = s + Wave.shuffleXor(x[i], 1) + (float32) Wave.laneId();
        b[i] = Wave.ballot(s > 0.0f);
    }
    @Kernel
    static void plain(KernelBuffer<float32> x) {
        x[KernelThread.globalIdX()] = 1.0f;
    }
}
)";

bool has(const std::string& Hay, const std::string& Needle) {
  return Hay.find(Needle) != std::string::npos;
}

/// Sets CAJETA_GPU_WAVE_IMPL for one scope.
class WaveImpl {
public:
  explicit WaveImpl(const char* Value) {
    if (Value)
      setenv("CAJETA_GPU_WAVE_IMPL", Value, 1);
    else
      unsetenv("CAJETA_GPU_WAVE_IMPL");
  }
  ~WaveImpl() { unsetenv("CAJETA_GPU_WAVE_IMPL"); }
};

const cajeta::bundle::KernelInfo& kernel(const cajeta::driver::CompileResult& R,
                                         const std::string& Name) {
  const cajeta::bundle::KernelInfo* K = R.Program.findKernel(Name);
  EXPECT_NE(K, nullptr) << Name;
  static cajeta::bundle::KernelInfo None;
  return K ? *K : None;
}

TEST(WaveTiering, NativeOnEveryBackendTheCpusWavesAsSimdLanes) {
  WaveImpl Env(nullptr);
  auto R = Compiler::compile("t.cj", WaveSource, {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  EXPECT_TRUE(has(R.Diagnostics, "note: [wave-tiering] cpu: native (SIMD lanes")) << R.Diagnostics;
  EXPECT_TRUE(has(R.Diagnostics, "note: [wave-tiering] cuda: native")) << R.Diagnostics;
  EXPECT_TRUE(has(R.Diagnostics, "note: [wave-tiering] vulkan: native")) << R.Diagnostics;
  const auto& K = kernel(R, "K.k");
  EXPECT_TRUE(K.UsesWave);
  for (const auto& [Target, TM] : K.Targets)
    EXPECT_EQ(TM.WaveTier, "native") << Target;
  const auto& P = kernel(R, "K.plain");
  EXPECT_FALSE(P.UsesWave);
  for (const auto& [Target, TM] : P.Targets)
    EXPECT_EQ(TM.WaveTier, "") << Target;
}

TEST(WaveTiering, SoftwareOverrideMakesEveryBackendPortable) {
  WaveImpl Env("software");
  auto R = Compiler::compile("t.cj", WaveSource, {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  EXPECT_TRUE(has(R.Diagnostics, "[wave-tiering] cpu: portable")) << R.Diagnostics;
  EXPECT_TRUE(has(R.Diagnostics, "[wave-tiering] cuda: portable")) << R.Diagnostics;
  EXPECT_TRUE(has(R.Diagnostics, "[wave-tiering] vulkan: portable")) << R.Diagnostics;
  EXPECT_TRUE(has(R.Diagnostics, "CAJETA_GPU_WAVE_IMPL=software")) << R.Diagnostics;
  for (const auto& [Target, TM] : kernel(R, "K.k").Targets)
    EXPECT_EQ(TM.WaveTier, "portable") << Target;
}

TEST(WaveTiering, NativeOverrideKeepsEveryBackendNative) {
  WaveImpl Env("native");
  auto R = Compiler::compile("t.cj", WaveSource, {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  EXPECT_TRUE(has(R.Diagnostics, "[wave-tiering] cpu: native (")) << R.Diagnostics;
  EXPECT_FALSE(has(R.Diagnostics, "has no native form")) << R.Diagnostics;
  for (const auto& [Target, TM] : kernel(R, "K.k").Targets)
    EXPECT_EQ(TM.WaveTier, "native") << Target;
}

TEST(WaveTiering, UnknownOverrideValueWarnsAndIsIgnored) {
  WaveImpl Env("fast");
  auto R = Compiler::compile("t.cj", WaveSource, {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  EXPECT_TRUE(
      has(R.Diagnostics, "warning: CAJETA_GPU_WAVE_IMPL='fast' is neither 'native' nor 'software'"))
      << R.Diagnostics;
  EXPECT_TRUE(has(R.Diagnostics, "[wave-tiering] cuda: native")) << R.Diagnostics;
}

TEST(WaveTiering, NoNoteWithoutWaveOps) {
  WaveImpl Env("software");
  auto R = Compiler::compile("t.cj", R"(import cajeta.xpu.*;
class K {
    @Kernel
    static void k(KernelBuffer<float32> x) { x[KernelThread.globalIdX()] = 2.0f; }
}
)",
                             {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  EXPECT_FALSE(has(R.Diagnostics, "wave-tiering")) << R.Diagnostics;
}

/// Counts wave ops of each kind left in a statement tree.
void countWave(const cajeta::kir::Stmt* S, unsigned& Width, unsigned& Other, unsigned& Barriers) {
  using namespace cajeta::kir;
  if (!S)
    return;
  std::function<void(const Expr*)> E = [&](const Expr* X) {
    if (!X)
      return;
    if (X->K == Expr::Kind::Wave)
      ++(X->WOp == WaveOp::Width ? Width : Other);
    for (const Expr* O : X->Ops)
      E(O);
  };
  E(S->E);
  Barriers += S->K == Stmt::Kind::Barrier;
  for (const Stmt* C : S->Body)
    countWave(C, Width, Other, Barriers);
  for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
    countWave(C, Width, Other, Barriers);
}

TEST(WaveTiering, PortableRewriteLeavesOnlyTheWidthAndAddsScratchAndBarriers) {
  auto F = Compiler::runFrontend("t.cj", WaveSource);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  const cajeta::kir::Function* K = F.Kir->findFunction("K.k");
  ASSERT_NE(K, nullptr);
  EXPECT_TRUE(K->UsesWave);
  cajeta::kir::Module Scratch;
  std::string Error;
  auto Out = cajeta::kir::PortableWave::expand(*F.Kir, *K, Scratch, Error);
  ASSERT_NE(Out, nullptr) << Error;
  unsigned Width = 0, Other = 0, Barriers = 0;
  countWave(Out->Body, Width, Other, Barriers);
  EXPECT_EQ(Other, 0u);
  EXPECT_GT(Width, 0u);
  EXPECT_GE(Barriers, 6u); // reduceSum (butterfly loop), shuffleXor, ballot: each waits twice
  EXPECT_TRUE(Out->HasBarrier);
  ASSERT_EQ(Out->SharedArrays.size(), 2u); // the word and the int64 scratch
  for (const auto& A : Out->SharedArrays)
    EXPECT_EQ(A.Count, cajeta::kir::PortableWave::MaxGroupSize) << A.Name;
}

/// Whether every wave op under S but Wave.laneId() is the value of a step statement.
bool everyWaveOpIsAStep(const cajeta::kir::Stmt* S, unsigned& Steps) {
  using namespace cajeta::kir;
  if (!S)
    return true;
  bool Ok = true;
  if (WaveSteps::isStep(S)) {
    ++Steps;
  } else {
    unsigned Width = 0, Other = 0;
    std::function<void(const Expr*)> E = [&](const Expr* X) {
      if (!X)
        return;
      if (X->K == Expr::Kind::Wave && X->WOp != WaveOp::LaneId)
        ++(X->WOp == WaveOp::Width ? Width : Other);
      for (const Expr* O : X->Ops)
        E(O);
    };
    E(S->E);
    Ok = Width == 0 && Other == 0;
  }
  for (const Stmt* C : S->Body)
    Ok = everyWaveOpIsAStep(C, Steps) && Ok;
  for (const Stmt* C : {S->Then, S->Else, S->LoopBody, S->Step})
    Ok = everyWaveOpIsAStep(C, Steps) && Ok;
  return Ok;
}

TEST(WaveTiering, CpuStepsPutEachPrimitiveInAStatementOfItsOwnAndNoScratch) {
  auto F = Compiler::runFrontend("t.cj", WaveSource);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  std::string Error;
  for (auto& Fn : F.Kir->Functions) // as the pipeline's wave-expand: every function
    ASSERT_TRUE(
        cajeta::kir::WaveExpand::run(*F.Kir, *Fn, cajeta::kir::WaveSteps::primitives(16), Error))
        << Error;
  cajeta::kir::Module Scratch;
  auto Out =
      cajeta::kir::WaveSteps::expand(*F.Kir, *F.Kir->findFunction("K.k"), Scratch, 16, Error);
  ASSERT_NE(Out, nullptr) << Error;
  unsigned Steps = 0;
  EXPECT_TRUE(everyWaveOpIsAStep(Out->Body, Steps));
  // reduceSum of float32: four shuffles of the butterfly (the helper inlined); shuffleXor: one;
  // ballot: one.
  EXPECT_EQ(Steps, 6u);
  EXPECT_TRUE(Out->HasBarrier);
  EXPECT_TRUE(Out->SharedArrays.empty());
}

} // namespace

namespace {

TEST(GpuArchs, ExtraArchitecturesGetTheirOwnPtxAndUnknownOnesANote) {
  cajeta::driver::CompileOptions O;
  O.GpuArchs = {"sm_86", "sm_90", "sm_999"};
  auto R = Compiler::compile("t.cj", WaveSource, O);
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  const cajeta::bundle::Payload* P86 = R.Program.findPayload("nvptx-sm_86");
  ASSERT_NE(P86, nullptr);
  std::string Ptx(P86->Bytes.begin(), P86->Bytes.end());
  EXPECT_TRUE(has(Ptx, ".target sm_86"));
  EXPECT_TRUE(has(Ptx, "shfl.sync")); // the float reduceSum's butterfly
  EXPECT_NE(R.Program.findPayload("nvptx-sm_70"), nullptr);
  EXPECT_NE(R.Program.findPayload("nvptx-sm_90"), nullptr);
  EXPECT_EQ(R.Program.findPayload("nvptx-sm_999"), nullptr);
  EXPECT_TRUE(has(R.Diagnostics, "note: no PTX for sm_999")) << R.Diagnostics;
  size_t Nvptx = 0;
  for (const auto& Pay : R.Program.Payloads)
    Nvptx += Pay.Target.rfind("nvptx-", 0) == 0;
  EXPECT_EQ(Nvptx, 3u); // sm_90 asked twice is built once
  EXPECT_NE(kernel(R, "K.k").Targets.count("nvptx-sm_86"), 0u);
}

} // namespace
