// The CPU payload's entries for a kernel with a top-level grid-stride loop: the plain entry, the
// step-at-a-time entry (StepSymbol) and the run-once entry (OnceSymbol), the last only where the
// kernel has exactly one such loop with a count of 32 bits or more. The GPU payloads have one.
#include "compiler/driver/Compiler.h"
#include "compiler/kir/GroupUniformity.h"
#include "compiler/kir/Verifier.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/GridStrideInterchange.h"

#include <gtest/gtest.h>

#include <map>

using cajeta::driver::Compiler;

namespace {

const cajeta::bundle::TargetManifest* cpuManifest(const cajeta::bundle::Program& P,
                                                  const std::string& Kernel) {
  for (const auto& K : P.Kernels)
    if (K.Name == Kernel)
      for (const auto& [Target, M] : K.Targets)
        if (Target.rfind("cpu", 0) == 0)
          return &M;
  return nullptr;
}

} // namespace

TEST(GridStrideEntries, OneLoopGetsTheStepAndTheOnceEntries) {
  auto R = Compiler::compile(
      "t.cj",
      "import cajeta.xpu.*;\n"
      "class K {\n"
      "@Kernel static void one(KernelBuffer<float32> out, KernelBuffer<float32> in, uint32 n) {\n"
      "  for (i, float32 v : in.range(n)) { if (v < 0.0f) { continue; } out[i] = v; }\n"
      "}\n"
      "@Kernel static void two(KernelBuffer<float32> out, KernelBuffer<float32> in, uint32 n) {\n"
      "  for (i, float32 v : in.range(n)) { out[i] = v; }\n"
      "  for (i, float32 v : in.range(n)) { out[i] = out[i] + v; }\n"
      "}\n"
      "@Kernel static void narrow(KernelBuffer<float32> out, KernelBuffer<float32> in, "
      "uint16 n) {\n"
      "  for (i, float32 v : in.range(n)) { out[i] = v; }\n"
      "}\n"
      "}\n",
      {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  const auto* One = cpuManifest(R.Program, "K.one");
  ASSERT_NE(One, nullptr);
  EXPECT_EQ(One->StepSymbol, One->Symbol + "_steps");
  EXPECT_EQ(One->OnceSymbol, One->Symbol + "_once");
  EXPECT_EQ(One->StepCountParam, 2);
  const auto* Two = cpuManifest(R.Program, "K.two");
  ASSERT_NE(Two, nullptr);
  EXPECT_FALSE(Two->StepSymbol.empty());
  EXPECT_TRUE(Two->OnceSymbol.empty()); // two loops: the count covers only the first
  const auto* Narrow = cpuManifest(R.Program, "K.narrow");
  ASSERT_NE(Narrow, nullptr);
  EXPECT_TRUE(Narrow->OnceSymbol.empty()); // a 16-bit count: the stride could wrap below it
  for (const auto& K : R.Program.Kernels) {
    for (const auto& [Target, M] : K.Targets) {
      if (Target.rfind("cpu", 0) != 0) {
        EXPECT_TRUE(M.OnceSymbol.empty() && M.StepSymbol.empty()) << K.Name << " " << Target;
      }
    }
  }
}

TEST(GridStrideEntries, OnlyStepsThatDependOnTheirIndexAloneRunOnAnyGrid) {
  auto R = Compiler::compile(
      "t.cj",
      "import cajeta.xpu.*;\n"
      "class K {\n"
      "@Kernel static void alone(KernelBuffer<float32> out, KernelBuffer<float32> in, float32 a, "
      "uint32 n) {\n"
      "  for (i, float32 v : in.range(n)) { float32 t = a * v; out[i] = t + Math.sqrt(v); }\n"
      "}\n"
      "@Kernel static void carried(KernelBuffer<uint32> out, KernelBuffer<uint32> in, uint32 n) {\n"
      "  uint32 c = 0;\n"
      "  for (i, uint32 v : in.range(n)) { c++; out[i] = c; }\n"
      "}\n"
      "@Kernel static void coordinate(KernelBuffer<uint32> out, KernelBuffer<uint32> in, "
      "uint32 n) {\n"
      "  for (i, uint32 v : in.range(n)) { out[i] = KernelThread.globalIdX(); }\n"
      "}\n"
      "@Kernel static void returns(KernelBuffer<uint32> out, KernelBuffer<uint32> in, uint32 n) {\n"
      "  for (i, uint32 v : in.range(n)) { if (v == 0u) { return; } out[i] = v; }\n"
      "}\n"
      "@Kernel static void after(KernelBuffer<uint32> out, KernelBuffer<uint32> in, uint32 n) {\n"
      "  for (i, uint32 v : in.range(n)) { out[i] = v; }\n"
      "  out[0] = 7u;\n"
      "}\n"
      "}\n",
      {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  for (const char* Name : {"K.alone", "K.carried", "K.coordinate", "K.returns", "K.after"}) {
    const auto* M = cpuManifest(R.Program, Name);
    ASSERT_NE(M, nullptr) << Name;
    EXPECT_FALSE(M->OnceSymbol.empty()) << Name;
    EXPECT_EQ(M->OnceAnyGrid, std::string(Name) == "K.alone") << Name;
  }
}

// The step entry prefetches the next step's elements of each buffer a step reads or writes at
// its index (written ones for writing), once per group: a statement GroupUniformity calls
// uniform. A buffer read elsewhere than at the index gets none.
TEST(GridStrideEntries, TheStepFormPrefetchesTheNextStepOncePerGroup) {
  auto F = Compiler::runFrontend(
      "t.cj", "import cajeta.xpu.*;\n"
              "class K {\n"
              "@Kernel static void k(KernelBuffer<float32> out, KernelBuffer<float32> in, "
              "KernelBuffer<float32> table, uint32 n) {\n"
              "  for (i, float32 v : in.range(n)) { out[i] = v + table[i / 2u]; }\n"
              "}\n"
              "}\n");
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  auto& K = const_cast<cajeta::kir::Function&>(*F.Kir->findFunction("K.k")); // the test owns it
  cajeta::kir::Module Scratch;
  cajeta::kir::GridStrideInterchange::rewrite(K, Scratch);
  cajeta::kir::GroupUniformity Uniform(K);
  std::map<uint32_t, uint8_t> Prefetched; // buffer parameter -> Dim (1: written)
  cajeta::kir::forEachStmt(K.Body, [&](const cajeta::kir::Stmt* S) {
    if (S->K != cajeta::kir::Stmt::Kind::Eval || !S->E ||
        S->E->K != cajeta::kir::Expr::Kind::Intrinsic ||
        S->E->IOp != cajeta::kir::IntrinsicOp::Prefetch)
      return;
    EXPECT_TRUE(Uniform.isUniformStatement(S));
    Prefetched[S->E->Ops[0]->Index] = S->E->Dim;
  });
  EXPECT_EQ(Prefetched, (std::map<uint32_t, uint8_t>{{0, 1}, {1, 0}}));
  std::string Problems;
  EXPECT_TRUE(cajeta::kir::verify(*F.Kir, Problems)) << Problems;
}
