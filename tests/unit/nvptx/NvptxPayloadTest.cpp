// Targeted checks of NvptxPayloadBuilder's PTX: the kernel ABI, coordinates, libdevice math and
// its fallback, --check-bounds status reports, ptxas footprints, errors.
#include "PtxTestSupport.h"

#include "compiler/lowering/llvm/NvptxLibdevice.h"
#include "compiler/lowering/llvm/NvptxPtxas.h"

#include <gtest/gtest.h>

#include <regex>

namespace cajeta::test {
namespace {

using lowering::NvptxBuildOptions;
using lowering::NvptxBuildResult;

const char* Saxpy = R"(
import cajeta.xpu.KernelBuffer;
import cajeta.xpu.KernelThread;
public final class K {
    @Kernel
    public static void saxpy(KernelBuffer<float32> y, KernelBuffer<float32> x, float32 a, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { y[i] = a * x[i] + y[i]; }
    }
}
)";

const char* Transcendental = R"(
import cajeta.xpu.KernelBuffer;
import cajeta.xpu.KernelThread;
public final class K {
    @Kernel
    public static void f32(KernelBuffer<float32> y, KernelBuffer<float32> x) {
        uint32 i = KernelThread.globalIdX();
        float32 v = x[i];
        y[i] = Math.exp(v) + Math.log(v) + Math.pow(v, 1.5f) + Math.sin(v) + Math.cos(v)
             + Math.tanh(v) + Math.rsqrt(v);
    }
    @Kernel
    public static void f64(KernelBuffer<float64> y, KernelBuffer<float64> x) {
        uint32 i = KernelThread.globalIdX();
        float64 v = x[i];
        y[i] = Math.exp(v) + Math.log(v) + Math.pow(v, 1.5) + Math.sin(v) + Math.cos(v)
             + Math.tanh(v) + Math.rsqrt(v);
    }
}
)";

/// The parameter list of `.entry Name(...)` in Ptx.
std::string entryParams(const std::string& Ptx, const std::string& Name) {
  size_t At = Ptx.find(".entry " + Name + "(");
  if (At == std::string::npos)
    return {};
  size_t End = Ptx.find(')', At);
  return Ptx.substr(At, End - At);
}

TEST(NvptxPayload, SaxpyUsesGlobalMemoryAndSpecialRegisters) {
  NvptxBuildOptions O;
  NvptxBuildResult R = buildSource(Saxpy, O);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(R.Payload.Target, "nvptx-sm_90");
  EXPECT_EQ(R.Payload.Format, "ptx");
  EXPECT_EQ(R.Payload.Attributes["sm"], "90");
  EXPECT_FALSE(R.Payload.Attributes["ptx_version"].empty());
  EXPECT_EQ(R.Payload.Attributes["gpu_abi"], "1");
  std::string Ptx = ptxText(R);
  ASSERT_TRUE(R.Manifests.count("K.saxpy"));
  const std::string& Sym = R.Manifests["K.saxpy"].Symbol;
  EXPECT_NE(Ptx.find(".visible .entry " + Sym + "("), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("ld.global"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("st.global"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("%tid.x"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("%ctaid.x"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("%ntid.x"), std::string::npos) << Ptx;
  EXPECT_EQ(Ptx.find("fma.rn.f32"), std::string::npos) << "contracted without @FastMath";
  // GpuKernelAbi.h: y (ptr, len), x (ptr, len), a, n, status.
  std::string Params = entryParams(Ptx, Sym);
  EXPECT_EQ(countOf(Params, ".param"), 7u) << Params;
  EXPECT_EQ(countOf(Params, ".param .u64"), 5u) << Params;
  EXPECT_EQ(countOf(Params, ".param .f32"), 1u) << Params;
  EXPECT_EQ(countOf(Params, ".param .u32"), 1u) << Params;
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90"), "");
  }
}

TEST(NvptxPayload, FastMathAloneContracts) {
  const char* Src = R"(
import cajeta.xpu.KernelBuffer;
import cajeta.xpu.KernelThread;
public final class K {
    @FastMath @Kernel
    public static void fast(KernelBuffer<float32> y, KernelBuffer<float32> x, float32 a) {
        uint32 i = KernelThread.globalIdX();
        y[i] = a * x[i] + y[i];
    }
}
)";
  NvptxBuildResult R = buildSource(Src, {});
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_NE(ptxText(R).find("fma.rn.f32"), std::string::npos) << ptxText(R);
}

TEST(NvptxPayload, BaselineTargetsSm70) {
  NvptxBuildOptions O;
  O.Sm = "sm_70";
  NvptxBuildResult R = buildSource(Saxpy, O);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(R.Payload.Target, "nvptx-sm_70");
  EXPECT_NE(ptxText(R).find(".target sm_70"), std::string::npos);
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(ptxText(R), "sm_70"), "");
  }
}

