// Sema for the device subset: shared arrays, barriers, atomics, POD parameters, function values,
// @Backend restrictions and the barrier-uniformity check.
#include "compiler/frontend/Sema.h"
#include "compiler/kir/WavePlacement.h"

#include "compiler/frontend/TypeRules.h"
#include "compiler/kir/BlockCopyCheck.h"
#include "compiler/kir/UniformityAnalysis.h"

#include <algorithm>
#include <map>
#include <set>

namespace cajeta::frontend {

using kir::ScalarType;
using kir::Type;

// ---- PODs ----

std::optional<Type> Sema::resolvePod(const ClassDecl& C, const TypeRef& T) {
  auto Known = PodByClass.find(C.Name);
  if (Known != PodByClass.end())
    return Type::pod(Known->second);
  if (C.HasSuper) {
    Diags.error(T.Range, "'" + C.Name +
                             "' cannot be a POD parameter: a POD has no 'extends' or "
                             "'implements'");
    return std::nullopt;
  }
  kir::PodType Pod;
  Pod.Name = C.Name;
  bool Ok = true;
  for (const Field& F : C.Fields) {
    if (F.IsStatic)
      continue;
    auto S = F.Type.IsFunction || !F.Type.Args.empty() || F.Type.ArrayDims
                 ? std::nullopt
                 : primitiveByName(F.Type.Name);
    if (!S) {
      Diags.error(F.Range, "field '" + F.Name + "' of '" + C.Name + "' is not a primitive, so '" +
                               C.Name + "' cannot be a POD parameter");
      Ok = false;
      continue;
    }
    uint32_t Size = bundle::scalarTypeSize(*S);
    Pod.Size = (Pod.Size + Size - 1) / Size * Size; // natural alignment
    Pod.Fields.push_back({F.Name, *S, Pod.Size});
    Pod.Size += Size;
    Pod.Align = std::max(Pod.Align, Size);
  }
  if (Ok && Pod.Fields.empty()) {
    Diags.error(T.Range, "'" + C.Name +
                             "' has no instance fields, so it cannot be a POD "
                             "parameter");
    Ok = false;
  }
  if (!Ok)
    return std::nullopt;
  Pod.Size = (Pod.Size + Pod.Align - 1) / Pod.Align * Pod.Align; // tail padding
  uint32_t Index = static_cast<uint32_t>(M->Pods.size());
  M->Pods.push_back(std::move(Pod));
  PodByClass[C.Name] = Index;
  return Type::pod(Index);
}

Sema::Value Sema::buildField(const Expr* E) {
  const Expr* Obj = E->Ops[0];
  if (Value C; buildRayConstant(E, C))
    return C;
  if (Obj->K != Expr::Kind::Name || !PodParams.count(Obj->Text) || lookupLocal(Obj->Text)) {
    if (Obj->K == Expr::Kind::Name && BufferParams.count(Obj->Text) && E->Text == "length")
      Diags.error(E->Range, "'length' is a method; write '" + Obj->Text + ".length()'");
    else
      Diags.error(E->Range, "field access needs a POD parameter on the left of '.'");
    return {};
  }
  uint32_t ParamIndex = PodParams[Obj->Text];
  const kir::Param& P = Fn().Params[ParamIndex];
  const kir::PodType& Pod = M->Pods[P.Ty.PodIndex];
  for (uint32_t I = 0; I < Pod.Fields.size(); ++I) {
    if (Pod.Fields[I].Name != E->Text)
      continue;
    kir::Expr* Base = M->newExpr(kir::Expr::Kind::Param, P.Ty, loc(Obj->Range));
    Base->Index = ParamIndex;
    kir::Expr* F =
        M->newExpr(kir::Expr::Kind::Field, Type::scalar(Pod.Fields[I].Type), loc(E->Range));
    F->Index = I;
    F->Ops = {Base};
    return value(F, E->Range);
  }
  Diags.error(E->Range, "'" + Pod.Name + "' has no field '" + E->Text + "'");
  return {};
}

// ---- function values ----

static std::string signatureSpelling(Type Ret, const std::vector<Type>& Params) {
  std::string S = "Fn<" + Ret.str() + "(";
  for (size_t I = 0; I < Params.size(); ++I)
    S += (I ? ", " : "") + Params[I].str();
  return S + ")>";
}

int Sema::signatureFor(Type Ret, const std::vector<Type>& Params) {
  for (size_t I = 0; I < Signatures.size(); ++I)
    if (Signatures[I].Ret == Ret && Signatures[I].Params == Params)
      return static_cast<int>(I);
  Signatures.push_back({Ret, Params, {}, signatureSpelling(Ret, Params)});
  return static_cast<int>(Signatures.size() - 1);
}

void Sema::fillSignatureTables() {
  // Every @Device helper with a matching signature joins the table, in declaration order.
  for (const FunctionInfo& FI : Functions) {
    if (FI.Fn->IsKernel || !FI.Valid)
      continue;
    std::vector<Type> Params;
    for (const kir::Param& P : FI.Fn->Params)
      Params.push_back(P.Ty);
    for (FnSignature& S : Signatures)
      if (S.Ret == FI.Fn->ReturnType && S.Params == Params)
        S.Table.push_back(FI.Index);
  }
  for (FunctionInfo& FI : Functions)
    for (size_t I = 0; I < FI.ParamFnSig.size() && I < FI.Fn->Params.size(); ++I)
      if (FI.ParamFnSig[I] >= 0)
        FI.Fn->Params[I].FunctionTable = Signatures[FI.ParamFnSig[I]].Table;
}

Sema::Value Sema::buildMethodRef(const Expr* E) {
  std::string Qualified = E->CastType.Name + "." + E->Text;
  auto It = FunctionByName.find(Qualified);
  if (It == FunctionByName.end() || Functions[It->second].Fn->IsKernel) {
    Diags.error(E->Range, It == FunctionByName.end()
                              ? "unknown @Device method '" + Qualified + "'"
                              : "'" + Qualified +
                                    "' is a @Kernel; function values refer to "
                                    "@Device methods");
    return {};
  }
  const FunctionInfo& Target = Functions[It->second];
  if (!Target.Valid)
    return {};
  std::vector<Type> Params;
  for (const kir::Param& P : Target.Fn->Params)
    Params.push_back(P.Ty);
  int Sig = signatureFor(Target.Fn->ReturnType, Params);
  // A signature first seen here has an empty table until filled: fill it now.
  if (Signatures[Sig].Table.empty())
    for (const FunctionInfo& FI : Functions) {
      if (FI.Fn->IsKernel || !FI.Valid)
        continue;
      std::vector<Type> P2;
      for (const kir::Param& P : FI.Fn->Params)
        P2.push_back(P.Ty);
      if (FI.Fn->ReturnType == Signatures[Sig].Ret && P2 == Signatures[Sig].Params)
        Signatures[Sig].Table.push_back(FI.Index);
    }
  const auto& Table = Signatures[Sig].Table;
  uint32_t Tag =
      static_cast<uint32_t>(std::find(Table.begin(), Table.end(), Target.Index) - Table.begin());
  Value V = value(intConst(Type::scalar(ScalarType::U32), Tag, E->Range), E->Range);
  V.FnSig = Sig;
  return V;
}

bool Sema::checkFnValue(const Value& V, int WantSig, SourceRange R) {
  if (!V)
    return false;
  if (WantSig < 0 && V.FnSig < 0)
    return true;
  if (WantSig < 0) {
    Diags.error(R, "a function value (" + Signatures[V.FnSig].Spelling +
                       ") cannot be used as a number");
    return false;
  }
  if (V.FnSig != WantSig) {
    Diags.error(R, "expected a function value of type " + Signatures[WantSig].Spelling +
                       (V.FnSig >= 0 ? ", found " + Signatures[V.FnSig].Spelling
                                     : std::string(", found a non-function value")));
    return false;
  }
  return true;
}

Sema::Value Sema::buildFnCall(const Expr* E, uint32_t Local, int Sig) {
  // A function value's table names device functions; host methods have a table of their own.
  if (InHost) {
    Diags.error(E->Range, "a function value is called only in kernel and @Device code; host "
                          "code calls the method by its name");
    return {};
  }
  const FnSignature& S = Signatures[Sig];
  size_t Given = E->Ops.size() - 1;
  if (Given != S.Params.size()) {
    Diags.error(E->Range, "this " + S.Spelling + " takes " + std::to_string(S.Params.size()) +
                              " argument" + (S.Params.size() == 1 ? "" : "s") + ", " +
                              std::to_string(Given) + " given");
    return {};
  }
  kir::Expr* D = M->newExpr(kir::Expr::Kind::Dispatch, S.Ret, loc(E->Range));
  kir::Expr* Tag =
      M->newExpr(kir::Expr::Kind::Local, Type::scalar(ScalarType::U32), loc(E->Ops[0]->Range));
  Tag->Index = Local;
  D->Ops.push_back(Tag);
  D->Targets = S.Table;
  bool Ok = true;
  for (size_t I = 0; I < Given; ++I) {
    const Expr* A = E->Ops[I + 1];
    if (S.Params[I].isBuffer()) {
      kir::Expr* B = buildBufferOperand(A);
      if (B && B->Ty != S.Params[I]) {
        Diags.error(A->Range, "argument " + std::to_string(I + 1) + " expects " +
                                  S.Params[I].str() + ", found " + B->Ty.str());
        B = nullptr;
      }
      Ok &= B != nullptr;
      D->Ops.push_back(B);
      continue;
    }
    Value V = buildExpr(A);
    kir::Expr* X = V && checkFnValue(V, -1, A->Range)
                       ? convert(V, S.Params[I], A->Range, "the argument")
                       : nullptr;
    Ok &= X != nullptr;
    D->Ops.push_back(X);
  }
  for (uint32_t T : S.Table) {
    Calls.push_back({Current->Index, T, E->Ops[0]->Range});
    checkBackendCall(Functions[T], E->Ops[0]->Range);
  }
  if (!Ok)
    return {};
  return value(D, E->Range);
}

// ---- @Backend ----

void Sema::checkBackendCall(const FunctionInfo& Callee, SourceRange R) {
  const std::vector<std::string>& Need = Current->Fn->Backends;
  const std::vector<std::string>& Have = Callee.Fn->Backends;
  if (Have.empty())
    return;
  std::string Missing;
  if (Need.empty()) {
    Missing = "every backend";
  } else {
    for (const std::string& B : Need)
      if (std::find(Have.begin(), Have.end(), B) == Have.end())
        Missing += (Missing.empty() ? "" : ", ") + B;
  }
  if (Missing.empty())
    return;
  std::string List;
  for (const std::string& B : Have)
    List += (List.empty() ? "" : ", ") + std::string("\"") + B + "\"";
  Diags.error(R, "'" + Current->Fn->Name + "' (for " + Missing + ") calls '" + Callee.Fn->Name +
                     "', which exists only on @Backend(" + List + "); restrict '" +
                     Current->Fn->Name + "' to those backends too");
}

// ---- shared memory, barriers, atomics ----

kir::Stmt* Sema::buildSharedDecl(const Stmt* S) {
  const TypeRef& T = S->VarType;
  if (!isImported("Shared")) {
    Diags.error(T.Range, "'Shared' is not imported; add 'import cajeta.xpu.Shared;'");
    return nullptr;
  }
  if (T.Args.size() != 1 || !primitiveByName(T.Args[0].Name) || !T.Args[0].Args.empty()) {
    Diags.error(T.Range, "Shared takes one primitive element type, as in Shared<float32>");
    return nullptr;
  }
  ScalarType Elem = *primitiveByName(T.Args[0].Name);
  if (!Current->Fn->IsKernel) {
    Diags.error(T.Range, "shared arrays can only be declared in @Kernel methods; pass indices to "
                         "helpers instead");
    return nullptr;
  }
  for (const Stmt::Declarator& D : S->Vars) {
    const Expr* Init = D.Init;
    if (!Init || Init->K != Expr::Kind::Alloc || Init->Op != Tok::KwShared) {
      Diags.error(Init ? Init->Range : D.Range,
                  "a shared array is created with 'shared " + T.Args[0].Name + "[N]'");
      continue;
    }
    if (Init->CastType.Name != T.Args[0].Name) {
      Diags.error(Init->CastType.Range, "the shared array holds " + Init->CastType.Name +
                                            " but is declared Shared<" + T.Args[0].Name + ">");
      continue;
    }
    uint32_t Count = 0;
    if (!Init->Ops.empty()) {
      Value N = buildExpr(Init->Ops[0]);
      if (!N)
        continue;
      if (N.Lit != Value::IntLit || N.IntValue <= 0 || N.IntValue > (1u << 24)) {
        Diags.error(Init->Ops[0]->Range, "the size of a shared array must be a positive integer "
                                         "constant (or empty, [], for a size given at launch)");
        continue;
      }
      Count = static_cast<uint32_t>(N.IntValue);
    } else {
      for (const kir::SharedArray& A : Current->Fn->SharedArrays)
        if (A.Count == 0) {
          Diags.error(Init->Range, "a kernel has at most one dynamic shared array ('" + A.Name +
                                       "' is already one)");
          Count = UINT32_MAX;
        }
      if (Count == UINT32_MAX)
        continue;
    }
    if (lookupLocal(D.Name) || BufferParams.count(D.Name) || PodParams.count(D.Name) ||
        SharedByName.count(D.Name)) {
      Diags.error(D.Range, "variable '" + D.Name + "' is already defined in this method");
      continue;
    }
    // The CPU backend, the floor every kernel must run on, keeps a workgroup's shared arrays on
    // one worker thread's stack (64 MiB): the language allows 48 MiB of them per kernel.
    constexpr uint64_t MaxStaticShared = uint64_t(48) << 20;
    uint64_t Total = uint64_t(Count) * bundle::scalarTypeSize(Elem);
    for (const kir::SharedArray& A : Current->Fn->SharedArrays)
      Total += uint64_t(A.Count) * bundle::scalarTypeSize(A.Elem);
    if (Total > MaxStaticShared) {
      Diags.error(Init->Range,
                  "kernel '" + Current->Fn->Name + "' would declare " + std::to_string(Total) +
                      " bytes of shared arrays; at most 48 MiB (" +
                      std::to_string(MaxStaticShared) + ") are allowed, the CPU backend's limit");
      // declared anyway below, so that its uses raise no further errors
    }
    SharedByName[D.Name] = static_cast<uint32_t>(Current->Fn->SharedArrays.size());
    Current->Fn->SharedArrays.push_back({D.Name, Elem, Count, loc(D.Range)});
  }
  return nullptr;
}

kir::Stmt* Sema::buildBarrier(const Expr* Call) {
  if (!isImported("Barrier")) {
    Diags.error(Call->Ops[0]->Ops[0]->Range,
                "'Barrier' is not imported; add 'import cajeta.xpu.Barrier;'");
    return nullptr;
  }
  if (Call->Ops.size() != 1) {
    Diags.error(Call->Range, "'Barrier.sync' takes no arguments");
    return nullptr;
  }
  Current->Fn->HasBarrier = true;
  return M->newStmt(kir::Stmt::Kind::Barrier, loc(Call->Range));
}

Sema::Value Sema::buildAtomic(const Expr* E, const std::string& Method) {
  using kir::AtomicOp;
  static const std::map<std::string, AtomicOp> Ops = {
      {"add", AtomicOp::Add},
      {"sub", AtomicOp::Sub},
      {"min", AtomicOp::Min},
      {"max", AtomicOp::Max},
      {"and", AtomicOp::And},
      {"or", AtomicOp::Or},
      {"xor", AtomicOp::Xor},
      {"exchange", AtomicOp::Exchange},
      {"compareExchange", AtomicOp::CompareExchange},
      {"load", AtomicOp::Load},
      {"store", AtomicOp::Store}};
  auto It = Ops.find(Method);
  SourceRange CalleeRange = E->Ops[0]->Range;
  if (It == Ops.end()) {
    Diags.error(CalleeRange, "'Atomics' has no method '" + Method + "'");
    return {};
  }
  AtomicOp Op = It->second;
  unsigned Arity = kir::atomicOperandCount(Op);
  std::vector<const Expr*> Args(E->Ops.begin() + 1, E->Ops.end());
  kir::MemoryOrder Order = kir::MemoryOrder::Relaxed;
  // An optional trailing MemoryOrder.X.
  if (Args.size() == Arity + 1) {
    const Expr* O = Args.back();
    static const std::map<std::string, kir::MemoryOrder> Orders = {
        {"RELAXED", kir::MemoryOrder::Relaxed},
        {"ACQUIRE", kir::MemoryOrder::Acquire},
        {"RELEASE", kir::MemoryOrder::Release},
        {"ACQ_REL", kir::MemoryOrder::AcqRel},
        {"SEQ_CST", kir::MemoryOrder::SeqCst}};
    if (O->K != Expr::Kind::Member || O->Ops[0]->K != Expr::Kind::Name ||
        O->Ops[0]->Text != "MemoryOrder" || !Orders.count(O->Text)) {
      Diags.error(O->Range, "the last argument of 'Atomics." + Method +
                                "' must be a MemoryOrder (RELAXED, ACQUIRE, RELEASE, ACQ_REL, "
                                "SEQ_CST)");
      return {};
    }
    if (!isImported("MemoryOrder")) {
      Diags.error(O->Ops[0]->Range,
                  "'MemoryOrder' is not imported; add 'import cajeta.xpu.MemoryOrder;'");
      return {};
    }
    Order = Orders.at(O->Text);
    Args.pop_back();
  }
  if (Args.size() != Arity) {
    Diags.error(E->Range, "'Atomics." + Method + "' takes " + std::to_string(Arity) +
                              " arguments (array, index" +
                              (Arity == 4   ? ", expected, desired"
                               : Arity == 3 ? ", value"
                                            : "") +
                              ") and an optional MemoryOrder, " + std::to_string(Args.size()) +
                              " given");
    return {};
  }
  kir::Expr* Arr = buildBufferOperand(Args[0]);
  Value I = buildExpr(Args[1]);
  if (!Arr || !I)
    return {};
  Type Elem = Type::scalar(Arr->Ty.Elem);
  bool IntOk = Elem.isInteger() && Elem.bits() >= 32;
  bool FloatOk = (Elem.Elem == ScalarType::F32 || Elem.Elem == ScalarType::F64) &&
                 kir::atomicAllowedOnFloat(Op);
  if (!IntOk && !FloatOk) {
    Diags.error(CalleeRange,
                Elem.isFloat() && Elem.bits() >= 32
                    ? "'Atomics." + Method + "' is not available for " + Elem.str() +
                          " (floats support add, min, max, exchange, compareExchange, load, "
                          "store)"
                    : "atomics need 32- or 64-bit integer or float32/float64 elements, found " +
                          Elem.str());
    return {};
  }
  kir::Expr* Index = nullptr;
  if (I.Lit == Value::IntLit && I.IntValue >= 0)
    Index = convert(I, Type::scalar(ScalarType::U64), Args[1]->Range, "the index");
  else if (I.Lit == Value::None && I.E->Ty.isInteger())
    Index = I.E;
  else
    Diags.error(Args[1]->Range, "an atomic's index must be a non-negative integer");
  if (!Index)
    return {};
  kir::Expr* A = M->newExpr(kir::Expr::Kind::Atomic, Elem, loc(E->Range));
  A->AOp = Op;
  A->Order = Order;
  A->Ops = {Arr, Index};
  for (size_t K = 2; K < Args.size(); ++K) {
    Value V = buildExpr(Args[K]);
    kir::Expr* X = V && checkFnValue(V, -1, Args[K]->Range)
                       ? convert(V, Elem, Args[K]->Range, "the atomic's operand")
                       : nullptr;
    if (!X)
      return {};
    A->Ops.push_back(X);
  }
  return value(A, E->Range);
}

// ---- barrier uniformity ----

void Sema::checkUniformity() {
  std::vector<kir::UniformityProblem> Problems = kir::checkBarrierUniformity(*M);
  std::vector<kir::UniformityProblem> Placement = kir::checkWavePlacement(*M);
  Problems.insert(Problems.end(), Placement.begin(), Placement.end());
  std::vector<kir::UniformityProblem> Blocks = kir::BlockCopyCheck::problems(*M);
  Problems.insert(Problems.end(), Blocks.begin(), Blocks.end());
  const SourceFile& F = Diags.file();
  for (const kir::UniformityProblem& P : Problems) {
    uint32_t Offset = F.offsetOf(P.Loc.Line, P.Loc.Col);
    Diags.error({Offset, Offset + P.Length}, P.Message);
  }
}

} // namespace cajeta::frontend
