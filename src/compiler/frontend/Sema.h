// Semantic analysis: resolves names, types and builtins, enforces the device-subset rules, and
// builds KIR. The only place that reports user errors after parsing.
#pragma once

#include "compiler/Diagnostics.h"
#include "compiler/frontend/Ast.h"
#include "compiler/kir/Kir.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cajeta::frontend {

class Sema {
public:
  Sema(const CompilationUnit& Unit, Diagnostics& Diags);

  /// Checks the unit and builds its KIR; returns the module even with errors (callers check
  /// Diags.hasErrors()).
  std::unique_ptr<kir::Module> run();
  /// After run(): the host part, a host module (kir::Module::IsHost) of the unit's host methods
  /// (empty when it has none).
  std::unique_ptr<kir::Module> takeHostModule() { return std::move(HostM); }

private:
  /// A typed KIR expression plus, for unsuffixed literals, the constant (which adapts to its
  /// context). E == nullptr means an error was already reported: callers stay quiet.
  struct Value {
    kir::Expr* E = nullptr;
    enum LitKind { None, IntLit, FloatLit } Lit = None;
    __int128 IntValue = 0;
    double FloatValue = 0;
    SourceRange Range;
    int FnSig = -1; // a function value: index into Signatures
    explicit operator bool() const { return E != nullptr; }
  };

  /// A function type Fn<R(A...)> and its closed set: every @Device static with exactly that
  /// signature, in declaration order (tag t calls Table[t]).
  struct FnSignature {
    kir::Type Ret;
    std::vector<kir::Type> Params;
    std::vector<uint32_t> Table; // function indices
    std::string Spelling;        // "Fn<float32(float32)>"
  };

  /// Something assignable: a local or a buffer element.
  struct LValue {
    enum Kind { Invalid, Local, Element, Global } K = Invalid; // Global: host static field
    uint32_t LocalId = 0;
    kir::Expr* Buffer = nullptr;
    kir::Expr* Index = nullptr;
    kir::Type Ty;
    SourceRange Range;
  };

  struct FunctionInfo {
    const ClassDecl* Class = nullptr;
    const Method* Decl = nullptr;
    kir::Function* Fn = nullptr;
    uint32_t Index = 0;
    bool Valid = true;           // signature checked
    std::vector<int> ParamFnSig; // per parameter: its Fn signature, or -1
  };

  struct LoopScope {
    uint32_t Id;
    std::vector<std::string> Labels;
  };

  struct CallSite {
    uint32_t Caller, Callee;
    SourceRange Range;
  };

  // declarations (Sema.cpp)
  void checkImports();
  void declareFunctions();
  void checkAnnotations(const Method& M, const ClassDecl& C);
  /// AllowParamKinds: buffers and PODs (parameters only). FnSig receives the signature of an
  /// Fn<...> type (which is a uint32 tag in KIR).
  std::optional<kir::Type> resolveType(const TypeRef& T, bool AllowParamKinds, const char* Where,
                                       int* FnSig = nullptr);
  std::optional<kir::Type> resolvePod(const ClassDecl& C, const TypeRef& T);
  int signatureFor(kir::Type Ret, const std::vector<kir::Type>& Params);
  void fillSignatureTables();
  void checkBackendCall(const FunctionInfo& Callee, SourceRange R);
  void checkUniformity();
  void buildFunction(FunctionInfo& FI);
  void checkRecursion();
  bool isImported(const std::string& Class) const;

  // statements (SemaStmt.cpp)
  kir::Stmt* buildStmt(const Stmt* S);
  kir::Stmt* buildBlock(const Stmt* S, bool NewScope);
  kir::Stmt* buildLocalVar(const Stmt* S);
  kir::Stmt* buildLoop(const Stmt* S, std::vector<std::string> Labels);
  kir::Stmt* buildForRange(const Stmt* S, std::vector<std::string> Labels);
  kir::Stmt* buildJump(const Stmt* S);
  kir::Stmt* buildReturn(const Stmt* S);
  kir::Stmt* makeBlock(std::vector<kir::Stmt*> Body, SourceRange R);
  kir::Stmt* evalStmt(kir::Expr* E, SourceRange R);
  kir::Expr* buildCondition(const Expr* E, const char* What);
  bool canCompleteNormally(const kir::Stmt* S) const;
  uint32_t declareLocal(const std::string& Name, kir::Type Ty, SourceRange R);
  uint32_t newTemp(kir::Type Ty);
  std::optional<uint32_t> lookupLocal(const std::string& Name) const;
  void pushScope();
  void popScope();

