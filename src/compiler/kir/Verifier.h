// The KIR verifier: checks a module against Kir.h's contract (operand counts and types of every
// node kind, index ranges, loop ids and jump targets, where arrays and PODs may appear, call and
// dispatch signatures, return typing). Sema's output and every pass's output must verify; the
// emitters assume a verified module and only report what their target cannot express.
#pragma once

#include "compiler/kir/Kir.h"

#include <string>
#include <vector>

namespace cajeta::kir {

/// Every problem in M, one message per broken invariant: "function 'K.f' at 3:7: Kind: what".
/// Empty when M is valid.
std::vector<std::string> verifyProblems(const Module& M);

/// Whether M is valid; if not, Error lists its problems, one a line.
bool verify(const Module& M, std::string& Error);

} // namespace cajeta::kir
