// The sm_90a tile tier (kir::WgmmaOperands, TileLowering's Wgmma form): which b tiles stay in
// shared memory for wgmma, the swizzled array and its proxy fences, and that no other
// architecture's PTX has any of it.
#include "PtxTestSupport.h"

#include <gtest/gtest.h>

#include <regex>

namespace cajeta::test {
namespace {

// Each kernel multiplies a 32 x 64 b tile; only the first reads it as wgmma takes it.
const char* Kernels = R"(import cajeta.xpu.*;
public final class W {
    @Kernel
    public static void fromShared(KernelBuffer<float32> c, uint32 boff) {
        Shared<float16> s = shared float16[8192];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 32, 64> acc;
        Tile<float16, 32, 32> a = Tile.load(s, KernelThread.x() / 32 * 1024, 32);
        Tile<float16, 32, 64> b = Tile.load(s, boff, 64);
        Group.mac(acc, a, b);
        acc.store(c, 0, 64);
    }
    // b two 128-byte atoms wide, in rows of 128 elements.
    @Kernel
    public static void wide(KernelBuffer<float32> c, uint32 boff) {
        Shared<float16> s = shared float16[12288];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 32, 128> acc;
        Tile<float16, 32, 32> a = Tile.load(s, KernelThread.x() / 32 * 1024, 32);
        Tile<float16, 32, 128> b = Tile.load(s, boff, 128);
        Group.mac(acc, a, b);
        acc.store(c, 0, 128);
    }
    // Two widths from one array: its rows take the first tile's, the other loads as any tile.
    @Kernel
    public static void mixedWidths(KernelBuffer<float32> c) {
        Shared<float16> s = shared float16[12288];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 32, 64> acc;
        Tile<float32, 32, 128> wide;
        Tile<float16, 32, 32> a = Tile.load(s, 0, 32);
        Tile<float16, 32, 64> b = Tile.load(s, 4096, 64);
        Tile<float16, 32, 128> bw = Tile.load(s, 8192, 128);
        Group.mac(acc, a, b);
        Group.mac(wide, a, bw);
        acc.store(c, 0, 64);
        wide.store(c, 4096, 128);
    }
    // Each wave's own b (its offset follows the wave): no warpgroup-wide product.
    @Kernel
    public static void perWave(KernelBuffer<float32> c) {
        Shared<float16> s = shared float16[8192];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 32, 64> acc;
        Tile<float16, 32, 32> a = Tile.load(s, 0, 32);
        Tile<float16, 32, 64> b = Tile.load(s, KernelThread.x() / 32 * 2048, 64);
        Group.mac(acc, a, b);
        acc.store(c, 0, 64);
    }
    // A store into the array between the load and the mac: b must be the value loaded.
    @Kernel
    public static void storeBetween(KernelBuffer<float32> c) {
        Shared<float16> s = shared float16[8192];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 32, 64> acc;
        Tile<float16, 32, 32> a = Tile.load(s, 0, 32);
        Tile<float16, 32, 64> b = Tile.load(s, 4096, 64);
        s[4096 + KernelThread.x()] = (float16) 2.0f;
        Group.mac(acc, a, b);
        acc.store(c, 0, 64);
    }
    // Rows of 72 elements: not the swizzle's 128 bytes.
    @Kernel
    public static void padded(KernelBuffer<float32> c) {
        Shared<float16> s = shared float16[8192];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 32, 64> acc;
        Tile<float16, 32, 32> a = Tile.load(s, 0, 32);
        Tile<float16, 32, 64> b = Tile.load(s, 4096, 72);
        Group.mac(acc, a, b);
        acc.store(c, 0, 64);
    }
    // The mac alone in an arm without braces, a store into b's rows between its load and it:
    // b must be the value loaded.
    @Kernel
    public static void unbraced(KernelBuffer<float32> c, uint32 n) {
        Shared<float16> s = shared float16[8192];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 32, 64> acc;
        Tile<float16, 32, 32> a = Tile.load(s, 0, 32);
        Tile<float16, 32, 64> b = Tile.load(s, 4096, 64);
        s[4096 + KernelThread.x()] = (float16) 2.0f;
        if (n > 0)
            Group.mac(acc, a, b);
        acc.store(c, 0, 64);
    }
    // The mac under a branch on memory the kernel writes: not provably taken by the whole
    // group.
    @Kernel
    public static void divergent(KernelBuffer<float32> c) {
        Shared<float16> s = shared float16[8192];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 32, 64> acc;
        if (c[0] > 0.0f) {
            Tile<float16, 32, 32> a = Tile.load(s, 0, 32);
            Tile<float16, 32, 64> b = Tile.load(s, 4096, 64);
            Group.mac(acc, a, b);
        }
        acc.store(c, 0, 64);
    }
}
)";

// Two stages: the products of one step, then the copies of the next into the other stage (kept
// beside the products in flight: kir::RangeDisjointness proves them apart for groups of at most
// 256, the index of the second copy holding the work-item's id unreduced), or into the stage
// being read (the wait before them).
const char* Pipelines = R"(import cajeta.xpu.*;
public final class P {
    @Kernel
    public static void nextStage(KernelBuffer<float32> c, KernelBuffer<float16> a) {
        Shared<float16> s = shared float16[8192];
        uint32 tid = KernelThread.x();
        Tile<float32, 16, 64> acc;
        for (uint32 kt = 0; kt < 8; kt++) {
            AsyncCopy.wait(0);
            Barrier.sync();
            uint32 st = kt % 2 * 4096;
            Tile<float16, 16, 16> ta = Tile.load(s, st + tid / 32 * 256, 16);
            Tile<float16, 16, 64> tb = Tile.load(s, st + 2048, 64);
            Group.mac(acc, ta, tb);
            uint32 sn = (kt + 1) % 2 * 4096;
            AsyncCopy.copy(s, sn + tid % 256 * 8, a, kt * 2048 + tid * 8, 8, 8);
            if (tid < 128) {
                AsyncCopy.copy(s, sn + 2048 + tid * 8, a, kt * 2048 + tid * 8, 8, 8);
            }
            AsyncCopy.commit();
        }
        acc.store(c, tid / 32 * 1024, 64);
    }
    @Kernel
    public static void sameStage(KernelBuffer<float32> c, KernelBuffer<float16> a) {
        Shared<float16> s = shared float16[8192];
        uint32 tid = KernelThread.x();
        Tile<float32, 16, 64> acc;
        for (uint32 kt = 0; kt < 8; kt++) {
            AsyncCopy.wait(0);
            Barrier.sync();
            uint32 st = kt % 2 * 4096;
            Tile<float16, 16, 16> ta = Tile.load(s, st + tid / 32 * 256, 16);
            Tile<float16, 16, 64> tb = Tile.load(s, st + 2048, 64);
            Group.mac(acc, ta, tb);
            AsyncCopy.copy(s, st + 2048 + tid % 128 * 8, a, kt * 2048 + tid * 8, 8, 8);
            AsyncCopy.commit();
        }
        acc.store(c, tid / 32 * 1024, 64);
    }
    // Two products reading two parts of the array, then a copy into the first's: the copy
    // waits for both, though it misses what the second reads.
    @Kernel
    public static void twoReads(KernelBuffer<float32> c, KernelBuffer<float16> a) {
        Shared<float16> s = shared float16[8192];
        uint32 tid = KernelThread.x();
        Tile<float32, 16, 64> acc;
        Tile<float16, 16, 16> ta = Tile.load(s, tid / 32 * 256, 16);
        Tile<float16, 16, 64> tb0 = Tile.load(s, 2048, 64);
        Tile<float16, 16, 64> tb1 = Tile.load(s, 6144, 64);
        Group.mac(acc, ta, tb0);
        Group.mac(acc, ta, tb1);
        AsyncCopy.copy(s, 2048 + tid % 128 * 8, a, tid * 8, 8, 8);
        AsyncCopy.commit();
        acc.store(c, tid / 32 * 1024, 64);
    }
    // Four stages, each turn's copies two turns ahead of its products: the next turn's copies
    // miss the stage this turn's products read, so they stay in flight into the next turn.
    @Kernel
    public static void twoAhead(KernelBuffer<float32> c, KernelBuffer<float16> a) {
        Shared<float16> s = shared float16[16384];
        uint32 tid = KernelThread.x();
        Tile<float32, 16, 64> acc;
        for (uint32 kt = 2; kt < 10; kt++) {
            AsyncCopy.wait(1);
            Barrier.sync();
            uint32 st = (kt - 2) % 4 * 4096;
            Tile<float16, 16, 16> ta = Tile.load(s, st + tid / 32 * 256, 16);
            Tile<float16, 16, 64> tb = Tile.load(s, st + 2048, 64);
            Group.mac(acc, ta, tb);
            AsyncCopy.copy(s, kt % 4 * 4096 + tid % 256 * 8, a, kt * 2048 + tid * 8, 8, 8);
            AsyncCopy.commit();
        }
        acc.store(c, tid / 32 * 1024, 64);
    }
    // Three turns ahead: the next turn's copies write the stage this turn's products read.
    @Kernel
    public static void threeAhead(KernelBuffer<float32> c, KernelBuffer<float16> a) {
        Shared<float16> s = shared float16[16384];
        uint32 tid = KernelThread.x();
        Tile<float32, 16, 64> acc;
        for (uint32 kt = 3; kt < 11; kt++) {
            AsyncCopy.wait(2);
            Barrier.sync();
            uint32 st = (kt - 3) % 4 * 4096;
            Tile<float16, 16, 16> ta = Tile.load(s, st + tid / 32 * 256, 16);
            Tile<float16, 16, 64> tb = Tile.load(s, st + 2048, 64);
            Group.mac(acc, ta, tb);
            AsyncCopy.copy(s, kt % 4 * 4096 + tid % 256 * 8, a, kt * 2048 + tid * 8, 8, 8);
            AsyncCopy.commit();
        }
        acc.store(c, tid / 32 * 1024, 64);
    }
    // twoAhead with block copies: its TMA entry's commits and waits are loops on barriers.
    @Kernel
    public static void twoAheadBlocks(KernelBuffer<float32> c, KernelBuffer<float16> a, uint32 rows) {
        Shared<float16> s = shared float16[16384];
        uint32 tid = KernelThread.x();
        Tile<float32, 16, 64> acc;
        for (uint32 kt = 0; kt < 2; kt++) {
            AsyncCopy.copyBlock(s, kt % 4 * 4096 + 2048, a, kt * 16, 0, rows, 64, 64, 16, 64);
            AsyncCopy.commit();
        }
        for (uint32 kt = 2; kt < 10; kt++) {
            AsyncCopy.wait(1);
            Barrier.sync();
            uint32 st = (kt - 2) % 4 * 4096;
            Tile<float16, 16, 16> ta = Tile.load(s, st + tid / 32 * 256, 16);
            Tile<float16, 16, 64> tb = Tile.load(s, st + 2048, 64);
            Group.mac(acc, ta, tb);
            AsyncCopy.copyBlock(s, kt % 4 * 4096 + 2048, a, kt * 16, 0, rows, 64, 64, 16, 64);
            AsyncCopy.commit();
        }
        acc.store(c, tid / 32 * 1024, 64);
    }
    // twoAheadBlocks with each copy's row from a helper whose value is its arguments' (as a
    // persistent kernel's next block), a branch in its body: the products still stay in flight
    // (their group committed before the call), and the row's form (a multiple of 16) leaves the
    // TMA entry without the chunks' fallback.
    @Device
    static uint32 blockOf(uint32 kt, uint32 blocks) {
        if (kt >= 64 * blocks) {
            return 0;
        }
        return kt % blocks;
    }
    @Kernel
    public static void twoAheadHelper(KernelBuffer<float32> c, KernelBuffer<float16> a, uint32 rows) {
        Shared<float16> s = shared float16[16384];
        uint32 tid = KernelThread.x();
        Tile<float32, 16, 64> acc;
        for (uint32 kt = 0; kt < 2; kt++) {
            AsyncCopy.copyBlock(s, kt % 4 * 4096 + 2048, a, blockOf(kt, 4) * 16, 0, rows, 64, 64, 16, 64);
            AsyncCopy.commit();
        }
        for (uint32 kt = 2; kt < 10; kt++) {
            AsyncCopy.wait(1);
            Barrier.sync();
            uint32 st = (kt - 2) % 4 * 4096;
            Tile<float16, 16, 16> ta = Tile.load(s, st + tid / 32 * 256, 16);
            Tile<float16, 16, 64> tb = Tile.load(s, st + 2048, 64);
            Group.mac(acc, ta, tb);
            uint32 row = blockOf(kt, 4) * 16;
            AsyncCopy.copyBlock(s, kt % 4 * 4096 + 2048, a, row, 0, rows, 64, 64, 16, 64);
            AsyncCopy.commit();
        }
        acc.store(c, tid / 32 * 1024, 64);
    }
    // A's 256 x 64 block copied densely beside b's two-atom rows, two of its rows to an array
    // row: a wave's even rows are one a tile at a stride of 128, its odd rows another 64
    // elements on, and wgmma reads both from shared memory.
    @Kernel
    public static void pairedRows(KernelBuffer<float32> c, KernelBuffer<float16> a, KernelBuffer<float16> b, uint32 rows) {
        Shared<float16> s = shared float16[];
        uint32 tid = KernelThread.x();
        Tile<float32, 16, 128> even;
        Tile<float32, 16, 128> odd;
        for (uint32 kt = 0; kt < 2; kt++) {
            AsyncCopy.copyBlock(s, kt % 4 * 24576, a, 0, kt * 64, rows, 512, 512, 256, 64);
            AsyncCopy.copyBlock(s, kt % 4 * 24576 + 16384, b, kt * 64, 0, 512, 128, 128, 64, 128);
            AsyncCopy.commit();
        }
        for (uint32 kt = 2; kt < 10; kt++) {
            AsyncCopy.wait(1);
            Barrier.sync();
            uint32 st = (kt - 2) % 4 * 24576;
            uint32 sa = st + tid / 32 * 2048;
            Tile<float16, 16, 32> te0 = Tile.load(s, sa, 128);
            Tile<float16, 16, 32> to0 = Tile.load(s, sa + 64, 128);
            Tile<float16, 32, 128> tb0 = Tile.load(s, st + 16384, 128);
            Group.mac(even, te0, tb0);
            Group.mac(odd, to0, tb0);
            Tile<float16, 16, 32> te1 = Tile.load(s, sa + 32, 128);
            Tile<float16, 16, 32> to1 = Tile.load(s, sa + 96, 128);
            Tile<float16, 32, 128> tb1 = Tile.load(s, st + 20480, 128);
            Group.mac(even, te1, tb1);
            Group.mac(odd, to1, tb1);
            AsyncCopy.copyBlock(s, kt % 4 * 24576, a, 0, kt * 64, rows, 512, 512, 256, 64);
            AsyncCopy.copyBlock(s, kt % 4 * 24576 + 16384, b, kt * 64, 0, 512, 128, 128, 64, 128);
            AsyncCopy.commit();
        }
        even.store(c, tid / 32 * 4096, 256);
        odd.store(c, tid / 32 * 4096 + 128, 256);
    }
}
)";

