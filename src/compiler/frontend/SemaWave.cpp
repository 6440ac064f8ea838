// Sema for wave (subgroup) operations: Wave.width(), Wave.laneId(), shuffles, votes,
// reductions and prefix sums (kir::WaveOp).
#include "compiler/frontend/Sema.h"
#include "compiler/frontend/TypeRules.h"

#include <map>

namespace cajeta::frontend {

using kir::Type;
using kir::WaveOp;

namespace {

enum class Operand { None, AnyScalar, Bool, Arith, Bits };

struct WaveMethod {
  WaveOp Op;
  Operand Kind;
};

const std::map<std::string, WaveMethod>& waveMethods() {
  static const std::map<std::string, WaveMethod> Methods = {
      {"width", {WaveOp::Width, Operand::None}},
      {"laneId", {WaveOp::LaneId, Operand::None}},
      {"shuffle", {WaveOp::Shuffle, Operand::AnyScalar}},
      {"shuffleUp", {WaveOp::ShuffleUp, Operand::AnyScalar}},
      {"shuffleDown", {WaveOp::ShuffleDown, Operand::AnyScalar}},
      {"shuffleXor", {WaveOp::ShuffleXor, Operand::AnyScalar}},
      {"rotate", {WaveOp::Rotate, Operand::AnyScalar}},
      {"broadcastFirst", {WaveOp::BroadcastFirst, Operand::AnyScalar}},
      {"ballot", {WaveOp::Ballot, Operand::Bool}},
      // The spec's capability matrix names these two after CUDA's __shfl_sync / __ballot_sync;
      // every lane takes part in every wave op, so they are the same ops as shuffle / ballot.
      {"shuffleSync", {WaveOp::Shuffle, Operand::AnyScalar}},
      {"ballotSync", {WaveOp::Ballot, Operand::Bool}},
      {"all", {WaveOp::All, Operand::Bool}},
      {"any", {WaveOp::Any, Operand::Bool}},
      {"reduceSum", {WaveOp::ReduceSum, Operand::Arith}},
      {"reduceMin", {WaveOp::ReduceMin, Operand::Arith}},
      {"reduceMax", {WaveOp::ReduceMax, Operand::Arith}},
      {"reduceAnd", {WaveOp::ReduceAnd, Operand::Bits}},
      {"reduceOr", {WaveOp::ReduceOr, Operand::Bits}},
      {"reduceXor", {WaveOp::ReduceXor, Operand::Bits}},
      {"inclusivePrefixSum", {WaveOp::InclusiveSum, Operand::Arith}},
      {"exclusivePrefixSum", {WaveOp::ExclusiveSum, Operand::Arith}},
  };
  return Methods;
}

} // namespace

Sema::Value Sema::buildWave(const Expr* E, const std::string& Method) {
  SourceRange CalleeRange = E->Ops[0]->Range;
  auto It = waveMethods().find(Method);
  if (It == waveMethods().end()) {
    Diags.error(CalleeRange, "'Wave' has no method '" + Method + "'");
    return {};
  }
  const WaveMethod& W = It->second;
  unsigned Arity = kir::waveOperandCount(W.Op);
  size_t Given = E->Ops.size() - 1;
  if (Given != Arity) {
    static const char* Shapes[] = {"no arguments", "one argument (the value)",
                                   "two arguments (the value, then a lane or distance)"};
    Diags.error(E->Range, "'Wave." + Method + "' takes " + Shapes[Arity] + ", " +
                              std::to_string(Given) + " given");
    return {};
  }
  kir::Expr* R =
      M->newExpr(kir::Expr::Kind::Wave, Type::scalar(bundle::ScalarType::U32), loc(E->Range));
  R->WOp = W.Op;
  Fn().UsesWave = true;
  if (Arity == 0)
    return value(R, E->Range);

  Value V = buildExpr(E->Ops[1]);
  if (!V || !checkFnValue(V, -1, E->Ops[1]->Range))
    return {};
  kir::Expr* X = materialize(V);
  const Type& T = X->Ty;
  std::string Name = "'Wave." + Method + "'";
  // The operand rules are KIR's (kir::waveOperandAllowed); the messages name what is allowed.
  if (!kir::waveOperandAllowed(W.Op, T)) {
    switch (W.Kind) {
    case Operand::Bool:
      Diags.error(E->Ops[1]->Range, Name + " takes a bool, found " + T.str());
      break;
    case Operand::Arith:
      Diags.error(E->Ops[1]->Range, Name +
                                        " takes int32, uint32, int64, uint64, float32 or "
                                        "float64, found " +
                                        T.str() + "; cast the argument");
      break;
    case Operand::Bits:
      Diags.error(E->Ops[1]->Range, Name + " takes int32, uint32, int64 or uint64, found " +
                                        T.str() +
                                        (T.isBool() ? " (for bool use Wave.all / Wave.any)" : ""));
      break;
    case Operand::AnyScalar:
    case Operand::None:
      Diags.error(E->Ops[1]->Range, Name + " takes a scalar value, found " + T.str());
      break;
    }
    return {};
  }
  R->Ops = {X};
  R->Ty = kir::waveResultType(W.Op, T);
  if (Arity == 2) {
    Value L = buildExpr(E->Ops[2]);
    if (!L)
      return {};
    kir::Expr* Lane = nullptr;
    if (L.Lit == Value::IntLit)
      Lane = intConst(Type::scalar(bundle::ScalarType::U32),
                      static_cast<uint32_t>(static_cast<uint64_t>(L.IntValue)), E->Ops[2]->Range);
    else if (L.E->Ty.isInteger())
      Lane = castTo(L.E, Type::scalar(bundle::ScalarType::U32));
    if (!Lane) {
      Diags.error(E->Ops[2]->Range, Name +
                                        " takes an integer lane or distance as its second "
                                        "argument, found " +
                                        (L.E ? L.E->Ty.str() : std::string("a literal")));
      return {};
    }
    R->Ops.push_back(Lane);
  }
  return value(R, E->Range);
}

} // namespace cajeta::frontend
