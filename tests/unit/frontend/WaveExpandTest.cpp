// kir::WaveExpand on Sema's KIR through the pipeline: every composite wave op becomes the
// primitives a native tier lists (WavePrimitives), with the step counts Kir.h's orders imply:
// unrolled over a constant width, one KIR loop over a width known at run time. The portable tier
// implements the same primitives over shared memory.
#include "compiler/driver/Compiler.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/Pipeline.h"
#include "compiler/kir/transforms/PortableWave.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace {

using namespace cajeta;
using kir::WaveOp;

std::string wrap(const std::string& Body) {
  return "import cajeta.xpu.*;\npublic final class W {\n" + Body + "}\n";
}

/// A kernel `Name` storing Wave.<Method>(v[i][, k]) of element type T.
std::string kernel(const std::string& Name, const std::string& Method, const std::string& T,
                   bool WithLane = false, const std::string& Result = "") {
  std::string R = Result.empty() ? T : Result;
  return "    @Kernel\n    public static void " + Name + "(KernelBuffer<" + T +
         "> v, KernelBuffer<" + R + "> out, uint32 k) {\n" +
         "        uint32 i = KernelThread.globalIdX();\n        out[i] = Wave." + Method + "(v[i]" +
         (WithLane ? ", k" : "") + ");\n    }\n";
}

kir::WavePrimitives nvptxLike(bool Redux) {
  kir::WavePrimitives P;
  P.Available = true;
  P.ConstantWidth = 32;
  P.ReduceInt32 = Redux;
  return P;
}

kir::WavePrimitives spirvLike() {
  kir::WavePrimitives P;
  P.Available = true;
  P.ReduceInt32 = true;
  P.ScanInt32 = true;
  P.BroadcastFirstWord = true;
  return P;
}

struct Expanded {
  std::unique_ptr<kir::Module> M;
  std::string Error;
};

Expanded expand(const std::string& Src, const kir::WavePrimitives& P,
                const kir::PipelineTrace* Trace = nullptr) {
  driver::FrontendResult F = driver::Compiler::runFrontend("w.cj", Src);
  EXPECT_TRUE(F.Ok) << F.Diagnostics;
  Expanded R;
  if (!F.Ok)
    return R;
  kir::PipelineConfig C;
  C.Backend = "cuda";
  C.Wave = P;
  R.M = kir::runPipeline(*F.Kir, C, R.Error, Trace);
  return R;
}

const kir::Function& fn(const kir::Module& M, const std::string& Name) {
  const kir::Function* F = M.findFunction(Name);
  EXPECT_NE(F, nullptr) << Name;
  static kir::Function None;
  return F ? *F : None;
}

/// How many wave ops of each kind F holds.
std::map<WaveOp, unsigned> waveOps(const kir::Function& F) {
  std::map<WaveOp, unsigned> N;
  kir::forEachExprIn(F.Body, [&](const kir::Expr* E) {
    if (E->K == kir::Expr::Kind::Wave)
      ++N[E->WOp];
  });
  return N;
}

unsigned loops(const kir::Function& F) {
  unsigned N = 0;
  kir::forEachStmt(F.Body, [&](const kir::Stmt* S) { N += S->K == kir::Stmt::Kind::Loop; });
  return N;
}

std::string everyOp() {
  std::string Body;
  unsigned N = 0;
  auto Add = [&](const char* Method, const char* T, bool Lane, const char* Result = "") {
    Body += kernel("k" + std::to_string(N++), Method, T, Lane, Result);
  };
  for (const char* T : {"bool", "int8", "uint16", "int32", "uint32", "int64", "uint64", "float16",
                        "float32", "float64"})
    for (const char* M : {"shuffle", "shuffleUp", "shuffleDown", "shuffleXor", "rotate"})
      Add(M, T, true);
  for (const char* T : {"bool", "int8", "uint32", "int64", "float16", "float64"})
    Add("broadcastFirst", T, false);
  for (const char* T : {"int32", "uint32", "int64", "uint64", "float32", "float64"})
    for (const char* M :
         {"reduceSum", "reduceMin", "reduceMax", "inclusivePrefixSum", "exclusivePrefixSum"})
      Add(M, T, false);
  for (const char* T : {"int32", "uint32", "int64", "uint64"})
    for (const char* M : {"reduceAnd", "reduceOr", "reduceXor"})
      Add(M, T, false);
  Add("ballot", "bool", false, "uint64");
  Add("all", "bool", false, "bool");
  Add("any", "bool", false, "bool");
  return wrap(Body);
}