TEST(NvptxWgmma, ACopyWaitsForEveryProductItMeets) {
  std::string Ptx = nativeTilePtx(Pipelines, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  const std::string Body = entryBody(Ptx, "P_twoReads");
  const size_t Last = Body.rfind("wgmma.mma_async");
  ASSERT_NE(Last, std::string::npos) << Body;
  std::smatch First;
  const std::string After = Body.substr(Last);
  ASSERT_TRUE(std::regex_search(After, First, std::regex("cp\\.async\\.cg|wgmma\\.wait_group")))
      << Body;
  EXPECT_EQ(First.str(), "wgmma.wait_group") << Body;
}

// Where the products wait for a copy, and where the wgmma version runs only in small groups,
// the build says so, naming the lines.
TEST(NvptxWgmma, NotesSayWhereProductsWaitAndForWhichGroups) {
  lowering::NvptxBuildOptions O;
  O.Sm = "sm_90a";
  O.TileTier = kir::ImplTier::Native;
  lowering::NvptxBuildResult R = buildSource(Pipelines, O);
  ASSERT_TRUE(R.Ok) << R.Error;
  auto Has = [&](const std::string& Text) {
    for (const std::string& N : R.Notes)
      if (N.find(Text) != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(Has("[wgmma] kernel 'P.sameStage': the copy at line 36 waits for the products of "
                  "Group.mac at line 35"));
  EXPECT_TRUE(Has("[wgmma] kernel 'P.twoReads': the copy at line 53 waits for the products of "
                  "Group.mac at line 51"));
  EXPECT_TRUE(Has("[wgmma] kernel 'P.nextStage': wgmma runs in groups of at most 256 work-items, "
                  "for which the copy at line 18 is proved"));
  EXPECT_FALSE(Has("kernel 'P.nextStage': the copy"));
}

TEST(NvptxWgmma, CopiesIntoAnotherStageGoBesideTheProductsInFlight) {
  std::string Ptx = nativeTilePtx(Pipelines, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  // What follows a product first: the next stage's copies, or its wait.
  const std::regex After(
      "wgmma\\.mma_async[^\\n]*\\n(?:(?!wgmma\\.wait_group|cp\\.async\\.cg)[\\s\\S])*"
      "(cp\\.async\\.cg|wgmma\\.wait_group)");
  std::smatch Next, Same;
  const std::string NextStage = entryBody(Ptx, "P_nextStage"),
                    SameStage = entryBody(Ptx, "P_sameStage");
  ASSERT_TRUE(std::regex_search(NextStage, Next, After)) << NextStage;
  EXPECT_EQ(Next[1].str(), "cp.async.cg") << NextStage;
  // The wgmma body runs in groups of whole warpgroups of at most 256 work-items.
  EXPECT_TRUE(std::regex_search(NextStage, std::regex("setp\\.gt\\.u32\\s+%p\\d+, %r\\d+, 256;")))
      << NextStage;
  ASSERT_TRUE(std::regex_search(SameStage, Same, After)) << SameStage;
  EXPECT_EQ(Same[1].str(), "wgmma.wait_group") << SameStage;
  EXPECT_EQ(SameStage.find(", 256;"), std::string::npos) << SameStage;
}

// A turn's products stay in flight across the next turn's barrier and copies where no copy of the
// next turn writes what they read: the turn ends waiting for the turn before's products
// (`wgmma.wait_group 1`), and the loop's exit for its own. A ring whose next copies meet the stage
// being read waits in each turn, as every loop does with CAJETA_GPU_WGMMA_CARRY=0.
TEST(NvptxWgmma, ProductsStayInFlightIntoTheNextTurnWhereItsCopiesMissThem) {
  const std::string Ptx = nativeTilePtx(Pipelines, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  const std::string TwoAhead = entryBody(Ptx, "P_twoAhead");
  EXPECT_EQ(countOf(TwoAhead, "wgmma.wait_group.sync.aligned 1;"), 1u) << TwoAhead;
  EXPECT_NE(TwoAhead.find("wgmma.wait_group.sync.aligned 0;"), std::string::npos) << TwoAhead;
  // In the turn: the barrier, the product, the copy, then the wait for the turn before's.
  EXPECT_TRUE(std::regex_search(
      TwoAhead, std::regex("bar\\.sync[\\s\\S]*wgmma\\.mma_async[\\s\\S]*cp\\.async\\.cg[\\s\\S]*"
                           "wgmma\\.wait_group\\.sync\\.aligned 1;")))
      << TwoAhead;
  const std::string ThreeAhead = entryBody(Ptx, "P_threeAhead");
  EXPECT_EQ(ThreeAhead.find("wgmma.wait_group.sync.aligned 1;"), std::string::npos) << ThreeAhead;
  EXPECT_NE(ThreeAhead.find("wgmma.wait_group.sync.aligned 0;"), std::string::npos) << ThreeAhead;
  EXPECT_EQ(entryBody(Ptx, "P_nextStage").find("wgmma.wait_group.sync.aligned 1;"),
            std::string::npos);

  setenv("CAJETA_GPU_WGMMA_CARRY", "0", 1);
  const std::string PerTurn = nativeTilePtx(Pipelines, "sm_90a");
  unsetenv("CAJETA_GPU_WGMMA_CARRY");
  const std::string Waiting = entryBody(PerTurn, "P_twoAhead");
  EXPECT_EQ(Waiting.find("wgmma.wait_group.sync.aligned 1;"), std::string::npos) << Waiting;
  EXPECT_NE(Waiting.find("wgmma.wait_group.sync.aligned 0;"), std::string::npos) << Waiting;
}

// A TMA entry's commits and waits are loops on mbarriers that products stay in flight across
// (into the next turn here): their group is committed right after them, before any such loop,
// or ptxas serializes every wgmma of the kernel (note C7520, which assembleError reports).
TEST(NvptxWgmma, TmaEntryCommitsItsProductsBeforeTheBarrierLoops) {
  const std::string Ptx = nativeTilePtx(Pipelines, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  const std::string Tma = entryBody(Ptx, "P_twoAheadBlocks_tma");
  ASSERT_NE(Tma.find("cp.async.bulk.tensor"), std::string::npos) << Tma;
  EXPECT_EQ(countOf(Tma, "wgmma.wait_group.sync.aligned 1;"), 1u) << Tma;
  const std::regex After("wgmma\\.mma_async[^\\n]*\\n(?:(?!wgmma\\.commit_group|wgmma\\.wait_group|"
                         "mbarrier\\.try_wait)[\\s\\S])*(wgmma\\.commit_group|wgmma\\.wait_group|"
                         "mbarrier\\.try_wait)");
  size_t Products = 0;
  for (std::sregex_iterator I(Tma.begin(), Tma.end(), After), End; I != End; ++I, ++Products)
    EXPECT_EQ((*I)[1].str(), "wgmma.commit_group") << Tma;
  EXPECT_GT(Products, 0u) << Tma;
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90a"), "");
  }
}

// A call in the K-loop of a helper whose value is its arguments' keeps the products in flight,
// and copies whose destination, row and column are multiples of what the box needs by their form
// alone go to the accelerator with no run-time test and no chunks beside them.
TEST(NvptxWgmma, HelperCallsKeepProductsInFlightAndProvedBoxesNeedNoChunks) {
  const std::string Ptx = nativeTilePtx(Pipelines, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  const std::string Tma = entryBody(Ptx, "P_twoAheadHelper_tma");
  ASSERT_NE(Tma.find("cp.async.bulk.tensor"), std::string::npos) << Tma;
  EXPECT_EQ(countOf(Tma, "wgmma.wait_group.sync.aligned 1;"), 1u) << Tma;
  EXPECT_EQ(Tma.find("cp.async.cg"), std::string::npos) << Tma;
  EXPECT_EQ(entryBody(Ptx, "P_twoAheadBlocks_tma").find("cp.async.cg"), std::string::npos);
  // The plain entry deals the same blocks as chunks.
  EXPECT_NE(entryBody(Ptx, "P_twoAheadHelper").find("cp.async.cg"), std::string::npos);
}

// The ring's empty barriers count the group's waves, and a wave arrives once, by the lane
// elect.sync picks among the warp's existing lanes: a group-wide arrival was 32 shared-memory
// atomics a warp in a row, in every turn.
TEST(NvptxWgmma, TmaEntryArrivesAtEmptyBarriersOncePerWave) {
  const std::string Ptx = nativeTilePtx(Pipelines, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  const std::string Tma = entryBody(Ptx, "P_twoAheadBlocks_tma");
  ASSERT_NE(Tma.find("cp.async.bulk.tensor"), std::string::npos) << Tma;
  const std::regex PerWave(
      "elect\\.sync _\\|q, %r\\d+;\\s*@q mbarrier\\.arrive\\.shared::cta\\.b64 _,");
  EXPECT_TRUE(std::regex_search(Tma, PerWave)) << Tma;
  // Every arrival is the full barrier's by one issuer or an empty barrier's once per wave.
  EXPECT_EQ(countOf(Tma, "mbarrier.arrive"),
            countOf(Tma, "@p mbarrier.arrive") + countOf(Tma, "@q mbarrier.arrive"))
      << Tma;
  // The count: (group + 31) / 32 waves, where it was the group's size.
  EXPECT_TRUE(std::regex_search(Tma, std::regex("shr\\.u32\\s+%r\\d+, %r\\d+, 5;"))) << Tma;
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90a"), "");
  }
}

// A block copied densely, two of its rows to an array row (TensorMapRecipe::PairedRows): the
// TMA entry fills it with one box of a 4D view, and each wave's alternate rows are a tiles that
// wgmma reads from shared memory through a descriptor, as b (mma.sync's version, for groups that
// are not whole warpgroups, loads them into registers).
TEST(NvptxWgmma, AlternateRowsOfAPairedBlockAreReadFromSharedMemory) {
  const std::string Ptx = nativeTilePtx(Pipelines, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  for (const char* Entry : {"P_pairedRows", "P_pairedRows_tma"}) {
    const std::string Body = entryBody(Ptx, Entry);
    const std::regex Shared("wgmma\\.mma_async\\.sync\\.aligned\\.m64n128k16\\.f32\\.f16\\.f16 "
                            "\\{[^}]*\\}, %rd[0-9]+, %rd[0-9]+,");
    EXPECT_EQ(std::distance(std::sregex_iterator(Body.begin(), Body.end(), Shared),
                            std::sregex_iterator()),
              8)
        << Entry << Body;
  }
  EXPECT_NE(entryBody(Ptx, "P_pairedRows_tma").find("cp.async.bulk.tensor.4d"), std::string::npos);
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90a"), "");
  }
}

TEST(NvptxWgmma, BTilesReadFromSharedMemoryAcrossTheGroupAreWgmmaOnSm90a) {
  std::string Ptx = nativeTilePtx(Kernels, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  EXPECT_NE(Ptx.find(".target sm_90a"), std::string::npos);
  std::string Shared = entryBody(Ptx, "W_fromShared");
  // Two 16-deep products for each of the wave's two 16-row blocks, n = 64, b transposed.
  EXPECT_EQ(countOf(Shared, "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"), 4u) << Shared;
  EXPECT_EQ(countOf(Shared, "wgmma.wait_group.sync.aligned 0"), 1u) << Shared;
  EXPECT_NE(Shared.find("wgmma.fence.sync.aligned"), std::string::npos);
  // The barrier publishes the stores to the asynchronous proxy, and mma.sync stays beside
  // (the body's version for groups that are not whole warpgroups).
  EXPECT_TRUE(std::regex_search(
      Shared,
      std::regex("fence\\.proxy\\.async\\.shared::cta;\\s*// end inline asm\\s*bar\\.sync")))
      << Shared;
  EXPECT_NE(Shared.find("mma.sync.aligned.m16n8k16"), std::string::npos);
  // The array is swizzled: 1024-aligned, accesses xor bits 4-6 with bits 7-9.
  EXPECT_NE(Ptx.find(".align 1024"), std::string::npos);
  // b's descriptor: atoms 1024 bytes apart, 8-row blocks 1024 bytes (one atom) or 2048 (two).
  const std::string OneAtom =
      std::to_string((uint64_t(64) << 16) | (uint64_t(64) << 32) | (uint64_t(1) << 62));
  EXPECT_NE(Shared.find(OneAtom), std::string::npos) << Shared;
  // b two atoms wide is wgmma's n = 128 (BTilesTwoAtomsWideAreN128 below).
  EXPECT_NE(entryBody(Ptx, "W_wide").find("m64n128k16"), std::string::npos);
  for (const char* K : {"W_perWave", "W_storeBetween", "W_unbraced", "W_padded", "W_divergent"}) {
    std::string Body = entryBody(Ptx, K);
    EXPECT_EQ(Body.find("wgmma"), std::string::npos) << K;
    EXPECT_EQ(Body.find("fence.proxy.async"), std::string::npos) << K;
    EXPECT_NE(Body.find("mma.sync.aligned"), std::string::npos) << K;
  }
}

// 8-bit b tiles loaded column by column from rows of one atom (K-major, the only layout wgmma
// takes for 8-bit inputs), into int32: m64nNk32, the descriptor's 8-row groups 1024 bytes apart,
// each 32-deep step 32 bytes further along the rows. Loaded row-major, they take mma.sync.
const char* Bytes = R"(import cajeta.xpu.*;
public final class Q {
    @Kernel
    public static void kMajor(KernelBuffer<int32> c, uint32 boff) {
        Shared<int8> s = shared int8[16384];
        s[KernelThread.x()] = (int8) 1;
        Barrier.sync();
        Tile<int32, 16, 64> acc;
        Tile<int8, 16, 64> a = Tile.load(s, KernelThread.x() / 32 * 2048, 128);
        Tile<int8, 64, 64> b = Tile.loadColMajor(s, 8192 + boff, 128);
        Group.mac(acc, a, b);
        acc.store(c, 0, 64);
    }
    @Kernel
    public static void unsignedKMajor(KernelBuffer<int32> c) {
        Shared<uint8> s = shared uint8[16384];
        s[KernelThread.x()] = (uint8) 1;
        Barrier.sync();
        Tile<int32, 16, 64> acc;
        Tile<uint8, 16, 32> a = Tile.load(s, KernelThread.x() / 32 * 2048, 128);
        Tile<uint8, 32, 64> b = Tile.loadColMajor(s, 8192, 128);
        Group.mac(acc, a, b);
        acc.store(c, 0, 64);
    }
    @Kernel
    public static void rowMajor(KernelBuffer<int32> c) {
        Shared<int8> s = shared int8[16384];
        s[KernelThread.x()] = (int8) 1;
        Barrier.sync();
        Tile<int32, 16, 64> acc;
        Tile<int8, 16, 32> a = Tile.load(s, KernelThread.x() / 32 * 2048, 128);
        Tile<int8, 32, 64> b = Tile.load(s, 8192, 64);
        Group.mac(acc, a, b);
        acc.store(c, 0, 64);
    }
}
)";

TEST(NvptxWgmma, EightBitBTilesAreReadKMajor) {
  std::string Ptx = nativeTilePtx(Bytes, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  const std::string KMajor = entryBody(Ptx, "Q_kMajor");
  EXPECT_EQ(countOf(KMajor, "wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8"), 2u) << KMajor;
  const std::string Desc =
      std::to_string((uint64_t(1) << 16) | (uint64_t(64) << 32) | (uint64_t(1) << 62));
  EXPECT_NE(KMajor.find(Desc), std::string::npos) << KMajor;
  // The second 32-deep step's b 32 bytes along the rows (its descriptor's start 2 units past the
  // first's: NvptxWgmmaDescriptor), and mma.sync beside for the rest.
  EXPECT_TRUE(std::regex_search(
      KMajor, std::regex("add\\.s32\\s+(%r\\d+), %r\\d+, 2;\\s*and\\.b32\\s+%r\\d+, \\1, 16383;")))
      << KMajor;
  EXPECT_NE(KMajor.find("mma.sync.aligned.m16n8k32"), std::string::npos) << KMajor;
  EXPECT_EQ(countOf(entryBody(Ptx, "Q_unsignedKMajor"),
                    "wgmma.mma_async.sync.aligned.m64n64k32.s32.u8.u8"),
            1u);
  const std::string RowMajor = entryBody(Ptx, "Q_rowMajor");
  EXPECT_EQ(RowMajor.find("wgmma"), std::string::npos) << RowMajor;
  EXPECT_NE(RowMajor.find("mma.sync.aligned.m16n8k32"), std::string::npos) << RowMajor;
}

// a tiles of 16 rows whose four waves' rows follow one another (each wave's offset its wave index
// times 16 rows, plus a value uniform across the group) and are as wide as the array's rows: wgmma
// reads the warpgroup's 64-row block through a descriptor (K-major: 8-row groups a block of the
// array apart), from the first wave's rows. Other a tiles stay in registers.
const char* SharedA = R"(import cajeta.xpu.*;
public final class A {
    @Kernel
    public static void block(KernelBuffer<float32> c, uint32 aoff) {
        Shared<float16> s = shared float16[16384];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        uint32 wave = KernelThread.x() / Wave.width();
        Tile<float32, 16, 128> acc;
        Tile<float16, 16, 32> a = Tile.load(s, aoff + wave * 2048, 128);
        Tile<float16, 32, 128> b = Tile.load(s, 8192, 128);
        Group.mac(acc, a, b);
        acc.store(c, wave * 2048, 128);
    }
    // Eight rows a wave: not one block per warpgroup.
    @Kernel
    public static void halfRows(KernelBuffer<float32> c) {
        Shared<float16> s = shared float16[16384];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 16, 128> acc;
        Tile<float16, 16, 32> a = Tile.load(s, KernelThread.x() / 32 * 1024, 128);
        Tile<float16, 32, 128> b = Tile.load(s, 8192, 128);
        Group.mac(acc, a, b);
        acc.store(c, 0, 128);
    }
    // Rows of 64 elements in an array whose b rows are 128: a keeps its registers.
    @Kernel
    public static void narrowRows(KernelBuffer<float32> c) {
        Shared<float16> s = shared float16[16384];
        s[KernelThread.x()] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 16, 128> acc;
        Tile<float16, 16, 32> a = Tile.load(s, KernelThread.x() / 32 * 1024, 64);
        Tile<float16, 32, 128> b = Tile.load(s, 8192, 128);
        Group.mac(acc, a, b);
        acc.store(c, 0, 128);
    }
}
)";

TEST(NvptxWgmma, ATilesOfAWarpgroupAreReadAsOneBlock) {
  std::string Ptx = nativeTilePtx(SharedA, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  const std::string Block = entryBody(Ptx, "A_block");
  // Two k16 products, a and b through descriptors, a not transposed (K-major), b transposed.
  EXPECT_TRUE(std::regex_search(
      Block, std::regex("wgmma\\.mma_async\\.sync\\.aligned\\.m64n128k16\\.f32\\.f16\\.f16 "
                        "\\{[^}]*\\}, %rd\\d+, %rd\\d+, 1, 1, 1, 0, 1;")))
      << Block;
  EXPECT_EQ(countOf(Block, "wgmma.mma_async"), 2u) << Block;
  // a's descriptor: 8-row groups 2048 bytes apart (rows of two atoms), the leading offset unused.
  const std::string ADesc =
      std::to_string((uint64_t(1) << 16) | (uint64_t(128) << 32) | (uint64_t(1) << 62));
  EXPECT_NE(Block.find(ADesc), std::string::npos) << Block;
  // No a fragments in the wgmma version: ldmatrix only in mma.sync's.
  EXPECT_NE(Block.find("mma.sync.aligned.m16n8k16"), std::string::npos) << Block;
  for (const char* K : {"A_halfRows", "A_narrowRows"}) {
    const std::string Body = entryBody(Ptx, K);
    EXPECT_EQ(countOf(Body, "wgmma.mma_async"), 2u) << K;
    EXPECT_TRUE(
        std::regex_search(Body, std::regex("\\{[^}]*\\}, \\{%r\\d+, %r\\d+, %r\\d+, %r\\d+\\}, "
                                           "%rd\\d+, 1, 1, 1, 1;")))
        << K << Body;
  }
  // 8-bit a as 8-bit b: K-major, one atom a row (8-row groups 1024 bytes apart).
  const std::string Bytes8 = entryBody(nativeTilePtx(Bytes, "sm_90a"), "Q_kMajor");
  EXPECT_TRUE(std::regex_search(
      Bytes8, std::regex("m64n64k32\\.s32\\.s8\\.s8 \\{[^}]*\\}, %rd\\d+, %rd\\d+, 1;")))
      << Bytes8;
}

// b tiles two 128-byte atoms wide are wgmma.m64n128k16: the descriptor's 8-row blocks 2048 bytes
// apart, the atoms of a block 1024 (SharedArray::RowAtoms). An array's rows take one width: the
// other tile loads as any tile.
TEST(NvptxWgmma, BTilesTwoAtomsWideAreN128) {
  std::string Ptx = nativeTilePtx(Kernels, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  const std::string TwoAtoms =
      std::to_string((uint64_t(64) << 16) | (uint64_t(128) << 32) | (uint64_t(1) << 62));
  std::string Wide = entryBody(Ptx, "W_wide");
  EXPECT_EQ(countOf(Wide, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"), 4u) << Wide;
  EXPECT_NE(Wide.find(TwoAtoms), std::string::npos) << Wide;
  std::string Mixed = entryBody(Ptx, "W_mixedWidths");
  EXPECT_EQ(countOf(Mixed, "wgmma.mma_async.sync.aligned.m64n64k16"), 4u) << Mixed;
  EXPECT_EQ(Mixed.find("m64n128k16"), std::string::npos) << Mixed;
  EXPECT_EQ(countOf(entryBody(Ptx, "W_fromShared"), "m64n64k16"), 4u);
}

// CAJETA_GPU_WGMMA_WIDE=0 keeps wgmma at one atom (n = 64): b two atoms wide takes mma.sync.
TEST(NvptxWgmma, OneAtomWhereAskedFor) {
  setenv("CAJETA_GPU_WGMMA_WIDE", "0", 1);
  std::string Ptx = nativeTilePtx(Kernels, "sm_90a");
  unsetenv("CAJETA_GPU_WGMMA_WIDE");
  ASSERT_FALSE(Ptx.empty());
  std::string Wide = entryBody(Ptx, "W_wide");
  EXPECT_EQ(Wide.find("wgmma"), std::string::npos) << Wide;
  EXPECT_NE(Wide.find("mma.sync.aligned"), std::string::npos) << Wide;
  EXPECT_EQ(countOf(entryBody(Ptx, "W_fromShared"), "m64n64k16"), 4u);
}

// b tiles four atoms wide are wgmma's n = 256 (CAJETA_GPU_WGMMA_WIDE=2 keeps them on mma.sync):
// the array's rows
// are four atoms (blocks of 8 rows 4096 bytes, the descriptor's stride offset), its block copies
// one box of a 4D view {an atom's columns, 8 rows, 4 atoms, blocks} (FourAtomRows), and a,
// staged in an array of one-atom rows, is read through its own descriptor. ptxas takes it.
TEST(NvptxWgmma, BTilesFourAtomsWideAreN256) {
  const char* Source = R"(import cajeta.xpu.*;
public final class N {
    @Kernel
    public static void wider(KernelBuffer<float32> c, KernelBuffer<float16> a, KernelBuffer<float16> b, uint32 m, uint32 n, uint32 k) {
        Shared<float16> sa = shared float16[32768];
        Shared<float16> sb = shared float16[65536];
        uint32 wave = KernelThread.x() / Wave.width();
        uint32 row0 = Workgroup.y() * 128;
        uint32 col0 = Workgroup.x() * 256;
        uint32 steps = (k + 63) / 64;
        Tile<float32, 16, 256> acc;
        for (uint32 kt = 0; kt < 2; kt++) {
            AsyncCopy.copyBlock(sa, kt % 4 * 8192, a, row0, kt * 64, m, k, k, 128, 64);
            AsyncCopy.copyBlock(sb, kt % 4 * 16384, b, kt * 64, col0, k, n, n, 64, 256);
            AsyncCopy.commit();
        }
        for (uint32 kt = 2; kt < steps + 2; kt++) {
            AsyncCopy.wait(1);
            Barrier.sync();
            uint32 pa = (kt - 2) % 4 * 8192 + wave * 1024;
            uint32 pb = (kt - 2) % 4 * 16384;
            Tile<float16, 16, 16> ta0 = Tile.load(sa, pa, 64);
            Tile<float16, 16, 256> tb0 = Tile.load(sb, pb, 256);
            Group.mac(acc, ta0, tb0);
            Tile<float16, 16, 16> ta1 = Tile.load(sa, pa + 16, 64);
            Tile<float16, 16, 256> tb1 = Tile.load(sb, pb + 4096, 256);
            Group.mac(acc, ta1, tb1);
            Tile<float16, 16, 16> ta2 = Tile.load(sa, pa + 32, 64);
            Tile<float16, 16, 256> tb2 = Tile.load(sb, pb + 8192, 256);
            Group.mac(acc, ta2, tb2);
            Tile<float16, 16, 16> ta3 = Tile.load(sa, pa + 48, 64);
            Tile<float16, 16, 256> tb3 = Tile.load(sb, pb + 12288, 256);
            Group.mac(acc, ta3, tb3);
            AsyncCopy.copyBlock(sa, kt % 4 * 8192, a, row0, kt * 64, m, k, k, 128, 64);
            AsyncCopy.copyBlock(sb, kt % 4 * 16384, b, kt * 64, col0, k, n, n, 64, 256);
            AsyncCopy.commit();
        }
        uint32 r0 = row0 + wave * 16;
        acc.store(c, r0 * n + col0, n, r0 < m ? Math.min(16, m - r0) : 0, col0 < n ? Math.min(256, n - col0) : 0);
    }
})";
  setenv("CAJETA_GPU_WGMMA_WIDE", "2", 1);
  const std::string Narrower = nativeTilePtx(Source, "sm_90a");
  unsetenv("CAJETA_GPU_WGMMA_WIDE");
  ASSERT_FALSE(Narrower.empty());
  EXPECT_EQ(entryBody(Narrower, "N_wider").find("wgmma"), std::string::npos);
  const std::string Ptx = nativeTilePtx(Source, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  for (const char* Entry : {"N_wider", "N_wider_tma"}) {
    const std::string Body = entryBody(Ptx, Entry);
    // Each mac one k16 product, a and b both through descriptors.
    const std::regex Product("wgmma\\.mma_async\\.sync\\.aligned\\.m64n256k16\\.f32\\.f16\\.f16 "
                             "\\{[^}]*\\}, %rd[0-9]+, %rd[0-9]+,");
    EXPECT_EQ(std::distance(std::sregex_iterator(Body.begin(), Body.end(), Product),
                            std::sregex_iterator()),
              4)
        << Entry;
  }
  // Four atoms a row: the stride offset between 8-row groups is 4096 bytes (>> 4: 256 in bits
  // 32-45), the leading offset 1024 (64 in bits 16-29), the 128-byte swizzle (bit 62).
  const std::string FourAtoms =
      std::to_string((uint64_t(64) << 16) | (uint64_t(256) << 32) | (uint64_t(1) << 62));
  EXPECT_NE(Ptx.find(FourAtoms), std::string::npos);
  const std::string Tma = entryBody(Ptx, "N_wider_tma");
  EXPECT_NE(Tma.find("cp.async.bulk.tensor.4d"), std::string::npos) << Tma;
  EXPECT_NE(Tma.find("cp.async.bulk.tensor.2d"), std::string::npos) << Tma;
  if (!testPtxas().empty()) {
    EXPECT_EQ(assembleError(Ptx, "sm_90a"), "");
  }
}

// One wgmma.fence before consecutive Group.macs whose registers were all written before it
// (ptxas issues their products as one group); a mac whose a fragments are loaded after the first
// product keeps its own.
TEST(NvptxWgmma, ConsecutiveProductsShareOneFence) {
  const char* Source = R"(import cajeta.xpu.*;
public final class F {
    @Kernel
    public static void together(KernelBuffer<float32> c) {
        Shared<float16> s = shared float16[8192];
        uint32 tid = KernelThread.x();
        s[tid] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 16, 64> acc0;
        Tile<float32, 16, 64> acc1;
        Tile<float16, 16, 16> ta0 = Tile.load(s, tid / 32 * 256, 16);
        Tile<float16, 16, 16> ta1 = Tile.load(s, 1024 + tid / 32 * 256, 16);
        Tile<float16, 16, 64> tb = Tile.load(s, 4096, 64);
        Group.mac(acc0, ta0, tb);
        Group.mac(acc1, ta1, tb);
        Group.mac(acc0, ta1, tb);
        acc0.store(c, tid / 32 * 1024, 64);
        acc1.store(c, 8192 + tid / 32 * 1024, 64);
    }
    @Kernel
    public static void loadedBetween(KernelBuffer<float32> c) {
        Shared<float16> s = shared float16[8192];
        uint32 tid = KernelThread.x();
        s[tid] = (float16) 1.0f;
        Barrier.sync();
        Tile<float32, 16, 64> acc0;
        Tile<float32, 16, 64> acc1;
        Tile<float16, 16, 64> tb = Tile.load(s, 4096, 64);
        Tile<float16, 16, 16> ta0 = Tile.load(s, tid / 32 * 256, 16);
        Group.mac(acc0, ta0, tb);
        Tile<float16, 16, 16> ta1 = Tile.load(s, 1024 + tid / 32 * 256, 16);
        Group.mac(acc1, ta1, tb);
        acc0.store(c, tid / 32 * 1024, 64);
        acc1.store(c, 8192 + tid / 32 * 1024, 64);
    }
}
)";
  const std::string Ptx = nativeTilePtx(Source, "sm_90a");
  ASSERT_FALSE(Ptx.empty());
  const std::string Together = entryBody(Ptx, "F_together");
  EXPECT_EQ(countOf(Together, "wgmma.mma_async"), 3u) << Together;
  EXPECT_EQ(countOf(Together, "wgmma.fence.sync.aligned"), 1u) << Together;
  const std::string Between = entryBody(Ptx, "F_loadedBetween");
  EXPECT_EQ(countOf(Between, "wgmma.mma_async"), 2u) << Between;
  EXPECT_EQ(countOf(Between, "wgmma.fence.sync.aligned"), 2u) << Between;
}

TEST(NvptxWgmma, NoOtherArchitectureHasIt) {
  for (const char* Sm : {"sm_90", "sm_80"}) {
    std::string Ptx = nativeTilePtx(Kernels, Sm);
    EXPECT_EQ(Ptx.find("wgmma"), std::string::npos) << Sm;
    EXPECT_EQ(Ptx.find("fence.proxy"), std::string::npos) << Sm;
  }
}

TEST(NvptxWgmma, OnlyProgramsItChangesGetAnSm90aPayload) {
  auto Targets = [](const char* Src) {
    driver::CompileResult R = driver::Compiler::compile("test.cj", Src, {});
    EXPECT_TRUE(R.Ok) << R.Diagnostics;
    std::string Names;
    for (const bundle::Payload& P : R.Program.Payloads)
      Names += P.Target + " ";
    return Names;
  };
  EXPECT_NE(Targets(Kernels).find("nvptx-sm_90a "), std::string::npos);
  std::string Plain = Targets(R"(import cajeta.xpu.*;
public final class P {
    @Kernel
    public static void f(KernelBuffer<float32> c) {
        Shared<float16> s = shared float16[8192];
        Tile<float32, 32, 64> acc;
        Tile<float16, 32, 32> a = Tile.load(s, 0, 32);
        Tile<float16, 32, 64> b = Tile.load(s, KernelThread.x() / 32 * 2048, 64);
        Group.mac(acc, a, b);
        acc.store(c, 0, 64);
    }
}
)");
  EXPECT_EQ(Plain.find("sm_90a"), std::string::npos) << Plain;
  EXPECT_NE(Plain.find("nvptx-sm_90 "), std::string::npos) << Plain;
}

} // namespace
} // namespace cajeta::test
