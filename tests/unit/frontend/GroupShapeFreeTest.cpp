// The CPU manifest's groupShapeFree: set for kernels whose results cannot depend on how the grid
// is cut into workgroups (kir::GroupShapeIndependence), so the runtime may narrow them; never on
// a GPU target. And groupLoops: set where such a kernel runs its loops once per workgroup (the
// fission), not where each work-item walks its own row.
#include "compiler/driver/Compiler.h"

#include <gtest/gtest.h>

using cajeta::driver::Compiler;

TEST(GroupShapeFree, OnlyKernelsThatCannotTellTheirWorkgroupsShape) {
  auto R = Compiler::compile(
      "t.cj",
      "import cajeta.xpu.*;\n"
      "class K {\n"
      "@Device static float32 twice(float32 v) { return v * 2.0f; }\n"
      "@Kernel static void columns(KernelBuffer<float32> s, KernelBuffer<float32> d, uint32 n,\n"
      "                            uint32 m) {\n"
      "  uint32 j = KernelThread.globalIdX();\n"
      "  if (j < m) { float32 t = 0.0f;\n"
      "    for (uint32 i = 0; i < n; i++) { t += d[i * m + j]; }\n"
      "    s[j] = t + (float32) KernelThread.globalSizeX(); }\n"
      "}\n"
      "@Kernel static void local(KernelBuffer<uint32> o) {\n"
      "  o[KernelThread.globalIdX()] = KernelThread.x(); }\n"
      "@Kernel static void group(KernelBuffer<uint32> o) {\n"
      "  o[KernelThread.globalIdX()] = Workgroup.x(); }\n"
      "@Kernel static void dim(KernelBuffer<uint32> o) {\n"
      "  o[KernelThread.globalIdX()] = Workgroup.dimX(); }\n"
      "@Kernel static void count(KernelBuffer<uint32> o) {\n"
      "  o[KernelThread.globalIdX()] = Workgroup.countX(); }\n"
      "@Kernel static void calls(KernelBuffer<float32> o) {\n"
      "  uint32 i = KernelThread.globalIdX(); o[i] = twice(o[i]); }\n"
      "@Kernel static void staged(KernelBuffer<float32> o) {\n"
      "  Shared<float32> t = shared float32[64];\n"
      "  uint32 i = KernelThread.globalIdX(); t[i % 64] = o[i]; Barrier.sync();\n"
      "  o[i] = t[(i + 1) % 64]; }\n"
      "}\n",
      {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  for (const auto& K : R.Program.Kernels) {
    for (const auto& [Target, M] : K.Targets) {
      bool Cpu = Target.rfind("cpu", 0) == 0;
      EXPECT_EQ(M.GroupShapeFree, Cpu && K.Name == "K.columns") << K.Name << " on " << Target;
      EXPECT_EQ(M.GroupLoops, Cpu && K.Name == "K.columns") << K.Name << " on " << Target;
    }
  }
}

TEST(GroupShapeFree, GroupLoopsOnlyWhereTheLoopsRunOncePerGroup) {
  auto R = Compiler::compile(
      "t.cj",
      "import cajeta.xpu.*;\n"
      "class K {\n"
      "@Kernel static void columns(KernelBuffer<float32> s, KernelBuffer<float32> d, uint32 n,\n"
      "                            uint32 m) {\n"
      "  uint32 j = KernelThread.globalIdX();\n"
      "  if (j < m) { float32 t = 0.0f;\n"
      "    for (uint32 i = 0; i < n; i++) { t += d[i * m + j]; }\n"
      "    s[j] = t; }\n"
      "}\n"
      "@Kernel static void rows(KernelBuffer<float32> s, KernelBuffer<float32> d, uint32 n,\n"
      "                         uint32 m) {\n"
      "  uint32 j = KernelThread.globalIdX();\n"
      "  if (j < m) { float32 t = 0.0f;\n"
      "    for (uint32 i = 0; i < n; i++) { t += d[j * n + i]; }\n"
      "    s[j] = t; }\n"
      "}\n"
      "@Kernel static void scale(KernelBuffer<float32> s, uint32 m) {\n"
      "  uint32 j = KernelThread.globalIdX();\n"
      "  if (j < m) { s[j] = s[j] * 2.0f; }\n"
      "}\n"
      "}\n",
      {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  for (const auto& K : R.Program.Kernels) {
    for (const auto& [Target, M] : K.Targets) {
      if (Target.rfind("cpu", 0) != 0)
        continue;
      EXPECT_TRUE(M.GroupShapeFree) << K.Name;
      EXPECT_EQ(M.GroupLoops, K.Name == "K.columns") << K.Name;
    }
  }
}
