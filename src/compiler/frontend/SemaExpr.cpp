// Sema for expressions: literals, names, calls and builtins, operators, assignment, casts.
#include "compiler/frontend/Sema.h"

#include "compiler/frontend/Builtins.h"
#include "compiler/frontend/TypeRules.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace cajeta::frontend {

using kir::BinaryOp;
using kir::ScalarType;
using kir::Type;

static const Type BoolTy = Type::scalar(ScalarType::Bool);

static std::string int128ToString(__int128 V) {
  if (V == 0)
    return "0";
  bool Neg = V < 0;
  unsigned __int128 U = Neg ? -static_cast<unsigned __int128>(V) : V;
  std::string S;
  while (U) {
    S.insert(S.begin(), char('0' + U % 10));
    U /= 10;
  }
  return Neg ? "-" + S : S;
}

// ---- constants and conversions ----

kir::Expr* Sema::intConst(Type Ty, __int128 V, SourceRange R) {
  kir::Expr* E = M->newExpr(kir::Expr::Kind::Const, Ty, loc(R));
  E->IntValue = Ty.isBool() ? (V != 0) : static_cast<uint64_t>(V);
  return E;
}

kir::Expr* Sema::floatConst(Type Ty, double V, SourceRange R) {
  kir::Expr* E = M->newExpr(kir::Expr::Kind::Const, Ty, loc(R));
  E->FloatValue = Ty.Elem == ScalarType::F32 ? static_cast<double>(static_cast<float>(V)) : V;
  return E;
}

kir::Expr* Sema::materialize(Value V) {
  if (V.Lit == Value::IntLit) {
    Type T = Type::scalar(ScalarType::I32);
    if (!integerFits(V.IntValue, T))
      T = Type::scalar(integerFits(V.IntValue, Type::scalar(ScalarType::I64)) ? ScalarType::I64
                                                                              : ScalarType::U64);
    return intConst(T, V.IntValue, V.Range);
  }
  if (V.Lit == Value::FloatLit)
    return floatConst(Type::scalar(ScalarType::F64), V.FloatValue, V.Range);
  return V.E;
}

kir::Expr* Sema::castTo(kir::Expr* E, Type To) {
  if (!E || E->Ty == To)
    return E;
  kir::Expr* C = M->newExpr(kir::Expr::Kind::Cast, To, E->Loc);
  C->Ops = {E};
  return C;
}

kir::Expr* Sema::binary(BinaryOp Op, Type Ty, kir::Expr* A, kir::Expr* B, SourceRange R) {
  kir::Expr* E = M->newExpr(kir::Expr::Kind::Binary, Ty, loc(R));
  E->BOp = Op;
  E->Ops = {A, B};
  return E;
}

static std::string describe(Type T, int Lit) {
  if (Lit == 1)
    return "an integer constant";
  if (Lit == 2)
    return "a float constant";
  return T.str();
}

kir::Expr* Sema::convert(Value V, Type To, SourceRange R, const char* Context) {
  if (!V)
    return nullptr;
  if (V.Lit == Value::IntLit) {
    if (To.isInteger()) {
      if (!integerFits(V.IntValue, To)) {
        Diags.error(R, "constant " + int128ToString(V.IntValue) + " does not fit in " + To.str());
        return nullptr;
      }
      return intConst(To, V.IntValue, R);
    }
    if (To.isFloat())
      return floatConst(To, static_cast<double>(V.IntValue), R);
    Diags.error(R, "cannot convert an integer constant to " + To.str() + " in " + Context);
    return nullptr;
  }
  if (V.Lit == Value::FloatLit) {
    if (To.isFloat())
      return floatConst(To, V.FloatValue, R);
    Diags.error(R, "cannot implicitly convert a float constant to " + To.str() + " in " + Context +
                       "; cast with '(" + To.str() + ")'");
    return nullptr;
  }
  Type From = V.E->Ty;
  if (From.isVoid()) {
    Diags.error(R, "this call returns void; it has no value to use");
    return nullptr;
  }
  if (From == To)
    return V.E;
  if (isWidening(From, To))
    return castTo(V.E, To);
  if (From.isHostValue() || To.isHostValue()) {
    Diags.error(R, "a " + From.str() + " is not a " + To.str() + " (in " + Context + ")" +
                       (From.isString() && To.isScalar()
                            ? "; read a number from it with Integer.parseInt(s) or "
                              "Double.parseDouble(s)"
                            : ""));
    return nullptr;
  }
  Diags.error(R, "cannot implicitly convert " + From.str() + " to " + To.str() + " in " + Context +
                     "; cast with '(" + To.str() + ")'");
  return nullptr;
}

bool Sema::unifyNumeric(Value& A, Value& B, SourceRange OpRange, const std::string& Op, Type& Out) {
  if (!A || !B)
    return false;
  if (!checkFnValue(A, -1, A.Range) || !checkFnValue(B, -1, B.Range))
    return false;
  for (Value* V : {&A, &B})
    if (V->Lit == Value::None && V->E->Ty.isVoid()) {
      Diags.error(V->Range, "this call returns void; it has no value to use");
      return false;
    }
  if (A.Lit != Value::None && B.Lit != Value::None) {
    // Two constants: a float one makes the pair float64, else the default integer types.
    if (A.Lit == Value::FloatLit || B.Lit == Value::FloatLit) {
      A = value(convert(A, Type::scalar(ScalarType::F64), A.Range, "an operand"), A.Range);
      B = value(convert(B, Type::scalar(ScalarType::F64), B.Range, "an operand"), B.Range);
    } else {
      A = value(materialize(A), A.Range);
      B = value(materialize(B), B.Range);
    }
  }
  auto adapt = [&](Value& Lit, const Value& Other) {
    if (Lit.Lit == Value::None)
      return true;
    Type OT = Other.E->Ty;
    Type Target;
    if (OT.isBool()) {
      Diags.error(OpRange,
                  "operator '" + Op + "' cannot be applied to bool and " + describe(OT, Lit.Lit));
      return false;
    }
    if (OT.isFloat())
      Target = OT;
    else if (Lit.Lit == Value::FloatLit)
      Target = Type::scalar(ScalarType::F64);
    else
      Target = promoteSmall(OT);
    Lit = value(convert(Lit, Target, Lit.Range, "an operand"), Lit.Range);
    return Lit.E != nullptr;
  };
  if (A.Lit != Value::None && B.Lit == Value::None) {
    if (!adapt(A, B))
      return false;
  } else if (B.Lit != Value::None && A.Lit == Value::None) {
    if (!adapt(B, A))
      return false;
  }
  if (!A || !B)
    return false;
  auto Common = commonNumericType(A.E->Ty, B.E->Ty);
  if (!Common) {
    Type X = A.E->Ty, Y = B.E->Ty;
    if (X.isBool() || Y.isBool() || !X.isScalar() || !Y.isScalar())
      Diags.error(OpRange,
                  "operator '" + Op + "' cannot be applied to " + X.str() + " and " + Y.str());
    else
      Diags.error(OpRange, "operator '" + Op + "' mixes " + X.str() + " and " + Y.str() +
                               "; cast one operand so both have the same signedness");
    return false;
  }
  A.E = castTo(A.E, *Common);
  B.E = castTo(B.E, *Common);
  Out = *Common;
  return true;
}

