// The CPU's native wave tier in KIR (WaveSteps.h).
#include "compiler/kir/transforms/WaveSteps.h"

#include "compiler/kir/Builder.h"
#include "compiler/kir/Walk.h"
#include "compiler/kir/transforms/KirInliner.h"
#include "compiler/kir/transforms/StatementHoister.h"

namespace cajeta::kir {
namespace {

using bundle::ScalarType;

class Stepper : public StatementHoister {
public:
  Stepper(Module& M, Function& F, uint32_t Width)
      : StatementHoister(M), B(M, F), F(F), Width(Width) {}

  bool run() {
    F.Body = rewriteStmt(F.Body);
    F.HasBarrier = F.HasBarrier || Stepped;
    if (Error.empty())
      assignInPlace();
    return Error.empty();
  }

private:
  /// Wave.width() a constant, Wave.laneId() kept, and every other wave op a step over fresh locals,
  /// hoisted before the statement that held it.
  Expr* rewriteNode(Expr* E, std::vector<Stmt*>& Pre, bool Hoist) override {
    if (E->K != Expr::Kind::Wave)
      return E;
    B.setLoc(E->Loc);
    if (E->WOp == WaveOp::Width)
      return B.u32(Width);
    if (E->WOp == WaveOp::LaneId) { // the fission's work-item index modulo the width
      Stepped = true;
      return E;
    }
    if (!Hoist) {
      Error = "at " + std::to_string(E->Loc.Line) + ":" + std::to_string(E->Loc.Col) + ": Wave." +
              waveOpName(E->WOp) +
              " in a loop condition or update or a conditional operand cannot be rewritten";
      return E;
    }
    Stepped = true;
    std::vector<Expr*> Operands;
    for (size_t I = 0; I < E->Ops.size(); ++I) {
      uint32_t L = B.local(I == 0 ? "wave.value" : "wave.lane", E->Ops[I]->Ty);
      Pre.push_back(B.eval(B.assign(L, E->Ops[I])));
      Operands.push_back(B.l(L));
    }
    uint32_t R = B.local(std::string("wave.") + waveOpName(E->WOp), E->Ty);
    Pre.push_back(B.eval(B.assign(R, B.wave(E->WOp, E->Ty, std::move(Operands)))));
    return B.l(R);
  }

  /// `r = Wave.op(v); l = r;` with r read nowhere else becomes `l = Wave.op(v);`: the fission
  /// would otherwise copy every work-item's slot of r into l in a region of its own.
  void assignInPlace() {
    std::vector<unsigned> Refs(F.Locals.size(), 0);
    forEachExprIn(F.Body, [&](const Expr* E) {
      if ((E->K == Expr::Kind::Local || E->K == Expr::Kind::Assign) && E->Index < Refs.size())
        ++Refs[E->Index];
    });
    forEachStmt(F.Body, [&](const Stmt* Const) {
      if (Const->K != Stmt::Kind::Block)
        return;
      Stmt* S = const_cast<Stmt*>(Const); // F's own statements, rewritten in place
      for (size_t I = 0; I + 1 < S->Body.size(); ++I) {
        Stmt* Step = S->Body[I];
        Stmt* Copy = S->Body[I + 1];
        if (!WaveSteps::isStep(Step) || !Copy || Copy->K != Stmt::Kind::Eval || !Copy->E ||
            Copy->E->K != Expr::Kind::Assign || Copy->E->Ops.size() != 1)
          continue;
        const Expr* From = Copy->E->Ops[0];
        uint32_t R = Step->E->Index, L = Copy->E->Index;
        if (From->K != Expr::Kind::Local || From->Index != R || Refs[R] != 2 ||
            F.Locals[L].Ty != F.Locals[R].Ty)
          continue;
        Step->E->Index = L;
        S->Body.erase(S->Body.begin() + long(I) + 1);
      }
    });
  }

  Builder B;
  Function& F;
  uint32_t Width;
  bool Stepped = false;
};

} // namespace

WavePrimitives WaveSteps::primitives(uint32_t Width) {
  WavePrimitives P;
  P.Available = true;
  P.ConstantWidth = Width;
  P.ReduceInt32 = true;
  P.ScanInt32 = true;
  P.Int64Arithmetic = true;
  P.BroadcastFirstWord = true;
  return P;
}

bool WaveSteps::isStep(const Stmt* S) {
  if (!S || S->K != Stmt::Kind::Eval || !S->E || S->E->K != Expr::Kind::Assign ||
      S->E->Ops.size() != 1)
    return false;
  const Expr* W = S->E->Ops[0];
  if (!W || W->K != Expr::Kind::Wave || W->WOp == WaveOp::Width || W->WOp == WaveOp::LaneId)
    return false;
  for (const Expr* O : W->Ops)
    if (!O || O->K != Expr::Kind::Local)
      return false;
  return true;
}

std::unique_ptr<Function> WaveSteps::expand(const Module& M, const Function& K, Module& Scratch,
                                            uint32_t Width, std::string& Error) {
  // Inlining copies every node, so the rewrite below may change the copy in place.
  std::unique_ptr<Function> Copy =
      KirInliner::inlineBarrierCalls(M, K, Scratch, Error, /*AlsoWaveHelpers=*/true);
  if (!Copy)
    return nullptr;
  Stepper X(Scratch, *Copy, Width);
  if (!X.run()) {
    Error = "kernel '" + K.Name + "': wave operations as SIMD lanes: " + X.Error;
    return nullptr;
  }
  return Copy;
}

} // namespace cajeta::kir
