// The access-mode analysis: read / write / read-write per buffer parameter of every function.
#pragma once

#include "compiler/kir/Kir.h"

namespace cajeta::kir {
/// Fills Function::ParamAccess for every function; a buffer passed to a helper gets the helper's
/// access for that parameter.
void analyzeAccess(Module& M);
} // namespace cajeta::kir