// ---- literals and names ----

Sema::Value Sema::buildIntLiteral(const Expr* E, bool Negated) {
  std::string T;
  for (char C : E->Text)
    if (C != '_')
      T += C;
  std::string Suffix;
  unsigned Base = 10;
  size_t Start = 0;
  if (T.size() > 2 && T[0] == '0' && (T[1] == 'x' || T[1] == 'X')) {
    Base = 16;
    Start = 2;
  } else if (T.size() > 2 && T[0] == '0' && (T[1] == 'b' || T[1] == 'B')) {
    Base = 2;
    Start = 2;
  }
  size_t End = T.size();
  while (End > Start &&
         (T[End - 1] == 'u' || T[End - 1] == 'U' || T[End - 1] == 'L' || T[End - 1] == 'l'))
    --End;
  Suffix = T.substr(End);
  unsigned __int128 V = 0;
  bool Overflow = false;
  for (size_t I = Start; I < End; ++I) {
    char C = T[I];
    unsigned D =
        std::isdigit(static_cast<unsigned char>(C)) ? C - '0' : (std::tolower(C) - 'a' + 10);
    if (D >= Base)
      return {}; // the lexer already reported the malformed number
    V = V * Base + D;
    if (V > UINT64_MAX)
      Overflow = true;
  }
  if (Overflow) {
    Diags.error(E->Range, "integer literal '" + E->Text + "' is too large for 64 bits");
    return {};
  }
  Value R;
  R.Range = E->Range;
  R.IntValue = Negated ? -static_cast<__int128>(V) : static_cast<__int128>(V);
  for (char& C : Suffix)
    C = static_cast<char>(std::tolower(C));
  if (Suffix.empty()) {
    R.Lit = Value::IntLit;
    R.E = materialize(R);
    return R;
  }
  Type Ty = Suffix == "u"    ? Type::scalar(ScalarType::U32)
            : Suffix == "l"  ? Type::scalar(ScalarType::I64)
            : Suffix == "ul" ? Type::scalar(ScalarType::U64)
                             : Type::voidTy();
  if (Ty.isVoid())
    return {}; // reported by the lexer
  // Hex and binary literals may spell a bit pattern of their type (0xFFFFFFFFFFFFFFFFL == -1L).
  if (!integerFits(R.IntValue, Ty)) {
    bool Pattern = Base != 10 && V <= (Ty.bits() == 64 ? (unsigned __int128)UINT64_MAX
                                                       : (unsigned __int128)UINT32_MAX);
    if (!Pattern) {
      Diags.error(E->Range, "integer literal '" + std::string(Negated ? "-" : "") + E->Text +
                                "' does not fit in " + Ty.str());
      return {};
    }
  }
  return value(intConst(Ty, R.IntValue, E->Range), E->Range);
}

Sema::Value Sema::buildFloatLiteral(const Expr* E) {
  std::string T;
  for (char C : E->Text)
    if (C != '_')
      T += C;
  char Last = T.empty() ? 0 : T.back();
  bool F32 = Last == 'f' || Last == 'F';
  bool F64 = Last == 'd' || Last == 'D';
  if (F32 || F64)
    T.pop_back();
  double V = std::strtod(T.c_str(), nullptr);
  if (F32) {
    float F = std::strtof(T.c_str(), nullptr);
    if (std::isinf(F))
      Diags.error(E->Range, "float literal '" + E->Text + "' is out of range for float32");
    return value(floatConst(Type::scalar(ScalarType::F32), F, E->Range), E->Range);
  }
  if (std::isinf(V))
    Diags.error(E->Range, "float literal '" + E->Text + "' is out of range for float64");
  if (F64)
    return value(floatConst(Type::scalar(ScalarType::F64), V, E->Range), E->Range);
  Value R;
  R.Lit = Value::FloatLit;
  R.FloatValue = V;
  R.Range = E->Range;
  R.E = materialize(R);
  return R;
}

kir::Expr* Sema::buildBufferOperand(const Expr* E) {
  if (InHost) {
    Value V = buildExpr(E);
    if (!V)
      return nullptr;
    if (V.E->Ty.isHeapArray())
      return V.E;
    if (V.E->Ty.isHandle(Type::BufferHandle))
      Diags.error(E->Range, "host code cannot index a KernelBuffer (its memory is the device's); "
                            "download it into an array and index that");
    else
      Diags.error(E->Range, "expected an array, found " + describe(V.E->Ty, V.Lit));
    return nullptr;
  }
  if (E->K == Expr::Kind::Name && !lookupLocal(E->Text)) {
    auto S = SharedByName.find(E->Text);
    if (S != SharedByName.end()) {
      kir::Expr* R = M->newExpr(kir::Expr::Kind::SharedRef,
                                Type::shared(Fn().SharedArrays[S->second].Elem), loc(E->Range));
      R->Index = S->second;
      return R;
    }
  }
  if (E->K == Expr::Kind::Name) {
    auto It = BufferParams.find(E->Text);
    if (It != BufferParams.end() && !lookupLocal(E->Text)) {
      const kir::Param& P = Fn().Params[It->second];
      kir::Expr* R = M->newExpr(kir::Expr::Kind::Param, P.Ty, loc(E->Range));
      R->Index = It->second;
      return R;
    }
  }
  Value V = buildExpr(E);
  if (V)
    Diags.error(E->Range, "expected a KernelBuffer, found " + describe(V.E->Ty, V.Lit));
  return nullptr;
}

