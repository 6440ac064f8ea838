// The portable tier of wave operations (PortableWave.h). kir::WaveExpand first writes every
// composite over the primitives below (primitives()); each primitive then becomes an exchange
// through a per-kernel shared scratch array — every lane writes its value at its linear index, a
// barrier, then each lane reads the lanes it needs — with one more barrier after the reads so the
// next exchange may reuse the scratch. ShuffleWord exchanges a uint32 word; ballot, votes and the
// integer reductions and scans read the whole wave in one exchange of int64 values (exact:
// integer ops are associative, so the lane order gives the butterfly's result). A kernel needs
// at most a word and an int64 scratch array of MaxGroupSize elements (12 KiB): small enough for
// every device's shared memory next to the kernel's own arrays.
#include "compiler/kir/transforms/PortableWave.h"

#include "compiler/kir/Builder.h"
#include "compiler/kir/transforms/KirInliner.h"
#include "compiler/kir/transforms/StatementHoister.h"
#include "compiler/kir/transforms/WaveExpand.h"

#include <map>
#include <vector>

namespace cajeta::kir {
namespace {

using bundle::ScalarType;
using kir::BinaryOp;
using kir::Expr;
using kir::Stmt;
using kir::Type;
using kir::WaveOp;

class Expander : public StatementHoister {
public:
  Expander(kir::Function& F, kir::Module& S) : StatementHoister(S), F(F), S(S) {}

  bool run() {
    NextLoopId = kir::maxLoopId(F.Body) + 1;
    F.Body = rewriteStmt(F.Body);
    F.HasBarrier = F.HasBarrier || Expanded;
    return Error.empty();
  }

private:
  // ---- KIR construction ----
  static Type u32Ty() { return Type::scalar(ScalarType::U32); }
  static Type u64Ty() { return Type::scalar(ScalarType::U64); }
  static Type boolTy() { return Type::scalar(ScalarType::Bool); }

  Expr* node(Expr::Kind K, Type Ty) { return S.newExpr(K, Ty, Loc); }
  Expr* u32(uint64_t V) {
    Expr* E = node(Expr::Kind::Const, u32Ty());
    E->IntValue = V;
    return E;
  }
  Expr* zero(Type Ty) {
    Expr* E = node(Expr::Kind::Const, Ty);
    E->IntValue = 0;
    E->FloatValue = 0;
    return E;
  }
  Expr* bin(BinaryOp Op, Expr* A, Expr* B) {
    bool Cmp = Op >= BinaryOp::Eq && Op <= BinaryOp::Ge;
    Expr* E = node(Expr::Kind::Binary, Cmp ? boolTy() : A->Ty);
    E->BOp = Op;
    E->Ops = {A, B};
    return E;
  }
  Expr* cast(Expr* A, Type To) {
    if (A->Ty == To)
      return A;
    Expr* E = node(Expr::Kind::Cast, To);
    E->Ops = {A};
    return E;
  }
  Expr* intrinsic(kir::IntrinsicOp Op, Type Ty, std::vector<Expr*> Ops, uint8_t Dim = 0) {
    Expr* E = node(Expr::Kind::Intrinsic, Ty);
    E->IOp = Op;
    E->Dim = Dim;
    E->Ops = std::move(Ops);
    return E;
  }
  Expr* width() {
    Expr* E = node(Expr::Kind::Wave, u32Ty());
    E->WOp = WaveOp::Width;
    return E;
  }
  /// The work-item's linear index in its group.
  Expr* linear() {
    Builder B(S);
    B.setLoc(Loc);
    return B.linearLocalId();
  }
  Expr* lane() { return bin(BinaryOp::And, linear(), bin(BinaryOp::Sub, width(), u32(1))); }
  Expr* local(uint32_t L) {
    Expr* E = node(Expr::Kind::Local, F.Locals[L].Ty);
    E->Index = L;
    return E;
  }
  uint32_t newLocal(const char* Name, Type Ty) {
    F.Locals.push_back({std::string("wave.") + Name, Ty, Loc});
    return uint32_t(F.Locals.size() - 1);
  }
  Stmt* eval(Expr* E) {
    Stmt* St = S.newStmt(Stmt::Kind::Eval, Loc);
    St->E = E;
    return St;
  }
  Stmt* set(uint32_t L, Expr* V) {
    Expr* E = node(Expr::Kind::Assign, F.Locals[L].Ty);
    E->Index = L;
    E->Ops = {cast(V, F.Locals[L].Ty)};
    return eval(E);
  }
  Stmt* barrier() { return S.newStmt(Stmt::Kind::Barrier, Loc); }
  Stmt* block(std::vector<Stmt*> Body) {
    Stmt* St = S.newStmt(Stmt::Kind::Block, Loc);
    St->Body = std::move(Body);
    return St;
  }
  /// for (; Cond; Step) Body
  Stmt* loop(Expr* Cond, Stmt* Body, Stmt* Step) {
    Stmt* St = S.newStmt(Stmt::Kind::Loop, Loc);
    St->E = Cond;
    St->LoopBody = Body;
    St->Step = Step;
    St->LoopId = NextLoopId++;
    return St;
  }

