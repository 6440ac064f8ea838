// Sema for host code: the methods that are neither @Kernel nor @Device. They are built by the
// same statement and expression rules as device code, into a second KIR module (IsHost) whose
// extra nouns are heap arrays, runtime handles (buffers, streams, events) and printed strings,
// and whose extra verbs are kir::HostOp calls into the host support ABI.
#include "compiler/frontend/Sema.h"

#include "compiler/frontend/Builtins.h"
#include "compiler/frontend/TypeRules.h"
#include "compiler/kir/HostBorrowCheck.h"

#include "cajeta/xpu/FormatSpec.hpp"
#include "cajeta/xpu/HostExceptions.hpp"

#include <set>

namespace cajeta::frontend {

using kir::HostOp;
using kir::ScalarType;
using kir::Type;

namespace {

const Type U32 = Type::scalar(ScalarType::U32);
const Type I64 = Type::scalar(ScalarType::I64);

std::string mangleHost(const std::string& Class, const std::string& Method) {
  std::string S = "cjh_" + Class + "_" + Method;
  for (char& C : S)
    if (!std::isalnum(static_cast<unsigned char>(C)) && C != '_')
      C = '_';
  return S;
}

/// Java's rule for `+` in a print argument: a sum is a string concatenation when either side
/// is a string (so "a" + 1 + 2 prints a12 and 1 + 2 + "a" prints 3a).
bool isStringExpr(const Expr* E) {
  if (E->K == Expr::Kind::StringLit)
    return true;
  return E->K == Expr::Kind::Binary && E->Op == Tok::Plus &&
         (isStringExpr(E->Ops[0]) || isStringExpr(E->Ops[1]));
}

bool isName(const Expr* E, const char* Name) {
  return E->K == Expr::Kind::Name && E->Text == Name;
}

} // namespace

kir::Expr* Sema::stringConst(const std::string& Text, SourceRange R) {
  kir::Expr* S = M->newExpr(kir::Expr::Kind::StringConst, Type::string(), loc(R));
  S->Index = static_cast<uint32_t>(M->Strings.size());
  M->Strings.push_back(Text); // the lexer resolved the escapes
  return S;
}

kir::Expr* Sema::hostOp(HostOp Op, Type Ty, std::vector<kir::Expr*> Ops, SourceRange R) {
  kir::Expr* E = M->newExpr(kir::Expr::Kind::Host, Ty, loc(R));
  E->HOp = Op;
  E->Ops = std::move(Ops);
  return E;
}

// ---- declarations ----

void Sema::buildHostModule() {
  HostM = std::make_unique<kir::Module>();
  HostM->IsHost = true;
  HostM->SourceFile = M->SourceFile;
  // Host methods are built by the shared rules with the host module and function table in
  // place of the device ones; calls between host methods index the host table.
  std::swap(M, HostM);
  DeviceFns = std::move(Functions);
  DeviceFnByName = std::move(FunctionByName);
  Functions.clear();
  FunctionByName.clear();
  std::vector<CallSite> DeviceCalls = std::move(Calls);
  Calls.clear();
  InHost = true;
  declareStaticFields();
  declareHostFunctions();
  for (FunctionInfo& FI : Functions)
    if (FI.Valid)
      buildFunction(FI);
  buildStaticInit();
  if (!Diags.hasErrors())
    for (const kir::BorrowProblem& P : kir::checkHostBorrows(*M)) {
      uint32_t Offset = Diags.file().offsetOf(P.At.Line, P.At.Col);
      Diags.error({Offset, Offset + 1}, P.Message);
    }
  InHost = false;
  Calls = std::move(DeviceCalls);
  Functions = std::move(DeviceFns);
  FunctionByName = std::move(DeviceFnByName);
  DeviceFns.clear();
  DeviceFnByName.clear();
  std::swap(M, HostM);
}

void Sema::declareStaticFields() {
  for (const ClassDecl& C : Unit.Classes)
    for (const Field& F : C.Fields) {
      if (!F.IsStatic)
        continue;
      auto T = resolveType(F.Type, true, "a static field");
      if (!T)
        continue;
      if (T->isHostValue() && !F.Init) {
        Diags.error(F.Range, "static field '" + F.Name + "' needs an initialiser: a " + T->str() +
                                 " always refers to one");
        continue;
      }
      StaticFields[C.Name + "." + F.Name] = static_cast<uint32_t>(M->Globals.size());
      M->Globals.push_back({C.Name + "." + F.Name, *T, loc(F.Range)});
    }
}

std::optional<uint32_t> Sema::staticField(const std::string& Class, const std::string& Name) const {
  auto It = StaticFields.find(Class + "." + Name);
  if (It == StaticFields.end())
    return std::nullopt;
  return It->second;
}

void Sema::buildStaticInit() {
  // One function assigns every static field its initialiser, class by class in declaration
  // order (Java's order within a class); the program runs it before its entry point.
  auto Fn = std::make_unique<kir::Function>();
  Fn->Name = "<static initialisers>";
  Fn->Symbol = "cjh_static_init";
  Fn->ReturnType = Type::voidTy();
  FunctionInfo FI;
  FI.Fn = Fn.get();
  FI.Index = static_cast<uint32_t>(M->Functions.size());
  std::vector<kir::Stmt*> Body;
  for (const ClassDecl& C : Unit.Classes) {
    FI.Class = &C;
    Current = &FI;
    Scopes.clear();
    pushScope();
    for (const Field& F : C.Fields) {
      auto G = F.IsStatic && F.Init ? staticField(C.Name, F.Name) : std::nullopt;
      if (!G)
        continue;
      const kir::Global& Gl = M->Globals[*G];
      kir::Expr* V = convert(buildExpr(F.Init), Gl.Ty, F.Init->Range, "the initialiser");
      if (!V)
        continue;
      kir::Expr* A = M->newExpr(kir::Expr::Kind::GlobalAssign, Gl.Ty, loc(F.Range));
      A->Index = *G;
      A->Ops = {V};
      Body.push_back(evalStmt(A, F.Range));
    }
    popScope();
  }
  Current = nullptr;
  if (Body.empty())
    return;
  Fn->Body = makeBlock(std::move(Body), {});
  M->StaticInit = static_cast<int32_t>(FI.Index);
  M->Functions.push_back(std::move(Fn));
}

void Sema::declareHostFunctions() {
  for (const ClassDecl& C : Unit.Classes) {
    for (const Method& Me : C.Methods) {
      if (!Me.IsHost)
        continue;
      std::string Qualified = C.Name + "." + Me.Name;
      if (!Me.IsStatic) {
        Diags.error(Me.NameRange, "host method '" + Qualified +
                                      "' must be static (host code has no objects of its own "
                                      "classes yet)");
        continue;
      }
      if (!Me.Body) {
        Diags.error(Me.NameRange, "host method '" + Qualified + "' needs a body");
        continue;
      }
      if (FunctionByName.count(Qualified) || DeviceFnByName.count(Qualified)) {
        Diags.error(Me.NameRange,
                    "duplicate method '" + Qualified + "' (overloading is not supported)");
        continue;
      }
      FunctionInfo FI;
      FI.Class = &C;
      FI.Decl = &Me;
      FI.Index = static_cast<uint32_t>(M->Functions.size());
      auto Fn = std::make_unique<kir::Function>();
      Fn->Name = Qualified;
      Fn->Symbol = mangleHost(C.Name, Me.Name);
      Fn->Loc = loc(Me.NameRange);
      if (Me.ReturnType.Name == "void")
        Fn->ReturnType = Type::voidTy();
      else if (auto T = resolveType(Me.ReturnType, true, "a return type"))
        Fn->ReturnType = *T;
      else
        FI.Valid = false;
      std::set<std::string> Names;
      for (const Param& P : Me.Params) {
        if (!Names.insert(P.Name).second)
          Diags.error(P.Range, "duplicate parameter '" + P.Name + "'");
        if (Me.Name == "main" && P.Type.Name == "String" && P.Type.ArrayDims == 1 &&
            Me.Params.size() == 1) {
          MainArgs = P.Name; // main(String[] args): read through HostOp::ArgCount / ArgAt
          continue;
        }
        auto T = resolveType(P.Type, true, "a parameter");
        if (!T) {
          FI.Valid = false;
          continue;
        }
        kir::Param KP;
        KP.Name = P.Name;
        KP.Ty = *T;
        KP.Loc = loc(P.Range);
        Fn->Params.push_back(KP);
        FI.ParamFnSig.push_back(-1);
      }
      Fn->ParamAccess.assign(Fn->Params.size(), bundle::Access::None);
      FI.Fn = Fn.get();
      M->Functions.push_back(std::move(Fn));
      FunctionByName[Qualified] = static_cast<uint32_t>(Functions.size());
      Functions.push_back(FI);
    }
  }
}

std::optional<Type> Sema::resolveHostType(const TypeRef& T, const char* Where) {
  if (T.Name == "String") {
    if (T.ArrayDims == 0 && T.Args.empty())
      return Type::string();
    Diags.error(T.Range, std::string("a String array cannot be used as ") + Where +
                             " in host code yet (main's args is the one there is)");
    return std::nullopt;
  }
  if (T.ArrayDims > 1) {
    Diags.error(T.Range, "arrays of arrays are not supported in host code yet; use one array of "
                         "rows * cols elements");
    return std::nullopt;
  }
  if (T.ArrayDims == 1) {
    auto Elem = primitiveByName(T.Name);
    if (!Elem || !T.Args.empty()) {
      Diags.error(T.Range, "an array's elements are primitives (float32[], int32[], ...), not '" +
                               T.Name + "'");
      return std::nullopt;
    }
    return Type::heapArray(*Elem);
  }
  if (!isImported(T.Name)) {
    Diags.error(T.Range,
                "'" + T.Name + "' is not imported; add 'import cajeta.xpu." + T.Name + ";'");
    return std::nullopt;
  }
  if (T.Name == "KernelStream" || T.Name == "Event") {
    if (!T.Args.empty()) {
      Diags.error(T.Range, "'" + T.Name + "' takes no type arguments");
      return std::nullopt;
    }
    return Type::handle(T.Name == "Event" ? Type::EventHandle : Type::StreamHandle);
  }
  // KernelBuffer<T>
  if (T.Args.size() != 1) {
    Diags.error(T.Range, "KernelBuffer takes one element type, as in KernelBuffer<float32>");
    return std::nullopt;
  }
  auto Elem = primitiveByName(T.Args[0].Name);
  if (!Elem || T.Args[0].ArrayDims || !T.Args[0].Args.empty()) {
    Diags.error(T.Args[0].Range,
                "a KernelBuffer's elements are primitives, not '" + T.Args[0].Name + "'");
    return std::nullopt;
  }
  return Type::handle(Type::BufferHandle, *Elem);
}

// ---- expressions ----

Sema::Value Sema::buildHostAlloc(const Expr* E) {
  const TypeRef& T = E->CastType;
  if (E->Op == Tok::KwShared) {
    Diags.error(E->Range, "shared memory is declared in kernels, not in host code");
    return {};
  }
  if (E->Op == Tok::KwNew) {
    Diags.error(E->Range, "Cajeta allocates with 'heap' (heap float32[n], heap "
                          "KernelBuffer<float32>(n)), not 'new'");
    return {};
  }
  auto Count = [&](const Expr* A) -> kir::Expr* {
    Value V = buildExpr(A);
    if (!V)
      return nullptr;
    kir::Expr* X = materialize(V);
    if (!X->Ty.isInteger()) {
      Diags.error(A->Range, "an element count is an integer, found " + X->Ty.str());
      return nullptr;
    }
    return castTo(X, I64);
  };
  // heap float32[n] (the parser puts n in Ops, as it does a constructor's arguments).
  if (auto Elem = primitiveByName(T.Name); Elem && T.Args.empty()) {
    if (E->Ops.size() != 1) {
      Diags.error(E->Range, "an array is allocated with its length: heap " + T.Name + "[n]");
      return {};
    }
    kir::Expr* N = Count(E->Ops[0]);
    if (!N)
      return {};
    return value(hostOp(HostOp::ArrayNew, Type::heapArray(*Elem), {N}, E->Range), E->Range);
  }
  auto Ty = resolveType(T, true, "an allocation");
  if (!Ty)
    return {};
  if (Ty->isHandle(Type::BufferHandle)) {
    if (E->Ops.size() != 1) {
      Diags.error(E->Range, "a KernelBuffer is allocated with its length: heap KernelBuffer<" +
                                std::string(bundle::scalarTypeName(Ty->Elem)) + ">(n)");
      return {};
    }
    kir::Expr* N = Count(E->Ops[0]);
    if (!N)
      return {};
    return value(hostOp(HostOp::BufferNew, *Ty, {N}, E->Range), E->Range);
  }
  if (Ty->isHandle(Type::AccelHandle)) {
    const char* Shape = "an AccelerationStructure is built from its triangles: heap "
                        "AccelerationStructure(vertices, indices), a float32[] of x, y, z per "
                        "vertex and an int32[] of three vertex indices per triangle";
    if (E->Ops.size() != 2) {
      Diags.error(E->Range, Shape);
      return {};
    }
    std::vector<kir::Expr*> Ops;
    for (int I = 0; I < 2; ++I) {
      Value V = buildExpr(E->Ops[I]);
      if (!V)
        return {};
      Type Want = Type::heapArray(I ? ScalarType::I32 : ScalarType::F32);
      if (V.Lit || V.E->Ty != Want) {
        Diags.error(E->Ops[I]->Range, std::string(Shape) + "; this is " +
                                          (V.Lit ? std::string("a constant") : V.E->Ty.str()));
        return {};
      }
      Ops.push_back(V.E);
    }
    return value(hostOp(HostOp::AccelNew, *Ty, Ops, E->Range), E->Range);
  }
  if (Ty->isHandle(Type::StreamHandle) && E->Ops.empty())
    return value(hostOp(HostOp::StreamNew, *Ty, {}, E->Range), E->Range);
  Diags.error(E->Range, "'" + Ty->str() +
                            "' cannot be allocated this way (events come from "
                            "stream.record())");
  return {};
}

Sema::Value Sema::buildHostMember(const Expr* E) {
  const Expr* Obj = E->Ops[0];
  if (isName(Obj, "System") && E->Text == "out") {
    Diags.error(E->Range, "System.out is used as System.out.println(...) or System.out.print(...)");
    return {};
  }
  if (isName(Obj, "Capability") || isName(Obj, "Device"))
    return buildField(E); // the device-code messages apply
  if (isMainArgs(Obj) && E->Text == "length")
    return value(hostOp(HostOp::ArgCount, Type::scalar(ScalarType::I32), {}, E->Range), E->Range);
  if (Obj->K == Expr::Kind::Name && !lookupLocal(Obj->Text))
    if (auto G = staticField(Obj->Text, E->Text)) {
      kir::Expr* R = M->newExpr(kir::Expr::Kind::Global, M->Globals[*G].Ty, loc(E->Range));
      R->Index = *G;
      return value(R, E->Range);
    }
  Value V = buildExpr(Obj);
  if (!V)
    return {};
  if (V.E->Ty.isHeapArray() && E->Text == "length")
    return value(hostOp(HostOp::ArrayLength, Type::scalar(ScalarType::I32), {V.E}, E->Range),
                 E->Range);
  if (V.E->Ty.isHandle() && E->Text == "length") {
    Diags.error(E->Range, "a KernelBuffer's length is a method: " + std::string("length()"));
    return {};
  }
  Diags.error(E->Range, "a " + V.E->Ty.str() + " has no field '" + E->Text + "'");
  return {};
}

bool Sema::buildHostCall(const Expr* E, Value& Out) {
  const Expr* Callee = E->Ops[0];
  if (isCaughtMessage(E)) {
    Diags.error(E->Range, "an exception's message is printed, as in System.out.println(\"failed: "
                          "\" + e.getMessage()); host code has no String values yet");
    Out = {};
    return true;
  }
  // k.launch(s, grid: [...], block: [...])(args)
  if (Callee->K == Expr::Kind::Call && Callee->Ops[0]->K == Expr::Kind::Member &&
      Callee->Ops[0]->Text == "launch") {
    Out = buildLaunch(E);
    return true;
  }
  if (Callee->K != Expr::Kind::Member)
    return false;
  const Expr* Obj = Callee->Ops[0];
  const std::string& Method = Callee->Text;
  if (Obj->K == Expr::Kind::Member && isName(Obj->Ops[0], "System") &&
      (Obj->Text == "out" || Obj->Text == "err")) {
    if (Method == "printf" || Method == "format") {
      Out = buildPrintf(E);
      return true;
    }
    if (Obj->Text == "err" || (Method != "println" && Method != "print")) {
      Diags.error(Callee->Range, "host code prints with System.out.println, System.out.print "
                                 "and System.out.printf (" +
                                     std::string(Obj->Text == "err" ? "System.err" : Method) +
                                     " is not supported yet)");
      Out = {};
      return true;
    }
    Out = buildPrint(E, Method == "println");
    return true;
  }
  if (Obj->K == Expr::Kind::Name && !lookupLocal(Obj->Text)) {
    const std::string& Class = Obj->Text;
    if (Class == "System") {
      if (Method != "exit" || E->Ops.size() != 2) {
        Diags.error(Callee->Range, "host code can call System.exit(status) and "
                                   "System.out.println(...) of System");
        Out = {};
        return true;
      }
      kir::Expr* S = convert(buildExpr(E->Ops[1]), Type::scalar(ScalarType::I32), E->Ops[1]->Range,
                             "the exit status");
      Out = S ? value(hostOp(HostOp::Exit, Type::voidTy(), {S}, E->Range), E->Range) : Value{};
      return true;
    }
    if (Class == "Integer" || Class == "Long" || Class == "Float" || Class == "Double") {
      bool Floating = Class == "Float" || Class == "Double";
      bool Wide = Class == "Long" || Class == "Double";
      std::string Want = Class == "Integer" ? "parseInt" : "parse" + Class;
      if (Method != Want || E->Ops.size() != 2) {
        Diags.error(Callee->Range, "host code can call " + Class + "." + Want + "(s) of " + Class);
        Out = {};
        return true;
      }
      Value S = buildExpr(E->Ops[1]);
      if (S && (S.Lit || !S.E->Ty.isString()))
        Diags.error(E->Ops[1]->Range, Class + "." + Want + " takes a String, found " +
                                          (S.Lit ? std::string("a constant") : S.E->Ty.str()));
      if (!S || S.Lit || !S.E->Ty.isString()) {
        Out = {};
        return true;
      }
      Type R = Type::scalar(Floating ? (Wide ? ScalarType::F64 : ScalarType::F32)
                                     : (Wide ? ScalarType::I64 : ScalarType::I32));
      Out = value(hostOp(Floating ? HostOp::ParseFloat : HostOp::ParseInt, R, {S.E}, E->Range),
                  E->Range);
      return true;
    }
    if (Class == "KernelStream") {
      if (!isImported("KernelStream"))
        Diags.error(Obj->Range, "'KernelStream' is not imported; add 'import "
                                "cajeta.xpu.KernelStream;'");
      else if (Method != "current" || E->Ops.size() != 1)
        Diags.error(Callee->Range, "KernelStream has the static method current(); a new stream "
                                   "is heap KernelStream()");
      else
        Out = value(hostOp(HostOp::StreamCurrent, Type::handle(Type::StreamHandle), {}, E->Range),
                    E->Range);
      return true;
    }
    if (Class == "KernelThread" || Class == "Workgroup" || Class == "Atomics" || Class == "Wave" ||
        Class == "Barrier" || Class == "Group" || Class == "AsyncCopy" || Class == "Tile" ||
        Class == "CooperativeMatrix") {
      Diags.error(Callee->Range, "'" + Class + "." + Method +
                                     "' is device code; host code launches kernels that use it");
      Out = {};
      return true;
    }
    return false; // Math.*, Device.supports, Class.method(): the shared rules
  }
  // A method of a runtime object: buf.upload(a), s.sync(), ...
  Value V = buildExpr(Obj);
  if (!V) {
    for (size_t I = 1; I < E->Ops.size(); ++I)
      buildExpr(E->Ops[I]);
    Out = {};
    return true;
  }
  Out = buildHostMethod(E, V, Method);
  return true;
}

Sema::Value Sema::buildHostMethod(const Expr* E, Value Obj, const std::string& Method) {
  if (!Obj.Lit && Obj.E->Ty.isString())
    return buildStringMethod(E, Obj, Method);
  SourceRange CalleeRange = E->Ops[0]->Range;
  Type T = Obj.E->Ty;
  size_t Given = E->Ops.size() - 1;
  auto Arity = [&](size_t Want) {
    if (Given == Want)
      return true;
    Diags.error(E->Range, T.str() + "." + Method + " takes " + std::to_string(Want) + " argument" +
                              (Want == 1 ? "" : "s") + ", " + std::to_string(Given) + " given");
    return false;
  };
  auto Arg = [&](size_t I, auto Check, const char* What) -> kir::Expr* {
    Value A = buildExpr(E->Ops[I + 1]);
    if (!A)
      return nullptr;
    if (!Check(A.E->Ty)) {
      Diags.error(E->Ops[I + 1]->Range, T.str() + "." + Method + " takes " + What + ", found " +
                                            (A.Lit ? "a constant" : A.E->Ty.str()));
      return nullptr;
    }
    return A.E;
  };
  auto IsStream = [](Type U) { return U.isHandle(Type::StreamHandle); };
  if (T.isHandle(Type::BufferHandle)) {
    bool Up = Method == "upload" || Method == "uploadAsync";
    bool Down = Method == "download" || Method == "downloadAsync";
    if (Up || Down) {
      bool Async = Method.size() > 6 && Method.substr(Method.size() - 5) == "Async";
      if (!Arity(Async ? 2 : 1))
        return {};
      Type Want = Type::heapArray(T.Elem);
      std::string WantText = "a " + Want.str();
      kir::Expr* A = Arg(
          0, [&](Type U) { return U == Want; }, WantText.c_str());
      kir::Expr* S = Async ? Arg(1, IsStream, "a KernelStream") : nullptr;
      if (!A || (Async && !S))
        return {};
      std::vector<kir::Expr*> Ops = {Obj.E, A};
      if (S)
        Ops.push_back(S);
      return value(hostOp(Up ? HostOp::BufferUpload : HostOp::BufferDownload, Type::voidTy(),
                          std::move(Ops), E->Range),
                   E->Range);
    }
    if (Method == "length" && Arity(0))
      return value(hostOp(HostOp::BufferLength, Type::scalar(ScalarType::U64), {Obj.E}, E->Range),
                   E->Range);
    if (Method != "length")
      Diags.error(CalleeRange, "KernelBuffer has no host method '" + Method +
                                   "' (it has upload, download, their Async forms, length)");
    return {};
  }
  if (T.isHandle(Type::StreamHandle)) {
    if (Method == "sync" && Arity(0))
      return value(hostOp(HostOp::StreamSync, Type::voidTy(), {Obj.E}, E->Range), E->Range);
    if (Method == "record" && Arity(0))
      return value(hostOp(HostOp::StreamRecord, Type::handle(Type::EventHandle), {Obj.E}, E->Range),
                   E->Range);
    if (Method == "wait" && Arity(1)) {
      kir::Expr* Ev = Arg(
          0, [](Type U) { return U.isHandle(Type::EventHandle); }, "an Event");
      if (!Ev)
        return {};
      return value(hostOp(HostOp::StreamWait, Type::voidTy(), {Obj.E, Ev}, E->Range), E->Range);
    }
    if (Method != "sync" && Method != "record" && Method != "wait")
      Diags.error(CalleeRange,
                  "KernelStream has no method '" + Method + "' (it has sync, record, wait)");
    return {};
  }
  if (T.isHandle(Type::EventHandle)) {
    if (Method == "sync" && Arity(0))
      return value(hostOp(HostOp::EventSync, Type::voidTy(), {Obj.E}, E->Range), E->Range);
    if (Method != "sync")
      Diags.error(CalleeRange, "Event has no method '" + Method + "' (it has sync)");
    return {};
  }
  Diags.error(CalleeRange, "a " + (Obj.Lit ? std::string("constant") : T.str()) +
                               " has no method '" + Method + "'");
  return {};
}

bool Sema::isStringValue(const Expr* E) const {
  if (E->K == Expr::Kind::StringLit)
    return true;
  if (E->K == Expr::Kind::Name)
    if (auto L = lookupLocal(E->Text))
      return Current->Fn->Locals[*L].Ty.isString();
  if (E->K == Expr::Kind::Index)
    return isMainArgs(E->Ops[0]);
  return E->K == Expr::Kind::Binary && E->Op == Tok::Plus &&
         (isStringValue(E->Ops[0]) || isStringValue(E->Ops[1]));
}

bool Sema::isMainArgs(const Expr* E) const {
  if (!InHost || E->K != Expr::Kind::Name || MainArgs.empty() || E->Text != MainArgs ||
      lookupLocal(E->Text) || !Current || !Current->Decl)
    return false;
  const Method& D = *Current->Decl;
  return D.Name == "main" && D.Params.size() == 1 && D.Params[0].Name == E->Text;
}

Sema::Value Sema::buildArgAt(const Expr* E) {
  Value I = buildExpr(E->Ops[1]);
  kir::Expr* X = I && !I.Lit && I.E->Ty.isInteger()
                     ? castTo(I.E, Type::scalar(ScalarType::I32))
                     : convert(I, Type::scalar(ScalarType::I32), E->Ops[1]->Range, "the index");
  if (!X)
    return {};
  return value(hostOp(HostOp::ArgAt, Type::string(), {X}, E->Range), E->Range);
}

Sema::Value Sema::buildStringMethod(const Expr* E, Value Obj, const std::string& Method) {
  size_t Given = E->Ops.size() - 1;
  if (Method == "length" && Given == 0)
    return value(hostOp(HostOp::StringLength, Type::scalar(ScalarType::I32), {Obj.E}, E->Range),
                 E->Range);
  if (Method == "equals" && Given == 1) {
    Value T = buildExpr(E->Ops[1]);
    if (!T)
      return {};
    if (T.Lit || !T.E->Ty.isString()) {
      Diags.error(E->Ops[1]->Range, "String.equals takes a String, found " +
                                        (T.Lit ? std::string("a constant") : T.E->Ty.str()));
      return {};
    }
    return value(
        hostOp(HostOp::StringEquals, Type::scalar(ScalarType::Bool), {Obj.E, T.E}, E->Range),
        E->Range);
  }
  Diags.error(E->Ops[0]->Range,
              "host code's String has length() and equals(t) (no method '" + Method + "' yet)");
  return {};
}

kir::Expr* Sema::launchGeometry(const Expr* A, const char* What, std::vector<kir::Expr*>& Out) {
  std::vector<const Expr*> Dims;
  if (A->K == Expr::Kind::ArrayLit)
    Dims.assign(A->Ops.begin(), A->Ops.end());
  else
    Dims.push_back(A);
  if (Dims.empty() || Dims.size() > 3) {
    Diags.error(A->Range, std::string("a launch's ") + What + " has 1 to 3 dimensions, as in [" +
                              (What[0] == 'g' ? "4" : "256") + "] or [16, 16]");
    return nullptr;
  }
  kir::Expr* Last = nullptr;
  size_t Start = Out.size();
  for (const Expr* D : Dims) {
    // Any integer (Java code computes sizes in int32); the runtime refuses a zero or a size
    // past the device's limits, and a negative one wraps to such a size.
    std::string Ctx = std::string("the ") + What;
    Value V = buildExpr(D);
    kir::Expr* X = V && !V.Lit && V.E->Ty.isInteger() ? castTo(V.E, U32)
                                                      : convert(V, U32, D->Range, Ctx.c_str());
    if (!X)
      return nullptr;
    Out.push_back(Last = X);
  }
  while (Out.size() - Start < 3)
    Out.push_back(intConst(U32, 1, A->Range));
  return Last;
}

Sema::Value Sema::buildLaunch(const Expr* E) {
  const Expr* LaunchCall = E->Ops[0];
  const Expr* Target = LaunchCall->Ops[0]->Ops[0]; // the kernel in `k.launch`
  std::string Qualified;
  if (Target->K == Expr::Kind::Name)
    Qualified = Current->Class->Name + "." + Target->Text;
  else if (Target->K == Expr::Kind::Member && Target->Ops[0]->K == Expr::Kind::Name)
    Qualified = Target->Ops[0]->Text + "." + Target->Text;
  auto It = DeviceFnByName.find(Qualified);
  if (It == DeviceFnByName.end() || !DeviceFns[It->second].Fn->IsKernel) {
    Diags.error(Target->Range, Qualified.empty()
                                   ? std::string("only a @Kernel method can be launched")
                                   : "'" + Qualified +
                                         "' is not a @Kernel method; only kernels "
                                         "are launched");
    return {};
  }
  const FunctionInfo& K = DeviceFns[It->second];
  // The launch arguments: the stream, then grid and block (named or in that order).
  kir::Expr* Stream = nullptr;
  const Expr *Grid = nullptr, *Block = nullptr;
  size_t Positional = 0;
  bool Ok = true;
  for (size_t I = 1; I < LaunchCall->Ops.size(); ++I) {
    const Expr* A = LaunchCall->Ops[I];
    std::string Name = A->K == Expr::Kind::NamedArg ? A->Text : "";
    const Expr* V = A->K == Expr::Kind::NamedArg ? A->Ops[0] : A;
    if (Name.empty())
      Name = Positional == 0 ? "stream" : Positional == 1 ? "grid" : Positional == 2 ? "block" : "";
    ++Positional;
    if (Name == "stream" && !Stream) {
      Value S = buildExpr(V);
      if (S && S.E->Ty.isHandle(Type::StreamHandle)) {
        Stream = S.E;
      } else if (S) {
        Diags.error(V->Range, "a launch's first argument is its KernelStream, found " +
                                  (S.Lit ? std::string("a constant") : S.E->Ty.str()));
        Ok = false;
      } else {
        Ok = false;
      }
    } else if (Name == "grid" && !Grid) {
      Grid = V;
    } else if (Name == "block" && !Block) {
      Block = V;
    } else {
      Diags.error(A->Range, Name.empty() || Name == "stream" || Name == "grid" || Name == "block"
                                ? std::string("too many launch arguments: launch(stream, grid: "
                                              "[...], block: [...])")
                                : "unknown launch argument '" + Name +
                                      "' (a launch takes stream, grid and block" +
                                      (Name == "shared" ? "; dynamic shared memory is sized "
                                                          "from C++ host code for now)"
                                                        : ")"));
      Ok = false;
    }
  }
  if (!Stream || !Grid || !Block) {
    if (Ok)
      Diags.error(LaunchCall->Range, std::string("a launch needs ") +
                                         (!Stream ? "its stream"
                                          : !Grid ? "a grid"
                                                  : "a block") +
                                         ": k.launch(stream, grid: [...], block: [...])(args)");
    return {};
  }
  std::vector<kir::Expr*> Ops = {Stream};
  if (!launchGeometry(Grid, "grid", Ops) || !launchGeometry(Block, "block", Ops))
    return {};
  // The kernel's arguments, as its parameters take them.
  const kir::Function& KF = *K.Fn;
  size_t Given = E->Ops.size() - 1;
  if (Given != KF.Params.size()) {
    Diags.error(E->Range, "'" + Qualified + "' takes " + std::to_string(KF.Params.size()) +
                              " argument" + (KF.Params.size() == 1 ? "" : "s") + ", " +
                              std::to_string(Given) + " given");
    return {};
  }
  kir::KernelRef Ref;
  Ref.Name = Qualified;
  for (size_t I = 0; I < Given; ++I) {
    const kir::Param& P = KF.Params[I];
    const Expr* A = E->Ops[I + 1];
    std::string Ctx = "argument " + std::to_string(I + 1) + " ('" + P.Name + "')";
    Ref.Params.push_back(P.IsAccel ? Type::handle(Type::AccelHandle) : P.Ty);
    if (P.IsAccel) {
      Value V = buildExpr(A);
      if (V && (V.Lit || !V.E->Ty.isHandle(Type::AccelHandle))) {
        Diags.error(A->Range, Ctx + " of '" + Qualified +
                                  "' expects an AccelerationStructure, found " +
                                  (V.Lit ? std::string("a constant") : V.E->Ty.str()));
        V = {};
      }
      Ok &= bool(V);
      Ops.push_back(V ? V.E : nullptr);
      continue;
    }
    if (P.Ty.isPod() || P.IsFunction) {
      Diags.error(A->Range, Ctx + " of '" + Qualified + "' is a " +
                                (P.IsFunction ? "function" : "POD") +
                                " parameter; host code cannot pass one yet (launch it from C++)");
      Ok = false;
      continue;
    }
    Value V = buildExpr(A);
    if (!V) {
      Ok = false;
      continue;
    }
    if (P.Ty.isBuffer()) {
      Type Want = Type::handle(Type::BufferHandle, P.Ty.Elem);
      if (V.Lit || V.E->Ty != Want) {
        Diags.error(A->Range, Ctx + " of '" + Qualified + "' expects a " + Want.str() + ", found " +
                                  (V.Lit ? std::string("a constant") : V.E->Ty.str()));
        Ok = false;
        continue;
      }
      Ops.push_back(V.E);
      continue;
    }
    kir::Expr* X = convert(V, P.Ty, A->Range, Ctx.c_str());
    Ok &= X != nullptr;
    Ops.push_back(X);
  }
  if (!Ok)
    return {};
  uint32_t Index = 0;
  while (Index < M->Kernels.size() && M->Kernels[Index].Name != Qualified)
    ++Index;
  if (Index == M->Kernels.size())
    M->Kernels.push_back(std::move(Ref));
  kir::Expr* L = hostOp(HostOp::Launch, Type::voidTy(), std::move(Ops), E->Range);
  L->Index = Index;
  return value(L, E->Range);
}

kir::Stmt* Sema::buildTry(const Stmt* S) {
  if (S->FinallyRange.End > S->FinallyRange.Begin)
    Diags.error(S->FinallyRange, "'finally' is not supported in host code yet");
  kir::Stmt* T = M->newStmt(kir::Stmt::Kind::Try, loc(S->Range));
  T->Then = buildBlock(S->Then, true);
  for (const Stmt::CatchClause& C : S->Catches) {
    std::string Classes;
    for (const TypeRef& Ty : C.Types) {
      if (!xpu::findHostException(Ty.Name.c_str())) {
        std::string Known;
        for (const xpu::HostExceptionClass& K : xpu::HostExceptionClasses)
          Known += (Known.empty() ? "" : ", ") + std::string(K.Name);
        Diags.error(Ty.Range, "unknown exception class '" + Ty.Name + "' (host code can catch " +
                                  Known + ")");
        continue;
      }
      Classes += (Classes.empty() ? "" : ",") + Ty.Name;
    }
    CatchVars.push_back(C.Var);
    kir::Stmt* Handler = buildBlock(C.Body, true);
    CatchVars.pop_back();
    if (Classes.empty())
      continue;
    T->Catches.push_back(Classes);
    T->Body.push_back(Handler ? Handler : makeBlock({}, C.Range));
  }
  if (T->Catches.empty())
    return T->Then; // nothing to catch (the errors are reported)
  return T;
}

bool Sema::isCaughtMessage(const Expr* E) const {
  if (E->K != Expr::Kind::Call || E->Ops.size() != 1 || E->Ops[0]->K != Expr::Kind::Member ||
      E->Ops[0]->Text != "getMessage" || E->Ops[0]->Ops[0]->K != Expr::Kind::Name)
    return false;
  const std::string& Var = E->Ops[0]->Ops[0]->Text;
  return !CatchVars.empty() && Var == CatchVars.back() && !lookupLocal(Var);
}

void Sema::printParts(const Expr* E, std::vector<kir::Expr*>& Evals, std::vector<kir::Expr*>& Out,
                      bool& Ok) {
  if (isCaughtMessage(E)) {
    Out.push_back(hostOp(HostOp::PrintCaught, Type::voidTy(), {}, E->Range));
    return;
  }
  if (E->K == Expr::Kind::StringLit) {
    Out.push_back(
        hostOp(HostOp::Print, Type::voidTy(), {stringConst(E->Text, E->Range)}, E->Range));
    return;
  }
  if (isStringExpr(E) || (E->K == Expr::Kind::Binary && E->Op == Tok::Plus &&
                          (isStringValue(E->Ops[0]) || isStringValue(E->Ops[1])))) {
    printParts(E->Ops[0], Evals, Out, Ok);
    printParts(E->Ops[1], Evals, Out, Ok);
    return;
  }
  Value V = buildExpr(E);
  if (!V) {
    Ok = false;
    return;
  }
  kir::Expr* X = materialize(V);
  if (X->Ty.isVoid()) {
    Diags.error(E->Range, "this call returns void; it has nothing to print");
    Ok = false;
    return;
  }
  if (!X->Ty.isScalar() && !X->Ty.isString()) {
    Diags.error(E->Range, "a " + X->Ty.str() +
                              " cannot be printed; print its elements (download a buffer "
                              "first)");
    Ok = false;
    return;
  }
  if (X->Ty.Elem == ScalarType::F16 || X->Ty.Elem == ScalarType::BF16)
    X = castTo(X, Type::scalar(ScalarType::F32));
  // As Java builds the whole string before printing it, every part is evaluated (and may raise)
  // before anything is printed.
  Out.push_back(hostOp(HostOp::Print, Type::voidTy(), {evaluateFirst(X, Evals)}, E->Range));
}

kir::Expr* Sema::evaluateFirst(kir::Expr* X, std::vector<kir::Expr*>& Evals) {
  if (X->K == kir::Expr::Kind::Const)
    return X;
  uint32_t T = newTemp(X->Ty);
  kir::Expr* A = M->newExpr(kir::Expr::Kind::Assign, X->Ty, X->Loc);
  A->Index = T;
  A->Ops = {X};
  Evals.push_back(A);
  kir::Expr* R = M->newExpr(kir::Expr::Kind::Local, X->Ty, X->Loc);
  R->Index = T;
  return R;
}

Sema::Value Sema::buildPrintf(const Expr* E) {
  if (E->Ops.size() < 2 || E->Ops[1]->K != Expr::Kind::StringLit) {
    Diags.error(E->Range, "System.out.printf takes a format string literal first, as in "
                          "printf(\"%d items in %.3f ms%n\", n, ms)");
    return {};
  }
  const Expr* FormatArg = E->Ops[1];
  const std::string& Format = FormatArg->Text;
  std::vector<kir::Expr*> Evals, Prints;
  std::string Literal;
  auto flush = [&] {
    if (Literal.empty())
      return;
    Prints.push_back(hostOp(HostOp::Print, Type::voidTy(), {stringConst(Literal, FormatArg->Range)},
                            FormatArg->Range));
    Literal.clear();
  };
  size_t Next = 2; // the next argument
  bool Ok = true;
  for (size_t At = 0; At < Format.size();) {
    if (Format[At] != '%') {
      Literal += Format[At++];
      continue;
    }
    size_t Begin = At;
    xpu::FormatSpec Spec;
    if (!xpu::FormatSpec::parse(Format, At, Spec)) {
      size_t End = std::min(Format.size(), Begin + 4);
      Diags.error(FormatArg->Range, "unsupported format specifier '" +
                                        Format.substr(Begin, End - Begin) +
                                        "...' (host code has %d %o %x %X %e %E %f %g %G %s %S "
                                        "%b %B %n %% with flags, width and precision)");
      return {};
    }
    std::string Text = Format.substr(Begin, At - Begin);
    if (!Spec.takesArgument()) {
      Literal += Spec.Conversion == 'n' ? "\n" : "%";
      continue;
    }
    if (Next >= E->Ops.size()) {
      Diags.error(FormatArg->Range, "format specifier '" + Text + "' has no argument");
      return {};
    }
    const Expr* A = E->Ops[Next++];
    if (A->K == Expr::Kind::StringLit) {
      Diags.error(A->Range, "printf's arguments are numbers and bools here: write the text into "
                            "the format string itself");
      Ok = false;
      continue;
    }
    Value V = buildExpr(A);
    if (!V) {
      Ok = false;
      continue;
    }
    kir::Expr* X = materialize(V);
    Type T = X->Ty;
    const char* Want = !T.isScalar()                                         ? "a primitive value"
                       : Spec.integral() && !T.isInteger()                   ? "an integer"
                       : Spec.floating() && !T.isFloat()                     ? "a float"
                       : std::tolower(Spec.Conversion) == 'b' && !T.isBool() ? "a bool"
                                                                             : nullptr;
    if (Want) {
      Diags.error(A->Range,
                  "format specifier '" + Text + "' needs " + Want + ", found " +
                      (V.Lit ? std::string("a constant") : T.str()) +
                      (Spec.floating() && T.isInteger() ? "; cast it with (float64)" : ""));
      Ok = false;
      continue;
    }
    // %o and %x print a signed value's bits at its own width, as Java does.
    if (Spec.Conversion != 'd' && Spec.integral() && T.isSigned())
      X = castTo(X, Type::scalar(T.Elem == ScalarType::I8    ? ScalarType::U8
                                 : T.Elem == ScalarType::I16 ? ScalarType::U16
                                 : T.Elem == ScalarType::I32 ? ScalarType::U32
                                                             : ScalarType::U64));
    flush();
    kir::Expr* P =
        hostOp(HostOp::PrintFormatted, Type::voidTy(), {evaluateFirst(X, Evals)}, A->Range);
    P->Index = static_cast<uint32_t>(M->Strings.size());
    M->Strings.push_back(Text);
    Prints.push_back(P);
  }
  flush();
  if (!Ok)
    return {};
  if (Next < E->Ops.size())
    Diags.warning(E->Ops[Next]->Range, std::to_string(E->Ops.size() - Next) +
                                           " argument(s) that no format specifier uses");
  Evals.insert(Evals.end(), Prints.begin(), Prints.end());
  kir::Expr* S = M->newExpr(kir::Expr::Kind::Seq, Type::voidTy(), loc(E->Range));
  S->Ops = std::move(Evals);
  return value(S, E->Range);
}

Sema::Value Sema::buildPrint(const Expr* E, bool Newline) {
  size_t Given = E->Ops.size() - 1;
  if (Given > 1 || (!Newline && Given == 0)) {
    Diags.error(E->Range, std::string("System.out.") + (Newline ? "println" : "print") +
                              " takes one value (join parts with +: \"x = \" + x)");
    return {};
  }
  std::vector<kir::Expr*> Parts, Prints;
  bool Ok = true;
  if (Given == 1)
    printParts(E->Ops[1], Parts, Prints, Ok);
  if (!Ok)
    return {};
  Parts.insert(Parts.end(), Prints.begin(), Prints.end());
  if (Newline)
    Parts.push_back(hostOp(HostOp::PrintNewline, Type::voidTy(), {}, E->Range));
  kir::Expr* S = M->newExpr(kir::Expr::Kind::Seq, Type::voidTy(), loc(E->Range));
  S->Ops = std::move(Parts);
  return value(S, E->Range);
}

} // namespace cajeta::frontend