Sema::Value Sema::buildName(const Expr* E) {
  if (auto L = lookupLocal(E->Text); L && Fn().Locals[*L].Ty.isRayQuery()) {
    Diags.error(E->Range, "ray query '" + E->Text +
                              "' is not a value: use its methods (initialize, proceed, "
                              "committedT, ...)");
    return {};
  }
  if (!lookupLocal(E->Text) && AccelParams.count(E->Text)) {
    Diags.error(E->Range, "'" + E->Text +
                              "' is an AccelerationStructure: pass it to a RayQuery's "
                              "initialize or to a helper's AccelerationStructure parameter");
    return {};
  }
  if (auto L = lookupLocal(E->Text); L && Fn().Locals[*L].Ty.isTile()) {
    Diags.error(E->Range, "tile '" + E->Text +
                              "' is not a value: use its methods (load, store, fill, scale, add, "
                              "convertFrom) and Group.mac");
    return {};
  }
  if (auto L = lookupLocal(E->Text)) {
    kir::Expr* R = M->newExpr(kir::Expr::Kind::Local, Fn().Locals[*L].Ty, loc(E->Range));
    R->Index = *L;
    Value V = value(R, E->Range);
    auto Sig = LocalFnSig.find(*L);
    if (Sig != LocalFnSig.end())
      V.FnSig = Sig->second;
    return V;
  }
  if (SharedByName.count(E->Text)) {
    Diags.error(E->Range, "shared array '" + E->Text +
                              "' cannot be used as a value; index it, "
                              "as in '" +
                              E->Text + "[i]'");
    return {};
  }
  if (PodParams.count(E->Text)) {
    Diags.error(E->Range, "POD parameter '" + E->Text +
                              "' cannot be used as a value; read its "
                              "fields, as in '" +
                              E->Text + ".x'");
    return {};
  }
  if (BufferParams.count(E->Text)) {
    Diags.error(E->Range, "buffer '" + E->Text + "' cannot be used as a value; index it, as in '" +
                              E->Text + "[i]'");
    return {};
  }
  if (InHost && !lookupLocal(E->Text) &&
      std::find(CatchVars.begin(), CatchVars.end(), E->Text) != CatchVars.end()) {
    Diags.error(E->Range, "host code uses a caught exception only as " + E->Text +
                              ".getMessage(), printed (System.out.println(" + E->Text +
                              ".getMessage()))");
    return {};
  }
  if (auto G = InHost ? staticField(Current->Class->Name, E->Text) : std::nullopt) {
    kir::Expr* R = M->newExpr(kir::Expr::Kind::Global, M->Globals[*G].Ty, loc(E->Range));
    R->Index = *G;
    return value(R, E->Range);
  }
  if (isMainArgs(E)) {
    Diags.error(E->Range, "main's arguments are used as " + E->Text + ".length and " + E->Text +
                              "[i] (host code has no String arrays yet)");
    return {};
  }
  if (E->Text == "this" || E->Text == "super") {
    Diags.error(E->Range, "'" + E->Text + "' is not available in static device code");
    return {};
  }
  if (E->Text == "null") {
    Diags.error(E->Range, "'null' is not available in device code");
    return {};
  }
  bool IsClass = isBuiltinClass(E->Text) || isXpuClass(E->Text);
  for (const ClassDecl& C : Unit.Classes)
    IsClass |= C.Name == E->Text;
  if (IsClass) {
    Diags.error(E->Range, "'" + E->Text + "' is a class, not a value");
    return {};
  }
  Diags.error(E->Range, "unknown name '" + E->Text + "'");
  return {};
}

// ---- calls ----

Sema::Value Sema::buildCall(const Expr* E) {
  if (Value Host; InHost && buildHostCall(E, Host))
    return Host;
  const Expr* Callee = E->Ops[0];
  if (Callee->K == Expr::Kind::Name) {
    if (auto L = lookupLocal(Callee->Text)) {
      auto Sig = LocalFnSig.find(*L);
      if (Sig != LocalFnSig.end())
        return buildFnCall(E, *L, Sig->second);
      Diags.error(Callee->Range,
                  "'" + Callee->Text + "' is a " + Fn().Locals[*L].Ty.str() + ", not a function");
      return {};
    }
    return buildDeviceCall(E, Current->Class->Name, Callee->Text);
  }
  if (Callee->K != Expr::Kind::Member) {
    Diags.error(Callee->Range, "this expression cannot be called");
    return {};
  }
  const Expr* Obj = Callee->Ops[0];
  const std::string& Method = Callee->Text;
  if (Obj->K != Expr::Kind::Name) {
    Diags.error(Callee->Range, "method calls on expressions are not supported in device code");
    return {};
  }
  const std::string& Name = Obj->Text;
  if (SharedByName.count(Name) && !lookupLocal(Name)) {
    if (Method == "length" && E->Ops.size() == 1) {
      kir::Expr* R =
          M->newExpr(kir::Expr::Kind::Intrinsic, Type::scalar(ScalarType::U64), loc(E->Range));
      R->IOp = kir::IntrinsicOp::BufferLength;
      R->Ops = {buildBufferOperand(Obj)};
      return value(R, E->Range);
    }
    Diags.error(Callee->Range, "a shared array has no method '" + Method + "' (it has length())");
    return {};
  }
  if (Name == "Atomics" && !lookupLocal(Name)) {
    if (!isImported("Atomics")) {
      Diags.error(Obj->Range, "'Atomics' is not imported; add 'import cajeta.xpu.Atomics;'");
      return {};
    }
    return buildAtomic(E, Method);
  }
  if (Name == "Wave" && !lookupLocal(Name)) {
    if (!isImported("Wave")) {
      Diags.error(Obj->Range, "'Wave' is not imported; add 'import cajeta.xpu.Wave;'");
      return {};
    }
    return buildWave(E, Method);
  }
  if (Name == "Barrier" && !lookupLocal(Name)) {
    Diags.error(E->Range, "'Barrier." + Method + "()' is a statement, not a value");
    return {};
  }
  if (Name == "Device" && !lookupLocal(Name)) {
    if (!isImported("Device")) {
      Diags.error(Obj->Range, "'Device' is not imported; add 'import cajeta.xpu.Device;'");
      return {};
    }
    return buildDeviceQuery(E, Method);
  }
  if (Name == "AsyncCopy" && !lookupLocal(Name)) {
    if (!isImported("AsyncCopy")) {
      Diags.error(Obj->Range, "'AsyncCopy' is not imported; add 'import cajeta.xpu.AsyncCopy;'");
      return {};
    }
    return buildAsyncCopy(E, Method);
  }
  if (Name == "Group" && !lookupLocal(Name)) {
    if (!isImported("Group")) {
      Diags.error(Obj->Range, "'Group' is not imported; add 'import cajeta.xpu.Group;'");
      return {};
    }
    return buildGroup(E, Method);
  }
  if ((Name == "Tile" || Name == "CooperativeMatrix") && !lookupLocal(Name)) {
    Diags.error(E->Range, "'" + Name + "." + Method +
                              "(...)' initialises a tile declaration, as in "
                              "'Tile<float16, 16, 16> a = Tile." +
                              Method + "(...);'");
    return {};
  }
  if (auto L = lookupLocal(Name); L && Fn().Locals[*L].Ty.isTile())
    return buildTileMethod(E, *L, Method);
  if (auto L = lookupLocal(Name); L && Fn().Locals[*L].Ty.isRayQuery())
    return buildRayQueryMethod(E, *L, Method);
  if (BufferParams.count(Name) && !lookupLocal(Name)) {
    if (Method == "length" && E->Ops.size() == 1) {
      kir::Expr* R =
          M->newExpr(kir::Expr::Kind::Intrinsic, Type::scalar(ScalarType::U64), loc(E->Range));
      R->IOp = kir::IntrinsicOp::BufferLength;
      R->Ops = {buildBufferOperand(Obj)};
      return value(R, E->Range);
    }
    if (Method == "range") {
      Diags.error(E->Range, "'" + Name +
                                ".range(n)' is only valid as the iterable of a "
                                "grid-stride loop: for (i, T v : " +
                                Name + ".range(n))");
      return {};
    }
    Diags.error(Callee->Range, "KernelBuffer has no device method '" + Method +
                                   "' (device code can call length())");
    return {};
  }
  if (auto L = lookupLocal(Name)) {
    Diags.error(Callee->Range, "type " + Fn().Locals[*L].Ty.str() + " has no methods");
    return {};
  }
  if (isBuiltinClass(Name)) {
    if (builtinNeedsImport(Name) && !isImported(Name)) {
      Diags.error(Obj->Range,
                  "'" + Name + "' is not imported; add 'import cajeta.xpu." + Name + ";'");
      return {};
    }
    return buildBuiltinCall(E, Name, Method);
  }
  for (const ClassDecl& C : Unit.Classes)
    if (C.Name == Name)
      return buildDeviceCall(E, Name, Method);
  if (auto Why = unsupportedXpuClass(Name)) {
    Diags.error(Obj->Range, "'" + Name + "' is not supported yet: " + *Why);
    return {};
  }
  if (isXpuClass(Name)) {
    Diags.error(Callee->Range, "'" + Name + "." + Method +
                                   "' is host API and cannot be called "
                                   "from device code");
    return {};
  }
  Diags.error(Obj->Range, "unknown name '" + Name + "'");
  return {};
}