  // ---- scratch memory ----

  /// The scratch array for container type T: MaxGroupSize elements.
  uint32_t scratch(ScalarType T) {
    auto It = Scratch.find(T);
    if (It != Scratch.end())
      return It->second;
    kir::SharedArray A;
    A.Name = std::string("wave.scratch.") + Type::scalar(T).str();
    A.Elem = T;
    A.Count = PortableWave::MaxGroupSize;
    A.Loc = Loc;
    F.SharedArrays.push_back(A);
    uint32_t Index = uint32_t(F.SharedArrays.size() - 1);
    Scratch[T] = Index;
    return Index;
  }
  Expr* sharedRef(uint32_t Index) {
    Expr* E = node(Expr::Kind::SharedRef, Type::shared(F.SharedArrays[Index].Elem));
    E->Index = Index;
    return E;
  }
  /// scratch[linear] = V (V converted to the container type).
  Stmt* publish(uint32_t Arr, Expr* V) {
    Expr* St = node(Expr::Kind::Store, Type::scalar(F.SharedArrays[Arr].Elem));
    St->Ops = {sharedRef(Arr), linear(), cast(V, Type::scalar(F.SharedArrays[Arr].Elem))};
    return eval(St);
  }
  /// The value lane Src of this wave published, converted back to Ty.
  Expr* read(uint32_t Arr, Expr* Src, Type Ty) {
    Expr* Base = bin(BinaryOp::Sub, linear(), lane());
    Expr* L = node(Expr::Kind::Load, Type::scalar(F.SharedArrays[Arr].Elem));
    L->Ops = {sharedRef(Arr), bin(BinaryOp::Add, Base, Src)};
    return cast(L, Ty);
  }

  // ---- the ops ----

  Expr* combine(WaveOp Op, Expr* A, Expr* B) {
    switch (Op) {
    case WaveOp::ReduceMin:
      return intrinsic(kir::IntrinsicOp::Min, A->Ty, {A, B});
    case WaveOp::ReduceMax:
      return intrinsic(kir::IntrinsicOp::Max, A->Ty, {A, B});
    case WaveOp::ReduceAnd:
      return bin(BinaryOp::And, A, B);
    case WaveOp::ReduceOr:
      return bin(BinaryOp::Or, A, B);
    case WaveOp::ReduceXor:
      return bin(BinaryOp::Xor, A, B);
    default:
      return bin(BinaryOp::Add, A, B);
    }
  }

  /// Statements that leave the value of primitive W (operands already in locals V and N) in
  /// Result.
  void expand(const Expr* W, uint32_t V, uint32_t N, uint32_t Result, std::vector<Stmt*>& Out) {
    Type Ty = F.Locals[Result].Ty;
    switch (W->WOp) {
    case WaveOp::ShuffleWord: { // the source lane is in range (WaveExpand)
      uint32_t Arr = scratch(ScalarType::U32);
      Out.push_back(publish(Arr, local(V)));
      Out.push_back(barrier());
      Out.push_back(set(Result, read(Arr, local(N), Ty)));
      break;
    }
    case WaveOp::Ballot:
    case WaveOp::All:
    case WaveOp::Any: {
      // Gather the wave's predicates: ballot ORs bit j, all/any fold with & / |.
      uint32_t Arr = scratch(ScalarType::I64);
      uint32_t J = newLocal("j", u32Ty());
      Out.push_back(publish(Arr, local(V)));
      Out.push_back(barrier());
      Expr* Bit = read(Arr, local(J), boolTy());
      Expr* Init = nullptr;
      Expr* Next = nullptr;
      if (W->WOp == WaveOp::Ballot) {
        Init = zero(u64Ty());
        Next = bin(BinaryOp::Or, local(Result),
                   bin(BinaryOp::Shl, cast(Bit, u64Ty()), cast(local(J), u64Ty())));
      } else {
        Init = zero(boolTy());
        Init->IntValue = W->WOp == WaveOp::All;
        Next = bin(W->WOp == WaveOp::All ? BinaryOp::And : BinaryOp::Or, local(Result), Bit);
      }
      Out.push_back(set(Result, Init));
      Out.push_back(set(J, u32(0)));
      Out.push_back(loop(bin(BinaryOp::Lt, local(J), width()), set(Result, Next),
                         set(J, bin(BinaryOp::Add, local(J), u32(1)))));
      break;
    }
    case WaveOp::ReduceSum:
    case WaveOp::ReduceMin:
    case WaveOp::ReduceMax:
    case WaveOp::ReduceAnd:
    case WaveOp::ReduceOr:
    case WaveOp::ReduceXor:
      gather(W->WOp, V, Result, scratch(ScalarType::I64), /*Upto=*/nullptr, Out);
      break;
    case WaveOp::InclusiveSum:
    case WaveOp::ExclusiveSum: {
      Expr* Upto = W->WOp == WaveOp::InclusiveSum ? bin(BinaryOp::Add, lane(), u32(1)) : lane();
      gather(WaveOp::ReduceSum, V, Result, scratch(ScalarType::I64), Upto, Out);
      break;
    }
    default:
      Error = std::string("the portable tier has no form of Wave.") + kir::waveOpName(W->WOp);
      return;
    }
    // Every lane has read before any lane's next exchange overwrites the scratch.
    Out.push_back(barrier());
  }

