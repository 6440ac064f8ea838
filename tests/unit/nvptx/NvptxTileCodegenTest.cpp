// The shape of the PTX around tiles and asynchronous copies, which decides how well ptxas can
// schedule a pipelined K-loop: a tile load whose offsets the optimizer proves aligned is
// ldmatrix with no per-wave vote or element path (NvptxVoteFolding), and a run of adjacent
// copies is one alignment test and its cp.asyncs in one straight line.
#include "PtxTestSupport.h"

#include <gtest/gtest.h>

#include <regex>

namespace cajeta::test {
namespace {

std::string buildTilePtx(const std::string& Src) {
  return nativeTilePtx(Src, "sm_90");
}

const char* Loads = R"(import cajeta.xpu.*;
public final class L {
    // Offsets that are multiples of 8 elements (16 bytes) by construction.
    @Kernel
    public static void aligned(KernelBuffer<float32> c, uint32 step) {
        Shared<float16> s = shared float16[2048];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 16, 16> acc;
        Tile<float16, 16, 16> a = Tile.load(s, step % 4 * 512, 24);
        Tile<float16, 16, 16> b = Tile.load(s, step % 4 * 512 + 384, 24);
        Group.mac(acc, a, b);
        acc.store(c, 0, 16);
    }
    // An offset from the host: its alignment is only known when the kernel runs.
    @Kernel
    public static void unknown(KernelBuffer<float32> c, uint32 at) {
        Shared<float16> s = shared float16[2048];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 16, 16> acc;
        Tile<float16, 16, 16> a = Tile.load(s, at, 24);
        Tile<float16, 16, 16> b = Tile.load(s, 384, 24);
        Group.mac(acc, a, b);
        acc.store(c, 0, 16);
    }
}
)";

TEST(NvptxTileCodegen, AlignedSharedTileLoadsAreLdmatrixWithNoVote) {
  std::string Ptx = buildTilePtx(Loads);
  ASSERT_FALSE(Ptx.empty());
  std::string Aligned = entryBody(Ptx, "L_aligned");
  EXPECT_NE(Aligned.find("ldmatrix.sync.aligned"), std::string::npos) << Aligned;
  EXPECT_EQ(Aligned.find("vote.sync"), std::string::npos) << Aligned;
  // Where the alignment is the host's, the wave decides at run time.
  std::string Unknown = entryBody(Ptx, "L_unknown");
  EXPECT_NE(Unknown.find("ldmatrix.sync.aligned"), std::string::npos) << Unknown;
  EXPECT_NE(Unknown.find("vote.sync.all.pred"), std::string::npos) << Unknown;
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90"), "");
  }
}

const char* Copies = R"(import cajeta.xpu.*;
public final class C {
    @Kernel
    public static void run(KernelBuffer<float32> out, KernelBuffer<float16> a, uint32 k) {
        Shared<float16> s = shared float16[2048];
        uint32 t = KernelThread.x();
        AsyncCopy.copy(s, t * 8, a, t * k, 8);
        AsyncCopy.copy(s, 512 + t * 8, a, (t + 64) * k, 8, k - 3);
        AsyncCopy.copy(s, 1024 + t * 8, a, (t + 128) * k, 8);
        AsyncCopy.copy(s, 1536 + t * 8, a, (t + 192) * k, 8);
        AsyncCopy.commit();
        AsyncCopy.wait(0);
        Barrier.sync();
        out[t] = (float32) s[2047 - t];
    }
}
)";

// One test for the run, then its copies in a straight line: where every copy is whole or empty,
// each source size a choice between 0 and 16 (ptxas issues each as one predicated LDGSTS); where
// one is partial (`k - 3` valid elements), the sizes as computed. Copies whose size is the
// same on both (no `valid`) LLVM may hoist above the choice.
TEST(NvptxTileCodegen, ARunOfCopiesIsOneTestAndStraightLineCpAsync) {
  std::string Ptx = buildTilePtx(Copies);
  ASSERT_FALSE(Ptx.empty());
  std::string Run = entryBody(Ptx, "C_run");
  const size_t Copies = countOf(Run, "cp.async.cg.shared.global");
  EXPECT_GE(Copies, 5u) << Run;
  EXPECT_LE(Copies, 8u) << Run;
  // The whole-or-empty run: the valid count's copy takes 0 or 16 bytes, the rest follow
  // unbroken.
  EXPECT_TRUE(std::regex_search(
      Run, std::regex("selp\\.b32\\s+(%r\\d+), 0, 16, %p\\d+;\\s*"
                      "cp\\.async\\.cg\\.shared\\.global \\[%rd\\d+\\], \\[%rd\\d+\\], 16, \\1;"
                      "(\\s*cp\\.async\\.cg\\.shared\\.global [^\\n]*, 16, 16;){2}")))
      << Run;
  // The partial run: the size in bytes from the count (no choice between constants), the rest
  // unbroken.
  EXPECT_TRUE(std::regex_search(
      Run, std::regex("shl\\.b32\\s+(%r\\d+), %r\\d+, 1;\\s*"
                      "cp\\.async\\.cg\\.shared\\.global \\[%rd\\d+\\], \\[%rd\\d+\\], 16, \\1;"
                      "(\\s*cp\\.async\\.cg\\.shared\\.global [^\\n]*, 16, 16;){2}")))
      << Run;
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90"), "");
  }
}

} // namespace
} // namespace cajeta::test
