// Barrier uniformity: finds barriers that some work-items of a group may skip (a barrier under
// control flow that depends on the work-item's identity, or after a divergent early return or
// break), and marks every function that contains a barrier, directly or through a helper.
#pragma once

#include "compiler/kir/Kir.h"

#include <string>
#include <vector>

namespace cajeta::kir {

struct UniformityProblem {
  SourceLoc Loc;
  uint32_t Length = 1; // characters to underline
  std::string Message;
};

/// Sets Function::HasBarrier (transitively through calls) and returns the barriers that can be
/// proved divergent. "Depends on the work-item's identity" means: computed from
/// KernelThread.x()/globalIdX() (directly, through locals, loads at such indices, atomics'
/// results, or helpers that read them). Values loaded at uniform indices and helper parameters
/// are taken as uniform: the language requires them to be, and no compiler can check it.
std::vector<UniformityProblem> checkBarrierUniformity(Module& M);

} // namespace cajeta::kir
