// Rewrites atomics and fences that LLVM 19's NVPTX back end cannot select into ones it can.
#pragma once

namespace llvm {
class Module;
} // namespace llvm

namespace cajeta::lowering {

class NvptxAtomicLegalizer {
public:
  /// LLVM 19's NVPTX instruction selection aborts the process (report_fatal_error) on atomic
  /// loads/stores stronger than monotonic and on fences. This turns every ordered atomic into a
  /// monotonic one (PTX: relaxed `atom`, volatile ld/st) bracketed by PTX fences, the mapping of
  /// the PTX memory model paper: release -> `fence.acq_rel` before, acquire -> `fence.acq_rel`
  /// after, seq_cst -> `fence.sc` before and `fence.acq_rel` after; acq_rel -> both. The fence
  /// scope is `.cta` for shared memory (address space 3) or a "block"/"workgroup" syncscope, else
  /// `.gpu`. An LLVM `fence` becomes the PTX fence of its ordering and scope.
  static void run(llvm::Module& M);
};

} // namespace cajeta::lowering
