// Static shared arrays past PTX's 48 KiB of `.shared`: kept at the start of the dynamic window
// (NvptxSharedLayout), the launch adding their bytes (TargetManifest::DynamicSharedPrefix).
#include "PtxTestSupport.h"

#include <gtest/gtest.h>

#include <regex>

namespace cajeta::test {
namespace {

const char* Arrays = R"(import cajeta.xpu.*;
public final class L {
    @Kernel
    public static void large(KernelBuffer<float32> out) {
        Shared<float32> big = shared float32[24576];
        Shared<int32> mid = shared int32[4096];
        Shared<float32> d = shared float32[];
        uint32 t = KernelThread.x();
        big[t] = 1.0f;
        mid[t] = 2;
        d[t] = 3.0f;
        Barrier.sync();
        out[t] = big[24575 - t] + (float32) mid[4095 - t] + d[(uint32) d.length() - 1 - t];
    }
    @Kernel
    public static void small(KernelBuffer<float32> out) {
        Shared<float32> s = shared float32[10240];
        uint32 t = KernelThread.x();
        s[t] = 1.0f;
        Barrier.sync();
        out[t] = s[10239 - t];
    }
}
)";

TEST(NvptxSharedLayout, ArraysPastTheStaticLimitLiveInTheDynamicWindow) {
  lowering::NvptxBuildResult R = buildSource(Arrays, {});
  ASSERT_TRUE(R.Ok) << R.Error;
  const std::string Ptx = ptxText(R);
  const std::string Large = entryBody(Ptx, "L_large");
  ASSERT_FALSE(Large.empty()) << Ptx;
  // No `.shared` array of the kernel's own: its 96 KiB and 16 KiB arrays, then the dynamic one,
  // all in the window.
  EXPECT_EQ(Ptx.find("L_large.shared"), std::string::npos) << Ptx;
  EXPECT_NE(Large.find("cj_dynamic_shared"), std::string::npos) << Large;
  EXPECT_EQ(R.Manifests["L.large"].DynamicSharedPrefix, 98304u + 16384u);
  // Launched with fewer dynamic bytes than that (a runtime that does not read the prefix), it
  // traps.
  EXPECT_NE(Large.find("setp.lt.u32 p, s, 114688;"), std::string::npos) << Large;
  EXPECT_NE(Large.find("@p trap;"), std::string::npos) << Large;
  // The dynamic array's length: the launch's bytes past the placed ones.
  EXPECT_TRUE(std::regex_search(Large, std::regex("add\\.s32\\s+%r\\d+, %r\\d+, -114688;")))
      << Large;
  // 40 KiB stays `.shared`.
  EXPECT_NE(Ptx.find(".shared .align 16 .b8 cj_k_L_small_$_shared_$_0[40960]"), std::string::npos)
      << Ptx;
  EXPECT_EQ(R.Manifests["L.small"].DynamicSharedPrefix, 0u);
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90"), "");
  }
}

// 40 KiB in one array and nine of under 1 KiB: the large one goes to the window, so that the
// `.shared` arrays stay within 48 KiB.
TEST(NvptxSharedLayout, SmallArraysDoNotTakeTheStaticArraysPastTheLimit) {
  std::string Src = "import cajeta.xpu.*;\npublic final class M {\n    @Kernel\n"
                    "    public static void many(KernelBuffer<float32> out) {\n"
                    "        Shared<float32> big = shared float32[10240];\n";
  for (int I = 0; I < 9; ++I)
    Src += "        Shared<float32> s" + std::to_string(I) + " = shared float32[255];\n";
  Src += "        uint32 t = KernelThread.x();\n        big[t] = 1.0f;\n";
  for (int I = 0; I < 9; ++I)
    Src += "        s" + std::to_string(I) + "[t] = 2.0f;\n";
  Src += "        Barrier.sync();\n        out[t] = big[10239 - t]";
  for (int I = 0; I < 9; ++I)
    Src += " + s" + std::to_string(I) + "[254 - t]";
  Src += ";\n    }\n}\n";
  lowering::NvptxBuildResult R = buildSource(Src, {});
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(R.Manifests["M.many"].DynamicSharedPrefix, 40960u);
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(ptxText(R), "sm_90"), "");
  }
}

TEST(NvptxSharedLayout, MoreThanAWorkgroupHasIsLeftOut) {
  const std::string Src = R"(import cajeta.xpu.*;
public final class H {
    @Kernel
    public static void huge(KernelBuffer<float32> out) {
        Shared<float32> s = shared float32[65536];
        uint32 t = KernelThread.x();
        s[t] = 1.0f;
        Barrier.sync();
        out[t] = s[65535 - t];
    }
}
)";
  lowering::NvptxBuildResult R = buildSource(Src, {});
  ASSERT_EQ(R.Dropped.size(), 1u) << R.Error;
  EXPECT_NE(R.Dropped[0].find("262144 bytes of static shared memory exceed the 232448"),
            std::string::npos)
      << R.Dropped[0];
}

} // namespace
} // namespace cajeta::test
