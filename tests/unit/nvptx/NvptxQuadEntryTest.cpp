// The quad entries of element-wise kernels (kir::WorkItemQuads): which kernels get one, with
// which count parameter, and that each buffer's four elements move in one vector access.
#include "PtxTestSupport.h"

#include <gtest/gtest.h>

#include <set>

namespace cajeta::test {
namespace {

const char* Kernels = R"(import cajeta.xpu.*;
public final class Q {
    @Kernel
    public static void triad(KernelBuffer<float32> a, KernelBuffer<float32> b, KernelBuffer<float32> c, float32 s, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { a[i] = b[i] + s * c[i]; }
    }
    @Kernel
    public static void early(KernelBuffer<int32> out, KernelBuffer<int32> in, uint32 count) {
        uint32 i = KernelThread.globalIdX();
        if (i >= count) { return; }
        int32 v = in[i];
        out[i] = v * v;
    }
    @Kernel
    public static void branchy(KernelBuffer<float32> out, KernelBuffer<float32> in, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { if (in[i] > 0.0f) { out[i] = in[i]; } else { out[i] = 0.0f; } }
    }
    @Kernel
    public static void range(KernelBuffer<float32> out, KernelBuffer<float32> in, uint32 n) {
        for (i, float32 v : in.range(n)) { out[i] = v * 2.0f; }
    }
    @Kernel
    public static void walker(KernelBuffer<uint32> out, uint32 n) {
        for (i, uint32 v : out.range(n)) { out[i] = KernelThread.globalIdX(); }
    }
    // A row walk per work-item (PolyBench's ATAX): no quad entry, and its own entry's loads
    // stay scalar (told its buffers were 16-byte aligned, the vectorizer merged x's into
    // vectors, 8 % slower on an H200).
    @FastMath
    @Kernel
    public static void rowDot(KernelBuffer<float32> tmp, KernelBuffer<float32> a, KernelBuffer<float32> x, uint32 rows, uint32 cols) {
        uint32 i = KernelThread.globalIdX();
        if (i < rows) {
            float32 sum = 0.0f;
            for (uint32 j = 0; j < cols; j++) { sum += a[i * cols + j] * x[j]; }
            tmp[i] = sum;
        }
    }
    // Not element-wise: a loop per element, a coordinate the quad launch changes, a load before
    // the guard, a shared array, a statement after the guard. (A signed index and count is.)
    @Kernel
    public static void looped(KernelBuffer<float32> out, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { float32 s = 0.0f; for (uint32 k = 0; k < i; k++) { s += 1.0f; } out[i] = s; }
    }
    @Kernel
    public static void local(KernelBuffer<uint32> out, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { out[i] = KernelThread.x(); }
    }
    @Kernel
    public static void signed(KernelBuffer<float32> out, int32 n) {
        int32 i = (int32) KernelThread.globalIdX();
        if (i < n) { out[i] = 1.0f; }
    }
    @Kernel
    public static void loadFirst(KernelBuffer<float32> out, KernelBuffer<float32> in, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        float32 v = in[i];
        if (i < n) { out[i] = v; }
    }
    @Kernel
    public static void after(KernelBuffer<float32> out, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { out[i] = 1.0f; }
        out[0] = 2.0f;
    }
}
)";

TEST(NvptxQuadEntry, ElementWiseKernelsAloneGetOne) {
  lowering::NvptxBuildOptions O;
  O.Sm = "sm_90";
  lowering::NvptxBuildResult R = buildSource(Kernels, O);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(R.Manifests.at("Q.triad").QuadSymbol, "cj_k_Q_triad_quads");
  EXPECT_EQ(R.Manifests.at("Q.triad").QuadCountParam, 4);
  EXPECT_EQ(R.Manifests.at("Q.early").QuadSymbol, "cj_k_Q_early_quads");
  EXPECT_EQ(R.Manifests.at("Q.early").QuadCountParam, 2);
  EXPECT_FALSE(R.Manifests.at("Q.triad").QuadAnyGrid);
  // Branches inside the guard: the copies' condition loads as one vector.
  EXPECT_EQ(R.Manifests.at("Q.branchy").QuadSymbol, "cj_k_Q_branchy_quads");
  // The grid-stride form walks quads on any grid, unless a step reads its work-item's id.
  EXPECT_EQ(R.Manifests.at("Q.range").QuadSymbol, "cj_k_Q_range_quads");
  EXPECT_EQ(R.Manifests.at("Q.range").QuadCountParam, 2);
  EXPECT_TRUE(R.Manifests.at("Q.range").QuadAnyGrid);
  // CUDA's int habit: an int32 index against an int32 count, compared signed.
  EXPECT_EQ(R.Manifests.at("Q.signed").QuadSymbol, "cj_k_Q_signed_quads");
  EXPECT_EQ(R.Manifests.at("Q.signed").QuadCountParam, 1);
  for (const char* Plain :
       {"Q.rowDot", "Q.walker", "Q.looped", "Q.local", "Q.loadFirst", "Q.after"}) {
    EXPECT_TRUE(R.Manifests.at(Plain).QuadSymbol.empty()) << Plain;
    EXPECT_EQ(R.Manifests.at(Plain).QuadCountParam, -1) << Plain;
  }
  std::string Ptx = ptxText(R);
  // Both paths of the quad entry: four elements per access where all four are in range, and
  // each element under its own guard otherwise.
  std::string Triad = entryBody(Ptx, "Q_triad_quads");
  EXPECT_EQ(countOf(Triad, "ld.global.nc.v4.f32") + countOf(Triad, "ld.global.v4.f32"), 2u)
      << Triad;
  EXPECT_EQ(countOf(Triad, "st.global.v4.f32"), 1u) << Triad;
  EXPECT_GE(countOf(Triad, "st.global.f32"), 1u) << Triad;
  std::string Early = entryBody(Ptx, "Q_early_quads");
  EXPECT_EQ(countOf(Early, ".v4.u32"), 2u) << Early; // the load of in, the store of out
  EXPECT_EQ(countOf(entryBody(Ptx, "Q_branchy_quads"), ".v4.f32"), 1u)
      << entryBody(Ptx, "Q_branchy_quads");
  std::string Signed = entryBody(Ptx, "Q_signed_quads");
  EXPECT_EQ(countOf(Signed, "st.global.v4.f32"), 1u) << Signed;
  EXPECT_GE(countOf(Signed, "setp.lt.s32") + countOf(Signed, "setp.ge.s32") +
                countOf(Signed, "setp.gt.s32") + countOf(Signed, "setp.le.s32"),
            1u)
      << Signed; // signed compares
  std::string Range = entryBody(Ptx, "Q_range_quads");
  EXPECT_EQ(countOf(Range, ".v4.f32"), 2u) << Range;
  // The kernels' own entries are untouched.
  EXPECT_EQ(countOf(entryBody(Ptx, "Q_triad"), ".v4."), 0u);
  EXPECT_EQ(countOf(entryBody(Ptx, "Q_rowDot"), ".v4."), 0u) << entryBody(Ptx, "Q_rowDot");
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90"), "");
  }
}

