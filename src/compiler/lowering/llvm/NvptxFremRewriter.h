// Rewrites LLVM `frem` into libdevice's fmod on NVPTX: the backend expands frem as
// x - trunc(x / y) * y, which is wrong for infinities, zeros and signs (fmod(-0, y) = -0,
// fmod(x, inf) = x, fmod(inf, y) = NaN); __nv_fmod[f] is exact IEEE fmod, as on the CPU.
#pragma once

namespace llvm {
class Module;
} // namespace llvm

namespace cajeta::lowering {

class NvptxFremRewriter {
public:
  /// Replaces every float/double (and half, through float) frem with a call to
  /// __nv_fmodf / __nv_fmod; libdevice must be linked afterwards. Returns how many it replaced.
  static unsigned run(llvm::Module& M);
};

} // namespace cajeta::lowering
