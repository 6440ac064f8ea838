// The host's leaves of the LoweringTarget seam: host methods run on the CPU that runs the
// program, as ordinary functions. They have no work-items, workgroups or kernels, so every
// coordinate, wave and kernel leaf is absent; only the TargetMachine matters.
#pragma once

#include "compiler/lowering/LoweringTarget.h"

#include <memory>

namespace cajeta::lowering {

/// The host target over TM (which must outlive it).
std::unique_ptr<LoweringTarget> createHostTarget(llvm::TargetMachine& TM);

} // namespace cajeta::lowering