  // device subset (SemaDevice.cpp)
  kir::Stmt* buildSharedDecl(const Stmt* S);
  kir::Stmt* buildBarrier(const Expr* Call);
  Value buildAtomic(const Expr* E, const std::string& Method);
  // wave operations (SemaWave.cpp)
  Value buildWave(const Expr* E, const std::string& Method);
  Value buildAsyncCopy(const Expr* E, const std::string& Method);
  Value buildAsyncCopyBlock(const Expr* E);
  /// AsyncCopy.copy / copyBlock's shared array (operand 1) and buffer (operand 3), of one
  /// element type; false after reporting what is wrong.
  bool buildAsyncCopyArrays(const Expr* E, const std::string& Method, kir::Expr*& DstE,
                            kir::Expr*& SrcE);
  Value buildDeviceQuery(const Expr* E, const std::string& Method); // SemaCapability.cpp
  // Tiles (SemaTile.cpp)
  std::optional<kir::Type> resolveTileType(const TypeRef& T, kir::TileUse* Use = nullptr);
  kir::Stmt* buildTileDecl(const Stmt* S);
  Value buildTileMethod(const Expr* E, uint32_t Tile, const std::string& Method);
  Value buildGroup(const Expr* E, const std::string& Method);
  kir::Expr* buildTileMemory(const Expr* Call, size_t First, kir::TileOp Op, bool ColMajor,
                             uint32_t Tile, const std::string& Method);
  kir::Expr* buildTileFill(const Expr* ValueArg, uint32_t Tile, kir::TileOp Op,
                           const std::string& Method, SourceRange R);
  kir::Expr* tileOp(kir::TileOp Op, uint32_t Tile, std::vector<kir::Expr*> Ops, SourceRange R);
  kir::Expr* tileZero(kir::ScalarType Elem, SourceRange R);
  kir::Expr* tileLocalRef(uint32_t Local, SourceRange R);
  kir::Expr* tileIndexArg(const Expr* A, const std::string& What, const std::string& Method);
  std::optional<uint32_t> tileArg(const Expr* A, const std::string& Method);
  // Ray queries (SemaRayQuery.cpp)
  std::optional<kir::Type> resolveAccelType(const TypeRef& T, bool AllowParam, const char* Where);
  kir::Stmt* buildRayQueryDecl(const Stmt* S);
  Value buildRayQueryMethod(const Expr* E, uint32_t Query, const std::string& Method);
  /// RayFlags.X and RayQuery.X constants (int32); false when E is neither.
  bool buildRayConstant(const Expr* E, Value& Out);
  /// The AccelerationStructure parameter E names, or null (reported).
  kir::Expr* buildAccelOperand(const Expr* E, const std::string& Context);
  Value buildField(const Expr* E);
  Value buildMethodRef(const Expr* E);
  Value buildFnCall(const Expr* E, uint32_t Local, int Sig);
  bool checkFnValue(const Value& V, int WantSig, SourceRange R);

  // host code (SemaHost.cpp)
  void buildHostModule();
  void declareHostFunctions();
  void declareStaticFields();
  void buildStaticInit();
  /// The static field a name denotes in host code: Class.Name, or Name in the current class.
  std::optional<uint32_t> staticField(const std::string& Class, const std::string& Name) const;
  std::optional<kir::Type> resolveHostType(const TypeRef& T, const char* Where);
  /// A call in host code: launches, runtime objects' methods, printing, System.exit; returns
  /// false when E is none of these (an ordinary call, Math.*) and buildCall goes on.
  bool buildHostCall(const Expr* E, Value& Out);
  Value buildHostMethod(const Expr* E, Value Obj, const std::string& Method);
  Value buildHostAlloc(const Expr* E);
  kir::Stmt* buildTry(const Stmt* S);
  /// Whether E is `e.getMessage()` of an enclosing catch clause's exception e.
  bool isCaughtMessage(const Expr* E) const;
  /// Whether E names main's `String[] args` (in main, not shadowed by a local).
  bool isMainArgs(const Expr* E) const;
  /// Whether E is a String by its shape (a literal, a String local, args[i], or a + of one):
  /// Java's rule that makes + in a print argument a concatenation.
  bool isStringValue(const Expr* E) const;
  Value buildArgAt(const Expr* E);
  Value buildStringMethod(const Expr* E, Value Obj, const std::string& Method);
  Value buildHostMember(const Expr* E);
  Value buildLaunch(const Expr* E);
  Value buildPrint(const Expr* E, bool Newline);
  Value buildPrintf(const Expr* E);
  /// E's value in a new temporary (Evals gets the assignment), for output built before printed.
  kir::Expr* evaluateFirst(kir::Expr* X, std::vector<kir::Expr*>& Evals);
  kir::Expr* launchGeometry(const Expr* A, const char* What, std::vector<kir::Expr*>& Out);
  /// The parts of a print argument: Evals computes each value into a temporary, Out prints.
  void printParts(const Expr* E, std::vector<kir::Expr*>& Evals, std::vector<kir::Expr*>& Out,
                  bool& Ok);
  kir::Expr* hostOp(kir::HostOp Op, kir::Type Ty, std::vector<kir::Expr*> Ops, SourceRange R);
  /// A String value: Text as a module string constant.
  kir::Expr* stringConst(const std::string& Text, SourceRange R);