Sema::Value Sema::buildBuiltinCall(const Expr* E, const std::string& Class,
                                   const std::string& Method) {
  auto B = findBuiltin(Class, Method);
  SourceRange CalleeRange = E->Ops[0]->Range;
  if (!B) {
    Diags.error(CalleeRange, "'" + Class + "' has no method '" + Method + "'");
    return {};
  }
  size_t Given = E->Ops.size() - 1;
  if (Given != B->Arity) {
    Diags.error(E->Range, "'" + Class + "." + Method + "' takes " + std::to_string(B->Arity) +
                              " argument" + (B->Arity == 1 ? "" : "s") + ", " +
                              std::to_string(Given) + " given");
    return {};
  }
  kir::Expr* R =
      M->newExpr(kir::Expr::Kind::Intrinsic, Type::scalar(ScalarType::U32), loc(E->Range));
  R->IOp = B->Op;
  R->Dim = B->Dim;
  if (B->IsGeometry)
    return value(R, E->Range);

  std::vector<Value> Args;
  for (size_t I = 1; I < E->Ops.size(); ++I)
    Args.push_back(buildExpr(E->Ops[I]));
  for (const Value& A : Args)
    if (!A)
      return {};
  std::string Name = Class + "." + Method;
  using kir::IntrinsicOp;
  if (B->Op == IntrinsicOp::Bitcast)
    return buildBitView(E, Name, Args[0], R);
  Type Ty;
  bool FloatOnly =
      B->Op != IntrinsicOp::Abs && B->Op != IntrinsicOp::Min && B->Op != IntrinsicOp::Max;
  if (B->Op == IntrinsicOp::Min || B->Op == IntrinsicOp::Max) {
    if (!unifyNumeric(Args[0], Args[1], CalleeRange, Name, Ty))
      return {};
    R->Ops = {Args[0].E, Args[1].E};
  } else if (B->Op == IntrinsicOp::Abs) {
    Value A = Args[0];
    kir::Expr* X = materialize(A);
    if (!X->Ty.isInteger() && !X->Ty.isFloat()) {
      Diags.error(E->Ops[1]->Range, Name + " takes a number, found " + X->Ty.str());
      return {};
    }
    Ty = promoteSmall(X->Ty);
    R->Ops = {castTo(X, Ty)};
  } else if (FloatOnly) {
    // The widest float among typed arguments (float64 when all are constants).
    Ty = Type::scalar(ScalarType::F64);
    bool AnyTyped = false;
    for (size_t I = 0; I < Args.size(); ++I) {
      if (Args[I].Lit != Value::None)
        continue;
      Type T = Args[I].E->Ty;
      if (!T.isFloat()) {
        Diags.error(E->Ops[I + 1]->Range,
                    Name + " takes float32 or float64, found " + T.str() + "; cast the argument");
        return {};
      }
      if (!AnyTyped || T.bits() > Ty.bits())
        Ty = T;
      AnyTyped = true;
    }
    for (size_t I = 0; I < Args.size(); ++I) {
      kir::Expr* X = convert(Args[I], Ty, E->Ops[I + 1]->Range, "the argument");
      if (!X)
        return {};
      R->Ops.push_back(X);
    }
  }
  R->Ty = Ty;
  return value(R, E->Range);
}

// Float.floatToRawIntBits(float32) -> int32, Float.intBitsToFloat(int32 or uint32) -> float32,
// and Double's 64-bit pair: the operand's bits as the other type.
Sema::Value Sema::buildBitView(const Expr* E, const std::string& Name, Value Arg, kir::Expr* R) {
  bool ToInt = Name == "Float.floatToRawIntBits" || Name == "Double.doubleToRawLongBits";
  unsigned Bits = Name.rfind("Float.", 0) == 0 ? 32 : 64;
  Type Float = Type::scalar(Bits == 32 ? ScalarType::F32 : ScalarType::F64);
  Type Int = Type::scalar(Bits == 32 ? ScalarType::I32 : ScalarType::I64);
  const SourceRange& ArgRange = E->Ops[1]->Range;
  kir::Expr* X = nullptr;
  if (ToInt) {
    X = convert(Arg, Float, ArgRange, "the argument");
  } else if (Arg.Lit != Value::None) {
    X = convert(Arg, Int, ArgRange, "the argument");
  } else {
    X = materialize(Arg);
    if (!X->Ty.isInteger() || X->Ty.bits() != Bits) {
      Diags.error(ArgRange,
                  Name + " takes a " + std::to_string(Bits) + "-bit integer, found " + X->Ty.str());
      return {};
    }
  }
  if (!X)
    return {};
  R->Ops = {X};
  R->Ty = ToInt ? Int : Float;
  return value(R, E->Range);
}

