// The language's value rules as KIR -> KIR legalization (Tint's BuiltinPolyfill, Halide's
// lower_euclidean_div): each rule is written once, over KIR, and a target's pipeline picks the
// ones its emitter does not give by itself. A rewrite yields ordinary KIR plus the raw
// primitives of Kir.h (DivTrunc, RemTrunc, ShiftLeft, ShiftRight, FToIUnchecked, Bitcast), whose
// operands it has guarded, so the emitters map them onto single machine operations.
#pragma once

#include "compiler/kir/Kir.h"

#include <string>

namespace cajeta::kir {

/// Which rules a target has KIR spell out.
struct PolyfillConfig {
  /// Integer / and %: x / 0 == 0, x % 0 == 0, MIN / -1 == MIN, MIN % -1 == 0, over
  /// DivTrunc/RemTrunc with a divisor that cannot be 0 (or -1 for signed).
  bool IntDivRem = false;
  /// With IntDivRem: signed / and % divide the magnitudes as unsigned and apply the signs, so
  /// the machine's signed division is never used (NVIDIA's Vulkan driver got OpSDiv/OpSRem wrong
  /// for negative operands).
  bool SignedDivByMagnitude = false;
  /// <<, >>, >>>: the count masked to the width, over ShiftLeft/ShiftRight.
  bool ShiftMask = false;
  /// float -> int casts: toward zero, saturating, NaN -> 0, over FToIUnchecked.
  bool SaturatingFToI = false;
  /// Math.min/max on floats: NaN wins, -0 < +0 (Min/Max intrinsics of float type).
  bool JavaMinMax = false;
  /// float64 -> float16 casts round once: through float32 rounded to odd.
  bool F64ToF16Once = false;
  /// Float %: C's fmod, exact, computed on the bits in a helper function the pass adds to the
  /// module (one per width).
  bool ExactFRem = false;

  bool any() const {
    return IntDivRem || ShiftMask || SaturatingFToI || JavaMinMax || F64ToF16Once || ExactFRem;
  }
  /// The LLVM targets (CPU, NVPTX): LLVM has fptosi.sat, llvm.minimum/maximum, a correctly
  /// rounded fptrunc and an exact frem, but no total integer division or masked shift.
  static PolyfillConfig llvm();
  /// SPIR-V: every rule.
  static PolyfillConfig spirv();
  /// A config by name: "llvm" (also "cpu", "cuda") or "spirv" (also "vulkan"); false otherwise.
  static bool byName(const std::string& Name, PolyfillConfig& Out);
};

class Polyfill {
public:
  /// Rewrites, in place, every expression of F that a rule of C covers. F belongs to M (its nodes
  /// are M's and owned by F alone); temporaries become new locals of F. A rule may append a
  /// helper function to M (ExactFRem), so M.Functions can grow: index it, do not iterate it.
  static void run(Module& M, Function& F, const PolyfillConfig& C);
};

} // namespace cajeta::kir