TEST(WaveExpand, LeavesOnlyTheTiersPrimitives) {
  std::string Src = everyOp();
  for (const kir::WavePrimitives& P : {nvptxLike(false), nvptxLike(true), spirvLike()}) {
    Expanded R = expand(Src, P);
    ASSERT_TRUE(R.M) << R.Error;
    unsigned Kernels = 0;
    for (const auto& F : R.M->Functions) {
      ++Kernels;
      kir::forEachExprIn(F->Body, [&](const kir::Expr* E) {
        if (E->K != kir::Expr::Kind::Wave)
          return;
        EXPECT_TRUE(P.provides(*E)) << F->Name << ": " << kir::waveOpName(E->WOp);
        if (E->WOp == WaveOp::ShuffleWord) {
          EXPECT_EQ(E->Ops[0]->Ty, kir::Type::scalar(bundle::ScalarType::U32));
          EXPECT_EQ(E->Ops[1]->Ty, kir::Type::scalar(bundle::ScalarType::U32));
        }
      });
      // A constant width unrolls every step; a run-time one loops.
      if (P.ConstantWidth) {
        EXPECT_EQ(loops(*F), 0u) << F->Name;
      }
    }
    EXPECT_EQ(Kernels, 50u + 6 + 30 + 12 + 3);
  }
}

const char* Sums = R"(
    @Kernel
    public static void i32(KernelBuffer<int32> v) { v[KernelThread.globalIdX()] = Wave.reduceSum(v[KernelThread.globalIdX()]); }
    @Kernel
    public static void f32(KernelBuffer<float32> v) { v[KernelThread.globalIdX()] = Wave.reduceMin(v[KernelThread.globalIdX()]); }
    @Kernel
    public static void i64(KernelBuffer<int64> v) { v[KernelThread.globalIdX()] = Wave.reduceSum(v[KernelThread.globalIdX()]); }
    @Kernel
    public static void f64(KernelBuffer<float64> v) { v[KernelThread.globalIdX()] = Wave.reduceMax(v[KernelThread.globalIdX()]); }
    @Kernel
    public static void scan(KernelBuffer<float32> v) { v[KernelThread.globalIdX()] = Wave.exclusivePrefixSum(v[KernelThread.globalIdX()]); }
    @Kernel
    public static void xor64(KernelBuffer<uint64> v) { v[KernelThread.globalIdX()] = Wave.shuffleXor(v[KernelThread.globalIdX()], 3u); }
)";

TEST(WaveExpand, ConstantWidthUnrollsTheButterflyOneShufflePerWordAndStep) {
  Expanded R = expand(wrap(Sums), nvptxLike(/*Redux=*/true));
  ASSERT_TRUE(R.M) << R.Error;
  // int32 with a native reduction: left as it is.
  auto I32 = waveOps(fn(*R.M, "W.i32"));
  EXPECT_EQ(I32[WaveOp::ReduceSum], 1u);
  EXPECT_EQ(I32[WaveOp::ShuffleWord], 0u);
  // log2(32) = 5 steps; 64-bit values are two words, so two shuffles a step.
  auto F32 = waveOps(fn(*R.M, "W.f32"));
  EXPECT_EQ(F32[WaveOp::ShuffleWord], 5u);
  EXPECT_EQ(F32[WaveOp::ReduceMin], 0u);
  EXPECT_EQ(waveOps(fn(*R.M, "W.i64"))[WaveOp::ShuffleWord], 10u);
  EXPECT_EQ(waveOps(fn(*R.M, "W.f64"))[WaveOp::ShuffleWord], 10u);
  // Hillis-Steele (5 steps) and the shuffle of the lane below for the exclusive sum.
  EXPECT_EQ(waveOps(fn(*R.M, "W.scan"))[WaveOp::ShuffleWord], 6u);
  EXPECT_EQ(waveOps(fn(*R.M, "W.xor64"))[WaveOp::ShuffleWord], 2u);
  // Without redux.sync (sm_70), int32 takes the butterfly too.
  Expanded Sm70 = expand(wrap(Sums), nvptxLike(false));
  ASSERT_TRUE(Sm70.M) << Sm70.Error;
  auto I32Sm70 = waveOps(fn(*Sm70.M, "W.i32"));
  EXPECT_EQ(I32Sm70[WaveOp::ReduceSum], 0u);
  EXPECT_EQ(I32Sm70[WaveOp::ShuffleWord], 5u);
}

