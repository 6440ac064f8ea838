// Unroll-and-jam of a work-item's counted loop around an inner loop, for the CPU's fission. A
// triangular sum as GPU kernels write it (CORR, COVAR):
//
//   for (j2 = j1 + 1; j2 < m; j2++) {
//     sum = 0; for (i = 0; i < n; i++) sum += data[i * m + j1] * data[i * m + j2];
//     sym[j1 * m + j2] = sum; ...
//   }
//
// runs its inner loop once per group around the work-items (kir::ImplicitLoopBarriers), one
// product a pass for each j2, both loads walking rows of the matrix out of the L1 cache. Jammed
// by Factor, each pass does Factor j2's at once: `data[i * m + j1]` is loaded once for them,
// their neighbouring rows' elements come from the cache lines just loaded, and the sums are
// Factor independent chains:
//
//   start = j1 + 1; count = start < m ? (m - start) / 4 : 0;
//   for (q = 0; q < count; q++) { j2_u = start + 4 q + u (u < 4); sum_u = 0;
//     for (i = 0; i < n; i++) { sum_0 += ...j2_0...; ...; sum_3 += ...j2_3...; }
//     stores of sum_0, ..., sum_3 }
//   for (j2 = start + 4 count; j2 < m; j2++) { the body as it was }
//
// Both loops keep the counted form the fission runs once per group (kir::CounterForm), and
// j2_u stays a function of the coordinates and of q. Each j2 still computes its own sum in its
// own order: the results are bit for bit the same. Legal because the body reads only buffers the
// kernel never writes, stores only after the inner loop (in the order the iterations would), and
// every local it assigns starts afresh in each iteration; taken only in that shape: a 32- or
// 64-bit counter stepped by one and compared with `<` against a value the loop does not change,
// a body of straight-line statements around one inner counted loop whose trip count does not
// depend on the counter, no break, continue, return, call, barrier, atomic, wave, tile, shared
// or private memory.
#pragma once

#include "compiler/kir/Kir.h"

namespace cajeta::kir {

class LoopJam {
public:
  static constexpr unsigned Factor = 4;
  /// Jams every loop of kernel F (nodes in M) of that shape; false where none was.
  static bool run(Module& M, Function& F);
};

} // namespace cajeta::kir
