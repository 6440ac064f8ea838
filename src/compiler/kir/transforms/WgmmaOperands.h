// Which tiles of a kernel the sm_90a tile tier reads straight from shared memory (wgmma takes
// b through a shared-memory descriptor, and a from registers or through a descriptor too). A b
// tile qualifies when reading it at its Group.mac instead of at its load gives the same value,
// for every wave of the group at once:
//
// - it is only ever loaded whole (no valid rows or columns given) from one shared array at an
//   offset uniform across the workgroup: float16 or bfloat16 row-major, 64, 128 or 256 columns
//   wide with a stride of as many elements (rows of one, two or four 128-byte swizzle atoms;
//   every such tile of an array as wide), and a multiple of 16 deep; or int8 or uint8
//   column-major with a stride of 128 (K-major: each column of b a row of one atom, which wgmma
//   requires of 8-bit inputs), a multiple of 32 deep up to 128 and a multiple of 16 wide up to
//   256;
// - each mac that multiplies by it follows one of its loads in the same block, with nothing
//   between that could change that array (no store, copy, atomic, call or barrier, nothing but
//   straight-line statements);
// - every mac reading it runs under control uniform across the workgroup in a kernel without
//   `return` or `break` (wgmma is issued by the four waves of a warpgroup together).
//
// An a tile qualifies where the four waves of a warpgroup together hold one 64-row block of
// shared memory, which wgmma then reads through one descriptor: it is 16 rows of float16,
// bfloat16, int8 or uint8, loaded whole and row-major (K-major) with a stride of its array's row
// width (one, two or four atoms), at most one atom of K, at an offset
// `u + (x / width) * 16 * stride` with u uniform across the group and x the work-item's x index
// (so each wave's rows follow the previous wave's, in groups whose x size is a multiple of 128);
// every mac reading it reads a b tile that qualifies, and the same rules of place and control as
// b's hold for its load.
//
// Each array such a tile is loaded from is then swizzled (SharedArray::Swizzle128, and
// SharedArray::RowAtoms for rows of several atoms), unless the array is passed to a function
// (whose accesses would not be).
#pragma once

#include "compiler/kir/Kir.h"
#include "compiler/kir/transforms/TileFragments.h"

#include <map>
#include <set>

namespace cajeta::kir {

struct WgmmaOperands {
  std::set<uint32_t> Tiles;           // b tile locals read from shared memory
  std::set<uint32_t> ATiles;          // a tile locals read from shared memory (their macs' b too)
  std::map<uint32_t, uint8_t> Arrays; // the shared arrays they are loaded from -> rows' atoms

  /// The b and a tiles of kernel F (whose tiles play Roles) that qualify, in arrays of at most
  /// MaxAtoms (1, 2 or 4) 128-byte atoms a row.
  static WgmmaOperands find(const Function& F, const std::map<uint32_t, tiles::Role>& Roles,
                            unsigned MaxAtoms);
};

} // namespace cajeta::kir
