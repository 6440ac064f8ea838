// Lowers tiles (Kir.h's TileOp) to plain KIR, once for every target: the tile loop, the element
// layout and the multiply-accumulate are written here and nowhere else.
//
// Two forms, chosen per target by the mma tier (TierSelection, Feature::CooperativeMatrix):
//
// - Portable (the software tile): each tile lives in a workgroup-shared array, one region of
//   Rows x Cols elements per wave. Lane l of a wave owns elements l, l + width, l + 2 width, ...
//   (row-major); fill, load, store, scale, add and convert touch only the lane's own elements,
//   and mac reads the whole of a and b, between two barriers. It needs only barriers and shared
//   memory, so every backend runs it; the scratch holds ScratchWaves waves per group (a launch
//   with more is refused: TargetManifest::TileWaves).
// - MmaSync (NVIDIA sm_80+): each tile is a set of per-lane locals in the register layout of
//   PTX's mma.sync fragments, by the role the tile plays in Group.mac (accumulator, a or b);
//   mac becomes IntrinsicOp::MmaSync per block: m16n8k16 for float16 or bfloat16 into float32,
//   m16n8k32 for int8 or uint8 into int32 (a and b pack two 16-bit or four 8-bit inputs per
//   register). It needs those types, shapes in whole fragments, and one role per tile
//   (fitsMmaSync). Whole tiles from aligned shared rows load through ldmatrix, except an 8-bit b
//   (whose registers hold four rows of one column: element loads).
// - CoopMatrix (Vulkan, SPV_KHR_cooperative_matrix): each tile is a grid of Type::Matrix locals
//   of 16 x 16 (float16) or 16 x 32 / 32 x 16 (int8 a and b) fragments, in the device's own
//   layout; load, store and mac are the extension's instructions per fragment. A load or store
//   of a partial or unaligned tile goes through a per-wave shared scratch of one fragment,
//   element by element; one whose operands' form proves it whole and 16-byte aligned
//   (kir::KnownMultiple) has neither that path nor its run-time test. It needs float16 into float32
//   or float16, or int8 / uint8 into int32, shapes in whole fragments, and one role per tile
//   (fitsCoopMatrix); the device must list the fragment shapes (the runtime checks the payload's
//   list before choosing it).
#pragma once

#include "compiler/kir/Kir.h"

#include <string>
#include <vector>

namespace cajeta::kir {

struct TileLoweringConfig {
  enum class Form : uint8_t { Portable, MmaSync, CoopMatrix };
  Form F = Form::Portable;
  /// Portable form: the scratch holds as many waves per workgroup as fit in SharedBudget bytes
  /// beside the kernel's own static shared arrays, at most MaxWaves (Function::TileWaves).
  uint32_t MaxWaves = 32;
  uint32_t SharedBudget = 48 * 1024;
  /// Portable form: the scratch holds exactly the launch's waves instead (SharedArray::PerWave,
  /// for targets that size shared memory when the group size is known: SPIR-V); the budget and
  /// MaxWaves are then unused and Function::TileWaves stays 0.
  bool ScratchSizedAtLaunch = false;
  /// Portable form: every tile op runs on the wave's first lane alone, as row-major loops with
  /// the columns innermost (for targets where a lane is one thread with vector units: the CPU,
  /// whose compiler turns each row into vector instructions), instead of each lane handling its
  /// own elements. Group.mac still adds each element's products in k order: the results are the
  /// same bit for bit.
  bool OnFirstLane = false;
  /// With OnFirstLane: Group.mac of bfloat16 into float32 (CpuDotBf16: AVX512-BF16) and of int8
  /// or uint8 into int32 (CpuDotInt8: AVX512-VNNI) as IntrinsicOp::TileDot (the CPU's native
  /// tier), every tile's shape in whole blocks (fitsCpuDot).
  bool CpuDotBf16 = false;
  bool CpuDotInt8 = false;
  /// With OnFirstLane: Group.mac of float32 into float32 whose a and accumulator rows are a
  /// multiple of 4 and columns of 16 as IntrinsicOp::TileDot too (the target's register-blocked
  /// loop instead of the row loops; the same products in the same order, so the same bits). Not
  /// a tier: float32 tiles are the software tile's on every tier.
  bool CpuDotF32 = false;
  /// MmaSync form on sm_90a: a b tile that WgmmaOperands finds readable at its macs stays in
  /// shared memory (its array swizzled), and each such mac is wgmma products over the wave's
  /// 16-row blocks (m64nNk16 for 16-bit inputs, m64nNk32 for 8-bit ones with b K-major) where
  /// the group is whole warpgroups and the tile sits at the start of a swizzle block, else the
  /// tile's fragments and mma.sync, as without.
  bool Wgmma = false;
  /// The widest b tile the Wgmma form takes, in 128-byte atoms (WgmmaOperands::find).
  unsigned WgmmaMaxAtoms = 1;
  /// The Wgmma form leaves a loop turn's products in flight into the next turn where the loop's
  /// writes are proved to miss what they read (the pipelined K-loop), instead of waiting for them
  /// before the turn ends.
  bool WgmmaAcrossSteps = false;
  /// MmaSync form: an accumulator tile of 4-byte elements stored row-major to a buffer goes as
  /// one 8-byte store (IntrinsicOp::StoreWords) per pair of adjacent columns a lane holds, where
  /// its offset and stride are even and the pair lies inside the valid block.
  bool PairStores = false;
  /// Receives "[wgmma] ..." notes where the Wgmma form could not keep products in flight across
  /// a copy, or runs only in groups up to a size: what a kernel's author can change.
  std::vector<std::string>* Notes = nullptr;
};

class TileLowering {
public:
  /// Whether every tile of every kernel of M has an mma.sync form; Why says what does not (with
  /// the source line), for the [mma-tiering] note.
  static bool fitsMmaSync(const Module& M, std::string& Why);
  /// Whether every tile of every kernel of M has the CPU's native form: products among bfloat16
  /// into float32 (with Bf16) and int8 or uint8 into int32 (with Int8), shapes in blocks of 4
  /// rows, 16 columns and a depth of 2 (bfloat16) or 4 (bytes); Why says what does not.
  static bool fitsCpuDot(const Module& M, bool Bf16, bool Int8, std::string& Why);
  /// Whether some kernel of M has a CoopMatrix form (that form is chosen per kernel: run leaves
  /// the others out with DoesNotFit); Why names the first tile that has none.
  static bool fitsCoopMatrix(const Module& M, std::string& Why);
  /// Whether any function of M uses a tile.
  static bool usesTiles(const Module& M);
  /// Whether some kernel of M has a b tile the sm_90a form reads from shared memory
  /// (WgmmaOperands, b tiles up to MaxAtoms 128-byte atoms wide), every tile of M having an
  /// mma.sync form.
  static bool usesWgmma(const Module& M, unsigned MaxAtoms);
  /// Rewrites F (a function of M, or a copy whose nodes live in M): no Tile expression and no
  /// tile local remain (tile locals become unused uint32 locals, so local indices keep). False
  /// with Error set when F holds a tile op that is not a statement of its own, or (DoesNotFit
  /// set) when the portable tile's scratch does not fit the target's shared-memory budget or F
  /// has no CoopMatrix form.
  static bool run(Module& M, Function& F, const TileLoweringConfig& C, std::string& Error,
                  bool& DoesNotFit);
  /// The shared bytes one wave's portable scratch takes in F (0 without tiles).
  static uint32_t portableBytesPerWave(const Function& F);
};

} // namespace cajeta::kir