  // expressions (SemaExpr.cpp)
  Value buildExpr(const Expr* E);
  /// Negated: the literal is the operand of a unary minus (so -9223372036854775808L fits).
  Value buildIntLiteral(const Expr* E, bool Negated = false);
  Value buildFloatLiteral(const Expr* E);
  Value buildName(const Expr* E);
  Value buildCall(const Expr* E);
  Value buildBuiltinCall(const Expr* E, const std::string& Class, const std::string& Method);
  Value buildBitView(const Expr* E, const std::string& Name, Value Arg, kir::Expr* R);
  Value buildDeviceCall(const Expr* E, const std::string& Class, const std::string& Method);
  Value buildIndex(const Expr* E);
  Value buildUnary(const Expr* E);
  Value buildIncDec(const Expr* E, bool Increment, bool Prefix);
  Value buildBinary(const Expr* E);
  Value applyBinary(kir::BinaryOp Op, const std::string& Spelling, Value A, Value B, SourceRange R);
  Value buildAssign(const Expr* E);
  Value buildTernary(const Expr* E);
  Value buildCast(const Expr* E);
  kir::Expr* buildBufferOperand(const Expr* E);
  LValue buildLValue(const Expr* E);
  kir::Expr* readLValue(const LValue& L, SourceRange R);
  kir::Expr* writeLValue(const LValue& L, kir::Expr* V, SourceRange R);

  // conversions and constants (SemaExpr.cpp)
  kir::Expr* convert(Value V, kir::Type To, SourceRange R, const char* Context);
  kir::Expr* materialize(Value V); // a literal in its default type
  kir::Expr* castTo(kir::Expr* E, kir::Type To);
  bool unifyNumeric(Value& A, Value& B, SourceRange OpRange, const std::string& Op, kir::Type& Out);
  kir::Expr* intConst(kir::Type Ty, __int128 V, SourceRange R);
  kir::Expr* floatConst(kir::Type Ty, double V, SourceRange R);
  kir::Expr* binary(kir::BinaryOp Op, kir::Type Ty, kir::Expr* A, kir::Expr* B, SourceRange R);
  kir::SourceLoc loc(SourceRange R) const;
  kir::Function& Fn() { return *Current->Fn; }
  Value value(kir::Expr* E, SourceRange R) {
    Value V;
    V.E = E;
    V.Range = R;
    return V;
  }

  const CompilationUnit& Unit;
  Diagnostics& Diags;
  std::unique_ptr<kir::Module> M;
  std::vector<FunctionInfo> Functions;
  std::map<std::string, uint32_t> FunctionByName; // "Class.method"
  std::map<std::string, const Import*> ImportedClasses;
  bool ImportsAllXpu = false;
  std::vector<CallSite> Calls;

  // per-function state
  FunctionInfo* Current = nullptr;
  std::vector<std::map<std::string, uint32_t>> Scopes;
  std::map<std::string, uint32_t> BufferParams; // name -> parameter index
  std::map<std::string, uint32_t> PodParams;    // name -> parameter index
  std::map<std::string, uint32_t> AccelParams;  // name -> parameter index
  std::map<uint32_t, uint32_t> QueryScenes;     // ray query local -> its scene's parameter
  std::map<std::string, uint32_t> SharedByName; // name -> shared array index
  std::map<uint32_t, int> LocalFnSig;           // local -> Fn signature
  std::vector<FnSignature> Signatures;
  std::map<std::string, uint32_t> PodByClass;
  std::vector<LoopScope> Loops;
  uint32_t NextLoopId = 0;
  std::vector<std::string> PendingLabels;
  /// The longest chain of helper calls a kernel may make (each helper is inlined into it; later
  /// phases walk such chains recursively).
  static constexpr unsigned MaxCallDepth = 256;
  /// The most kernels one file may declare (a program of 1,024 builds in about 10 s on one core;
  /// the front end alone handles ten times that in half a second).
  static constexpr unsigned MaxKernels = 1024;

  // host code
  bool InHost = false;                 // building a host method (M is the host module)
  std::unique_ptr<kir::Module> HostM;  // the host module (swapped into M while building it)
  std::vector<FunctionInfo> DeviceFns; // the device functions while Functions holds the host's
  std::map<std::string, uint32_t> DeviceFnByName;
  std::string MainArgs;                         // main's String[] parameter: not available yet
  std::vector<std::string> CatchVars;           // the exceptions of the enclosing catch clauses
  std::map<std::string, uint32_t> StaticFields; // "Class.name" -> host module global
};

} // namespace cajeta::frontend
