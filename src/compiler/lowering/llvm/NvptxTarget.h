// The NVIDIA backend's leaves of the LoweringTarget seam: a kernel becomes a PTX `.entry` with the
// parameter list of GpuKernelAbi.h, one work-item per thread.
#pragma once

#include "compiler/lowering/LoweringTarget.h"

#include <memory>
#include <string>
#include <vector>

namespace cajeta::lowering {

struct NvptxTargetOptions {
  const kir::Module* Module = nullptr; // the module being lowered (POD layouts)
  bool CheckBounds = false;            // --check-bounds: report through CajetaGpuStatus
  /// Math through libdevice's __nv_* functions (linked afterwards by NvptxLibdevice); otherwise
  /// transcendentals use approximate PTX instructions and a note says so.
  bool Libdevice = true;
  std::vector<std::string>* Notes = nullptr; // receives compiler notes (tiers, approximations)
};

/// The NVPTX target over TM (nvptx64-nvidia-cuda; it must outlive the target).
std::unique_ptr<LoweringTarget> createNvptxTarget(llvm::TargetMachine& TM,
                                                  const NvptxTargetOptions& O);

} // namespace cajeta::lowering
