// The CPU backend's leaves of the LoweringTarget seam: a kernel becomes a CajetaCpuKernelFn that
// loops over its workgroups and, inside each, over its work-items (the x loop vectorizes).
#pragma once

#include "compiler/lowering/LoweringTarget.h"

#include <memory>

namespace cajeta::lowering {

struct CpuTargetOptions {
  bool CheckBounds = false; // --check-bounds: each workgroup first checks the launch's Failed
};

/// The CPU target over TM (which must outlive it).
std::unique_ptr<LoweringTarget> createCpuTarget(llvm::TargetMachine& TM, const CpuTargetOptions& O);

} // namespace cajeta::lowering
