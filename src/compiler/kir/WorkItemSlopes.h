// How the values of a kernel step from one work-item to the next along x, the innermost loop
// over a workgroup's work-items on the CPU: 0 (the same across a row), a known constant
// (1: contiguous), or not known. The CPU's cost model for running a loop once per group
// (kir::ImplicitLoopBarriers) and its bounds checks read it.
#pragma once

#include "compiler/kir/GroupUniformity.h"
#include "compiler/kir/Kir.h"

#include <cstdint>
#include <set>
#include <vector>

namespace cajeta::kir {

/// How an integer expression changes from one work-item to the next along x: by a known
/// constant, or in a way not known here.
struct Slope {
  bool Known = false;
  int64_t Step = 0;
  static Slope of(int64_t S) { return {true, S}; }
  static Slope unknown() { return {}; }
  bool isZero() const { return Known && Step == 0; }
};

class WorkItemSlopes {
public:
  WorkItemSlopes(const Function& F, const GroupUniformity& U);
  /// E's slope: coordinates along x step by 1 (y and z by 0), uniform values by 0, a local
  /// assigned once by its value's slope, sums and constant multiples accordingly.
  Slope of(const Expr* E);

private:
  bool allZero(const Expr* E);
  Slope binary(const Expr* E);

  const GroupUniformity& U;
  std::vector<std::vector<const Expr*>> Assignments;
  std::set<uint32_t> Visiting;
};

} // namespace cajeta::kir