TEST(WaveExpand, RunTimeWidthLoopsOverTheSubgroupSize) {
  Expanded R = expand(wrap(Sums), spirvLike());
  ASSERT_TRUE(R.M) << R.Error;
  const kir::Function& F64 = fn(*R.M, "W.f64");
  ASSERT_EQ(loops(F64), 1u);
  // for (m = 1; m < Wave.width(); m <<= 1): two word shuffles in the body.
  kir::forEachStmt(F64.Body, [&](const kir::Stmt* S) {
    if (S->K != kir::Stmt::Kind::Loop)
      return;
    bool WidthInTest = false;
    kir::forEachExpr(S->E, [&](const kir::Expr* E) {
      WidthInTest = WidthInTest || (E->K == kir::Expr::Kind::Wave && E->WOp == WaveOp::Width);
    });
    EXPECT_TRUE(WidthInTest);
    unsigned Shuffles = 0;
    kir::forEachExprIn(S->LoopBody, [&](const kir::Expr* E) {
      Shuffles += E->K == kir::Expr::Kind::Wave && E->WOp == WaveOp::ShuffleWord;
    });
    EXPECT_EQ(Shuffles, 2u);
  });
  // The scan: one loop, and the exclusive sum's shuffle after it.
  const kir::Function& Scan = fn(*R.M, "W.scan");
  EXPECT_EQ(loops(Scan), 1u);
  EXPECT_EQ(waveOps(Scan)[WaveOp::ShuffleWord], 2u);
  // Native 32-bit integer arithmetic stays.
  EXPECT_EQ(waveOps(fn(*R.M, "W.i32"))[WaveOp::ReduceSum], 1u);
  EXPECT_EQ(loops(fn(*R.M, "W.i32")), 0u);
}

TEST(WaveExpand, HelpersAreExpandedAndPrintAfterNamesThePass) {
  const char* Src = R"(
    @Device
    static float64 total(float64 x) { return Wave.reduceSum(x); }
    @Kernel
    public static void k(KernelBuffer<float64> v, KernelBuffer<bool> p, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        p[i] = Wave.all(v[i] > 0.0);
        if (n > 2u) {
            float64 t = total(v[i]);
            v[i] = t + Wave.broadcastFirst(v[i]);
        }
    }
)";
  std::string Dump;
  kir::PipelineTrace T;
  T.PrintAfter = {"wave-expand"};
  T.Out = &Dump;
  Expanded R = expand(wrap(Src), nvptxLike(true), &T);
  ASSERT_TRUE(R.M) << R.Error;
  EXPECT_EQ(waveOps(fn(*R.M, "W.total"))[WaveOp::ShuffleWord], 10u);
  auto K = waveOps(fn(*R.M, "W.k"));
  EXPECT_EQ(K[WaveOp::All], 1u);
  EXPECT_EQ(K[WaveOp::BroadcastFirst], 0u);
  EXPECT_EQ(K[WaveOp::ShuffleWord], 2u); // broadcastFirst: a shuffle of lane 0 per word
  EXPECT_NE(Dump.find("; KIR after wave-expand (cuda)"), std::string::npos) << Dump;
  EXPECT_NE(Dump.find("(wave.shuffleWord "), std::string::npos) << Dump;
  EXPECT_TRUE(kir::pipelinePassNames().count("wave-expand"));
}

TEST(WaveExpand, NoPrimitivesNoRewrite) {
  // A tier without primitives (or the portable tier) leaves the ops to its emitter.
  Expanded R = expand(wrap(Sums), kir::WavePrimitives{});
  ASSERT_TRUE(R.M) << R.Error;
  EXPECT_EQ(waveOps(fn(*R.M, "W.f64"))[WaveOp::ReduceMax], 1u);
  EXPECT_EQ(waveOps(fn(*R.M, "W.f64"))[WaveOp::ShuffleWord], 0u);
}

TEST(WaveExpand, MalformedWaveOpIsAnErrorNamingIt) {
  driver::FrontendResult F = driver::Compiler::runFrontend("w.cj", wrap(Sums));
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  kir::Function* K = nullptr;
  for (auto& Fn : F.Kir->Functions)
    if (Fn->Name == "W.f32")
      K = Fn.get();
  ASSERT_NE(K, nullptr);
  kir::rewriteExprs(K->Body, [](kir::Expr* E) {
    if (E->K == kir::Expr::Kind::Wave)
      E->Ops.clear();
    return E;
  });
  kir::PipelineConfig C;
  C.Backend = "cuda";
  C.Wave = nvptxLike(true);
  std::string Error;
  // The pipeline's entry check (the verifier) stops it before any pass runs...
  EXPECT_EQ(kir::runPipeline(*F.Kir, C, Error), nullptr);
  EXPECT_NE(Error.find("invalid KIR given to the cuda pipeline"), std::string::npos) << Error;
  EXPECT_NE(Error.find("'Wave.reduceMin' takes 1 operands, got 0"), std::string::npos) << Error;
  // ...and the pass itself, run on such a function, reports it rather than crashing.
  Error.clear();
  EXPECT_FALSE(kir::WaveExpand::run(*F.Kir, *K, C.Wave, Error));
  EXPECT_NE(Error.find("'Wave.reduceMin' with 0 operands"), std::string::npos) << Error;
}