Sema::Value Sema::buildDeviceCall(const Expr* E, const std::string& Class,
                                  const std::string& Method) {
  std::string Qualified = Class + "." + Method;
  SourceRange CalleeRange = E->Ops[0]->Range;
  auto It = FunctionByName.find(Qualified);
  if (auto D = DeviceFnByName.find(Qualified); InHost && D != DeviceFnByName.end()) {
    if (DeviceFns[D->second].Fn->IsKernel)
      Diags.error(CalleeRange, "'" + Qualified + "' is a kernel; launch it: " + Qualified +
                                   ".launch(stream, grid: [...], block: [...])(args)");
    else
      Diags.error(CalleeRange,
                  "'" + Qualified + "' is a @Device method; only device code can call it");
    return {};
  }
  if (It == FunctionByName.end()) {
    for (const ClassDecl& C : Unit.Classes)
      if (C.Name == Class)
        for (const struct Method& Me : C.Methods)
          if (Me.Name == Method && !Me.annotation("Kernel") && !Me.annotation("Device")) {
            Diags.error(CalleeRange, "'" + Qualified +
                                         "' is a host method; device code can "
                                         "call only @Device methods");
            return {};
          }
    if (isBuiltinClass(Method) || Method == "sqrt" || Method == "min" || Method == "max")
      Diags.error(CalleeRange,
                  "unknown method '" + Qualified + "' (did you mean 'Math." + Method + "'?)");
    else
      Diags.error(CalleeRange, "unknown method '" + Qualified + "'");
    return {};
  }
  FunctionInfo& Callee = Functions[It->second];
  if (Callee.Fn->IsKernel) {
    Diags.error(CalleeRange, "cannot call @Kernel method '" + Qualified +
                                 "' from device code; launch it from the host");
    return {};
  }
  size_t Given = E->Ops.size() - 1;
  const frontend::Method& Decl = *Callee.Decl;
  if (!Callee.Valid) {
    for (size_t I = 1; I < E->Ops.size(); ++I)
      buildExpr(E->Ops[I]);
    return {};
  }
  if (Given != Callee.Fn->Params.size()) {
    Diags.error(E->Range, "'" + Qualified + "' takes " + std::to_string(Callee.Fn->Params.size()) +
                              " argument" + (Callee.Fn->Params.size() == 1 ? "" : "s") + ", " +
                              std::to_string(Given) + " given");
    return {};
  }
  kir::Expr* R = M->newExpr(kir::Expr::Kind::Call, Callee.Fn->ReturnType, loc(E->Range));
  R->Index = Callee.Index;
  bool Ok = true;
  for (size_t I = 0; I < Given; ++I) {
    const kir::Param& P = Callee.Fn->Params[I];
    const Expr* A = E->Ops[I + 1];
    if (P.IsAccel) {
      kir::Expr* X = buildAccelOperand(A, "argument " + std::to_string(I + 1) + " of '" +
                                              Qualified + "' ('" + Decl.Params[I].Name + "')");
      Ok &= X != nullptr;
      R->Ops.push_back(X);
      continue;
    }
    if (P.Ty.isBuffer()) {
      kir::Expr* B = buildBufferOperand(A);
      if (B && B->Ty != P.Ty) {
        Diags.error(A->Range, "argument " + std::to_string(I + 1) + " of '" + Qualified + "' ('" +
                                  Decl.Params[I].Name + "') expects " + P.Ty.str() + ", found " +
                                  B->Ty.str());
        B = nullptr;
      }
      Ok &= B != nullptr;
      R->Ops.push_back(B);
      continue;
    }
    if (P.Ty.isPod()) {
      kir::Expr* Pod = nullptr;
      if (A->K == Expr::Kind::Name && PodParams.count(A->Text) && !lookupLocal(A->Text) &&
          Fn().Params[PodParams[A->Text]].Ty == P.Ty) {
        Pod = M->newExpr(kir::Expr::Kind::Param, P.Ty, loc(A->Range));
        Pod->Index = PodParams[A->Text];
      } else {
        Diags.error(A->Range, "argument " + std::to_string(I + 1) + " of '" + Qualified + "' ('" +
                                  Decl.Params[I].Name + "') expects a '" +
                                  M->Pods[P.Ty.PodIndex].Name + "' POD parameter");
      }
      Ok &= Pod != nullptr;
      R->Ops.push_back(Pod);
      continue;
    }
    Value V = buildExpr(A);
    std::string Ctx = "argument " + std::to_string(I + 1) + " ('" + Decl.Params[I].Name + "')";
    int WantSig = I < Callee.ParamFnSig.size() ? Callee.ParamFnSig[I] : -1;
    kir::Expr* X =
        V && checkFnValue(V, WantSig, A->Range) ? convert(V, P.Ty, A->Range, Ctx.c_str()) : nullptr;
    Ok &= X != nullptr;
    R->Ops.push_back(X);
  }
  Calls.push_back({Current->Index, Callee.Index, CalleeRange});
  checkBackendCall(Callee, CalleeRange);
  if (!Ok)
    return {};
  return value(R, E->Range);
}

// ---- indexing, lvalues ----

Sema::Value Sema::buildIndex(const Expr* E) {
  if (isMainArgs(E->Ops[0]))
    return buildArgAt(E);
  kir::Expr* Buf = buildBufferOperand(E->Ops[0]);
  Value I = buildExpr(E->Ops[1]);
  if (!Buf || !I)
    return {};
  kir::Expr* Index = nullptr;
  if (I.Lit == Value::IntLit) {
    if (I.IntValue < 0) {
      Diags.error(E->Ops[1]->Range, "negative buffer index " + int128ToString(I.IntValue));
      return {};
    }
    Index = convert(I,
                    integerFits(I.IntValue, Type::scalar(ScalarType::U32))
                        ? Type::scalar(ScalarType::U32)
                        : Type::scalar(ScalarType::U64),
                    E->Ops[1]->Range, "the index");
  } else if (I.Lit == Value::None && I.E->Ty.isInteger()) {
    Index = I.E;
  } else {
    Diags.error(E->Ops[1]->Range,
                "a buffer index must be an integer, found " + describe(I.E->Ty, I.Lit));
    return {};
  }
  kir::Expr* L = M->newExpr(kir::Expr::Kind::Load, Type::scalar(Buf->Ty.Elem), loc(E->Range));
  L->Ops = {Buf, Index};
  return value(L, E->Range);
}

Sema::LValue Sema::buildLValue(const Expr* E) {
  LValue L;
  L.Range = E->Range;
  if (E->K == Expr::Kind::Name) {
    if (auto Id = lookupLocal(E->Text); Id && Fn().Locals[*Id].Ty.isRayQuery()) {
      Diags.error(E->Range, "cannot assign to ray query '" + E->Text +
                                "'; call initialize(...) to start a new query");
      return L;
    }
    if (auto Id = lookupLocal(E->Text); Id && Fn().Locals[*Id].Ty.isTile()) {
      Diags.error(E->Range, "cannot assign to tile '" + E->Text +
                                "'; use its methods (load, fill, convertFrom, ...)");
      return L;
    }
    if (auto Id = lookupLocal(E->Text)) {
      L.K = LValue::Local;
      L.LocalId = *Id;
      L.Ty = Fn().Locals[*Id].Ty;
      return L;
    }
    if (auto G = InHost ? staticField(Current->Class->Name, E->Text) : std::nullopt) {
      L.K = LValue::Global;
      L.LocalId = *G;
      L.Ty = M->Globals[*G].Ty;
      return L;
    }
    if (BufferParams.count(E->Text)) {
      Diags.error(E->Range, "cannot assign to buffer '" + E->Text +
                                "'; assign to its elements, "
                                "as in '" +
                                E->Text + "[i] = ...'");
      return L;
    }
    buildName(E); // reports unknown names
    return L;
  }
  if (E->K == Expr::Kind::Index && isMainArgs(E->Ops[0])) {
    Diags.error(E->Range, "main's arguments are read-only");
    return L;
  }
  if (E->K == Expr::Kind::Index) {
    Value V = buildIndex(E);
    if (!V)
      return L;
    L.K = LValue::Element;
    L.Buffer = V.E->Ops[0];
    L.Index = V.E->Ops[1];
    L.Ty = V.E->Ty;
    return L;
  }
  if (E->K == Expr::Kind::Member && E->Ops[0]->K == Expr::Kind::Name && InHost &&
      !lookupLocal(E->Ops[0]->Text))
    if (auto G = staticField(E->Ops[0]->Text, E->Text)) {
      L.K = LValue::Global;
      L.LocalId = *G;
      L.Ty = M->Globals[*G].Ty;
      return L;
    }
  if (E->K == Expr::Kind::Member && E->Ops[0]->K == Expr::Kind::Name &&
      PodParams.count(E->Ops[0]->Text)) {
    Diags.error(E->Range, "POD parameters are read-only; copy the field into a local first");
    return L;
  }
  if (E->K != Expr::Kind::Invalid)
    Diags.error(E->Range, "the target of an assignment must be a variable or a buffer element");
  return L;
}