TEST(NvptxQuadEntry, ChecksInEveryAccessKeepTheEntryCorrectIfScalar) {
  lowering::NvptxBuildOptions O;
  O.Sm = "sm_90";
  O.CheckBounds = true;
  lowering::NvptxBuildResult R = buildSource(Kernels, O);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_FALSE(R.Manifests.at("Q.triad").QuadSymbol.empty());
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(ptxText(R), "sm_90"), "");
  }
}

TEST(NvptxQuadEntry, TheGpuPayloadsAloneHaveThem) {
  auto R = driver::Compiler::compile("q.cj", Kernels, {});
  ASSERT_TRUE(R.Ok) << R.Diagnostics;
  std::set<std::string> Quads;
  for (const auto& K : R.Program.Kernels) {
    if (K.Name != "Q.triad")
      continue;
    for (const auto& [Target, M] : K.Targets) {
      bool Gpu = Target.rfind("nvptx", 0) == 0 || Target == "spirv";
      EXPECT_EQ(M.QuadSymbol.empty(), !Gpu) << Target;
      if (Gpu)
        Quads.insert(Target);
    }
  }
  EXPECT_TRUE(Quads.count("spirv"));
  EXPECT_TRUE(Quads.count("nvptx-sm_90"));
  // Vulkan's quad entry is a module of its own, beside the kernel's.
  bool Module = false;
  for (const auto& P : R.Program.Payloads)
    Module |= P.Target == "spirv-quads:Q.triad" && P.Attributes.at("entry") == "cj_k_Q_triad_quads";
  EXPECT_TRUE(Module);
}

} // namespace
} // namespace cajeta::test
