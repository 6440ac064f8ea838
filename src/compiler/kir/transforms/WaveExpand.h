// The wave composites, written once in KIR (the model of MLIR's SubgroupReduceLowering and
// Halide's LowerWarpShuffles): every kir::WaveOp a native tier does not provide is rewritten into
// the few primitives it does (WavePrimitives): Width, LaneId, ShuffleWord (a 32-bit word read
// from an in-range lane), Ballot, All, Any, and where the tier has them its native 32-bit
// integer reductions, scans and broadcast. The orders are Kir.h's (the butterfly for reductions,
// Hillis-Steele for scans), so every tier computes the same bits.
#pragma once

#include "compiler/kir/Kir.h"

#include <string>

namespace cajeta::kir {

/// What a wave tier provides besides Width, LaneId, ShuffleWord, Ballot, All and Any.
struct WavePrimitives {
  /// The tier has the primitives at all. False (a target without native waves): WaveExpand does
  /// not run in the native tier and the emitter reports every wave op as needing the portable
  /// tier.
  bool Available = false;
  /// Lanes per wave when the target fixes it at compile time (NVPTX: 32): the loops over the
  /// width are emitted unrolled. 0: known only at run time (a SPIR-V subgroup): KIR loops.
  uint32_t ConstantWidth = 0;
  /// ReduceSum..ReduceXor of int32 / uint32 as one native operation (redux.sync, Vulkan
  /// GroupNonUniformArithmetic).
  bool ReduceInt32 = false;
  /// InclusiveSum / ExclusiveSum of int32 / uint32 as one native operation.
  bool ScanInt32 = false;
  /// The integer reductions and scans above take int64 / uint64 too (the portable tier's
  /// one-exchange gather).
  bool Int64Arithmetic = false;
  /// BroadcastFirst of a uint32 word as one native operation (else a ShuffleWord of lane 0).
  bool BroadcastFirstWord = false;

  /// Whether the tier takes E (a Wave expression) as it is.
  bool provides(const Expr& E) const;
};

class WaveExpand {
public:
  /// Rewrites, in place, every wave op of F (a function whose nodes live in M) that P does not
  /// provide. A composite becomes statements placed before the statement that holds it (Sema's
  /// placement rules let it move there: never in a loop's condition or step, nor in a
  /// conditionally evaluated operand) and a local that holds its value. False with Error set on
  /// malformed KIR.
  static bool run(Module& M, Function& F, const WavePrimitives& P, std::string& Error);
};

} // namespace cajeta::kir
