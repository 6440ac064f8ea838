// The CPU backend's leaves of the LoweringTarget seam: a kernel becomes a CajetaCpuKernelFn that
// loops over its workgroups and, inside each, over its work-items (the x loop vectorizes).
#pragma once

#include "compiler/lowering/LoweringTarget.h"

#include <memory>
#include <string>

namespace cajeta::lowering {

struct CpuTargetOptions {
  bool CheckBounds = false; // --check-bounds: each workgroup first checks the launch's Failed
  /// Wave.width(): the host SIMD vector's 32-bit lanes (waveWidthFor). Wave ops run in the
  /// portable tier (PortableWave), which only asks the target for the width.
  unsigned WaveWidth = 8;
  /// A kernel that reads only global coordinates runs a chunk's workgroups of one row as one
  /// loop over global x (CpuTarget::emitFlatPath); false: only on 1D launches, else one loop
  /// nest per workgroup (CAJETA_CPU_SPANS=0, for A/B runs).
  bool RowSpans = true;
};

/// The CPU wave width for a payload with these enabled target features ("+avx2,+fma,..."): 16
/// with AVX-512F (its 512-bit vectors are preferred), 8 with AVX, else 4.
unsigned waveWidthFor(const std::string& EnabledFeatures);

/// The CPU target over TM (which must outlive it).
std::unique_ptr<LoweringTarget> createCpuTarget(llvm::TargetMachine& TM, const CpuTargetOptions& O);

} // namespace cajeta::lowering
