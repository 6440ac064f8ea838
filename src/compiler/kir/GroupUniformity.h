// Workgroup uniformity of a kernel's values, for targets that run a workgroup's work-items one
// after another (the CPU): which locals hold the same value in every work-item of the group that
// is still running, which loops every such work-item runs the same number of times, and which
// locals are a cheap function of the work-item's coordinates. kir::ImplicitLoopBarriers turns
// the uniform loops into group loops and the CPU's work-item loop fission keeps uniform locals
// once per group (KernelFission.cpp), so that the loop over work-items becomes the innermost
// loop and vectorizes.
#pragma once

#include "compiler/kir/Kir.h"

#include <map>
#include <set>
#include <vector>

namespace cajeta::kir {

class GroupUniformity {
public:
  /// Analyses kernel F (uniform among the work-items that have not left by `return` or by a
  /// `break` of a loop they are parked in: see the .cpp). Given F's module, a call of a helper
  /// whose result is a function of its arguments alone (argumentsOnly) is uniform where its
  /// arguments are.
  explicit GroupUniformity(const Function& F, const Module* M = nullptr);

  /// Per function of M: whether it is a helper whose result is a function of its scalar
  /// arguments alone (it reads no coordinate, lane, buffer or array, has no barrier, atomic or
  /// wave op, and calls only such helpers).
  static std::vector<bool> argumentsOnly(const Module& M);

  /// E has the same value in every running work-item that evaluates it, at the point it is
  /// evaluated: constants, scalar parameters, group geometry, uniform locals and pure
  /// operations on them.
  bool isUniform(const Expr* E) const;
  bool isUniformLocal(uint32_t Local) const { return Local < Uniform.size() && Uniform[Local]; }
  /// An Eval statement that only assigns uniform locals from uniform values (`k = 0`, `k++`):
  /// running it once per group is running it in every work-item.
  bool isUniformStatement(const Stmt* S) const { return UniformStmts.count(S) != 0; }
  /// A loop that every running work-item reaching it enters with the same condition values
  /// each time (the condition uniform, reached under uniform control, no `continue` taken by
  /// some work-items only). Work-items may still leave it by `break` or `return`.
  bool isUniformLoop(const Stmt* S) const { return UniformLoops.count(S) != 0; }
  /// An Eval statement that every running work-item reaching it reaches together: its
  /// branches' conditions and its loops' are uniform.
  bool isUnderUniformControl(const Stmt* S) const { return UniformControlEvals.count(S) != 0; }
  /// The expression a local is recomputed from instead of being stored per work-item: the
  /// local is assigned once, at the kernel's top level, from constants, parameters, work-item
  /// and group coordinates and other such locals. Null otherwise.
  const Expr* rematerialization(uint32_t Local) const {
    auto It = Remat.find(Local);
    return It == Remat.end() ? nullptr : It->second;
  }
  /// The statement whose assignment rematerialization() replaces (emitted as nothing).
  bool isRematerializedAssignment(const Stmt* S) const { return RematStmts.count(S) != 0; }

private:
  void computeLoopLocality();
  /// One round of the optimistic fixed point; true when something changed.
  bool refine();
  void walk(const Stmt* S, bool UniformControl);
  void demoteAssignmentsIn(const Expr* E);
  void checkEval(const Stmt* S, bool UniformControl);
  /// Whether every read of Local is inside Loop and every assignment outside it comes before
  /// it in the block that holds it.
  bool isScopedTo(uint32_t Local, const Stmt* Loop) const;
  void computeRematerialization();
  bool isRematerializable(const Expr* E, const std::set<uint32_t>& Stable) const;
  /// A uniform local set only before Loop in its block and in Loop's step: the same all
  /// through each iteration of Loop's body.
  bool isStableIn(uint32_t Local, const Stmt* Loop) const;

  const Function& F;
  std::vector<bool> PureCallees; // argumentsOnly of F's module, empty without it
  std::vector<bool> Uniform;
  std::vector<bool> ReadOnlyParam; // buffer parameters the kernel never writes or passes on
  std::set<const Stmt*> UniformStmts, UniformLoops, UniformControlEvals;
  std::map<uint32_t, const Expr*> Remat;
  std::set<const Stmt*> RematStmts;
  /// Per local: the loops enclosing every read of it (outermost first), whether it is read,
  /// and each statement that assigns it with the loops around that statement.
  std::vector<std::vector<const Stmt*>> ReadLoops;
  std::vector<bool> Read;
  std::vector<std::vector<std::pair<const Stmt*, std::vector<const Stmt*>>>> AssignSites;
  /// Each statement of a block: the block and its position.
  std::map<const Stmt*, std::pair<const Stmt*, size_t>> Parent;
  // State of the fixed point.
  std::set<uint32_t> DivergentBreak, DivergentContinue; // loop ids
  std::map<uint32_t, bool> BodyUniform;                 // loop id -> its body's control
  std::vector<const Stmt*> BreakScopes;                 // enclosing loops left by a divergent break
  bool Changed = false;
};

} // namespace cajeta::kir
