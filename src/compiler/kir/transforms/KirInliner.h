// A KIR -> KIR inliner for the CPU's barrier fission: copies a kernel with every call of a helper
// that contains a barrier (Function::HasBarrier) replaced by the helper's body.
#pragma once

#include "compiler/kir/Kir.h"

#include <memory>
#include <string>

namespace cajeta::kir {

/// Scalar parameters become fresh locals assigned from the arguments; buffer and POD parameters
/// are replaced by the argument expression; the helper's locals and loop ids are renumbered;
/// `return v` becomes an assignment to a fresh result local and a `break` out of a one-shot
/// wrapper loop (no wrapper when the only return is the helper's last statement). Such a call
/// must be a statement of its own (`f(...);`), the value of an assignment to a local
/// (`x = f(...);`) or, inside an inlined helper, a returned value; its arguments must not call a
/// barrier helper. Recursion is impossible (Sema rejects it).
class KirInliner {
public:
  /// The inlined copy of kernel K of M. New nodes are allocated in Scratch, which must outlive
  /// the copy; unchanged parts may share M's nodes. Null with Error set on unsupported KIR.
  /// With AlsoWaveHelpers, helpers that use wave ops (Function::UsesWave) are inlined too (the
  /// portable wave tier rewrites wave ops in the kernel body only).
  static std::unique_ptr<kir::Function> inlineBarrierCalls(const kir::Module& M,
                                                           const kir::Function& K,
                                                           kir::Module& Scratch, std::string& Error,
                                                           bool AlsoWaveHelpers = false);
};

} // namespace cajeta::kir
