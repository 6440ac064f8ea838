// Where wave operations may stand inside a statement: the rules that let every backend run them
// with every lane present, and let the portable tier hoist each one into statements of its own.
#pragma once

#include "compiler/kir/UniformityAnalysis.h"

#include <vector>

namespace cajeta::kir {

/// Checks every convergent wave op (all but Wave.width/laneId) and every call of a helper that
/// uses one (Function::UsesWave, set by checkBarrierUniformity, which must run first):
///  - not in a loop's condition or step, nor in a conditionally evaluated operand (the arms of
///    ?:, the right side of && and ||);
///  - nothing evaluated before it in its statement has a side effect (an assignment, a store,
///    an atomic, a call of a helper that writes memory), except what consumes its result;
///  - a helper call: a statement of its own, the value assigned to a local, or a returned value.
std::vector<UniformityProblem> checkWavePlacement(const Module& M);

} // namespace cajeta::kir
