#include "compiler/kir/KnownMultiple.h"

#include "bundle/Manifest.h"
#include "compiler/kir/Walk.h"

#include <algorithm>

namespace cajeta::kir {

KnownMultiple::KnownMultiple(const Function& F) {
  // From "every local a multiple of everything" down: each pass lowers a local to what the
  // values assigned to it are known to be; values only fall, through 33 powers of two at most.
  Locals.assign(F.Locals.size(), Any);
  // Locals written other than by Assign are unknown: an intrinsic's operands written in place
  // (the wgmma accumulators) and the local a ray query operates on.
  forEachExprIn(F.Body, [&](const Expr* E) {
    if (E->K == Expr::Kind::Intrinsic)
      for (const Expr* O : E->Ops)
        if (O && O->K == Expr::Kind::Local && O->Index < Locals.size())
          Locals[O->Index] = 1;
    if (E->K == Expr::Kind::RayQuery && E->Index < Locals.size())
      Locals[E->Index] = 1;
  });
  for (bool Changed = true; Changed;) {
    Changed = false;
    forEachExprIn(F.Body, [&](const Expr* E) {
      if (E->K != Expr::Kind::Assign || E->Index >= Locals.size() || E->Ops.empty())
        return;
      const uint64_t V = std::min(Locals[E->Index], of(E->Ops[0]));
      if (V < Locals[E->Index]) {
        Locals[E->Index] = V;
        Changed = true;
      }
    });
  }
}

uint64_t KnownMultiple::of(const Expr* E) const {
  if (!E || !E->Ty.isInteger())
    return 1;
  switch (E->K) {
  case Expr::Kind::Const: {
    const uint64_t Low = uint64_t(E->IntValue) & 0xffffffffu;
    return Low ? std::min<uint64_t>(Low & (~Low + 1), Any) : Any;
  }
  case Expr::Kind::Local:
    return E->Index < Locals.size() ? Locals[E->Index] : 1;
  case Expr::Kind::Assign:
    return E->Ops.empty() ? 1 : of(E->Ops[0]);
  case Expr::Kind::Seq:
    return E->Ops.empty() ? 1 : of(E->Ops.back());
  case Expr::Kind::Select:
    return E->Ops.size() == 3 ? std::min(of(E->Ops[1]), of(E->Ops[2])) : 1;
  case Expr::Kind::Cast:
    return !E->Ops.empty() && E->Ops[0]->Ty.isInteger() ? of(E->Ops[0]) : 1;
  case Expr::Kind::Binary:
    break;
  default:
    return 1;
  }
  if (E->Ops.size() != 2)
    return 1;
  const uint64_t L = of(E->Ops[0]), R = of(E->Ops[1]);
  switch (E->BOp) {
  case BinaryOp::Mul: // each factor's powers add (L * R might pass 2^64)
    return L >= Any || R >= Any ? Any : std::min(L * R, Any);
  case BinaryOp::Add:
  case BinaryOp::Sub:
  case BinaryOp::Rem: // x - q * y: a multiple of what both are
    return std::min(L, R);
  case BinaryOp::And: // no bit the lower operand lacks
    return std::max(L, R);
  case BinaryOp::Shl: { // the count is masked to the width: only a count below it is known
    const Expr* Count = E->Ops[1];
    const uint64_t Bits = 8 * uint64_t(bundle::scalarTypeSize(E->Ty.Elem));
    return Count->K == Expr::Kind::Const && Count->IntValue < std::min<uint64_t>(Bits, 32)
               ? std::min(L << Count->IntValue, Any)
               : 1;
  }
  default:
    return 1;
  }
}

} // namespace cajeta::kir
