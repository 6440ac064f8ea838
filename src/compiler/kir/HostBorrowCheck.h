// The deferred-borrow-until-sync rule (spec 17.6) where the compiler can see it: in host code, a
// buffer lent to a launch is borrowed until that launch's stream is synced, so moving data in or
// out of it on another stream, or dropping it (assigning its variable another buffer), before
// that sync is an error. The runtime checks what this cannot see (BorrowError).
#pragma once

#include "compiler/kir/Kir.h"

#include <string>
#include <vector>

namespace cajeta::kir {

struct BorrowProblem {
  SourceLoc At;
  std::string Message; // names the transfer or drop and the launch that borrowed the buffer
};

/// The definite violations in host module M: straight-line code within each block, where both
/// streams are known (a local only ever assigned `heap KernelStream()`, or the current stream)
/// and known to differ. Control flow in between forgets what it might change (no false alarms).
std::vector<BorrowProblem> checkHostBorrows(const Module& M);

} // namespace cajeta::kir
