// The device subset on NVPTX: shared memory (static and dynamic), barriers, atomics with memory
// orders, POD parameters, function values and @Backend gating, each assembled by ptxas.
#include "PtxTestSupport.h"

#include "compiler/lowering/llvm/NvptxLibdevice.h"

#include <gtest/gtest.h>

namespace cajeta::test {
namespace {

using lowering::NvptxBuildOptions;
using lowering::NvptxBuildResult;

void expectAssembles(const std::string& Src, bool CheckBounds = false) {
  for (const char* Sm : {"sm_70", "sm_90"}) {
    NvptxBuildOptions O;
    O.Sm = Sm;
    O.CheckBounds = CheckBounds;
    NvptxBuildResult R = buildSource(Src, O);
    ASSERT_TRUE(R.Ok) << Sm << ": " << R.Error;
    if (!testPtxas().empty()) {
      EXPECT_EQ(assembleError(ptxText(R), Sm), "") << ptxText(R);
    }
  }
}

const char* Reduce = R"(
import cajeta.xpu.*;
public final class Reduce {
    @Kernel
    public static void sum(KernelBuffer<float32> in, KernelBuffer<float32> partial, uint32 n) {
        Shared<float32> tile = shared float32[256];
        uint32 t = KernelThread.x();
        uint32 i = KernelThread.globalIdX();
        tile[t] = i < n ? in[i] : 0.0f;
        Barrier.sync();
        for (uint32 s = Workgroup.dimX() / 2; s > 0; s >>= 1) {
            if (t < s) { tile[t] += tile[t + s]; }
            Barrier.sync();
        }
        if (t == 0) { partial[Workgroup.x()] = tile[0]; }
    }
}
)";

TEST(NvptxDeviceSubset, StaticSharedMemoryAndBarriers) {
  NvptxBuildResult R = buildSource(Reduce, {});
  ASSERT_TRUE(R.Ok) << R.Error;
  std::string Ptx = ptxText(R);
  EXPECT_NE(Ptx.find(".shared .align 16 .b8"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("[1024]"), std::string::npos) << "256 float32 = 1024 bytes";
  EXPECT_NE(Ptx.find("bar.sync"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("st.shared.f32"), std::string::npos) << Ptx;
  EXPECT_EQ(R.Manifests["Reduce.sum"].StaticSharedBytes, 1024u);
  expectAssembles(Reduce);
  expectAssembles(Reduce, /*CheckBounds=*/true);
}

TEST(NvptxDeviceSubset, DynamicSharedMemory) {
  const char* Src = R"(
import cajeta.xpu.*;
public final class K {
    @Kernel
    public static void dyn(KernelBuffer<float64> out) {
        Shared<float64> t = shared float64[];
        uint32 x = KernelThread.x();
        if (x < t.length()) { t[x] = (float64) x; }
        Barrier.sync();
        out[KernelThread.globalIdX()] = t[0] + (float64) t.length();
    }
}
)";
  NvptxBuildResult R = buildSource(Src, {});
  ASSERT_TRUE(R.Ok) << R.Error;
  std::string Ptx = ptxText(R);
  EXPECT_NE(Ptx.find(".extern .shared .align 16 .b8 cj_dynamic_shared[]"), std::string::npos)
      << Ptx;
  EXPECT_NE(Ptx.find("%dynamic_smem_size"), std::string::npos) << Ptx;
  EXPECT_EQ(R.Manifests["K.dyn"].StaticSharedBytes, 0u);
  expectAssembles(Src);
  expectAssembles(Src, /*CheckBounds=*/true);
}

TEST(NvptxDeviceSubset, AtomicsWithMemoryOrders) {
  const char* Src = R"(
import cajeta.xpu.*;
public final class K {
    @Kernel
    public static void at(KernelBuffer<int32> i32, KernelBuffer<uint64> u64,
                          KernelBuffer<float32> f32, KernelBuffer<float64> f64) {
        Shared<uint32> s = shared uint32[32];
        uint32 x = KernelThread.x();
        Atomics.add(i32, 0, 1);
        Atomics.sub(i32, 1, 1, MemoryOrder.ACQUIRE);
        Atomics.min(i32, 2, -5, MemoryOrder.RELEASE);
        Atomics.max(u64, 0, (uint64) 7, MemoryOrder.ACQ_REL);
        Atomics.and(u64, 1, (uint64) 3, MemoryOrder.SEQ_CST);
        Atomics.or(i32, 3, 8);
        Atomics.xor(i32, 4, 8);
        Atomics.exchange(i32, 5, 9);
        Atomics.compareExchange(i32, 6, 0, 1, MemoryOrder.SEQ_CST);
        Atomics.add(f32, 0, 1.5f);
        Atomics.add(f64, 0, 2.5);
        Atomics.min(f32, 1, -0.0f);
        Atomics.max(f64, 1, 3.0, MemoryOrder.ACQ_REL);
        i32[7] = Atomics.load(i32, 8, MemoryOrder.ACQUIRE);
        Atomics.store(f32, 2, 4.0f, MemoryOrder.RELEASE);
        Atomics.add(s, x & 31u, 1u);
        Barrier.sync();
        u64[2] = (uint64) Atomics.load(s, 0, MemoryOrder.SEQ_CST);
    }
}
)";
  NvptxBuildResult R = buildSource(Src, {});
  ASSERT_TRUE(R.Ok) << R.Error;
  std::string Ptx = ptxText(R);
  EXPECT_NE(Ptx.find("atom.global.add.f32"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("atom.global.add.f64"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("atom.shared.add.u32"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("atom.global.cas.b32"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("fence.acq_rel.gpu"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("fence.sc.gpu"), std::string::npos) << Ptx;
  EXPECT_NE(Ptx.find("fence.sc.cta"), std::string::npos) << "seq_cst load of shared memory";
  expectAssembles(Src);
  expectAssembles(Src, /*CheckBounds=*/true);
}

TEST(NvptxDeviceSubset, PodParameterByValue) {
  const char* Src = R"(
import cajeta.xpu.*;
public final class Params { uint8 flag; float64 scale; uint32 n; }
public final class K {
    @Kernel
    public static void scale(KernelBuffer<float64> y, Params p) {
        uint32 i = KernelThread.globalIdX();
        if (i < p.n && p.flag != 0) { y[i] = y[i] * p.scale; }
    }
}
)";
  NvptxBuildResult R = buildSource(Src, {});
  ASSERT_TRUE(R.Ok) << R.Error;
  std::string Ptx = ptxText(R);
  const std::string& Sym = R.Manifests["K.scale"].Symbol;
  EXPECT_NE(Ptx.find(".param .align 8 .b8 " + Sym + "_param_2[24]"), std::string::npos) << Ptx;
  expectAssembles(Src);
}

TEST(NvptxDeviceSubset, FunctionValuesAndBackendGating) {
  const char* Src = R"(
import cajeta.xpu.*;
public final class K {
    @Device public static float32 square(float32 x) { return x * x; }
    @Device public static float32 twice(float32 x) { return x + x; }
    @Kernel
    public static void apply(KernelBuffer<float32> y, Fn<float32(float32)> f) {
        uint32 i = KernelThread.globalIdX();
        y[i] = f(y[i]);
    }
    @Kernel @Backend("cpu")
    public static void cpuOnly(KernelBuffer<float32> y) { y[0] = 1.0f; }
    @Kernel @Backend("cuda")
    public static void cudaOnly(KernelBuffer<float32> y) { y[0] = 2.0f; }
}
)";
  NvptxBuildResult R = buildSource(Src, {});
  ASSERT_TRUE(R.Ok) << R.Error;
  std::string Ptx = ptxText(R);
  EXPECT_TRUE(R.Manifests.count("K.apply"));
  EXPECT_TRUE(R.Manifests.count("K.cudaOnly"));
  EXPECT_FALSE(R.Manifests.count("K.cpuOnly"));
  EXPECT_NE(Ptx.find(".entry " + R.Manifests["K.cudaOnly"].Symbol + "("), std::string::npos);
  EXPECT_EQ(Ptx.find("cpuOnly"), std::string::npos) << Ptx;
  expectAssembles(Src);
}

} // namespace
} // namespace cajeta::test

namespace cajeta::test {
namespace {

// Float % is IEEE fmod (fmod(-0, y) == -0, fmod(x, inf) == x, fmod(inf, y) == NaN): NVPTX's own
// frem expansion gets those wrong (seen on the H200), so libdevice's fmod must replace it.
TEST(NvptxDeviceSubset, FloatRemainderIsLibdeviceFmod) {
  const char* Src = R"(
import cajeta.xpu.*;
public final class K {
    @Kernel
    public static void rem(KernelBuffer<float32> o, KernelBuffer<float64> d) {
        o[0] = o[1] % o[2];
        d[0] = d[1] % d[2];
    }
}
)";
  std::string Ir, Error;
  auto F = driver::Compiler::runFrontend("k.cj", Src);
  ASSERT_TRUE(F.Ok) << F.Diagnostics;
  if (lowering::NvptxLibdevice::findPath().empty())
    GTEST_SKIP() << "no libdevice here: frem keeps LLVM's expansion";
  ASSERT_TRUE(lowering::NvptxPayloadBuilder::emitLlvmIr(*F.Kir, {}, false, Ir, Error)) << Error;
  EXPECT_EQ(Ir.find("frem "), std::string::npos) << Ir;
  NvptxBuildResult R = buildSource(Src, {});
  ASSERT_TRUE(R.Ok) << R.Error;
  expectAssembles(Src);
}

} // namespace
} // namespace cajeta::test
