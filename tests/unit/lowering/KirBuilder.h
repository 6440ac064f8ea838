// The lowering tests build KIR with the compiler's own builder (compiler/kir/Builder.h).
#pragma once

#include "compiler/kir/Builder.h"

namespace cajeta::test {

using bundle::ScalarType;
using kir::BinaryOp;
using kir::Expr;
using kir::IntrinsicOp;
using kir::Stmt;
using kir::Type;
using kir::UnaryOp;
using KirBuilder = kir::Builder;

inline Type scalar(ScalarType T) {
  return Type::scalar(T);
}
inline Type buffer(ScalarType T) {
  return Type::buffer(T);
}

} // namespace cajeta::test
