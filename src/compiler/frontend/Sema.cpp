// Sema: imports, declarations, signatures, per-function lowering and the recursion check.
#include "compiler/frontend/Sema.h"

#include "compiler/frontend/Builtins.h"
#include "compiler/frontend/TypeRules.h"

#include <algorithm>
#include <functional>
#include <set>

namespace cajeta::frontend {

Sema::Sema(const CompilationUnit& Unit, Diagnostics& Diags)
    : Unit(Unit), Diags(Diags), M(std::make_unique<kir::Module>()) {}

kir::SourceLoc Sema::loc(SourceRange R) const {
  const SourceFile& F = Diags.file();
  uint32_t B = std::min<uint32_t>(R.Begin, F.text().size());
  return {F.lineOf(B), F.columnOf(B)};
}

std::unique_ptr<kir::Module> Sema::run() {
  M->SourceFile = Diags.file().name();
  checkImports();
  declareFunctions();
  fillSignatureTables();
  for (FunctionInfo& FI : Functions)
    if (FI.Valid)
      buildFunction(FI);
  checkRecursion();
  if (!Diags.hasErrors())
    checkUniformity();

  buildHostModule();
  return std::move(M);
}

bool Sema::isImported(const std::string& Class) const {
  return ImportsAllXpu || ImportedClasses.count(Class) != 0;
}

void Sema::checkImports() {
  for (const Import& I : Unit.Imports) {
    const std::string Prefix = "cajeta.xpu.";
    if (I.Path == "cajeta.xpu.*") {
      ImportsAllXpu = true;
      continue;
    }
    if (I.Path.rfind(Prefix, 0) != 0) {
      size_t Dot = I.Path.rfind('.');
      std::string Pkg = Dot == std::string::npos ? I.Path : I.Path.substr(0, Dot);
      Diags.error(I.Range, "package '" + Pkg +
                               "' is not available to kernel programs (only "
                               "cajeta.xpu is)");
      continue;
    }
    std::string Name = I.Path.substr(Prefix.size());
    if (!isXpuClass(Name)) {
      Diags.error(I.Range, "unknown class '" + Name + "' in package cajeta.xpu");
      continue;
    }
    if (ImportedClasses.count(Name)) {
      Diags.warning(I.Range, "duplicate import of '" + I.Path + "'");
      continue;
    }
    ImportedClasses[Name] = &I;
  }
}

void Sema::checkAnnotations(const Method& Me, const ClassDecl& C) {
  static const std::set<std::string> Known = {"Kernel",   "Device",   "Backend",
                                              "FastMath", "Override", "Wave"};
  for (const Annotation& A : Me.Annotations) {
    if (!Known.count(A.Name)) {
      Diags.error(A.Range, "unknown annotation '@" + A.Name + "'");
      continue;
    }
    if (A.Name == "Backend") {
      static const std::set<std::string> Backends = {"cpu", "cuda", "hip", "vulkan"};
      if (A.Args.empty())
        Diags.error(A.Range, "'@Backend' needs at least one backend name (\"cpu\", \"cuda\", "
                             "\"hip\", \"vulkan\")");
      std::set<std::string> Named;
      for (const std::string& B : A.Args) {
        if (!Backends.count(B))
          Diags.error(A.Range, "unknown backend '" + B +
                                   "' in @Backend (expected cpu, cuda, hip or vulkan)");
        else if (!Named.insert(B).second)
          Diags.error(A.Range, "backend '" + B + "' is named twice in @Backend");
      }
    }
  }
}

std::optional<kir::Type> Sema::resolveType(const TypeRef& T, bool AllowBuffer, const char* Where,
                                           int* FnSig) {
  if (T.IsFunction) {
    // Fn<R(A...)>: a tag (uint32) over the @Device statics with that signature.
    kir::Type Ret = kir::Type::voidTy();
    if (T.Args[0].Name != "void") {
      auto R = resolveType(T.Args[0], false, "a function's return type");
      if (!R)
        return std::nullopt;
      Ret = *R;
    }
    std::vector<kir::Type> Params;
    for (size_t I = 1; I < T.Args.size(); ++I) {
      auto P = resolveType(T.Args[I], true, "a function's parameter");
      if (!P)
        return std::nullopt;
      Params.push_back(*P);
    }
    int Sig = signatureFor(Ret, Params);
    if (FnSig)
      *FnSig = Sig;
    return kir::Type::scalar(kir::ScalarType::U32);
  }
  if (T.Name == "Fn") {
    Diags.error(T.Range, "a function type is written Fn<R(A, B)>, as in Fn<float32(float32)>");
    return std::nullopt;
  }
  if (InHost && (T.ArrayDims > 0 || T.Name == "KernelBuffer" || T.Name == "KernelStream" ||
                 T.Name == "Event" || T.Name == "String"))
    return resolveHostType(T, Where);
  if (T.ArrayDims > 0) {
    Diags.error(T.Range, "arrays are host memory and cannot be used in device code; use "
                         "KernelBuffer<T> parameters");
    return std::nullopt;
  }
  if (auto S = primitiveByName(T.Name)) {
    if (!T.Args.empty()) {
      Diags.error(T.Range, "type '" + T.Name + "' takes no type arguments");
      return std::nullopt;
    }
    return kir::Type::scalar(*S);
  }
  if (T.Name == "KernelBuffer") {
    if (!isImported("KernelBuffer")) {
      Diags.error(T.Range, "'KernelBuffer' is not imported; add 'import cajeta.xpu.KernelBuffer;'");
      return std::nullopt;
    }
    if (T.Args.size() != 1) {
      Diags.error(T.Range, "KernelBuffer takes one element type, as in KernelBuffer<float32>");
      return std::nullopt;
    }
    auto Elem = resolveType(T.Args[0], false, "a buffer element");
    if (!Elem)
      return std::nullopt;
    if (!AllowBuffer) {
      Diags.error(T.Range, std::string("KernelBuffer cannot be used as ") + Where +
                               "; buffers are kernel and helper parameters");
      return std::nullopt;
    }
    return kir::Type::buffer(Elem->Elem);
  }
  if (T.Name == "AccelerationStructure" || T.Name == "RayQuery")
    return resolveAccelType(T, AllowBuffer, Where);
  if (T.Name == "Tile" || T.Name == "CooperativeMatrix") {
    Diags.error(T.Range, "a tile cannot be used as " + std::string(Where) +
                             "; tiles are local variables of @Kernel methods");
    return std::nullopt;
  }
  if (std::string S = suggestPrimitive(T.Name); !S.empty()) {
    Diags.error(T.Range, "unknown type '" + T.Name + "'; did you mean '" + S + "'?");
    return std::nullopt;
  }
  if (auto Why = unsupportedXpuClass(T.Name)) {
    Diags.error(T.Range, "'" + T.Name + "' is not supported yet: " + *Why);
    return std::nullopt;
  }
  for (const ClassDecl& C : Unit.Classes)
    if (C.Name == T.Name) {
      if (InHost) {
        Diags.error(T.Range, "class type '" + T.Name + "' cannot be used as " + Where +
                                 " in host code yet (the host subset has primitives, arrays, "
                                 "buffers, streams and events)");
        return std::nullopt;
      }
      if (!AllowBuffer) {
        Diags.error(T.Range, "class type '" + T.Name + "' cannot be used as " + Where +
                                 "; POD classes are passed as parameters");
        return std::nullopt;
      }
      return resolvePod(C, T);
    }
  if (T.Name == "Shared")
    Diags.error(T.Range, "Shared<T> cannot be used as " + std::string(Where) +
                             "; declare shared arrays in the kernel body");
  else
    Diags.error(T.Range, "unknown type '" + T.Name + "'");
  return std::nullopt;
}

static std::string mangle(const std::string& Prefix, const std::string& Class,
                          const std::string& Method) {
  std::string S = Prefix + Class + "_" + Method;
  for (char& C : S)
    if (!std::isalnum(static_cast<unsigned char>(C)) && C != '_')
      C = '_';
  return S;
}

void Sema::declareFunctions() {
  std::set<std::string> ClassNames;
  unsigned Kernels = 0;
  for (const ClassDecl& C : Unit.Classes) {
    if (!ClassNames.insert(C.Name).second)
      Diags.error(C.NameRange, "duplicate class '" + C.Name + "'");
    if (C.HasSuper)
      Diags.error(C.SuperRange, "'extends' and 'implements' are not supported in kernel programs");
    std::set<std::string> FieldNames;
    for (const Field& F : C.Fields)
      if (!FieldNames.insert(F.Name).second)
        Diags.error(F.Range, "duplicate field '" + F.Name + "' in class '" + C.Name + "'");
    for (const Method& Me : C.Methods) {
      checkAnnotations(Me, C);
      bool IsKernel = Me.annotation("Kernel") != nullptr;
      bool IsDevice = Me.annotation("Device") != nullptr;
      if (!IsKernel && !IsDevice)
        continue;
      std::string Qualified = C.Name + "." + Me.Name;
      if (IsKernel && ++Kernels == MaxKernels + 1)
        Diags.error(Me.NameRange,
                    "a file may declare at most " + std::to_string(MaxKernels) + " kernels ('" +
                        Qualified +
                        "' is one more): each is compiled for every backend, so a file of "
                        "thousands takes minutes to build; split the program into several "
                        "files and load each as its own program");
      if (IsKernel && IsDevice) {
        Diags.error(Me.NameRange, "'" + Qualified + "' cannot be both @Kernel and @Device");
        continue;
      }
      if (FunctionByName.count(Qualified)) {
        Diags.error(Me.NameRange, "duplicate method '" + Qualified +
                                      "' (overloading is not supported in device code)");
        continue;
      }
      FunctionInfo FI;
      FI.Class = &C;
      FI.Decl = &Me;
      FI.Index = static_cast<uint32_t>(M->Functions.size());
      auto Fn = std::make_unique<kir::Function>();
      if (!Me.ReturnType.Name.empty() && Me.ReturnType.IsFunction)
        Diags.error(Me.ReturnType.Range, "function values cannot be returned; pass them as "
                                         "parameters");
      Fn->Name = Qualified;
      Fn->IsKernel = IsKernel;
      Fn->FastMath = Me.annotation("FastMath") != nullptr;
      Fn->Symbol = mangle(IsKernel ? "cj_k_" : "cj_d_", C.Name, Me.Name);
      Fn->Loc = loc(Me.NameRange);
      const char* What = IsKernel ? "@Kernel" : "@Device";
      if (!Me.IsStatic) {
        Diags.error(Me.NameRange, std::string("a ") + What + " method must be static");
        FI.Valid = false;
      }
      if (!Me.Body) {
        Diags.error(Me.NameRange, std::string("a ") + What + " method needs a body");
        FI.Valid = false;
      }
      if (Me.ReturnType.Name == "void") {
        Fn->ReturnType = kir::Type::voidTy();
      } else if (IsKernel) {
        Diags.error(Me.ReturnType.Range, "a @Kernel method must return void; write results to "
                                         "a KernelBuffer parameter");
        FI.Valid = false;
      } else if (auto T = resolveType(Me.ReturnType, false, "a return type")) {
        Fn->ReturnType = *T;
      } else {
        FI.Valid = false;
      }
      // The most a launch passes on every backend (the cuda backend's parameter array).
      constexpr size_t MaxKernelParams = 64;
      if (IsKernel && Me.Params.size() > MaxKernelParams) {
        Diags.error(Me.NameRange,
                    "a @Kernel method takes at most " + std::to_string(MaxKernelParams) +
                        " parameters (what every backend can pass); this one has " +
                        std::to_string(Me.Params.size()) + ": group scalars in a POD class");
        FI.Valid = false;
      }
      std::set<std::string> ParamNames;
      for (const Param& P : Me.Params) {
        for (const Annotation& A : P.Annotations)
          if (A.Name != "PushConstant")
            Diags.error(A.Range, "unknown parameter annotation '@" + A.Name + "'");
        if (!ParamNames.insert(P.Name).second)
          Diags.error(P.Range, "duplicate parameter '" + P.Name + "'");
        int Sig = -1;
        auto T = resolveType(P.Type, true, "a parameter", &Sig);
        if (!T) {
          FI.Valid = false;
          continue;
        }
        kir::Param KP;
        KP.Name = P.Name;
        KP.Ty = *T;
        KP.Loc = loc(P.Range);
        KP.IsFunction = Sig >= 0;
        KP.IsAccel = P.Type.Name == "AccelerationStructure";
        Fn->Params.push_back(KP);
        FI.ParamFnSig.push_back(Sig);
      }
      if (const Annotation* B = Me.annotation("Backend"))
        Fn->Backends = B->Args;
      Fn->ParamAccess.assign(Fn->Params.size(), bundle::Access::None);
      FI.Fn = Fn.get();
      M->Functions.push_back(std::move(Fn));
      FunctionByName[Qualified] = static_cast<uint32_t>(Functions.size());
      Functions.push_back(FI);
    }
  }
}

void Sema::buildFunction(FunctionInfo& FI) {
  Current = &FI;
  Scopes.clear();
  BufferParams.clear();
  PodParams.clear();
  AccelParams.clear();
  QueryScenes.clear();
  SharedByName.clear();
  LocalFnSig.clear();
  Loops.clear();
  NextLoopId = 0;
  pushScope();
  kir::Function& Fn = *FI.Fn;
  // Scalar parameters are assignable like Java's: each gets a local initialised from it.
  std::vector<kir::Stmt*> Prologue;
  for (uint32_t I = 0; I < Fn.Params.size(); ++I) {
    const kir::Param& P = Fn.Params[I];
    SourceRange R = FI.Decl->Params[I].Range;
    if (P.IsAccel) {
      AccelParams[P.Name] = I; // read only by RayQuery.initialize
      continue;
    }
    if (P.Ty.isBuffer()) {
      BufferParams[P.Name] = I; // buffers resolve to the parameter itself
      continue;
    }
    if (P.Ty.isPod()) {
      PodParams[P.Name] = I; // read-only: fields are read from the parameter
      continue;
    }
    uint32_t L = declareLocal(P.Name, P.Ty, R);
    if (I < FI.ParamFnSig.size() && FI.ParamFnSig[I] >= 0)
      LocalFnSig[L] = FI.ParamFnSig[I];
    kir::Expr* Read = M->newExpr(kir::Expr::Kind::Param, P.Ty, P.Loc);
    Read->Index = I;
    kir::Expr* A = M->newExpr(kir::Expr::Kind::Assign, P.Ty, P.Loc);
    A->Index = L;
    A->Ops = {Read};
    Prologue.push_back(evalStmt(A, R));
  }
  kir::Stmt* Body = buildBlock(FI.Decl->Body, true);
  Prologue.push_back(Body);
  Fn.Body = makeBlock(std::move(Prologue), FI.Decl->Body->Range);
  if (!Fn.ReturnType.isVoid() && canCompleteNormally(Fn.Body))
    Diags.error(FI.Decl->NameRange, "'" + Fn.Name + "' returns " + Fn.ReturnType.str() +
                                        " but control can reach the end without a return");
  popScope();
  Current = nullptr;
}

void Sema::checkRecursion() {
  std::vector<std::vector<const CallSite*>> Edges(Functions.size());
  for (const CallSite& C : Calls)
    Edges[C.Caller].push_back(&C);
  // Depth-first, with an explicit stack (a chain of thousands of helpers must not overflow the
  // compiler's): a back edge closes a cycle, reported at the call that closes it.
  std::vector<int> State(Functions.size(), 0);
  std::vector<std::pair<uint32_t, size_t>> Stack; // function, next edge to follow
  std::set<std::pair<uint32_t, uint32_t>> Reported;
  // The longest chain of helper calls below each function (an acyclic graph only: -1 inside a
  // cycle), to bound it: every helper is inlined into its kernel.
  std::vector<int> Depth(Functions.size(), 0);
  auto Enter = [&](uint32_t F) {
    State[F] = 1;
    Stack.push_back({F, 0});
  };
  for (uint32_t Root = 0; Root < Functions.size(); ++Root) {
    if (State[Root] != 0)
      continue;
    Enter(Root);
    while (!Stack.empty()) {
      auto& [F, Next] = Stack.back();
      if (Next == Edges[F].size()) {
        State[F] = 2;
        Stack.pop_back();
        continue;
      }
      const CallSite* C = Edges[F][Next++];
      if (State[C->Callee] == 0) {
        Enter(C->Callee);
        continue;
      }
      if (State[C->Callee] != 1 || !Reported.insert({C->Caller, C->Callee}).second)
        continue;
      std::string Path;
      bool In = false;
      for (const auto& [S, Unused] : Stack) {
        In |= S == C->Callee;
        if (In)
          Path += "'" + Functions[S].Fn->Name + "' -> ";
      }
      Path += "'" + Functions[C->Callee].Fn->Name + "'";
      if (C->Caller == C->Callee)
        Diags.error(C->Range, "recursion is not allowed in device code: '" +
                                  Functions[C->Callee].Fn->Name + "' calls itself");
      else
        Diags.error(C->Range, "recursion is not allowed in device code: " + Path);
    }
  }
  if (!Reported.empty())
    return;
  // Longest call chains, callees first (reverse post-order of an acyclic graph, iteratively).
  std::vector<uint32_t> Order;
  std::vector<bool> Done(Functions.size(), false);
  for (uint32_t Root = 0; Root < Functions.size(); ++Root) {
    if (Done[Root])
      continue;
    std::vector<std::pair<uint32_t, size_t>> Work = {{Root, 0}};
    Done[Root] = true;
    while (!Work.empty()) {
      auto& [F, Next] = Work.back();
      if (Next < Edges[F].size()) {
        uint32_t Callee = Edges[F][Next++]->Callee;
        if (!Done[Callee]) {
          Done[Callee] = true;
          Work.push_back({Callee, 0});
        }
        continue;
      }
      Order.push_back(F);
      Work.pop_back();
    }
  }
  for (uint32_t F : Order) // callees come before their callers
    for (const CallSite* C : Edges[F])
      Depth[F] = std::max(Depth[F], Depth[C->Callee] + 1);
  std::vector<bool> Called(Functions.size(), false);
  for (const CallSite& C : Calls)
    Called[C.Callee] = true;
  for (uint32_t F = 0; F < Functions.size(); ++F) {
    // Reported once per chain: at its kernel, or at its first helper when no one calls that.
    if (Depth[F] <= int(MaxCallDepth) || (!Functions[F].Fn->IsKernel && Called[F]))
      continue;
    // The call of the kernel's deepest chain.
    const CallSite* Deepest = nullptr;
    for (const CallSite* C : Edges[F])
      if (!Deepest || Depth[C->Callee] > Depth[Deepest->Callee])
        Deepest = C;
    Diags.error(Deepest->Range, "this call starts a chain of " + std::to_string(Depth[F]) +
                                    " helper calls in '" + Functions[F].Fn->Name + "'; at most " +
                                    std::to_string(MaxCallDepth) +
                                    " are allowed (every helper is inlined into its kernel)");
  }
}

} // namespace cajeta::frontend
