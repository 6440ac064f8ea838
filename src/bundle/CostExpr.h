// Printing and evaluating a manifest's cost expressions (Manifest.h's CostExpr): the compiler's
// `cajeta inspect` and the runtime's scheduler read the same polynomial the same way.
#pragma once

#include "bundle/Manifest.h"

#include <functional>
#include <optional>
#include <string>

namespace cajeta::bundle {

/// E as text: "4*n + 8*items", "0" for no terms, "unknown (<reason>)" when E.Unknown is set.
/// A coefficient of 1 is left out before variables; integral coefficients print without a
/// fraction, others in the shortest form that reads back exactly.
std::string formatCost(const CostExpr& E);

/// E's value with each variable's value from Lookup; nullopt when E is unknown or Lookup has no
/// value for one of its variables.
std::optional<double>
evaluateCost(const CostExpr& E,
             const std::function<std::optional<double>(const std::string&)>& Lookup);

} // namespace cajeta::bundle