TEST(NvptxPayload, LibdeviceCallsAreResolved) {
  if (lowering::NvptxLibdevice::findPath().empty())
    GTEST_SKIP() << "libdevice.10.bc not found";
  for (const char* Sm : {"sm_70", "sm_90"}) {
    NvptxBuildOptions O;
    O.Sm = Sm;
    NvptxBuildResult R = buildSource(Transcendental, O);
    ASSERT_TRUE(R.Ok) << R.Error;
    EXPECT_EQ(R.Payload.Attributes["math"], "libdevice");
    EXPECT_TRUE(R.Notes.empty());
    std::string Ptx = ptxText(R);
    EXPECT_EQ(Ptx.find("__nv_"), std::string::npos) << "unresolved libdevice symbol in\n" << Ptx;
    EXPECT_EQ(Ptx.find("__nvvm_reflect"), std::string::npos);
    EXPECT_EQ(Ptx.find(".extern .func"), std::string::npos) << Ptx;
    if (!testPtxas().empty()) {
      EXPECT_EQ(assembleError(Ptx, Sm), "");
    }
  }
}

TEST(NvptxPayload, WithoutLibdeviceMathIsApproximateAndSaysSo) {
  NvptxBuildOptions O;
  O.Libdevice = "";
  NvptxBuildResult R = buildSource(Transcendental, O);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(R.Payload.Attributes["math"], "approximate");
  ASSERT_EQ(R.Notes.size(), 1u);
  EXPECT_NE(R.Notes[0].find("[nvptx-math]"), std::string::npos);
  std::string Ptx = ptxText(R);
  EXPECT_NE(Ptx.find("ex2.approx"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("lg2.approx"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("sin.approx"), std::string::npos) << Ptx;
  EXPECT_EQ(Ptx.find("__nv_"), std::string::npos);
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90"), "");
  }
}

TEST(NvptxPayload, CheckBoundsWritesTheStatusRecord) {
  NvptxBuildOptions O;
  O.CheckBounds = true;
  NvptxBuildResult R = buildSource(Saxpy, O);
  ASSERT_TRUE(R.Ok) << R.Error;
  std::string Ptx = ptxText(R);
  // Claim Failed (offset 0) with a CAS, then FailedParam (4), FailedIndex (8), FailedLength (16).
  EXPECT_TRUE(
      std::regex_search(Ptx, std::regex(R"(atom\.global\.cas\.b32\s+%r\d+, \[%rd\d+\], 0, 1;)")))
      << Ptx;
  EXPECT_TRUE(std::regex_search(Ptx, std::regex(R"(st\.volatile\.global\.u32\s+\[%rd\d+\+4\])")))
      << Ptx;
  EXPECT_TRUE(std::regex_search(Ptx, std::regex(R"(st\.volatile\.global\.u64\s+\[%rd\d+\+8\])")))
      << Ptx;
  EXPECT_TRUE(std::regex_search(Ptx, std::regex(R"(st\.volatile\.global\.u64\s+\[%rd\d+\+16\])")))
      << Ptx;
  EXPECT_NE(Ptx.find("ld.volatile.global.u32"), std::string::npos) << "Failed is never read";
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90"), "");
  }

  NvptxBuildResult Plain = buildSource(Saxpy, {});
  ASSERT_TRUE(Plain.Ok) << Plain.Error;
  EXPECT_EQ(ptxText(Plain).find("atom."), std::string::npos);
  // Same parameter list with and without --check-bounds.
  EXPECT_EQ(entryParams(ptxText(Plain), "cj_K_saxpy").size(),
            entryParams(Ptx, "cj_K_saxpy").size());
}

TEST(NvptxPayload, FootprintFromPtxas) {
  if (testPtxas().empty() || lowering::NvptxPtxas::archFor(testPtxas(), "sm_90") != "sm_90")
    GTEST_SKIP() << "no ptxas for sm_90";
  NvptxBuildOptions O;
  O.ReadFootprint = true;
  NvptxBuildResult R = buildSource(Saxpy, O);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_GT(R.Manifests["K.saxpy"].Registers, 0u);
  EXPECT_EQ(R.Manifests["K.saxpy"].SpillBytes, 0u);
  EXPECT_NE(R.Manifests["K.saxpy"].CodeHash, 0u);
}

