// The driver fills the scheduling section of every target's manifest of every kernel, the same
// section for each target (it is computed once, from target-independent KIR).
#include "bundle/CostExpr.h"
#include "compiler/driver/Compiler.h"

#include <gtest/gtest.h>

using cajeta::bundle::formatCost;
using cajeta::driver::Compiler;

TEST(SchedulingManifest, EveryTargetOfEveryKernelCarriesTheSameSection) {
  auto R = Compiler::compile("t.cj",
                             "import cajeta.xpu.*;\n"
                             "class K {\n"
                             "@Kernel static void scale(KernelBuffer<float32> out, "
                             "KernelBuffer<float32> in, float32 a, uint32 n) {\n"
                             "  for (i, float32 v : in.range(n)) { out[i] = v * a; }\n"
                             "}\n"
                             "@Kernel static void count(KernelBuffer<uint32> bins, uint32 n) {\n"
                             "  Barrier.sync();\n"
                             "  Atomics.add(bins, KernelThread.globalIdX() % n, 1u);\n"
                             "}\n"
                             "}\n",
                             {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  ASSERT_EQ(R.Program.Kernels.size(), 2u);
  for (const auto& K : R.Program.Kernels) {
    ASSERT_GE(K.Targets.size(), 3u) << K.Name; // the CPU, NVPTX, SPIR-V
    for (const auto& [Target, M] : K.Targets) {
      ASSERT_TRUE(M.Scheduling.has_value()) << K.Name << " " << Target;
      const auto& S = *M.Scheduling;
      ASSERT_EQ(S.Buffers.size(), K.Name == "K.scale" ? 2u : 1u) << K.Name << " " << Target;
      if (K.Name == "K.scale") {
        EXPECT_EQ(formatCost(S.BytesRead), "4*n") << Target;
        EXPECT_EQ(formatCost(S.BytesWritten), "4*n") << Target;
        EXPECT_TRUE(S.Restartable) << Target;
        EXPECT_EQ(S.YieldPoints, 0u) << Target;
        EXPECT_TRUE(S.Buffers[0].Streaming && S.Buffers[1].Streaming) << Target;
      } else {
        EXPECT_EQ(formatCost(S.BytesRead), "4*items") << Target;
        EXPECT_TRUE(S.Buffers[0].Accumulates) << Target;
        EXPECT_FALSE(S.Restartable) << Target;
        EXPECT_EQ(S.YieldPoints, 1u) << Target;
      }
    }
  }
}

TEST(SchedulingManifest, TheCompilerVersionNamesTheSection) {
  // The version is the JIT cache key: bundles from before the section must not be reused.
  EXPECT_NE(std::string(Compiler::version()).find("sched 1"), std::string::npos);
  EXPECT_NE(std::string(Compiler::version()).find("cajeta-compiler 0.34.0"), std::string::npos);
}
