// The shape of the PTX around tiles and asynchronous copies, which decides how well ptxas can
// schedule a pipelined K-loop: a tile load whose offsets the optimizer proves aligned is
// ldmatrix with no per-wave vote or element path (NvptxVoteFolding), and a run of adjacent
// copies is one alignment test and its cp.asyncs in one straight line; an accumulator is stored
// a pair of columns at a time.
#include "PtxTestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
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

// With CAJETA_GPU_ASYNC_COPY_INLINE=1: each copy of a run is its cp.async under a predicate
// (aligned, and whole or empty), the run and its commit one straight line with no branch; the
// copies that cannot go in line (the partial one, `k - 3` valid elements, or any whose source is
// not aligned) are element copies out of line, made before the wait.
TEST(NvptxTileCodegen, ARunOfCopiesIsPredicatedCpAsyncInOneLineWhenAsked) {
  setenv("CAJETA_GPU_ASYNC_COPY_INLINE", "1", 1);
  std::string Ptx = buildTilePtx(Copies);
  unsetenv("CAJETA_GPU_ASYNC_COPY_INLINE");
  ASSERT_FALSE(Ptx.empty());
  std::string Run = entryBody(Ptx, "C_run");
  EXPECT_EQ(countOf(Run, "cp.async.cg.shared.global"), 4u) << Run;
  EXPECT_TRUE(std::regex_search(
      Run,
      std::regex("(@%p\\d+ cp\\.async\\.cg\\.shared\\.global \\[%rd\\d+\\], \\[%rd\\d+\\], 16, "
                 "%r\\d+;(?:(?!bra|ld\\.global)[\\s\\S])*){4}cp\\.async\\.commit_group;")))
      << Run;
  EXPECT_NE(Run.find("ld.global.b16"), std::string::npos) << Run;
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90"), "");
  }
}

// By default: one test for the run, then its copies in a straight line: where every copy is
// whole or empty, each source size a choice between 0 and 16 (ptxas issues each as one
// predicated LDGSTS); where one is partial, the sizes as computed. Copies whose size is the same
// on both (no `valid`) LLVM may hoist above the choice.
TEST(NvptxTileCodegen, ARunOfCopiesIsOneTestAndStraightLineCpAsync) {
  std::string Ptx = buildTilePtx(Copies);
  ASSERT_FALSE(Ptx.empty());
  std::string Run = entryBody(Ptx, "C_run");
  const size_t Copies = countOf(Run, "cp.async.cg.shared.global");
  EXPECT_GE(Copies, 5u) << Run;
  EXPECT_LE(Copies, 8u) << Run;
  EXPECT_FALSE(std::regex_search(Run, std::regex("@%p\\d+ cp\\.async"))) << Run;
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

const char* Stores = R"(import cajeta.xpu.*;
public final class S {
    // Where C's block goes is the host's: the stride may be odd, the block cut anywhere.
    @Kernel
    public static void store(KernelBuffer<float32> c, KernelBuffer<int32> d, uint32 at, uint32 stride, uint32 rows, uint32 cols) {
        Shared<float16> s = shared float16[2048];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 16, 32> acc;
        Tile<float16, 16, 16> a = Tile.load(s, 0, 24);
        Tile<float16, 16, 32> b = Tile.load(s, 512, 40);
        Group.mac(acc, a, b);
        acc.store(c, at, stride, rows, cols);
        Tile<int32, 16, 32> n;
        n.fill(7);
        n.store(d, at, stride, rows, cols);
    }
}
)";

TEST(NvptxTileCodegen, AccumulatorStoresArePairsOfColumns) {
  std::string Ptx = buildTilePtx(Stores);
  ASSERT_FALSE(Ptx.empty());
  std::string Store = entryBody(Ptx, "S_store");
  // 16 x 32 elements a tile: 16 a lane, 8 pairs; each tile also has its element path (an odd
  // stride or offset, a pair cut by the block's edge).
  EXPECT_EQ(countOf(Store, "st.global.v2.f32"), 8u) << Store;
  EXPECT_EQ(countOf(Store, "st.global.v2.u32") + countOf(Store, "st.global.v2.b32"), 8u) << Store;
  EXPECT_EQ(countOf(Store, "st.global.f32"), 16u) << Store;
  // A row's pairs share its address: the columns are constant offsets from it.
  EXPECT_TRUE(std::regex_search(Store, std::regex("st\\.global\\.v2\\.f32\\s+\\[%rd\\d+\\+32\\]")))
      << Store;
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90"), "");
  }
  // --check-bounds tests each pair as a whole.
  lowering::NvptxBuildOptions O;
  O.TileTier = kir::ImplTier::Native;
  O.CheckBounds = true;
  lowering::NvptxBuildResult Checked = buildSource(Stores, O);
  ASSERT_TRUE(Checked.Ok) << Checked.Error;
  std::string CheckedStore = entryBody(ptxText(Checked), "S_store");
  EXPECT_EQ(countOf(CheckedStore, "st.global.v2.f32"), 8u) << CheckedStore;
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(ptxText(Checked), "sm_90"), "");
  }
  // CAJETA_GPU_TILE_PAIR_STORES=0 keeps an element a store.
  setenv("CAJETA_GPU_TILE_PAIR_STORES", "0", 1);
  std::string Elements = entryBody(buildTilePtx(Stores), "S_store");
  unsetenv("CAJETA_GPU_TILE_PAIR_STORES");
  EXPECT_EQ(countOf(Elements, "st.global.v2"), 0u) << Elements;
  EXPECT_EQ(countOf(Elements, "st.global.f32"), 16u) << Elements;
}

} // namespace
} // namespace cajeta::test