kir::Expr* Sema::readLValue(const LValue& L, SourceRange R) {
  if (L.K == LValue::Global) {
    kir::Expr* E = M->newExpr(kir::Expr::Kind::Global, L.Ty, loc(R));
    E->Index = L.LocalId;
    return E;
  }
  if (L.K == LValue::Local) {
    kir::Expr* E = M->newExpr(kir::Expr::Kind::Local, L.Ty, loc(R));
    E->Index = L.LocalId;
    return E;
  }
  kir::Expr* E = M->newExpr(kir::Expr::Kind::Load, L.Ty, loc(R));
  E->Ops = {L.Buffer, L.Index};
  return E;
}

kir::Expr* Sema::writeLValue(const LValue& L, kir::Expr* V, SourceRange R) {
  if (L.K == LValue::Global) {
    kir::Expr* E = M->newExpr(kir::Expr::Kind::GlobalAssign, L.Ty, loc(R));
    E->Index = L.LocalId;
    E->Ops = {V};
    return E;
  }
  if (L.K == LValue::Local) {
    kir::Expr* E = M->newExpr(kir::Expr::Kind::Assign, L.Ty, loc(R));
    E->Index = L.LocalId;
    E->Ops = {V};
    return E;
  }
  kir::Expr* E = M->newExpr(kir::Expr::Kind::Store, L.Ty, loc(R));
  E->Ops = {L.Buffer, L.Index, V};
  return E;
}

/// For a buffer element, evaluates the index once into a temporary (so `b[i++] += 1` reads and
/// writes the same element) and returns the statement that does it; null for a local.
static kir::Expr* stabilizeIndex(kir::Module& M, kir::Function& Fn, kir::Expr*& Index) {
  uint32_t Id = static_cast<uint32_t>(Fn.Locals.size());
  Fn.Locals.push_back({"$t" + std::to_string(Id), Index->Ty, {}});
  kir::Expr* A = M.newExpr(kir::Expr::Kind::Assign, Index->Ty, Index->Loc);
  A->Index = Id;
  A->Ops = {Index};
  kir::Expr* Read = M.newExpr(kir::Expr::Kind::Local, Index->Ty, Index->Loc);
  Read->Index = Id;
  Index = Read;
  return A;
}

static kir::Expr* seq(kir::Module& M, std::vector<kir::Expr*> Ops) {
  if (Ops.size() == 1)
    return Ops[0];
  kir::Expr* S = M.newExpr(kir::Expr::Kind::Seq, Ops.back()->Ty, Ops.back()->Loc);
  S->Ops = std::move(Ops);
  return S;
}

Sema::Value Sema::buildIncDec(const Expr* E, bool Increment, bool Prefix) {
  const char* Op = Increment ? "++" : "--";
  LValue L = buildLValue(E->Ops[0]);
  if (L.K == LValue::Invalid)
    return {};
  if (!L.Ty.isInteger() && !L.Ty.isFloat()) {
    Diags.error(E->Range,
                std::string("'") + Op + "' needs a numeric variable, found " + L.Ty.str());
    return {};
  }
  std::vector<kir::Expr*> Ops;
  if (L.K == LValue::Element)
    Ops.push_back(stabilizeIndex(*M, Fn(), L.Index));
  Type P = promoteSmall(L.Ty);
  BinaryOp BOp = Increment ? BinaryOp::Add : BinaryOp::Sub;
  auto one = [&] { return P.isFloat() ? floatConst(P, 1.0, E->Range) : intConst(P, 1, E->Range); };
  if (Prefix) {
    kir::Expr* New =
        castTo(binary(BOp, P, castTo(readLValue(L, E->Range), P), one(), E->Range), L.Ty);
    Ops.push_back(writeLValue(L, New, E->Range));
    return value(seq(*M, Ops), E->Range);
  }
  uint32_t Old = newTemp(L.Ty);
  kir::Expr* SaveOld = M->newExpr(kir::Expr::Kind::Assign, L.Ty, loc(E->Range));
  SaveOld->Index = Old;
  SaveOld->Ops = {readLValue(L, E->Range)};
  Ops.push_back(SaveOld);
  auto readOld = [&] {
    kir::Expr* R = M->newExpr(kir::Expr::Kind::Local, L.Ty, loc(E->Range));
    R->Index = Old;
    return R;
  };
  kir::Expr* New = castTo(binary(BOp, P, castTo(readOld(), P), one(), E->Range), L.Ty);
  Ops.push_back(writeLValue(L, New, E->Range));
  Ops.push_back(readOld());
  return value(seq(*M, Ops), E->Range);
}

// ---- operators ----

static std::string tokText(Tok K) {
  switch (K) {
  case Tok::Plus:
    return "+";
  case Tok::Minus:
    return "-";
  case Tok::Star:
    return "*";
  case Tok::Slash:
    return "/";
  case Tok::Percent:
    return "%";
  case Tok::Shl:
    return "<<";
  case Tok::Shr:
    return ">>";
  case Tok::UShr:
    return ">>>";
  case Tok::Amp:
    return "&";
  case Tok::Pipe:
    return "|";
  case Tok::Caret:
    return "^";
  case Tok::EqEq:
    return "==";
  case Tok::NotEq:
    return "!=";
  case Tok::Less:
    return "<";
  case Tok::LessEq:
    return "<=";
  case Tok::Greater:
    return ">";
  case Tok::GreaterEq:
    return ">=";
  case Tok::AmpAmp:
    return "&&";
  case Tok::PipePipe:
    return "||";
  case Tok::Bang:
    return "!";
  case Tok::Tilde:
    return "~";
  default:
    return "?";
  }
}

