// The CPU backend's narrowing of group-shape-free launches (runtime/backends/cpu/GroupNarrowing.h):
// to spread few workgroups over the threads, and, where the kernel runs loops once per
// workgroup, a launch of few workgroups on one thread too.
#include "runtime/backends/cpu/GroupNarrowing.h"

#include <gtest/gtest.h>

#include <utility>

using cajeta::xpu::rt::narrowGroupsInX;

namespace {

/// (block x, grid x) after narrowing.
std::pair<uint32_t, uint32_t> narrowed(uint32_t Block, uint32_t Grid, uint64_t Elsewhere,
                                       unsigned Participants, bool GroupLoops) {
  narrowGroupsInX(Block, Grid, Elsewhere, Participants, GroupLoops);
  return {Block, Grid};
}

} // namespace

TEST(GroupNarrowing, SpreadsFewWorkgroupsOverTheThreads) {
  using P = std::pair<uint32_t, uint32_t>;
  EXPECT_EQ(narrowed(256, 1, 1, 2, false), P(32, 8));   // eight chunks for two threads
  EXPECT_EQ(narrowed(256, 1, 1, 1, false), P(256, 1));  // one thread: nothing to spread
  EXPECT_EQ(narrowed(256, 8, 1, 2, false), P(256, 8));  // enough already
  EXPECT_EQ(narrowed(256, 1, 4, 2, false), P(128, 2));  // groups in y count too
  EXPECT_EQ(narrowed(256, 1, 1, 64, false), P(16, 16)); // never below a vector's lanes
  EXPECT_EQ(narrowed(40, 1, 1, 8, false), P(20, 2));    // nor to an odd width's half
}

TEST(GroupNarrowing, FewWorkgroupsOfGroupLoopsAreNarrowedOnOneThreadToo) {
  using P = std::pair<uint32_t, uint32_t>;
  EXPECT_EQ(narrowed(256, 1, 1, 1, true), P(32, 8));  // eight groups, one thread
  EXPECT_EQ(narrowed(256, 1, 1, 2, true), P(32, 8));  // as for two threads
  EXPECT_EQ(narrowed(256, 8, 1, 1, true), P(256, 8)); // enough groups: kept
  EXPECT_EQ(narrowed(256, 2, 2, 1, true), P(128, 4)); // 32 x 8 x ... groups count in y too
  EXPECT_EQ(narrowed(256, 1, 1, 4, true), P(16, 16)); // more threads want more
  EXPECT_EQ(narrowed(48, 1, 1, 1, true), P(24, 2));   // an odd half ends it
}
