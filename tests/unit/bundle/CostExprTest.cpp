// Tests the cost expressions of scheduling manifests: their text and their value.
#include "bundle/CostExpr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

using namespace cajeta::bundle;

namespace {

CostExpr cost(std::vector<CostTerm> Terms) {
  CostExpr E;
  E.Terms = std::move(Terms);
  return E;
}

/// A lookup over a fixed table; names not in it have no value.
std::function<std::optional<double>(const std::string&)>
values(std::map<std::string, double> Table) {
  return [Table](const std::string& Name) -> std::optional<double> {
    auto It = Table.find(Name);
    return It == Table.end() ? std::nullopt : std::optional<double>(It->second);
  };
}

} // namespace

TEST(CostExpr, FormatsTermsInOrder) {
  EXPECT_EQ(formatCost(cost({{4, {"n"}}, {8, {"items"}}})), "4*n + 8*items");
  EXPECT_EQ(formatCost(cost({{2, {"n", "items"}}, {3, {}}})), "2*n*items + 3");
}

TEST(CostExpr, FormatsZeroOneAndFractions) {
  EXPECT_EQ(formatCost(CostExpr{}), "0");
  EXPECT_EQ(formatCost(cost({{1, {"n", "items"}}})), "n*items");
  EXPECT_EQ(formatCost(cost({{0.25, {"k"}}, {0.75, {}}})), "0.25*k + 0.75");
  EXPECT_EQ(formatCost(cost({{1, {}}})), "1");
}

TEST(CostExpr, FormatsNegativeTerms) {
  EXPECT_EQ(formatCost(cost({{4, {"n"}}, {-4, {}}})), "4*n - 4");
  EXPECT_EQ(formatCost(cost({{-1, {"n"}}})), "-n");
}

TEST(CostExpr, FormatsUnknownWithItsReason) {
  CostExpr E;
  E.Unknown = "loop at line 12 runs a count read from a buffer";
  EXPECT_EQ(formatCost(E), "unknown (loop at line 12 runs a count read from a buffer)");
  // The reason wins over any terms left in the struct.
  E.Terms = {{4, {"n"}}};
  EXPECT_EQ(formatCost(E), "unknown (loop at line 12 runs a count read from a buffer)");
}

TEST(CostExpr, Evaluates) {
  CostExpr E = cost({{4, {"n"}}, {8, {"items"}}, {0.5, {"n", "n"}}, {3, {}}});
  std::optional<double> V = evaluateCost(E, values({{"n", 10}, {"items", 256}}));
  ASSERT_TRUE(V);
  EXPECT_DOUBLE_EQ(*V, 4 * 10 + 8 * 256 + 0.5 * 100 + 3);
  EXPECT_EQ(evaluateCost(CostExpr{}, values({})), 0.0);
}

TEST(CostExpr, EvaluatesToNothingWhenUnknownOrAVariableHasNoValue) {
  CostExpr E = cost({{4, {"n"}}, {8, {"items"}}});
  EXPECT_FALSE(evaluateCost(E, values({{"items", 256}})));
  CostExpr U;
  U.Unknown = "why";
  EXPECT_FALSE(evaluateCost(U, values({{"n", 1}})));
  // A variable a zero coefficient multiplies still needs a value: no guessing.
  EXPECT_FALSE(evaluateCost(cost({{0, {"m"}}}), values({})));
}
