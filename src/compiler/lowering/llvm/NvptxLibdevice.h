// Finds CUDA's libdevice bitcode and links the __nv_* math functions a module calls into it.
#pragma once

#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace cajeta::lowering {

class NvptxLibdevice {
public:
  /// $CAJETA_LIBDEVICE if set (an empty value disables libdevice), else
  /// $CUDA_HOME/nvvm/libdevice/libdevice.10.bc, else
  /// /usr/local/cuda/nvvm/libdevice/libdevice.10.bc; empty when no such file exists.
  static std::string findPath();

  /// Whether M calls any __nv_* function (only then is libdevice needed).
  static bool isNeeded(const llvm::Module& M);

  /// Links the __nv_* functions M calls from the libdevice at Path (read once per process),
  /// resolves __nvvm_reflect (__CUDA_FTZ = 0, __CUDA_PREC_DIV = 1, __CUDA_PREC_SQRT = 1,
  /// __CUDA_ARCH = SmVersion * 10) and internalises everything it brought in. On failure returns
  /// false with Error naming the file and the problem.
  static bool link(llvm::Module& M, const std::string& Path, unsigned SmVersion,
                   std::string& Error);
};

} // namespace cajeta::lowering
