// How the CPU backend narrows the workgroups of a kernel that cannot tell their shape.
#pragma once

#include <algorithm>
#include <cstdint>

namespace cajeta::xpu::rt {

/// A launch of a kernel that computes the same on any grouping (LaunchGeometry::GroupShapeFree)
/// runs in workgroups halved in x (BlockX halved, GridX doubled), while x stays even and a
/// vector of work-items wide, until there are as many as ThreadPool::parallelFor makes chunks
/// for Participants threads: a single workgroup of 256, a column sum over a 256-wide matrix, ran
/// on one thread. A kernel that runs loops once per workgroup (LaunchGeometry::GroupLoops) is
/// narrowed that way to GroupLoopGroups workgroups even on one thread: such a launch is a small
/// problem, and in narrower groups each pass over a group's work-items stays in the L1 cache and
/// a group whose work-items have all left skips the loops (one thread: CORR's triangular sums
/// down a 256 x 256 matrix 0.25x -> 0.5x the OpenMP loop, Gram-Schmidt's shrinking column
/// updates 0.1x -> 0.38x). Launches of more workgroups keep them (column sums down a 2048-wide
/// matrix ran 3x slower in groups of 32 than of 256: each pass then streams 128 bytes a row).
/// GroupsElsewhere: the grid's size in y times z.
inline void narrowGroupsInX(uint32_t& BlockX, uint32_t& GridX, uint64_t GroupsElsewhere,
                            unsigned Participants, bool GroupLoops) {
  constexpr uint32_t MinWidth = 16; // float32 lanes of an AVX-512 vector
  constexpr uint64_t GroupLoopGroups = 8;
  uint64_t Groups = uint64_t(GridX) * GroupsElsewhere;
  uint64_t Wanted = Participants > 1 ? uint64_t(Participants) * 4 : 0;
  if (GroupLoops)
    Wanted = std::max(Wanted, GroupLoopGroups);
  while (Groups < Wanted && BlockX % 2 == 0 && BlockX / 2 >= MinWidth && GridX <= UINT32_MAX / 2) {
    BlockX /= 2;
    GridX *= 2;
    Groups *= 2;
  }
}

} // namespace cajeta::xpu::rt