Sema::Value Sema::buildUnary(const Expr* E) {
  if (E->Op == Tok::PlusPlus || E->Op == Tok::MinusMinus)
    return buildIncDec(E, E->Op == Tok::PlusPlus, true);
  // -<literal> is one constant, so -2147483648 and -9223372036854775808L fit their types.
  if (E->Op == Tok::Minus && E->Ops[0]->K == Expr::Kind::IntLit) {
    Value R = buildIntLiteral(E->Ops[0], /*Negated=*/true);
    R.Range = E->Range;
    if (R.Lit == Value::IntLit)
      R.E = materialize(R);
    return R;
  }
  Value V = buildExpr(E->Ops[0]);
  if (!V)
    return {};
  std::string Op = tokText(E->Op);
  if (E->Op == Tok::Bang) {
    if (V.Lit != Value::None || !V.E->Ty.isBool()) {
      Diags.error(E->Range, "operator '!' needs a bool, found " + describe(V.E->Ty, V.Lit));
      return {};
    }
    kir::Expr* R = M->newExpr(kir::Expr::Kind::Unary, BoolTy, loc(E->Range));
    R->UOp = kir::UnaryOp::Not;
    R->Ops = {V.E};
    return value(R, E->Range);
  }
  // Constants fold, so that -2147483648 and ~0 keep adapting to their context.
  if (V.Lit == Value::IntLit && E->Op != Tok::Plus) {
    Value R = V;
    R.Range = E->Range;
    R.IntValue = E->Op == Tok::Minus ? -V.IntValue : ~V.IntValue;
    R.E = materialize(R);
    return R;
  }
  if (V.Lit == Value::FloatLit) {
    if (E->Op == Tok::Tilde) {
      Diags.error(E->Range, "operator '~' needs an integer, found a float constant");
      return {};
    }
    Value R = V;
    R.Range = E->Range;
    if (E->Op == Tok::Minus)
      R.FloatValue = -V.FloatValue;
    R.E = materialize(R);
    return R;
  }
  if (V.Lit == Value::IntLit)
    return V; // unary plus
  Type T = V.E->Ty;
  bool Ok = E->Op == Tok::Tilde ? T.isInteger() : (T.isInteger() || T.isFloat());
  if (!Ok) {
    Diags.error(E->Range, "operator '" + Op + "' cannot be applied to " + T.str());
    return {};
  }
  T = promoteSmall(T);
  if (E->Op == Tok::Plus)
    return value(castTo(V.E, T), E->Range);
  kir::Expr* R = M->newExpr(kir::Expr::Kind::Unary, T, loc(E->Range));
  R->UOp = E->Op == Tok::Minus ? kir::UnaryOp::Neg : kir::UnaryOp::BitNot;
  R->Ops = {castTo(V.E, T)};
  return value(R, E->Range);
}

static std::optional<BinaryOp> binaryOpFor(Tok K) {
  switch (K) {
  case Tok::Plus:
  case Tok::PlusAssign:
    return BinaryOp::Add;
  case Tok::Minus:
  case Tok::MinusAssign:
    return BinaryOp::Sub;
  case Tok::Star:
  case Tok::StarAssign:
    return BinaryOp::Mul;
  case Tok::Slash:
  case Tok::SlashAssign:
    return BinaryOp::Div;
  case Tok::Percent:
  case Tok::PercentAssign:
    return BinaryOp::Rem;
  case Tok::Shl:
  case Tok::ShlAssign:
    return BinaryOp::Shl;
  case Tok::Shr:
  case Tok::ShrAssign:
    return BinaryOp::Shr;
  case Tok::UShr:
  case Tok::UShrAssign:
    return BinaryOp::UShr;
  case Tok::Amp:
  case Tok::AmpAssign:
    return BinaryOp::And;
  case Tok::Pipe:
  case Tok::PipeAssign:
    return BinaryOp::Or;
  case Tok::Caret:
  case Tok::CaretAssign:
    return BinaryOp::Xor;
  case Tok::EqEq:
    return BinaryOp::Eq;
  case Tok::NotEq:
    return BinaryOp::Ne;
  case Tok::Less:
    return BinaryOp::Lt;
  case Tok::LessEq:
    return BinaryOp::Le;
  case Tok::Greater:
    return BinaryOp::Gt;
  case Tok::GreaterEq:
    return BinaryOp::Ge;
  case Tok::AmpAmp:
    return BinaryOp::LogicalAnd;
  case Tok::PipePipe:
    return BinaryOp::LogicalOr;
  default:
    return std::nullopt;
  }
}

Sema::Value Sema::applyBinary(BinaryOp Op, const std::string& Spelling, Value A, Value B,
                              SourceRange R) {
  if (!A || !B)
    return {};
  auto isBoolValue = [](const Value& V) { return V.Lit == Value::None && V.E->Ty.isBool(); };
  if ((!A.Lit && A.E->Ty.isString()) || (!B.Lit && B.E->Ty.isString())) {
    Diags.error(R, Op == BinaryOp::Eq || Op == BinaryOp::Ne
                       ? "compare strings with s.equals(t) (== would compare references)"
                       : "operator '" + Spelling +
                             "' on a String: strings are joined only in System.out.print and "
                             "println arguments");
    return {};
  }
  switch (Op) {
  case BinaryOp::LogicalAnd:
  case BinaryOp::LogicalOr:
    if (!isBoolValue(A) || !isBoolValue(B)) {
      Diags.error(R, "operator '" + Spelling + "' needs bool operands, found " +
                         describe(A.E->Ty, A.Lit) + " and " + describe(B.E->Ty, B.Lit));
      return {};
    }
    return value(binary(Op, BoolTy, A.E, B.E, R), R);
  case BinaryOp::Shl:
  case BinaryOp::Shr:
  case BinaryOp::UShr: {
    kir::Expr* L = materialize(A);
    kir::Expr* C = materialize(B);
    if (!L->Ty.isInteger() || !C->Ty.isInteger()) {
      Diags.error(R, "operator '" + Spelling + "' needs integer operands, found " + L->Ty.str() +
                         " and " + C->Ty.str());
      return {};
    }
    Type T = promoteSmall(L->Ty);
    kir::Expr* Count =
        B.Lit == Value::IntLit ? intConst(T, B.IntValue & (T.bits() - 1), B.Range) : castTo(C, T);
    return value(binary(Op, T, castTo(L, T), Count, R), R);
  }
  case BinaryOp::And:
  case BinaryOp::Or:
  case BinaryOp::Xor:
    if (isBoolValue(A) && isBoolValue(B))
      return value(binary(Op, BoolTy, A.E, B.E, R), R);
    [[fallthrough]];
  default:
    break;
  }
  bool Comparison = Op == BinaryOp::Eq || Op == BinaryOp::Ne || Op == BinaryOp::Lt ||
                    Op == BinaryOp::Le || Op == BinaryOp::Gt || Op == BinaryOp::Ge;
  if ((Op == BinaryOp::Eq || Op == BinaryOp::Ne) && isBoolValue(A) && isBoolValue(B))
    return value(binary(Op, BoolTy, A.E, B.E, R), R);
  Type T;
  if (!unifyNumeric(A, B, R, Spelling, T))
    return {};
  if ((Op == BinaryOp::And || Op == BinaryOp::Or || Op == BinaryOp::Xor) && !T.isInteger()) {
    Diags.error(R, "operator '" + Spelling + "' needs integer or bool operands, found " + T.str());
    return {};
  }
  return value(binary(Op, Comparison ? BoolTy : T, A.E, B.E, R), R);
}

Sema::Value Sema::buildBinary(const Expr* E) {
  Value A = buildExpr(E->Ops[0]);
  Value B = buildExpr(E->Ops[1]);
  auto Op = binaryOpFor(E->Op);
  if (!Op)
    return {};
  // Report the operator's position: between the operands.
  SourceRange R = E->Range;
  return applyBinary(*Op, tokText(E->Op), A, B, R);
}