  /// Integers: Result = fold of lanes [0, Upto) (the whole wave when Upto is null) in lane
  /// order (exact: integer ops are associative).
  void gather(WaveOp Op, uint32_t V, uint32_t Result, uint32_t Arr, Expr* Upto,
              std::vector<Stmt*>& Out) {
    Type Ty = F.Locals[Result].Ty;
    uint32_t J = newLocal("j", u32Ty());
    Out.push_back(publish(Arr, local(V)));
    Out.push_back(barrier());
    if (Upto) {
      Out.push_back(set(Result, zero(Ty)));
      Out.push_back(set(J, u32(0)));
    } else {
      Out.push_back(set(Result, read(Arr, u32(0), Ty)));
      Out.push_back(set(J, u32(1)));
    }
    Out.push_back(loop(bin(BinaryOp::Lt, local(J), Upto ? Upto : width()),
                       set(Result, combine(Op, local(Result), read(Arr, local(J), Ty))),
                       set(J, bin(BinaryOp::Add, local(J), u32(1)))));
  }

  // ---- the walk ----

  /// Rewrites E: laneId in place, convergent ops hoisted into Pre (in evaluation order) and
  /// replaced by a local. Hoist == false: a convergent op here is an error (Sema prevents it).
  Expr* rewriteNode(Expr* E, std::vector<Stmt*>& Pre, bool Hoist) override {
    if (E->K != Expr::Kind::Wave || E->WOp == WaveOp::Width)
      return E;
    Loc = E->Loc;
    if (E->WOp == WaveOp::LaneId)
      return lane();
    if (!Hoist) {
      Error = "at " + std::to_string(E->Loc.Line) + ":" + std::to_string(E->Loc.Col) + ": Wave." +
              kir::waveOpName(E->WOp) +
              " in a loop condition or update or a conditional operand cannot be rewritten";
      return E;
    }
    Expanded = true;
    uint32_t V = ~0u, N = ~0u;
    if (!E->Ops.empty()) {
      V = newLocal("value", E->Ops[0]->Ty);
      Pre.push_back(set(V, E->Ops[0]));
    }
    if (E->Ops.size() > 1) {
      N = newLocal("lane", u32Ty());
      Pre.push_back(set(N, E->Ops[1]));
    }
    uint32_t Result = newLocal(kir::waveOpName(E->WOp), E->Ty);
    expand(E, V, N, Result, Pre);
    return local(Result);
  }

  kir::Function& F;
  kir::Module& S;
  kir::SourceLoc Loc;
  std::map<ScalarType, uint32_t> Scratch;
  uint32_t NextLoopId = 1;
  bool Expanded = false;
};

} // namespace

WavePrimitives PortableWave::primitives() {
  WavePrimitives P;
  P.Available = true;
  P.ReduceInt32 = true; // gather(): one exchange, any integer width
  P.ScanInt32 = true;
  P.Int64Arithmetic = true;
  return P; // the width is Wave.width(): the steps are KIR loops
}

std::unique_ptr<kir::Function> PortableWave::expand(const kir::Module& M, const kir::Function& K,
                                                    kir::Module& Scratch, std::string& Error) {
  // Inlining copies every node, so the rewrite below may change the copy in place.
  std::unique_ptr<kir::Function> Copy =
      KirInliner::inlineBarrierCalls(M, K, Scratch, Error, /*AlsoWaveHelpers=*/true);
  if (!Copy)
    return nullptr;
  // The composites over the primitives below, then the primitives over shared memory.
  std::string Why;
  if (!WaveExpand::run(Scratch, *Copy, primitives(), Why)) {
    Error = "kernel '" + K.Name + "': portable wave operations: " + Why;
    return nullptr;
  }
  Expander X(*Copy, Scratch);
  if (!X.run()) {
    Error = "kernel '" + K.Name + "': portable wave operations: " + X.Error;
    return nullptr;
  }
  return Copy;
}

} // namespace cajeta::kir