unsigned barriers(const kir::Function& F) {
  unsigned N = 0;
  kir::forEachStmt(F.Body, [&](const kir::Stmt* S) { N += S->K == kir::Stmt::Kind::Barrier; });
  return N;
}

TEST(WaveExpand, PortableTierExchangesWordsAndGathersIntegers) {
  driver::FrontendResult F = driver::Compiler::runFrontend("w.cj", wrap(Sums));
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  kir::Module Scratch;
  std::string Error;
  // A 64-bit shuffle: two word exchanges (write, barrier, read, barrier) over uint32 scratch.
  auto Xor = kir::PortableWave::expand(*F.Kir, fn(*F.Kir, "W.xor64"), Scratch, Error);
  ASSERT_NE(Xor, nullptr) << Error;
  auto XorLeft = waveOps(*Xor); // only Wave.width() stays a wave op
  EXPECT_EQ(XorLeft.size(), 1u);
  EXPECT_GT(XorLeft[WaveOp::Width], 0u);
  EXPECT_EQ(barriers(*Xor), 4u);
  ASSERT_EQ(Xor->SharedArrays.size(), 1u);
  EXPECT_EQ(Xor->SharedArrays[0].Elem, bundle::ScalarType::U32);
  // An int64 sum: the one-exchange gather over int64 scratch, no word shuffles.
  auto I64 = kir::PortableWave::expand(*F.Kir, fn(*F.Kir, "W.i64"), Scratch, Error);
  ASSERT_NE(I64, nullptr) << Error;
  EXPECT_EQ(barriers(*I64), 2u);
  ASSERT_EQ(I64->SharedArrays.size(), 1u);
  EXPECT_EQ(I64->SharedArrays[0].Elem, bundle::ScalarType::I64);
  // A float reduction: the butterfly loop over Wave.width(), one word exchange a step.
  auto F32 = kir::PortableWave::expand(*F.Kir, fn(*F.Kir, "W.f32"), Scratch, Error);
  ASSERT_NE(F32, nullptr) << Error;
  auto Left = waveOps(*F32);
  EXPECT_EQ(Left.size(), 1u);
  EXPECT_GT(Left[WaveOp::Width], 0u);
  EXPECT_EQ(loops(*F32), 1u);
  EXPECT_EQ(barriers(*F32), 2u);
}

TEST(WaveExpand, PortablePipelineExpandsThenBuildsThePrimitivesFromSharedMemory) {
  driver::FrontendResult F = driver::Compiler::runFrontend("w.cj", wrap(Sums));
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  kir::PipelineConfig C;
  C.Backend = "cpu";
  C.WaveTier = kir::ImplTier::Portable;
  C.InlineBarrierHelpers = true;
  std::string Dump, Error;
  kir::PipelineTrace T;
  T.PrintAfterAll = true;
  T.Out = &Dump;
  std::unique_ptr<kir::Module> M = kir::runPipeline(*F.Kir, C, Error, &T);
  ASSERT_TRUE(M) << Error;
  size_t Expanded = Dump.find("; KIR after wave-expand (cpu)");
  size_t Portable = Dump.find("; KIR after portable-wave (cpu)");
  ASSERT_NE(Expanded, std::string::npos) << Dump;
  ASSERT_NE(Portable, std::string::npos) << Dump;
  EXPECT_LT(Expanded, Portable);
  // After wave-expand the primitives are there; after portable-wave only Wave.width() is.
  std::string AfterExpand = Dump.substr(Expanded, Portable - Expanded);
  EXPECT_NE(AfterExpand.find("(wave.shuffleWord "), std::string::npos);
  EXPECT_EQ(Dump.find("(wave.shuffleWord ", Portable), std::string::npos);
  for (const char* K : {"W.i32", "W.f32", "W.i64", "W.f64", "W.scan", "W.xor64"}) {
    auto Left = waveOps(fn(*M, K));
    EXPECT_EQ(Left.size(), 1u) << K;
    EXPECT_GT(Left[WaveOp::Width], 0u) << K;
    EXPECT_TRUE(fn(*M, K).HasBarrier) << K;
  }
}

} // namespace
