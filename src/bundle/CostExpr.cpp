// Printing and evaluating cost expressions (CostExpr.h).
#include "bundle/CostExpr.h"

#include <charconv>
#include <cmath>

namespace cajeta::bundle {

static std::string formatNumber(double V) {
  if (std::isfinite(V) && V == std::nearbyint(V) && std::fabs(V) < 1e15)
    return std::to_string(static_cast<long long>(V));
  char Buf[64];
  auto [End, Ec] = std::to_chars(Buf, Buf + sizeof(Buf), V);
  return Ec == std::errc() ? std::string(Buf, End) : std::string("nan");
}

std::string formatCost(const CostExpr& E) {
  if (!E.Unknown.empty())
    return "unknown (" + E.Unknown + ")";
  std::string Out;
  for (const CostTerm& T : E.Terms) {
    double C = T.Coefficient;
    if (Out.empty()) {
      if (C < 0)
        Out += "-";
    } else {
      Out += C < 0 ? " - " : " + ";
    }
    C = std::fabs(C);
    std::string Vars;
    for (const std::string& V : T.Variables)
      Vars += (Vars.empty() ? "" : "*") + V;
    if (Vars.empty())
      Out += formatNumber(C);
    else if (C == 1)
      Out += Vars;
    else
      Out += formatNumber(C) + "*" + Vars;
  }
  return Out.empty() ? "0" : Out;
}

std::optional<double>
evaluateCost(const CostExpr& E,
             const std::function<std::optional<double>(const std::string&)>& Lookup) {
  if (!E.Unknown.empty())
    return std::nullopt;
  double Sum = 0;
  for (const CostTerm& T : E.Terms) {
    double Product = T.Coefficient;
    for (const std::string& V : T.Variables) {
      std::optional<double> Value = Lookup(V);
      if (!Value)
        return std::nullopt;
      Product *= *Value;
    }
    Sum += Product;
  }
  return Sum;
}

} // namespace cajeta::bundle
