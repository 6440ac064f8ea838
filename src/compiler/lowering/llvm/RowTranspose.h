// Row walks vectorized across their work-items on the CPU, with each work-item's row loaded a
// vector's width of elements at a time and transposed in registers.
//
// WorkItemJam fuses the row loops of several work-items (`for (k < m) sum += a[j * m + k] * x[k]`,
// j the work-item): each keeps its own chain of adds in its own order. Run across the work-items
// as one vector, their loads of a[j * m + k] would be gathers (a row apart). Eight iterations at a
// time they are not: each work-item's eight elements are one vector load, and an 8 x 8 transpose
// in registers turns the eight loads into eight vectors of one k each, across the work-items. The
// loop then runs as vector operations, lane q the jam's copy q, step k before step k + 1: every
// work-item adds the same products in the same order as before, so the results are the same bits.
// Loads that every work-item shares (x[k]) are one vector load and a broadcast per step.
//
// Taken where the row loop is one block whose loads are float32 with a stride of one element per
// iteration and whose float values are float32 arithmetic (add, subtract, multiply, divide,
// negate, fmuladd) on them, the loop's float phis and values from outside the loop; at least one
// load must differ between work-items. The vector loop runs the first multiple of eight below the
// trip count; the jammed loop (scalar) runs the rest, at least one iteration.
#pragma once

namespace llvm {
class DominatorTree;
class Loop;
class ScalarEvolution;
} // namespace llvm

namespace cajeta::lowering {

class RowTranspose {
public:
  /// The work-items one vector runs (the jam's factor where this applies) and the row's elements
  /// one transposed block holds, for a row loop with Walks loads that differ between work-items:
  /// a vector of float32 as wide as the target's (8 or 16), but 8 where there are several walks
  /// (two 16 x 16 blocks take all 32 AVX-512 registers: GESUMMV's and SYR2K's loops spilled and
  /// ran 15-20 % slower than with 8 x 8 blocks; one walk keeps 16, a third faster for SYRK).
  static unsigned lanesFor(unsigned VectorBits, unsigned Walks) {
    return VectorBits >= 512 && Walks <= 1 ? 16 : 8;
  }
  /// Whether Row, the one loop of the loop over work-items Outer (before the jam), has the form
  /// above: the number of its loads that differ between work-items (the rows it walks), 0 where
  /// it does not fit.
  static unsigned fits(const llvm::Loop& Row, const llvm::Loop& Outer, llvm::ScalarEvolution& SE);
  /// What the vector loops may add to the plain transpose (each switchable for A/B runs).
  struct Options {
    /// Keep the transposed blocks for the group's later rows, where ColumnCache::rowsLoop allows.
    bool KeepColumns = true;
    /// Where a work-item walks several rows, prefetch each PrefetchAhead elements ahead.
    bool Prefetch = true;
  };
  /// How far ahead the rows of several walks are prefetched: 512 bytes, eight cache lines. Eight
  /// work-items walking two rows each are 16 streams of half a cache line a trip; GESUMMV's two
  /// matrices from memory took 0.73-2.12 ms without it and 0.67-0.88 ms with it (medians 1.39 and
  /// 0.70 ms over five runs each on a noisy 2-core VM; 64 and 128 elements ahead alike). Rows of
  /// one walk (ATAX, BICG, MVT: 16 rows of a line a trip) measured no gain, and go without.
  static constexpr unsigned PrefetchAhead = 128;

  /// Puts the vector loop before L, the jammed row loop (Lanes copies of a loop that fits, each
  /// copy's float phis together, copy by copy), which then runs the iterations that remain; with
  /// Opts.KeepColumns, where ColumnCache::rowsLoop allows, two more vector loops that keep the
  /// transposed blocks for the group's later rows and load them back. False (nothing changed)
  /// where the copies do not match.
  static bool vectorize(llvm::Loop& L, const llvm::DominatorTree& DT, llvm::ScalarEvolution& SE,
                        unsigned Lanes, Options Opts);
};

} // namespace cajeta::lowering
