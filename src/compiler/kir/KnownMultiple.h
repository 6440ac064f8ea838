// The powers of two that a function's integer values are multiples of wherever they are
// evaluated: what lets a pass drop a run-time alignment test its operands' form already answers.
#pragma once

#include "compiler/kir/Kir.h"

#include <cstdint>
#include <vector>

namespace cajeta::kir {

class KnownMultiple {
public:
  /// Zero is a multiple of every power of two (values wrap modulo 2^32 or more).
  static constexpr uint64_t Any = uint64_t(1) << 32;

  /// Reads F's locals: each is a multiple of what every value assigned to it is (a fixpoint
  /// over F's assignments; a local an intrinsic may write in place is a multiple of 1).
  explicit KnownMultiple(const Function& F);

  /// A power of two that integer E is a multiple of in every evaluation, read from its form
  /// (constants, products, sums, remainders, shifts, selects, casts between integers) and its
  /// locals' assignments: 1 where nothing is known, Any for zero.
  uint64_t of(const Expr* E) const;

private:
  std::vector<uint64_t> Locals; // by local index
};

} // namespace cajeta::kir
