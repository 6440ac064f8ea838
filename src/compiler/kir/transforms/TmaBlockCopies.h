// NVIDIA sm_90a: a kernel's block copies (AsyncCopy.copyBlock) through the tensor memory
// accelerator (TMA), in a second entry of the kernel that the runtime takes where the launch's
// matrices allow (bundle::TargetManifest::TmaSymbol). The plain entry deals each block round the
// group as cp.async chunks (kir::AsyncBlockCopyLowering): some 40 instructions per 16 bytes in
// every thread. In the TMA entry one work-item issues the whole block as boxes of a tensor map
// that the runtime encodes at launch (bundle::TensorMapRecipe); the accelerator zero-fills what
// lies outside the matrix, as the chunks do.
//
// Each group of copies (what one AsyncCopy.commit closes) completes on a ring of S shared-memory
// barriers ("full": one arrival, by work-item 0 at the commit, plus the boxes' bytes) that every
// work-item waits on where AsyncCopy.wait leaves that group behind, then arrives at the group's
// "empty" barrier (one arrival per wave, whose lanes reach it together): work-item 0 reuses a
// slot only after every work-item has seen its last phase, so no work-item can miss a phase however
// far it lags. A commit that would leave S groups unwaited first waits for the oldest; the kernel
// waits for all of them before it ends (the accelerator must not write a finished group's memory).
//
// A kernel gets the entry where every block copy, commit and wait is reached by the whole group
// together (uniform control, no `return`, no `break` or `continue` in a loop around one, no
// helper that commits or waits), and each copy's buffer is a kernel parameter and its matrix's
// height, width and stride parameters or constants. Where the layout the tile lowering gives its
// shared array has no box form (see lower()), or its destination is not aligned at run time, a
// copy falls back to the chunks, which the entry's waits also wait for.
#pragma once

#include "compiler/kir/Kir.h"

#include <string>

namespace cajeta::kir {

class TmaBlockCopies {
public:
  /// Before kir::AsyncBlockCopyLowering: appends to M the TMA entry of kernel M.Functions[I]
  /// where it qualifies (Function::TmaEntryOf; symbol and name with a "_tma" suffix), its block
  /// copies left for lower() (AsyncCopyBlock Dim 1).
  static void addEntry(Module& M, size_t I);
  /// After kir::TileLowering, on a TMA entry: its block copies, commits and waits as the
  /// accelerator's leaves (IntrinsicOp::MbarrierInit .. MbarrierWait) and F.TensorMaps. Each
  /// copy is one box: into a plain array, rows a multiple of 16 bytes; into a 128-byte swizzled
  /// array of one-atom rows, rows of one atom; into one of two-atom rows (SharedArray::RowAtoms),
  /// whole blocks of 8 array rows through a 4D view (bundle::TensorMapRecipe::Blocks) of two-atom
  /// rows, or of one-atom rows two to an array row (its first row a multiple of 16). The unit's
  /// cost is per box: 8-row boxes, 48 a stage, ran the H100 GEMM at two thirds of the chunks'
  /// speed. Where no copy has a box form, F is left out (Backends "none").
  static void lower(Module& M, Function& F);
  /// Whether some kernel of M gets a TMA entry (addEntry), on a target that has the accelerator.
  static bool appliesTo(const Module& M);
  /// The ring's size: groups of copies in flight before a commit waits for the oldest.
  static constexpr uint32_t Slots = 8;
};

} // namespace cajeta::kir