Sema::Value Sema::buildAssign(const Expr* E) {
  LValue L = buildLValue(E->Ops[0]);
  // `buf = other` is one mistake: do not also complain that `other` is not a value.
  if (L.K == LValue::Invalid && E->Ops[1]->K == Expr::Kind::Name &&
      BufferParams.count(E->Ops[1]->Text))
    return {};
  Value V = buildExpr(E->Ops[1]);
  if (L.K == LValue::Invalid || !V)
    return {};
  int WantSig = -1;
  if (L.K == LValue::Local) {
    auto Sig = LocalFnSig.find(L.LocalId);
    if (Sig != LocalFnSig.end())
      WantSig = Sig->second;
  }
  if (WantSig >= 0 && E->Op != Tok::Assign) {
    Diags.error(E->Range, "function values support only '='");
    return {};
  }
  if (!checkFnValue(V, WantSig, E->Ops[1]->Range))
    return {};
  if (E->Op == Tok::Assign) {
    kir::Expr* X = convert(V, L.Ty, E->Ops[1]->Range, "the assignment");
    if (!X)
      return {};
    return value(writeLValue(L, X, E->Range), E->Range);
  }
  // a op= b  is  a = (T)(a op b), with a's element index evaluated once.
  std::vector<kir::Expr*> Ops;
  if (L.K == LValue::Element)
    Ops.push_back(stabilizeIndex(*M, Fn(), L.Index));
  std::string Spelling = tokText(static_cast<Tok>(0)); // replaced below
  static const std::pair<Tok, const char*> Names[] = {
      {Tok::PlusAssign, "+="},  {Tok::MinusAssign, "-="},   {Tok::StarAssign, "*="},
      {Tok::SlashAssign, "/="}, {Tok::PercentAssign, "%="}, {Tok::AmpAssign, "&="},
      {Tok::PipeAssign, "|="},  {Tok::CaretAssign, "^="},   {Tok::ShlAssign, "<<="},
      {Tok::ShrAssign, ">>="},  {Tok::UShrAssign, ">>>="}};
  for (const auto& [K, N] : Names)
    if (K == E->Op)
      Spelling = N;
  Value Cur = value(readLValue(L, E->Range), E->Range);
  Value Res = applyBinary(*binaryOpFor(E->Op), Spelling, Cur, V, E->Range);
  if (!Res)
    return {};
  if (Res.E->Ty.isBool() != L.Ty.isBool()) {
    Diags.error(E->Range, "operator '" + Spelling + "' cannot store " + Res.E->Ty.str() + " into " +
                              L.Ty.str());
    return {};
  }
  Ops.push_back(writeLValue(L, castTo(Res.E, L.Ty), E->Range));
  return value(seq(*M, Ops), E->Range);
}

Sema::Value Sema::buildTernary(const Expr* E) {
  kir::Expr* C = buildCondition(E->Ops[0], "'?:'");
  Value A = buildExpr(E->Ops[1]);
  Value B = buildExpr(E->Ops[2]);
  if (!C || !A || !B)
    return {};
  Type T;
  if (A.Lit == Value::None && B.Lit == Value::None && A.E->Ty == B.E->Ty) {
    T = A.E->Ty;
    if (T.isVoid()) {
      Diags.error(E->Range, "the arms of '?:' must have values");
      return {};
    }
  } else if (!unifyNumeric(A, B, E->Range, "?:", T)) {
    return {};
  }
  if (A.FnSig != B.FnSig) {
    Diags.error(E->Range, "the arms of '?:' must both be function values of the same type, or "
                          "neither");
    return {};
  }
  kir::Expr* S = M->newExpr(kir::Expr::Kind::Select, T, loc(E->Range));
  S->Ops = {C, A.E, B.E};
  Value R = value(S, E->Range);
  R.FnSig = A.FnSig;
  return R;
}

Sema::Value Sema::buildCast(const Expr* E) {
  auto Target = primitiveByName(E->CastType.Name);
  Value V = buildExpr(E->Ops[0]);
  if (!Target) {
    std::string S = suggestPrimitive(E->CastType.Name);
    if (!S.empty())
      Diags.error(E->CastType.Range,
                  "unknown type '" + E->CastType.Name + "'; did you mean '" + S + "'?");
    else if (E->CastType.Name == "float16")
      Diags.error(E->CastType.Range, "'float16' is not supported yet");
    else
      Diags.error(E->CastType.Range, "cannot cast to '" + E->CastType.Name +
                                         "': casts convert between primitive types");
    return {};
  }
  if (!V)
    return {};
  Type To = Type::scalar(*Target);
  if (V.Lit == Value::FloatLit && To.isFloat())
    return value(floatConst(To, V.FloatValue, E->Range), E->Range);
  kir::Expr* X = materialize(V);
  if (!X->Ty.isScalar()) {
    Diags.error(E->Range, "cannot cast " + X->Ty.str() + " to " + To.str());
    return {};
  }
  kir::Expr* C = M->newExpr(kir::Expr::Kind::Cast, To, loc(E->Range));
  C->Ops = {X};
  if (X->Ty == To)
    return value(X, E->Range);
  return value(C, E->Range);
}

// ---- dispatch ----

Sema::Value Sema::buildExpr(const Expr* E) {
  switch (E->K) {
  case Expr::Kind::IntLit:
    return buildIntLiteral(E);
  case Expr::Kind::FloatLit:
    return buildFloatLiteral(E);
  case Expr::Kind::BoolLit:
    return value(intConst(BoolTy, E->Text == "true", E->Range), E->Range);
  case Expr::Kind::StringLit:
    if (InHost) { // a String value
      return value(stringConst(E->Text, E->Range), E->Range);
    }
    Diags.error(E->Range, "strings and characters are not supported in device code");
    return {};
  case Expr::Kind::NamedArg:
    Diags.error(E->Range, "a named argument ('" + E->Text +
                              ": ...') belongs to a launch: "
                              "k.launch(s, grid: [...], block: [...])(args)");
    return {};
  case Expr::Kind::ArrayLit:
    Diags.error(E->Range, "an array literal ([...]) is a launch's grid or block");
    return {};
  case Expr::Kind::Name:
    return buildName(E);
  case Expr::Kind::Member:
    return InHost ? buildHostMember(E) : buildField(E);
  case Expr::Kind::MethodRef:
    return buildMethodRef(E);
  case Expr::Kind::Call:
    return buildCall(E);
  case Expr::Kind::Index:
    return buildIndex(E);
  case Expr::Kind::Unary:
    return buildUnary(E);
  case Expr::Kind::Postfix:
    return buildIncDec(E, E->Op == Tok::PlusPlus, false);
  case Expr::Kind::Binary:
    return buildBinary(E);
  case Expr::Kind::Assign:
    return buildAssign(E);
  case Expr::Kind::Ternary:
    return buildTernary(E);
  case Expr::Kind::Cast:
    return buildCast(E);
  case Expr::Kind::Alloc:
    if (InHost)
      return buildHostAlloc(E);
    if (E->Op == Tok::KwShared)
      Diags.error(E->Range, "a shared array is declared as 'Shared<T> name = shared T[N];'");
    else
      Diags.error(E->Range, "heap allocation is not allowed in device code");
    return {};
  case Expr::Kind::Invalid:
    return {};
  }
  return {};
}

} // namespace cajeta::frontend
