// bfloat16 as KIR -> KIR legalization, for every target: no emitter computes in bfloat16.
//
// After the pass a bfloat16 *value* is its bits in a uint16 (locals, helper parameters and
// results, every expression), and arithmetic on it is float32 arithmetic rounded back, to nearest
// even, once per operation. float32's 24 bits are at least twice bfloat16's 8 plus two, so for
// + - * / and sqrt the float32 result rounded again is the correctly rounded bfloat16 result;
// the other math functions are float32's, rounded once more (Math.fma among them: the float32
// fma rounded to bfloat16). Comparisons compare the exact float32 values. A float64 converts in
// one rounding (through a float32 rounded to odd), as do integers of up to 32 bits; 64-bit
// integers go through float64.
//
// bfloat16 *storage* keeps its type: buffers, shared and private arrays, a kernel's scalar
// parameters (their manifest and ABI say bfloat16), POD fields, host globals and the operands of
// host operations. Reads of it are Bitcast to uint16 and writes Bitcast back, so an emitter sees
// bfloat16 only as a 16-bit element type and as either side of such a Bitcast (the same bits).
#pragma once

#include "compiler/kir/Kir.h"

#include <string>

namespace cajeta::kir {

class BFloat16Lowering {
public:
  /// Rewrites F (a function of M, its nodes M's) in place. False with Error set for a bfloat16
  /// operation no rule covers (a bfloat16 wave reduction left to the emitter).
  static bool run(Module& M, Function& F, std::string& Error);

  /// The bits of the bfloat16 nearest V (ties to even, NaN quiet): what a constant becomes.
  static uint16_t bitsOf(double V);
};

} // namespace cajeta::kir
