// Which b tiles of a kernel the sm_90a tile tier reads straight from shared memory (wgmma takes
// b through a shared-memory descriptor, a from registers). A b tile qualifies when reading it at
// its Group.mac instead of at its load gives the same value, for every wave of the group at once:
//
// - it is only ever loaded whole (no valid rows or columns given) from one shared array at an
//   offset uniform across the workgroup: float16 or bfloat16 row-major, 64 or 128 columns wide
//   with a stride of as many elements (rows of one or two 128-byte swizzle atoms; every such tile
//   of an array as wide), and a multiple of 16 deep; or int8 or uint8 column-major with a stride
//   of 128 (K-major: each column of b a row of one atom, which wgmma requires of 8-bit inputs),
//   a multiple of 32 deep up to 128 and a multiple of 16 wide up to 256;
// - each mac that multiplies by it follows one of its loads in the same block, with nothing
//   between that could change that array (no store, copy, atomic, call or barrier, nothing but
//   straight-line statements);
// - every mac reading it runs under control uniform across the workgroup in a kernel without
//   `return` or `break` (wgmma is issued by the four waves of a warpgroup together).
//
// Each array such a tile is loaded from is then swizzled (SharedArray::Swizzle128, and
// SharedArray::RowAtoms for rows of two atoms), unless the array is passed to a function (whose
// accesses would not be).
#pragma once

#include "compiler/kir/Kir.h"
#include "compiler/kir/transforms/TileFragments.h"

#include <map>
#include <set>

namespace cajeta::kir {

struct WgmmaOperands {
  std::set<uint32_t> Tiles;           // tile locals read from shared memory
  std::map<uint32_t, uint8_t> Arrays; // the shared arrays they are loaded from -> rows' atoms

  /// The b tiles of kernel F (whose tiles play Roles) that qualify, at most MaxAtoms (1 or 2)
  /// 128-byte atoms wide.
  static WgmmaOperands find(const Function& F, const std::map<uint32_t, tiles::Role>& Roles,
                            unsigned MaxAtoms);
};

} // namespace cajeta::kir