TEST(NvptxPayload, ParsesPtxasVerboseOutput) {
  std::string Out = "ptxas info    : 0 bytes gmem\n"
                    "ptxas info    : Compiling entry function 'cj_A' for 'sm_90'\n"
                    "ptxas info    : Function properties for cj_A\n"
                    "    8 bytes stack frame, 12 bytes spill stores, 12 bytes spill loads\n"
                    "ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 368 "
                    "bytes cmem[0]\n"
                    "ptxas info    : Compiling entry function 'cj_B' for 'sm_90'\n"
                    "ptxas info    : Used 6 registers, 368 bytes cmem[0]\n";
  auto F = lowering::NvptxPtxas::parseVerbose(Out);
  ASSERT_EQ(F.size(), 2u);
  EXPECT_EQ(F["cj_A"].Registers, 40u);
  EXPECT_EQ(F["cj_A"].SpillBytes, 12u);
  EXPECT_EQ(F["cj_A"].StaticSharedBytes, 1024u);
  EXPECT_EQ(F["cj_B"].Registers, 6u);
  EXPECT_EQ(F["cj_B"].StaticSharedBytes, 0u);
}

TEST(NvptxPayload, ParsesPtxasVerboseOutputOfAHugeKernelName) {
  // A 100,000-character name (a fuzzed program): std::regex overflowed the stack on such lines.
  std::string Name = "cj_" + std::string(100000, 'k');
  std::string Out = "ptxas info    : Compiling entry function '" + Name + "' for 'sm_90'\n" +
                    "ptxas info    : Function properties for " + Name + "\n" +
                    "    0 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n" +
                    "ptxas info    : Used 12 registers, 256 bytes smem, 368 bytes cmem[0]\n";
  auto F = lowering::NvptxPtxas::parseVerbose(Out);
  ASSERT_EQ(F.size(), 1u);
  EXPECT_EQ(F[Name].Registers, 12u);
  EXPECT_EQ(F[Name].SpillBytes, 4u);
  EXPECT_EQ(F[Name].StaticSharedBytes, 256u);
}

TEST(NvptxPayload, BadArchitectureIsAnError) {
  for (const char* Sm : {"sm_", "sm_9x", "gfx90a", "sm_1"}) {
    NvptxBuildOptions O;
    O.Sm = Sm;
    NvptxBuildResult R = buildSource(Saxpy, O);
    EXPECT_FALSE(R.Ok) << Sm;
    EXPECT_NE(R.Error.find(Sm), std::string::npos) << R.Error;
  }
}

TEST(NvptxPayload, UnreadableLibdeviceIsAnError) {
  NvptxBuildOptions O;
  O.Libdevice = CAJETA_NVPTX_TEST_TMP "/no-such-libdevice.bc";
  NvptxBuildResult R = buildSource(Transcendental, O);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("no-such-libdevice.bc"), std::string::npos) << R.Error;
}

TEST(NvptxPayload, Float16Arithmetic) {
  const char* Src = R"(
import cajeta.xpu.KernelBuffer;
import cajeta.xpu.KernelThread;
public final class K {
    @Kernel
    public static void h(KernelBuffer<float16> y, KernelBuffer<float16> x, float16 a) {
        uint32 i = KernelThread.globalIdX();
        y[i] = a * x[i] + y[i];
        y[i + 1] = (float16) Math.exp(x[i]);
    }
}
)";
  NvptxBuildResult R = buildSource(Src, {});
  ASSERT_TRUE(R.Ok) << R.Error;
  std::string Ptx = ptxText(R);
  EXPECT_NE(Ptx.find("mul.rn.f16"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find(".param .u16"), std::string::npos) << "float16 scalar passes as 16 bits\n"
                                                        << Ptx;
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90"), "");
    NvptxBuildOptions O;
    O.Sm = "sm_70";
    NvptxBuildResult R70 = buildSource(Src, O);
    ASSERT_TRUE(R70.Ok) << R70.Error;
    EXPECT_EQ(assembleError(ptxText(R70), "sm_70"), "");
  }
}

} // namespace
} // namespace cajeta::test
