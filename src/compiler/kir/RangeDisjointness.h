// Whether two element ranges of one shared array can meet: what kir::TileLowering asks before it
// leaves wgmma products (which read a tile of a shared array until they are waited for) in flight
// across a copy into the same array. The pipelined GEMM's form is the one it proves: a ring of
// stages, each index `Period * (x % Stages) + rest` with the two x a constant apart (not a multiple
// of Stages) and each rest within one period, so the two ranges sit in different stages.
#pragma once

#include "compiler/kir/Kir.h"

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace cajeta::kir {

class RangeDisjointness {
public:
  /// WaveWidth: the target's wave width where it is one constant (Wave.width() is that), or 0.
  explicit RangeDisjointness(const Function& F, uint32_t WaveWidth = 0);

  /// One end of the question: elements [Index, Index + Length) of the array, Index evaluated at
  /// statement At (a statement of the function this was built for).
  struct Range {
    const Expr* Index;
    const Stmt* At;
    uint64_t Length;
  };
  /// Whether Earlier (evaluated first) and Later (evaluated after it, in the same execution of
  /// the block holding both) share no block of Block elements, for every work-item of a group
  /// of at most MaxGroup work-items (layouts such as the 128-byte swizzle permute elements only
  /// within such blocks). Locals assigned once read through their definition where it dominates
  /// the use and what it reads has not changed since; a local assigned more than once may only
  /// be a stage's counter, unchanged between the two statements.
  bool disjoint(const Range& Earlier, const Range& Later, uint64_t Block, uint32_t MaxGroup) const;
  /// The same question with Later evaluated one turn of Loop after Earlier (both in Loop's body):
  /// a stage counter either keeps its value throughout the loop or is the loop's counter, which
  /// only the loop's step changes, by adding a constant.
  bool disjointNextTurn(const Range& Earlier, const Range& Later, const Stmt* Loop, uint64_t Block,
                        uint32_t MaxGroup) const;

  /// The value local L holds where statement At runs, as the expression of its one assignment:
  /// null where L is assigned more than once, or that assignment does not dominate At, or what it
  /// reads may have changed between the two.
  const Expr* definitionAt(uint32_t L, const Stmt* At) const {
    return definition(L, Query{At, 0, nullptr});
  }

private:
  struct Interval {
    uint64_t Lo = 0, Hi = 0;
  };
  /// Period * ((Counter + Offset) % Stages), Stages a power of two.
  struct StageTerm {
    uint64_t Period = 0, Stages = 0;
    uint32_t Counter = 0; // a local assigned more than once
    uint32_t Offset = 0;  // modulo 2^32
  };
  /// An index as one optional stage term plus a rest within an interval.
  struct Form {
    std::optional<StageTerm> Stage;
    Interval Rest;
  };
  /// What a query needs while it walks: the statement the index is evaluated at, the group
  /// bound, and the counters it has read (each must keep its value between the two ends).
  struct Query {
    const Stmt* At;
    uint32_t MaxGroup;
    std::vector<uint32_t>* Counters;
  };

  std::optional<Form> form(const Expr* E, const Query& Q) const;
  /// The forms of both ends (the counters they read in Counters, each once); none where a range
  /// is empty or an index has no form.
  std::optional<std::pair<Form, Form>> forms(const Range& Earlier, const Range& Later,
                                             uint64_t Block, uint32_t MaxGroup,
                                             std::vector<uint32_t>& Counters) const;
  /// Whether ranges of the two forms share no block (disjoint's question, once the forms are
  /// known).
  bool apart(const Form& A, const Form& B, uint64_t EarlierLength, uint64_t LaterLength,
             uint64_t Block) const;
  /// What Loop's step adds to local L, its only change in the loop: `L = L + c`, or through a
  /// copy (`t = L; L = t + c`, a postfix increment).
  std::optional<uint32_t> stepIncrement(const Stmt* Loop, uint32_t L) const;
  std::optional<Interval> range(const Expr* E, const Query& Q) const;
  /// The counter and offset of a stage's x (a counter plus or minus constants).
  std::optional<std::pair<uint32_t, uint32_t>> counterPlus(const Expr* E, const Query& Q) const;
  /// The definition of local L, read at Q.At: null where L is assigned more than once or its
  /// one assignment does not dominate At or what it reads may have changed since.
  const Expr* definition(uint32_t L, const Query& Q) const;
  /// Whether local L may be assigned after statement From and before statement To executes.
  bool assignedBetween(uint32_t L, const Stmt* From, const Stmt* To) const;
  bool contains(const Stmt* Outer, const Stmt* S) const;

  void number(const Stmt* S, const Stmt* Parent);

  std::map<const Stmt*, uint32_t> Pos, End;        // pre-order position, end of its subtree
  std::map<const Stmt*, const Stmt*> ParentOf;     // the enclosing statement
  std::vector<std::vector<const Stmt*>> Assigners; // per local: the statements assigning it
  std::vector<const Stmt*> Definition;             // per local assigned once at a block's level
  uint32_t WaveWidth;
};

} // namespace cajeta::kir
