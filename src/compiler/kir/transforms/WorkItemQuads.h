// A GPU rewrite of element-wise kernels: each work-item of a second entry runs four neighbouring
// work-items of the kernel (global indices 4t .. 4t + 3), their loads side by side and then their
// stores, so that the code generator can move a work-item's four elements of a buffer in one
// 128-bit access (float32) where one work-item moved one. A one-element-per-thread kernel on the
// H200 reaches about 80 % of the device-to-device copy bandwidth; four elements per thread in
// vector accesses reach the copy's own.
//
// The kernels it takes are the `if (i < n) { ... }` form (or `if (i >= n) return; ...`) with i
// the global index in x and n a 32-bit parameter (uint32; or int32 with `int32 i = (int32) the
// global index`, compared signed), and the grid-stride loop `for (i, T v
// : buf.range(n))` whose steps depend on their index alone, whose guarded statements have no
// loop, return, call, wave, tile, shared or private array or coordinate but the global index
// (`if`s are fine: their conditions' loads are hoisted, their branches run per copy). Work-items
// run unordered, so the four copies may interleave in any way that keeps each copy's own order; the
// rewrite loads every copy's operands of a statement before any copy's store of it. The runtime
// takes the entry where n is at most the launch's global size in x (so no work-item past the launch
// would do anything), on a grid of ceil(n / 4) work-items, and for the grid-stride form on the
// launch's own grid when n is larger.
#pragma once

#include "bundle/Manifest.h"
#include "compiler/kir/Kir.h"

namespace cajeta::kir {

class WorkItemQuads {
public:
  /// The work-items each work-item of the quad entry runs.
  static constexpr unsigned Width = bundle::TargetManifest::QuadWidth;
  /// The scalar parameter (uint32 or int32) K's guard compares the global index in x with, or -1
  /// where K has no quad form.
  static int countParam(const Function& K);
  /// Whether K's quad entry is exact on any grid: the grid-stride form (`for (i, T v :
  /// buf.range(n))` whose steps each depend on their index alone), which walks quads a grid of
  /// quads apart. The guarded form's is exact only where n is within the launch.
  static bool anyGrid(const Function& K);
  /// Rewrites F (a copy the caller owns, new nodes in Scratch) into the quad entry:
  /// `$base = global_id x * 4; if ($base + 3 < n) { the four copies, guards dropped, loads of
  /// each statement first } else { each copy under its own guard }`. False, changing nothing,
  /// where countParam(F) < 0. With WholeChunks (targets without a vectorizer of their own:
  /// SPIR-V), the fast path's four loads of a buffer of 4-byte elements at the copies' indices
  /// read one 16-byte chunk (LoadWord) and the four stores write it whole (StoreWords).
  static bool rewrite(Function& F, Module& Scratch, bool WholeChunks = false);
};

} // namespace cajeta::kir
