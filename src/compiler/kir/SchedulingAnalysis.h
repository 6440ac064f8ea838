// The scheduling analysis: the scheduling section of a kernel's manifests (spec 17.8 "kernel
// manifests"), computed once per kernel from Sema's target-independent KIR.
//
// Costs are polynomials over the kernel's scalar parameters, "items" (the launch's work-items)
// and "groups" (its workgroups), taken as non-negative; every cost is an upper bound:
// - straight-line code runs once per work-item (a factor of items);
// - a counted loop (`for (k = s; k < b; k += c)` and its <=, >, >=, != forms, or a while loop
//   that steps its counter at the top level of its body; the counter stepped by a constant
//   once an iteration and assigned nowhere else; in a conjunction, the first such comparison)
//   multiplies its body by (b - s + c - 1) / c >= ceil((b - s) / c) (that exactly when it is a
//   constant), the bound and start polynomials in the parameters (through locals assigned
//   once); negative terms are dropped;
// - a grid-stride loop (`for (i, T v : buf.range(n))`, or `i` from the global id stepped by the
//   global size) costs n iterations across the launch, not per work-item; a group-stride loop
//   (local id stepped by the group size) b iterations per group. Both assume a 1-D launch: a
//   kernel that reads y or z geometry gets the per-work-item bound instead;
// - a branch costs the term-wise maximum of its two arms, for each buffer and for operations
//   (valid as the variables are >= 0); a select likewise; early returns and breaks are
//   ignored;
// - a helper call adds the helper's cost with its parameters replaced by the arguments;
// - a loop whose count is not such a polynomial (read from a buffer, depending on the
//   work-item, no condition) makes every non-zero cost inside it unknown, with the reason and
//   the loop's source line.
// Operations are integer and float arithmetic: negation, bitwise not, + - * / %, shifts and
// bitwise ops, the math builtins (fma counts 2), arithmetic atomics, and tile scale / add / mac
// (2 per multiply-add). Comparisons, logic, casts, selects, loads and stores, geometry and wave
// ops do not count. A tile op moves or computes its whole tile once per wave; a work-item is
// charged a quarter of it (the narrowest wave, 4 lanes).
#pragma once

#include "bundle/Manifest.h"
#include "compiler/kir/Kir.h"

#include <memory>

namespace cajeta::kir {

class SchedulingAnalysis {
public:
  /// M must have been through analyzeAccess (the restartability test reads ParamAccess).
  explicit SchedulingAnalysis(const Module& M);
  ~SchedulingAnalysis();

  /// The scheduling section of kernel K of M. Helper summaries are kept between calls, so
  /// analysing every kernel of M costs time linear in M's size.
  bundle::SchedulingManifest analyze(const Function& K);

  struct Impl; // the helper summaries and the walk (SchedulingAnalysis.cpp)

private:
  std::unique_ptr<Impl> P;
};

} // namespace cajeta::kir
