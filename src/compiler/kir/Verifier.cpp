// The KIR verifier (Verifier.h). One walk per function; each node is checked against Kir.h's
// contract for its kind, with the context it appears in (a value, the array of a memory access,
// the POD of a field read, a call argument).
#include "compiler/kir/Verifier.h"

#include "cajeta/xpu/cajeta_xpu.h"

#include <set>

namespace cajeta::kir {
namespace {

const char* exprKindName(Expr::Kind K) {
  switch (K) {
  case Expr::Kind::Const:
    return "Const";
  case Expr::Kind::Local:
    return "Local";
  case Expr::Kind::Param:
    return "Param";
  case Expr::Kind::Unary:
    return "Unary";
  case Expr::Kind::Binary:
    return "Binary";
  case Expr::Kind::Cast:
    return "Cast";
  case Expr::Kind::Select:
    return "Select";
  case Expr::Kind::Load:
    return "Load";
  case Expr::Kind::Store:
    return "Store";
  case Expr::Kind::Assign:
    return "Assign";
  case Expr::Kind::Seq:
    return "Seq";
  case Expr::Kind::Call:
    return "Call";
  case Expr::Kind::Intrinsic:
    return "Intrinsic";
  case Expr::Kind::SharedRef:
    return "SharedRef";
  case Expr::Kind::Atomic:
    return "Atomic";
  case Expr::Kind::Field:
    return "Field";
  case Expr::Kind::Wave:
    return "Wave";
  case Expr::Kind::Dispatch:
    return "Dispatch";
  case Expr::Kind::Tile:
    return "Tile";
  case Expr::Kind::Host:
    return "Host";
  case Expr::Kind::StringConst:
    return "StringConst";
  case Expr::Kind::Global:
    return "Global";
  case Expr::Kind::GlobalAssign:
    return "GlobalAssign";
  case Expr::Kind::RayQuery:
    return "RayQuery";
  case Expr::Kind::PrivateRef:
    return "PrivateRef";
  }
  return "unknown expression";
}

const char* stmtKindName(Stmt::Kind K) {
  switch (K) {
  case Stmt::Kind::Block:
    return "Block";
  case Stmt::Kind::Eval:
    return "Eval";
  case Stmt::Kind::If:
    return "If";
  case Stmt::Kind::Loop:
    return "Loop";
  case Stmt::Kind::Break:
    return "Break";
  case Stmt::Kind::Continue:
    return "Continue";
  case Stmt::Kind::Return:
    return "Return";
  case Stmt::Kind::Barrier:
    return "Barrier";
  case Stmt::Kind::Try:
    return "Try";
  }
  return "unknown statement";
}

std::string at(SourceLoc L) {
  return std::to_string(L.Line) + ":" + std::to_string(L.Col);
}

bool isComparison(BinaryOp Op) {
  return Op >= BinaryOp::Eq && Op <= BinaryOp::Ge;
}

bool isGeometry(IntrinsicOp Op) {
  return Op <= IntrinsicOp::GlobalSize;
}

const Type U32 = Type::scalar(ScalarType::U32);
const Type U64 = Type::scalar(ScalarType::U64);

/// Where an expression appears: what it may be besides a scalar value.
enum class Use : uint8_t {
  Value,   // a scalar (or void) value
  Array,   // operand 0 of Load/Store/Atomic/BufferLength: a buffer Param or a SharedRef
  PodRead, // operand 0 of Field: a POD Param
  CallArg, // an argument of Call/Dispatch: a value, a buffer Param or a POD Param
  TileArg, // a tile operand of a Tile expression: a Local of tile type
};

class Verifier {
public:
  explicit Verifier(const Module& M) : M(M) {}

  std::vector<std::string> run() {
    for (size_t P = 0; P < M.Pods.size(); ++P)
      verifyPod(M.Pods[P]);
    for (const auto& F : M.Functions) {
      if (!F) {
        Problems.push_back("module: a null function");
        continue;
      }
      verifyFunction(*F);
    }
    return std::move(Problems);
  }

private:
  // Fields are laid out as a C struct's: naturally aligned, inside the POD's size.
  void verifyPod(const PodType& Pod) {
    for (const PodField& F : Pod.Fields) {
      unsigned Size = bundle::scalarTypeSize(F.Type);
      if (Size == 0 || F.Offset % Size)
        Problems.push_back("POD '" + Pod.Name + "': field '" + F.Name + "' at offset " +
                           std::to_string(F.Offset) + " is not aligned to its " +
                           std::to_string(Size) + " bytes");
      else if (F.Offset + Size > Pod.Size)
        Problems.push_back("POD '" + Pod.Name + "': field '" + F.Name + "' lies outside its " +
                           std::to_string(Pod.Size) + " bytes");
    }
  }

  void problem(SourceLoc L, const char* Kind, const std::string& What) {
    Problems.push_back("function '" + Fn->Name + "' at " + at(L) + ": " + Kind + ": " + What);
  }
  void problem(const Expr* E, const std::string& What) {
    problem(E->Loc, exprKindName(E->K), What);
  }
  void problem(const Stmt* S, const std::string& What) {
    problem(S->Loc, stmtKindName(S->K), What);
  }

  void verifyFunction(const Function& F) {
    Fn = &F;
    Loops.clear();
    SeenLoops.clear();
    const char* Kind = F.IsKernel ? "kernel" : "helper";
    if (F.IsKernel && !F.ReturnType.isVoid())
      problem(F.Loc, Kind, "a kernel returns void, not " + F.ReturnType.str());
    if (!F.ReturnType.isVoid() && !F.ReturnType.isScalar() && !hostValue(F.ReturnType))
      problem(F.Loc, Kind, "only a scalar can be returned, not " + F.ReturnType.str());
    if (M.IsHost && F.IsKernel)
      problem(F.Loc, Kind, "a kernel in a host module");
    for (const Param& P : F.Params) {
      if (P.Ty.isVoid() || P.Ty.isShared() || (P.Ty.isHostValue() && !hostValue(P.Ty)))
        problem(P.Loc, Kind, "parameter '" + P.Name + "' has type " + P.Ty.str());
      if (P.Ty.isPod() && P.Ty.PodIndex >= M.Pods.size())
        problem(P.Loc, Kind,
                "parameter '" + P.Name + "': no POD type " + std::to_string(P.Ty.PodIndex));
      if (P.IsFunction && P.Ty != U32)
        problem(P.Loc, Kind, "function parameter '" + P.Name + "' is not a uint32 tag");
      for (uint32_t T : P.FunctionTable)
        if (!isHelper(T))
          problem(P.Loc, Kind,
                  "function table of '" + P.Name + "': function " + std::to_string(T) +
                      " is not a helper");
    }
    for (const Local& L : F.Locals)
      if (!L.Ty.isScalar() && !((L.Ty.isTile() || L.Ty.isMatrix()) && F.IsKernel) &&
          !L.Ty.isRayQuery() && !hostValue(L.Ty))
        problem(L.Loc, Kind, "local '" + L.Name + "' has type " + L.Ty.str() + ", not a scalar");
    for (const Param& P : F.Params)
      if (P.IsAccel && P.Ty != Type::buffer(ScalarType::U32))
        problem(P.Loc, Kind, "acceleration structure '" + P.Name + "' is not a uint32 buffer");
    for (const PrivateArray& P : F.PrivateArrays)
      if (P.Count == 0)
        problem(F.Loc, Kind, "private array '" + P.Name + "' has no elements");
    if (!F.PrivateArrays.empty() && F.HasBarrier)
      problem(F.Loc, Kind,
              "a function with a barrier has private arrays (the CPU's work-item "
              "loop fission keeps scalars only)");
    if (!F.IsKernel && !F.SharedArrays.empty())
      problem(F.Loc, Kind, "a helper declares shared arrays (only kernels may)");
    unsigned Dynamic = 0;
    for (const SharedArray& S : F.SharedArrays) {
      Dynamic += S.Count == 0;
      if (S.PerWave && S.Count == 0)
        problem(F.Loc, Kind, "per-wave shared array '" + S.Name + "' without a count per wave");
    }
    if (Dynamic > 1)
      problem(F.Loc, Kind, std::to_string(Dynamic) + " dynamic shared arrays (at most one)");
    if (!F.Body) {
      problem(F.Loc, Kind, "no body");
      return;
    }
    verifyStmt(F.Body);
  }

  /// A heap array, handle or string where one may be (a host module; strings: Print only).
  bool hostValue(Type T) const { return M.IsHost && T.isHostValue(); }

  bool isHelper(uint32_t I) const {
    return I < M.Functions.size() && M.Functions[I] && !M.Functions[I]->IsKernel;
  }

  // -------------------------------------------------------------------------------------------
  // Statements

  void verifyStmt(const Stmt* S) {
    if (!S)
      return; // an absent else-branch, loop body or step
    switch (S->K) {
    case Stmt::Kind::Block:
      for (const Stmt* C : S->Body)
        verifyStmt(C);
      return;
    case Stmt::Kind::Eval:
      if (!S->E)
        return problem(S, "no expression");
      verifyExpr(S->E, Use::Value);
      return;
    case Stmt::Kind::If:
      if (!S->Then)
        problem(S, "no then-branch");
      verifyCondition(S, "if", true);
      verifyStmt(S->Then);
      verifyStmt(S->Else);
      return;
    case Stmt::Kind::Loop: {
      if (!SeenLoops.insert(S->LoopId).second)
        problem(S, "loop id " + std::to_string(S->LoopId) + " is not unique in the function");
      verifyCondition(S, "loop", false);
      Loops.push_back(S->LoopId);
      verifyStmt(S->LoopBody);
      verifyStmt(S->Step);
      Loops.pop_back();
      return;
    }
    case Stmt::Kind::Break:
    case Stmt::Kind::Continue:
      for (uint32_t Id : Loops)
        if (Id == S->LoopId)
          return;
      return problem(S, "target loop " + std::to_string(S->LoopId) + " does not enclose it");
    case Stmt::Kind::Return:
      return verifyReturn(S);
    case Stmt::Kind::Barrier:
      if (!Fn->HasBarrier)
        problem(S, "a barrier in a function not marked HasBarrier");
      return;
    case Stmt::Kind::Try:
      if (!M.IsHost)
        problem(S, "a try outside a host module");
      if (!S->Then)
        problem(S, "no body");
      if (S->Body.size() != S->Catches.size() || S->Body.empty())
        problem(S, std::to_string(S->Body.size()) + " handlers for " +
                       std::to_string(S->Catches.size()) + " catch clauses");
      verifyStmt(S->Then);
      for (const Stmt* H : S->Body)
        verifyStmt(H);
      return;
    }
    problem(S->Loc, "statement", "unknown statement kind " + std::to_string(unsigned(S->K)));
  }

  void verifyCondition(const Stmt* S, const char* What, bool Required) {
    if (!S->E) {
      if (Required)
        problem(S, std::string("no ") + What + " condition");
      return;
    }
    verifyExpr(S->E, Use::Value);
    if (!S->E->Ty.isBool())
      problem(S, std::string(What) + " condition is " + S->E->Ty.str() + ", not bool");
  }

  void verifyReturn(const Stmt* S) {
    if (Fn->IsKernel || Fn->ReturnType.isVoid()) {
      if (S->E) {
        problem(S, "a value returned from a void function");
        verifyExpr(S->E, Use::Value);
      }
      return;
    }
    if (!S->E)
      return problem(S, "no value returned from a function returning " + Fn->ReturnType.str());
    verifyExpr(S->E, Use::Value);
    if (S->E->Ty != Fn->ReturnType)
      problem(S,
              "returns " + S->E->Ty.str() + " from a function returning " + Fn->ReturnType.str());
  }

  // -------------------------------------------------------------------------------------------
  // Expressions

  /// Checks E's operands exist and number N; false (reported) otherwise.
  bool ops(const Expr* E, size_t N) {
    if (E->Ops.size() != N) {
      problem(E,
              "expected " + std::to_string(N) + " operands, got " + std::to_string(E->Ops.size()));
      return false;
    }
    return nonNullOps(E);
  }
  bool nonNullOps(const Expr* E) {
    for (const Expr* O : E->Ops)
      if (!O) {
        problem(E, "a null operand");
        return false;
      }
    return true;
  }

  void verifyExpr(const Expr* E, Use U) {
    // Arrays and PODs only where the context admits them.
    if (E->K == Expr::Kind::PrivateRef && (U != Use::Array || !PrivateAllowed))
      problem(E, "a private array outside the array operand of Load/Store");
    if (E->K == Expr::Kind::SharedRef && U != Use::Array)
      problem(E, "a shared array outside the array operand of Load/Store/Atomic/BufferLength");
    if (E->K == Expr::Kind::Param && E->Ty.isBuffer() && U != Use::Array && U != Use::CallArg)
      problem(E, "a buffer parameter used as a value");
    if (E->K == Expr::Kind::Param && E->Ty.isPod() && U != Use::PodRead && U != Use::CallArg)
      problem(E, "a POD parameter used as a value");
    if (U == Use::Array &&
        !((E->K == Expr::Kind::Param && E->Ty.isBuffer()) || E->K == Expr::Kind::SharedRef ||
          E->K == Expr::Kind::PrivateRef || hostValue(E->Ty)))
      problem(E, "expected a buffer parameter or a shared array, got " + E->Ty.str());
    if (U == Use::PodRead && !(E->K == Expr::Kind::Param && E->Ty.isPod()))
      problem(E, "expected a POD parameter, got " + E->Ty.str());
    if (U == Use::TileArg && !(E->K == Expr::Kind::Local && E->Ty.isTile()))
      problem(E, "expected a tile local, got " + E->Ty.str());
    if ((U == Use::Value || U == Use::CallArg) && !E->Ty.isScalar() && !E->Ty.isVoid() &&
        !(U == Use::Value && E->Ty.isMatrix()) && E->K != Expr::Kind::Param &&
        E->K != Expr::Kind::SharedRef && !hostValue(E->Ty) && E->K != Expr::Kind::StringConst)
      problem(E, "a value of type " + E->Ty.str());

    switch (E->K) {
    case Expr::Kind::Const:
      if (!E->Ty.isScalar())
        problem(E, "a constant of type " + E->Ty.str());
      if (!E->Ops.empty())
        problem(E, "a constant has no operands");
      return;
    case Expr::Kind::Local:
      if (!E->Ops.empty())
        problem(E, "a local read has no operands");
      if (E->Index >= Fn->Locals.size())
        return problem(E, "no local " + std::to_string(E->Index) + " (the function has " +
                              std::to_string(Fn->Locals.size()) + ")");
      if (Fn->Locals[E->Index].Ty.isRayQuery())
        problem(E, "ray query local " + std::to_string(E->Index) + " read as a value");
      if (E->Ty != Fn->Locals[E->Index].Ty)
        problem(E, "local " + std::to_string(E->Index) + " of type " +
                       Fn->Locals[E->Index].Ty.str() + " read as " + E->Ty.str());
      return;
    case Expr::Kind::Param:
      if (!E->Ops.empty())
        problem(E, "a parameter read has no operands");
      if (E->Index >= Fn->Params.size())
        return problem(E, "no parameter " + std::to_string(E->Index) + " (the function has " +
                              std::to_string(Fn->Params.size()) + ")");
      if (E->Ty != Fn->Params[E->Index].Ty)
        problem(E, "parameter " + std::to_string(E->Index) + " of type " +
                       Fn->Params[E->Index].Ty.str() + " read as " + E->Ty.str());
      return;
    case Expr::Kind::Unary:
      return verifyUnary(E);
    case Expr::Kind::Binary:
      return verifyBinary(E);
    case Expr::Kind::Cast:
      if (!ops(E, 1))
        return;
      verifyExpr(E->Ops[0], Use::Value);
      if (!E->Ty.isScalar() || !E->Ops[0]->Ty.isScalar())
        problem(E, "a cast from " + E->Ops[0]->Ty.str() + " to " + E->Ty.str() +
                       " (casts are between scalars)");
      return;
    case Expr::Kind::Select:
      if (!ops(E, 3))
        return;
      for (const Expr* O : E->Ops)
        verifyExpr(O, Use::Value);
      if (!E->Ops[0]->Ty.isBool())
        problem(E, "the condition is " + E->Ops[0]->Ty.str() + ", not bool");
      if (E->Ops[1]->Ty != E->Ty || E->Ops[2]->Ty != E->Ty)
        problem(E, "arms of types " + E->Ops[1]->Ty.str() + " and " + E->Ops[2]->Ty.str() +
                       " for a result of type " + E->Ty.str());
      return;
    case Expr::Kind::Load:
    case Expr::Kind::Store:
      return verifyMemory(E);
    case Expr::Kind::Assign:
      if (!ops(E, 1))
        return;
      verifyExpr(E->Ops[0], Use::Value);
      if (E->Index >= Fn->Locals.size())
        return problem(E, "no local " + std::to_string(E->Index) + " (the function has " +
                              std::to_string(Fn->Locals.size()) + ")");
      if (E->Ops[0]->Ty != Fn->Locals[E->Index].Ty || E->Ty != E->Ops[0]->Ty)
        problem(E, "a value of type " + E->Ops[0]->Ty.str() + " assigned to local " +
                       std::to_string(E->Index) + " of type " + Fn->Locals[E->Index].Ty.str() +
                       ", yielding " + E->Ty.str());
      return;
    case Expr::Kind::Seq:
      if (!nonNullOps(E))
        return;
      for (const Expr* O : E->Ops)
        verifyExpr(O, Use::Value);
      if (E->Ops.empty() ? !E->Ty.isVoid() : E->Ty != E->Ops.back()->Ty)
        problem(E, "type " + E->Ty.str() + " differs from its last operand's (" +
                       (E->Ops.empty() ? std::string("none") : E->Ops.back()->Ty.str()) + ")");
      return;
    case Expr::Kind::Call:
      if (!nonNullOps(E))
        return;
      verifyArgs(E, 0);
      verifySignature(E, E->Index, "call of function " + std::to_string(E->Index), 0);
      return;
    case Expr::Kind::Intrinsic:
      return verifyIntrinsic(E);
    case Expr::Kind::PrivateRef:
      if (!E->Ops.empty())
        problem(E, "a private array reference has no operands");
      if (E->Index >= Fn->PrivateArrays.size())
        return problem(E, "no private array " + std::to_string(E->Index) + " (the function has " +
                              std::to_string(Fn->PrivateArrays.size()) + ")");
      if (E->Ty != Type::privateArray(Fn->PrivateArrays[E->Index].Elem))
        problem(E, "private array '" + Fn->PrivateArrays[E->Index].Name + "' referenced as " +
                       E->Ty.str());
      return;
    case Expr::Kind::SharedRef:
      if (!E->Ops.empty())
        problem(E, "a shared array reference has no operands");
      if (E->Index >= Fn->SharedArrays.size())
        return problem(E, "no shared array " + std::to_string(E->Index) + " (the function has " +
                              std::to_string(Fn->SharedArrays.size()) + ")");
      if (E->Ty != Type::shared(Fn->SharedArrays[E->Index].Elem))
        problem(E, "shared array '" + Fn->SharedArrays[E->Index].Name + "' referenced as " +
                       E->Ty.str());
      return;
    case Expr::Kind::Atomic:
      return verifyAtomic(E);
    case Expr::Kind::Field:
      return verifyField(E);
    case Expr::Kind::Wave:
      return verifyWave(E);
    case Expr::Kind::Dispatch:
      return verifyDispatch(E);
    case Expr::Kind::Tile:
      return verifyTile(E);
    case Expr::Kind::RayQuery:
      return verifyRayQuery(E);
    case Expr::Kind::Host:
      return verifyHost(E);
    case Expr::Kind::Global:
    case Expr::Kind::GlobalAssign: {
      bool Assign = E->K == Expr::Kind::GlobalAssign;
      if (!M.IsHost)
        return problem(E, "a static field outside a host module");
      if (E->Index >= M.Globals.size())
        return problem(E, "no static field " + std::to_string(E->Index));
      if (!ops(E, Assign ? 1 : 0))
        return;
      if (Assign)
        verifyExpr(E->Ops[0], Use::Value);
      if (E->Ty != M.Globals[E->Index].Ty || (Assign && E->Ops[0]->Ty != E->Ty))
        problem(E, "static field '" + M.Globals[E->Index].Name + "' of type " +
                       M.Globals[E->Index].Ty.str() + " used as " + E->Ty.str());
      return;
    }
    case Expr::Kind::StringConst:
      if (!M.IsHost)
        problem(E, "a string outside a host module");
      if (!E->Ty.isString() || E->Index >= M.Strings.size())
        problem(E, "no string " + std::to_string(E->Index) + " of type String");
      return;
    }
    problem(E->Loc, "expression", "unknown expression kind " + std::to_string(unsigned(E->K)));
  }

  void verifyUnary(const Expr* E) {
    if (!ops(E, 1))
      return;
    verifyExpr(E->Ops[0], Use::Value);
    if (E->Ops[0]->Ty != E->Ty)
      return problem(E, "operand of type " + E->Ops[0]->Ty.str() + " for a result of type " +
                            E->Ty.str());
    bool Ok = false;
    switch (E->UOp) {
    case UnaryOp::Neg:
      Ok = E->Ty.isInteger() || E->Ty.isFloat();
      break;
    case UnaryOp::Not:
      Ok = E->Ty.isBool();
      break;
    case UnaryOp::BitNot:
      Ok = E->Ty.isInteger();
      break;
    default:
      return problem(E, "unknown unary operator " + std::to_string(unsigned(E->UOp)));
    }
    if (!Ok)
      problem(E, std::string("'") + unaryOpName(E->UOp) + "' on " + E->Ty.str());
  }

  void verifyBinary(const Expr* E) {
    if (!ops(E, 2))
      return;
    verifyExpr(E->Ops[0], Use::Value);
    verifyExpr(E->Ops[1], Use::Value);
    BinaryOp Op = E->BOp;
    if (Op > BinaryOp::LogicalOr)
      return problem(E, "unknown binary operator " + std::to_string(unsigned(Op)));
    Type L = E->Ops[0]->Ty, R = E->Ops[1]->Ty;
    if (E->NoWrap && (!(Op == BinaryOp::Add || Op == BinaryOp::Mul) || !E->Ty.isUnsigned()))
      problem(E, std::string("no-wrap '") + binaryOpName(Op) + "' on " + E->Ty.str() +
                     " (only + and * of unsigned integers)");
    if (Op == BinaryOp::LogicalAnd || Op == BinaryOp::LogicalOr) {
      if (!L.isBool() || !R.isBool() || !E->Ty.isBool())
        problem(E, std::string("'") + binaryOpName(Op) + "' on " + L.str() + " and " + R.str() +
                       " yielding " + E->Ty.str() + " (bool only)");
      return;
    }
    if (L != R || !L.isScalar())
      return problem(E, std::string("'") + binaryOpName(Op) + "' on operands of different types " +
                            L.str() + " and " + R.str());
    if (isComparison(Op) ? !E->Ty.isBool() : E->Ty != L)
      return problem(E, std::string("'") + binaryOpName(Op) + "' on " + L.str() + " yields " +
                            (isComparison(Op) ? std::string("bool") : L.str()) + ", not " +
                            E->Ty.str());
    bool Ok = true;
    switch (Op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Rem:
      Ok = L.isInteger() || L.isFloat();
      break;
    case BinaryOp::Shl:
    case BinaryOp::Shr:
    case BinaryOp::UShr:
      Ok = L.isInteger();
      break;
    case BinaryOp::And:
    case BinaryOp::Or:
    case BinaryOp::Xor:
      Ok = L.isInteger() || L.isBool();
      break;
    default: // comparisons: any scalar
      break;
    }
    if (!Ok)
      problem(E, std::string("'") + binaryOpName(Op) + "' on " + L.str());
  }

  /// Operand 0 of a memory access; false when it is not an array (reported).
  bool verifyArray(const Expr* E) {
    verifyExpr(E->Ops[0], Use::Array);
    return E->Ops[0]->Ty.isArray() || hostValue(E->Ops[0]->Ty);
  }

  void verifyIndex(const Expr* E) {
    verifyExpr(E->Ops[1], Use::Value);
    if (!E->Ops[1]->Ty.isInteger())
      problem(E, "the index is " + E->Ops[1]->Ty.str() + ", not an integer");
  }

  void verifyMemory(const Expr* E) {
    bool IsStore = E->K == Expr::Kind::Store;
    if (!ops(E, IsStore ? 3 : 2))
      return;
    PrivateAllowed = true;
    bool Array = verifyArray(E);
    PrivateAllowed = false;
    verifyIndex(E);
    if (IsStore)
      verifyExpr(E->Ops[2], Use::Value);
    if (!Array)
      return;
    Type Elem = Type::scalar(E->Ops[0]->Ty.Elem);
    if (E->Ty != Elem)
      problem(E, "type " + E->Ty.str() + " differs from the element type " + Elem.str());
    if (IsStore && E->Ops[2]->Ty != Elem)
      problem(E, "stored value of type " + E->Ops[2]->Ty.str() + " into elements of type " +
                     Elem.str());
  }

  /// The signature of a call of function Callee with E's operands from First on as arguments,
  /// yielding E->Ty (the operands themselves are verified by the caller).
  void verifySignature(const Expr* E, uint32_t Callee, const std::string& What, size_t First) {
    if (Callee >= M.Functions.size() || !M.Functions[Callee])
      return problem(E, What + ": no such function (the module has " +
                            std::to_string(M.Functions.size()) + ")");
    const Function& F = *M.Functions[Callee];
    if (F.IsKernel)
      return problem(E, What + ": '" + F.Name + "' is a kernel");
    size_t N = E->Ops.size() - First;
    if (N != F.Params.size())
      return problem(E, What + ": '" + F.Name + "' takes " + std::to_string(F.Params.size()) +
                            " arguments, got " + std::to_string(N));
    for (size_t I = 0; I < N; ++I) {
      const Expr* A = E->Ops[First + I];
      if (A->Ty != F.Params[I].Ty)
        problem(E, What + ": argument " + std::to_string(I) + " of '" + F.Name + "' is " +
                       A->Ty.str() + ", the parameter " + F.Params[I].Ty.str());
      else if ((A->Ty.isBuffer() || A->Ty.isPod()) && A->K != Expr::Kind::Param)
        problem(E, What + ": argument " + std::to_string(I) + " of '" + F.Name +
                       "' must be a parameter of the caller");
    }
    if (E->Ty != F.ReturnType)
      problem(E, What + ": type " + E->Ty.str() + " differs from the return type " +
                     F.ReturnType.str() + " of '" + F.Name + "'");
    if (F.HasBarrier && !Fn->HasBarrier)
      problem(E, What + ": '" + F.Name + "' has a barrier, the caller is not marked HasBarrier");
    if (F.UsesWave && !Fn->UsesWave)
      problem(E, What + ": '" + F.Name + "' uses wave ops, the caller is not marked UsesWave");
    for (const char* Backend : {"cpu", "cuda", "hip", "vulkan"})
      if (availableOn(*Fn, Backend) && !availableOn(F, Backend))
        problem(E, What + ": '" + F.Name + "' is not available on " + Backend + ", its caller is");
  }

  /// Operand I of host op E has type T (or, with Kind, is a handle of that kind).
  void hostOperand(const Expr* E, size_t I, Type T) {
    if (E->Ops[I]->Ty != T)
      problem(E, std::string(hostOpName(E->HOp)) + ": operand " + std::to_string(I) + " is " +
                     E->Ops[I]->Ty.str() + ", not " + T.str());
  }
  void hostHandle(const Expr* E, size_t I, Type::HandleKind H) {
    if (!E->Ops[I]->Ty.isHandle(H))
      problem(E, std::string(hostOpName(E->HOp)) + ": operand " + std::to_string(I) + " is " +
                     E->Ops[I]->Ty.str() + ", not a " + Type::handle(H).str());
  }

  void verifyHost(const Expr* E) {
    if (!M.IsHost)
      return problem(E, "a host operation outside a host module");
    if (!nonNullOps(E))
      return;
    int Want = hostOperandCount(E->HOp);
    size_t N = E->Ops.size();
    if (Want >= 0 && N != size_t(Want))
      return problem(E, std::string(hostOpName(E->HOp)) + " takes " + std::to_string(Want) +
                            " operands, got " + std::to_string(N));
    for (const Expr* O : E->Ops)
      verifyExpr(O, Use::Value);
    const Type I64 = Type::scalar(ScalarType::I64);
    auto Result = [&](Type T) {
      if (E->Ty != T)
        problem(E, std::string(hostOpName(E->HOp)) + " yields " + T.str() + ", not " + E->Ty.str());
    };
    switch (E->HOp) {
    case HostOp::ArrayNew:
      hostOperand(E, 0, I64);
      if (!E->Ty.isHeapArray())
        problem(E, "array.new yields " + E->Ty.str());
      return;
    case HostOp::ArrayLength:
      if (!E->Ops[0]->Ty.isHeapArray())
        problem(E, "array.length of " + E->Ops[0]->Ty.str());
      return Result(Type::scalar(ScalarType::I32));
    case HostOp::BufferNew:
      hostOperand(E, 0, I64);
      if (!E->Ty.isHandle(Type::BufferHandle))
        problem(E, "buffer.new yields " + E->Ty.str());
      return;
    case HostOp::BufferUpload:
    case HostOp::BufferDownload:
      if (N != 2 && N != 3)
        return problem(E, std::string(hostOpName(E->HOp)) + " takes 2 or 3 operands");
      hostHandle(E, 0, Type::BufferHandle);
      if (E->Ops[1]->Ty != Type::heapArray(E->Ops[0]->Ty.Elem))
        problem(E, std::string(hostOpName(E->HOp)) + ": a " + E->Ops[1]->Ty.str() + " for a " +
                       E->Ops[0]->Ty.str());
      if (N == 3)
        hostHandle(E, 2, Type::StreamHandle);
      return Result(Type::voidTy());
    case HostOp::BufferLength:
      hostHandle(E, 0, Type::BufferHandle);
      return Result(U64);
    case HostOp::AccelNew:
      hostOperand(E, 0, Type::heapArray(ScalarType::F32));
      hostOperand(E, 1, Type::heapArray(ScalarType::I32));
      return Result(Type::handle(Type::AccelHandle));
    case HostOp::StreamCurrent:
    case HostOp::StreamNew:
      return Result(Type::handle(Type::StreamHandle));
    case HostOp::StreamSync:
      hostHandle(E, 0, Type::StreamHandle);
      return Result(Type::voidTy());
    case HostOp::StreamRecord:
      hostHandle(E, 0, Type::StreamHandle);
      return Result(Type::handle(Type::EventHandle));
    case HostOp::StreamWait:
      hostHandle(E, 0, Type::StreamHandle);
      hostHandle(E, 1, Type::EventHandle);
      return Result(Type::voidTy());
    case HostOp::EventSync:
      hostHandle(E, 0, Type::EventHandle);
      return Result(Type::voidTy());
    case HostOp::Launch: {
      if (E->Index >= M.Kernels.size())
        return problem(E, "launch of kernel " + std::to_string(E->Index) + ": no such kernel");
      const KernelRef& K = M.Kernels[E->Index];
      if (N != 7 + K.Params.size())
        return problem(E, "launch of '" + K.Name + "' with " + std::to_string(N) +
                              " operands, not 7 + " + std::to_string(K.Params.size()));
      hostHandle(E, 0, Type::StreamHandle);
      for (size_t I = 1; I < 7; ++I)
        hostOperand(E, I, U32);
      for (size_t I = 0; I < K.Params.size(); ++I) {
        Type P = K.Params[I];
        Type Want = P.isBuffer() ? Type::handle(Type::BufferHandle, P.Elem) : P;
        hostOperand(E, 7 + I, Want);
      }
      return Result(Type::voidTy());
    }
    case HostOp::Supports:
      return Result(Type::scalar(ScalarType::Bool));
    case HostOp::Print:
      if (!E->Ops[0]->Ty.isScalar() && !E->Ops[0]->Ty.isString())
        problem(E, "print of " + E->Ops[0]->Ty.str());
      return Result(Type::voidTy());
    case HostOp::PrintNewline:
    case HostOp::PrintCaught:
      return Result(Type::voidTy());
    case HostOp::ArgCount:
      return Result(Type::scalar(ScalarType::I32));
    case HostOp::ArgAt:
      hostOperand(E, 0, Type::scalar(ScalarType::I32));
      return Result(Type::string());
    case HostOp::ParseInt:
      hostOperand(E, 0, Type::string());
      if (E->Ty != Type::scalar(ScalarType::I32) && E->Ty != Type::scalar(ScalarType::I64))
        problem(E, "parse.int yields " + E->Ty.str());
      return;
    case HostOp::ParseFloat:
      hostOperand(E, 0, Type::string());
      if (E->Ty != Type::scalar(ScalarType::F32) && E->Ty != Type::scalar(ScalarType::F64))
        problem(E, "parse.float yields " + E->Ty.str());
      return;
    case HostOp::StringLength:
      hostOperand(E, 0, Type::string());
      return Result(Type::scalar(ScalarType::I32));
    case HostOp::StringEquals:
      hostOperand(E, 0, Type::string());
      hostOperand(E, 1, Type::string());
      return Result(Type::scalar(ScalarType::Bool));
    case HostOp::PrintFormatted:
      if (!E->Ops[0]->Ty.isScalar() || E->Index >= M.Strings.size())
        problem(E, "printf of " + E->Ops[0]->Ty.str() + " with format " + std::to_string(E->Index));
      return Result(Type::voidTy());
    case HostOp::Exit:
      hostOperand(E, 0, Type::scalar(ScalarType::I32));
      return Result(Type::voidTy());
    }
    problem(E, "unknown host operation " + std::to_string(unsigned(E->HOp)));
  }

  void verifyArgs(const Expr* E, size_t First) {
    for (size_t I = First; I < E->Ops.size(); ++I)
      verifyExpr(E->Ops[I], Use::CallArg);
  }

  void verifyDispatch(const Expr* E) {
    if (E->Ops.empty())
      return problem(E, "no tag operand");
    if (!nonNullOps(E))
      return;
    verifyExpr(E->Ops[0], Use::Value);
    if (E->Ops[0]->Ty != U32)
      problem(E, "the tag is " + E->Ops[0]->Ty.str() + ", not uint32");
    verifyArgs(E, 1);
    // Every target takes the same arguments and yields the dispatch's type.
    for (size_t T = 0; T < E->Targets.size(); ++T)
      verifySignature(E, E->Targets[T], "dispatch target " + std::to_string(T), 1);
  }

  /// Ray query ops (Kir.h's RayQueryOp): a query local as Index, an acceleration-structure
  /// parameter, float32 ray operands, the op's result type.
  void verifyRayQuery(const Expr* E) {
    if (E->RQOp > RayQueryOp::FrontFace)
      return problem(E, "unknown ray query op " + std::to_string(unsigned(E->RQOp)));
    std::string Name = std::string("'") + rayQueryOpName(E->RQOp) + "'";
    if (E->Index >= Fn->Locals.size() || !Fn->Locals[E->Index].Ty.isRayQuery())
      return problem(E, Name + " on local " + std::to_string(E->Index) + ", not a ray query");
    if (E->Ty != rayQueryResultType(E->RQOp))
      problem(E, Name + " yields " + rayQueryResultType(E->RQOp).str() + ", not " + E->Ty.str());
    if (E->Dim > 1)
      problem(E, Name + " of intersection " + std::to_string(E->Dim));
    if (!ops(E, rayQueryOperandCount(E->RQOp)))
      return;
    for (size_t I = 0; I < E->Ops.size(); ++I) {
      const Expr* O = E->Ops[I];
      if (E->RQOp == RayQueryOp::Initialize && I == 0) {
        verifyExpr(O, Use::Array);
        if (O->K != Expr::Kind::Param || O->Index >= Fn->Params.size() ||
            !Fn->Params[O->Index].IsAccel)
          problem(E, Name + " of something that is not an acceleration structure parameter");
        continue;
      }
      verifyExpr(O, Use::Value);
      Type Want = E->RQOp == RayQueryOp::Initialize && I == 1 ? U32 : Type::scalar(ScalarType::F32);
      if (O->Ty != Want)
        problem(E, Name + " operand " + std::to_string(I) + " is " + O->Ty.str() + ", not " +
                       Want.str());
    }
  }

  /// Tile ops (Kir.h's TileOp): a tile local as Index, operands of the op's types, shapes that
  /// agree for Mac, Add and Convert.
  void verifyTile(const Expr* E) {
    if (E->TOp > TileOp::Convert)
      return problem(E, "unknown tile op " + std::to_string(unsigned(E->TOp)));
    std::string Name = std::string("'") + tileOpName(E->TOp) + "'";
    if (!Fn->IsKernel)
      problem(E, Name + " in a helper (tiles live in kernels only)");
    if (!E->Ty.isVoid())
      problem(E, Name + " yields void, not " + E->Ty.str());
    if (E->Index >= Fn->Locals.size() || !Fn->Locals[E->Index].Ty.isTile())
      return problem(E, Name + " on local " + std::to_string(E->Index) + ", not a tile local");
    if (!ops(E, tileOperandCount(E->TOp)))
      return;
    Type T = Fn->Locals[E->Index].Ty, Elem = Type::scalar(T.Elem);
    switch (E->TOp) {
    case TileOp::Fill:
    case TileOp::Scale:
      verifyExpr(E->Ops[0], Use::Value);
      if (E->Ops[0]->Ty != Elem)
        problem(E, Name + " with " + E->Ops[0]->Ty.str() + " on " + T.str());
      return;
    case TileOp::Load:
    case TileOp::Store:
      if (verifyArray(E) && E->Ops[0]->Ty.Elem != T.Elem)
        problem(E, Name + " of " + T.str() + " from " + E->Ops[0]->Ty.str());
      for (size_t I = 1; I < 5; ++I) {
        verifyExpr(E->Ops[I], Use::Value);
        if (E->Ops[I]->Ty != U32)
          problem(E, Name + " operand " + std::to_string(I) + " is " + E->Ops[I]->Ty.str() +
                         ", not uint32");
      }
      if (E->Dim > (E->TOp == TileOp::Load ? 1 : 0))
        problem(E, Name + " with layout " + std::to_string(E->Dim));
      return;
    case TileOp::Add:
    case TileOp::Convert: {
      verifyExpr(E->Ops[0], Use::TileArg);
      Type U = E->Ops[0]->Ty;
      if (U.Rows != T.Rows || U.Cols != T.Cols || (E->TOp == TileOp::Add && U != T))
        problem(E, Name + " of " + U.str() + " into " + T.str());
      return;
    }
    case TileOp::Mac: {
      verifyExpr(E->Ops[0], Use::TileArg);
      verifyExpr(E->Ops[1], Use::TileArg);
      Type A = E->Ops[0]->Ty, B = E->Ops[1]->Ty;
      if (A.Rows != T.Rows || B.Cols != T.Cols || A.Cols != B.Rows || A.Elem != B.Elem ||
          !tileMacTypesAllowed(A.Elem, T.Elem))
        problem(E, Name + " of " + A.str() + " and " + B.str() + " into " + T.str());
      return;
    }
    }
  }

  void verifyMma(const Expr* E) {
    if (!ops(E, 10))
      return;
    if (E->Index > unsigned(MmaInput::U8)) {
      problem(E, "mma input type " + std::to_string(E->Index) +
                     " (0 float16, 1 bfloat16, 2 int8, 3 uint8)");
      return;
    }
    const bool Ints = MmaInput(E->Index) >= MmaInput::S8;
    const Type Acc = Type::scalar(Ints ? ScalarType::I32 : ScalarType::F32);
    for (size_t I = 0; I < 10; ++I) {
      verifyExpr(E->Ops[I], Use::Value);
      if (E->Ops[I]->Ty != (I >= 6 ? Acc : U32))
        problem(E, "mma operand " + std::to_string(I) + " is " + E->Ops[I]->Ty.str());
    }
    if (E->Dim > 3 || E->Ty != Acc)
      problem(E, "mma result " + std::to_string(E->Dim) + " of type " + E->Ty.str());
  }

  /// The cooperative-matrix leaves (Kir.h, MatrixFill .. WaveBarrier).
  void verifyMatrix(const Expr* E) {
    const IntrinsicOp Op = E->IOp;
    const std::string Name = intrinsicName(Op);
    static const size_t Count[] = {1, 3, 4, 3, 2, 2, 1, 0};
    if (!ops(E, Count[unsigned(Op) - unsigned(IntrinsicOp::MatrixFill)]))
      return;
    bool Memory = Op == IntrinsicOp::MatrixLoad || Op == IntrinsicOp::MatrixStore;
    for (size_t I = 0; I < E->Ops.size(); ++I)
      verifyExpr(E->Ops[I], Memory && I == 0 ? Use::Array : Use::Value);
    if (Op == IntrinsicOp::WaveBarrier || Op == IntrinsicOp::MatrixStore) {
      if (!E->Ty.isVoid())
        problem(E, Name + " yields void, not " + E->Ty.str());
    } else if (!E->Ty.isMatrix()) {
      return problem(E, Name + " yields " + E->Ty.str() + ", not a matrix");
    }
    auto Want = [&](size_t I, Type T) {
      if (E->Ops[I]->Ty != T)
        problem(E, Name + " operand " + std::to_string(I) + " is " + E->Ops[I]->Ty.str() +
                       ", not " + T.str());
    };
    switch (Op) {
    case IntrinsicOp::MatrixFill:
      return Want(0, Type::scalar(E->Ty.Elem));
    case IntrinsicOp::MatrixLoad:
    case IntrinsicOp::MatrixStore: {
      Want(1, U32);
      Want(2, U32);
      Type M = Op == IntrinsicOp::MatrixLoad ? E->Ty : E->Ops[3]->Ty;
      if (!M.isMatrix() || E->Ops[0]->Ty.Elem != M.Elem)
        problem(E, Name + " of " + M.str() + " from " + E->Ops[0]->Ty.str());
      if (E->Dim > 1)
        problem(E, Name + " of layout " + std::to_string(E->Dim) + " (0 row-, 1 column-major)");
      return;
    }
    case IntrinsicOp::MatrixMulAdd: {
      Want(2, E->Ty);
      Type A = E->Ops[0]->Ty, Bm = E->Ops[1]->Ty;
      if (!A.isMatrix() || !Bm.isMatrix() || A.MatrixUse != 0 || Bm.MatrixUse != 1 ||
          E->Ty.MatrixUse != 2 || A.Rows != E->Ty.Rows || Bm.Cols != E->Ty.Cols ||
          A.Cols != Bm.Rows || A.Elem != Bm.Elem)
        problem(E, Name + " of " + A.str() + " and " + Bm.str() + " into " + E->Ty.str());
      return;
    }
    case IntrinsicOp::MatrixScale:
      Want(0, E->Ty);
      return Want(1, Type::scalar(E->Ty.Elem));
    case IntrinsicOp::MatrixAdd:
      Want(0, E->Ty);
      return Want(1, E->Ty);
    case IntrinsicOp::MatrixConvert: {
      Type From = E->Ops[0]->Ty;
      if (!From.isMatrix() || From.Rows != E->Ty.Rows || From.Cols != E->Ty.Cols ||
          From.MatrixUse != E->Ty.MatrixUse)
        problem(E, Name + " from " + From.str() + " to " + E->Ty.str());
      return;
    }
    default:
      return;
    }
  }

  /// The CPU tile tier's leaf (Kir.h, TileDot).
  void verifyTileDot(const Expr* E) {
    if (!ops(E, 9))
      return;
    if (E->Index != unsigned(MmaInput::BF16) && E->Index != unsigned(MmaInput::S8) &&
        E->Index != unsigned(MmaInput::U8) && E->Index != unsigned(MmaInput::F32)) {
      problem(E, "tile_dot of input type " + std::to_string(E->Index) +
                     " (1 bfloat16, 2 int8, 3 uint8, 4 float32)");
      return;
    }
    const MmaInput In = MmaInput(E->Index);
    const bool FloatAcc = In == MmaInput::BF16 || In == MmaInput::F32;
    const ScalarType AccWant = FloatAcc ? ScalarType::F32 : ScalarType::I32;
    const ScalarType InWant = In == MmaInput::BF16  ? ScalarType::BF16
                              : In == MmaInput::F32 ? ScalarType::F32
                              : In == MmaInput::S8  ? ScalarType::I8
                                                    : ScalarType::U8;
    for (size_t I : {0, 2, 4}) {
      verifyExpr(E->Ops[I], Use::Array);
      ScalarType Want = I == 0 ? AccWant : InWant;
      ScalarType Elem = E->Ops[I]->Ty.Elem;
      bool Lowered = I != 0 && In == MmaInput::BF16 && Elem == ScalarType::U16;
      if (E->Ops[I]->K != Expr::Kind::SharedRef || (Elem != Want && !Lowered))
        problem(E, "tile_dot operand " + std::to_string(I) + " is " + E->Ops[I]->Ty.str());
    }
    for (size_t I : {1, 3, 5, 6, 7, 8}) {
      verifyExpr(E->Ops[I], Use::Value);
      if (E->Ops[I]->Ty != U32 || (I >= 6 && E->Ops[I]->K != Expr::Kind::Const))
        problem(E, "tile_dot operand " + std::to_string(I) + " is " + E->Ops[I]->Ty.str());
    }
    const uint64_t Depth = In == MmaInput::BF16 ? 2 : 4;
    if (E->Ops[6]->K == Expr::Kind::Const && E->Ops[7]->K == Expr::Kind::Const &&
        E->Ops[8]->K == Expr::Kind::Const &&
        (E->Ops[6]->IntValue % 4 || E->Ops[7]->IntValue % 16 || E->Ops[8]->IntValue % Depth ||
         !E->Ops[6]->IntValue || !E->Ops[7]->IntValue || !E->Ops[8]->IntValue))
      problem(E, "tile_dot of a shape that is not whole 4 x 16 x " + std::to_string(Depth) +
                     " blocks");
    if (!E->Ty.isVoid())
      problem(E, "tile_dot yields void, not " + E->Ty.str());
  }

  /// The staged copies' leaves (Kir.h, LoadWord and StoreWords).
  void verifyWords(const Expr* E) {
    const unsigned Words = E->Index;
    if (Words != 1 && Words != 2 && Words != 4)
      return problem(E, std::string(intrinsicName(E->IOp)) + " of " + std::to_string(Words) +
                            " words (1, 2 or 4)");
    if (E->IOp == IntrinsicOp::LoadWord) {
      if (!ops(E, 2))
        return;
      verifyExpr(E->Ops[0], Use::Array);
      verifyExpr(E->Ops[1], Use::Value);
      if (!E->Ops[0]->Ty.isBuffer() || E->Ops[1]->Ty != U32 || E->Ty != U32 || E->Dim >= Words)
        problem(E, "load_word " + std::to_string(E->Dim) + " from " + E->Ops[0]->Ty.str());
      return;
    }
    if (!ops(E, 2 + Words))
      return;
    verifyExpr(E->Ops[0], Use::Array);
    for (size_t I = 1; I < E->Ops.size(); ++I) {
      verifyExpr(E->Ops[I], Use::Value);
      if (E->Ops[I]->Ty != U32)
        problem(E, "store_words operand " + std::to_string(I) + " is " + E->Ops[I]->Ty.str());
    }
    ScalarType Elem = E->Ops[0]->Ty.Elem;
    bool Shared = E->Ops[0]->K == Expr::Kind::SharedRef && Elem != ScalarType::Bool &&
                  bundle::scalarTypeSize(Elem) <= 4;
    bool Chunk = E->Ops[0]->K == Expr::Kind::Param && E->Ops[0]->Ty.isBuffer() &&
                 Elem != ScalarType::Bool && bundle::scalarTypeSize(Elem) == 4;
    if (!(Shared || Chunk) || !E->Ty.isVoid())
      problem(E, "store_words into " + E->Ops[0]->Ty.str());
  }

  void verifyAsyncCopy(const Expr* E) {
    if (!E->Ty.isVoid())
      problem(E, std::string(intrinsicName(E->IOp)) + " yields void, not " + E->Ty.str());
    if (E->IOp != IntrinsicOp::AsyncCopy) {
      ops(E, 0);
      if (E->IOp == IntrinsicOp::AsyncWait && E->Index > 7)
        problem(E, "async_wait for " + std::to_string(E->Index) + " groups (0..7)");
      return;
    }
    if (!ops(E, 5))
      return;
    verifyExpr(E->Ops[0], Use::Array);
    verifyExpr(E->Ops[2], Use::Array);
    for (size_t I : {1, 3, 4}) {
      verifyExpr(E->Ops[I], Use::Value);
      if (E->Ops[I]->Ty != U32)
        problem(E, "async_copy operand " + std::to_string(I) + " is " + E->Ops[I]->Ty.str());
    }
    if (E->Ops[0]->K != Expr::Kind::SharedRef || !E->Ops[2]->Ty.isBuffer() ||
        E->Ops[0]->Ty.Elem != E->Ops[2]->Ty.Elem)
      return problem(E, "async_copy from " + E->Ops[2]->Ty.str() + " to " + E->Ops[0]->Ty.str());
    unsigned Bytes = E->Index * bundle::scalarTypeSize(E->Ops[0]->Ty.Elem);
    if (Bytes != 4 && Bytes != 8 && Bytes != 16)
      problem(E, "async_copy of " + std::to_string(Bytes) + " bytes (4, 8 or 16)");
  }

  void verifyAsyncCopyBlock(const Expr* E) {
    if (!E->Ty.isVoid())
      problem(E, "async_copy_block yields void, not " + E->Ty.str());
    if (!ops(E, 9))
      return;
    verifyExpr(E->Ops[0], Use::Array);
    verifyExpr(E->Ops[2], Use::Array);
    for (size_t I : {1, 3, 4, 5, 6, 7, 8}) {
      verifyExpr(E->Ops[I], Use::Value);
      if (E->Ops[I]->Ty != U32)
        problem(E, "async_copy_block operand " + std::to_string(I) + " is " + E->Ops[I]->Ty.str());
    }
    if (E->Ops[0]->K != Expr::Kind::SharedRef || !E->Ops[2]->Ty.isBuffer() ||
        E->Ops[0]->Ty.Elem != E->Ops[2]->Ty.Elem)
      return problem(E,
                     "async_copy_block from " + E->Ops[2]->Ty.str() + " to " + E->Ops[0]->Ty.str());
    const Expr* Cols = E->Ops[8];
    if (Cols->K != Expr::Kind::Const || Cols->IntValue < 1 || Cols->IntValue > 256 ||
        E->Index < 1 || E->Index > 256)
      return problem(E, "async_copy_block of a block that is not 1..256 x 1..256 constants");
    if (Cols->IntValue * bundle::scalarTypeSize(E->Ops[0]->Ty.Elem) % 4 != 0)
      problem(E, "async_copy_block rows of a size that is not a multiple of 4 bytes");
  }

  /// The tensor memory accelerator's leaves (Kir.h, MbarrierInit .. MbarrierWait).
  void verifyTma(const Expr* E) {
    const IntrinsicOp Op = E->IOp;
    const std::string Name = intrinsicName(Op);
    const bool Load = Op == IntrinsicOp::TmaLoad;
    // TmaLoad: {array, dst, barriers, slot, issue, coordinates (2 or 4)}; MbarrierArrive:
    // {barriers, slot, arrive}; MbarrierInit: {barriers, slot, count}; MbarrierWait: {barriers,
    // slot, parity}.
    if (Load ? E->Ops.size() != 7 && E->Ops.size() != 9 : !ops(E, 3))
      return problem(E, Name + " of " + std::to_string(E->Ops.size()) + " operands");
    const size_t Bars = Load ? 2 : 0;
    const size_t Predicate = Load ? 4 : Op == IntrinsicOp::MbarrierArrive ? 2 : E->Ops.size();
    for (size_t I = 0; I < E->Ops.size(); ++I) {
      const bool Array = I == Bars || (Load && I == 0);
      verifyExpr(E->Ops[I], Array ? Use::Array : Use::Value);
      if (Array            ? E->Ops[I]->K != Expr::Kind::SharedRef
          : I == Predicate ? !E->Ops[I]->Ty.isBool()
                           : E->Ops[I]->Ty != U32)
        problem(E, Name + " operand " + std::to_string(I) + " is " + E->Ops[I]->Ty.str());
    }
    if (E->Ops[Bars]->K == Expr::Kind::SharedRef && E->Ops[Bars]->Ty.Elem != ScalarType::U64)
      problem(E, Name + " of barriers in " + E->Ops[Bars]->Ty.str() + ", not uint64");
    if (Op == IntrinsicOp::MbarrierArrive && E->Dim > 0 &&
        (E->Dim > 1 || E->Ops[2]->K != Expr::Kind::Const || E->Ops[2]->IntValue != 1))
      problem(E, Name + " once per wave (Dim " + std::to_string(E->Dim) +
                     ") where not every work-item arrives");
    if (Load && (E->Dim >= Fn->TensorMaps.size() || E->Index == 0))
      problem(E, Name + " of tensor map " + std::to_string(E->Dim) + " (the function has " +
                     std::to_string(Fn->TensorMaps.size()) + ") and " + std::to_string(E->Index) +
                     " bytes");
    if (!E->Ty.isVoid())
      problem(E, Name + " yields void, not " + E->Ty.str());
  }

  void verifyLdMatrix(const Expr* E) {
    if (!ops(E, 2))
      return;
    verifyExpr(E->Ops[0], Use::Array);
    verifyExpr(E->Ops[1], Use::Value);
    unsigned Count = E->Index & 7;
    const ScalarType Elem = E->Ops[0]->Ty.Elem;
    if (E->Ops[0]->K != Expr::Kind::SharedRef ||
        (Elem != ScalarType::F16 && Elem != ScalarType::BF16 && Elem != ScalarType::I8 &&
         Elem != ScalarType::U8))
      problem(E, "ldmatrix reads a float16, bfloat16, int8 or uint8 shared array, not " +
                     E->Ops[0]->Ty.str());
    if (E->Ops[1]->Ty != U32)
      problem(E, "ldmatrix's row start is " + E->Ops[1]->Ty.str() + ", not uint32");
    if ((Count != 2 && Count != 4) || (E->Index & ~15u))
      problem(E, "ldmatrix of " + std::to_string(E->Index) + " (2 or 4 matrices, + 8 for .trans)");
    if (E->Dim >= Count || E->Ty != U32)
      problem(E, "ldmatrix register " + std::to_string(E->Dim) + " of type " + E->Ty.str());
  }

  /// {buffer, first, count}: void, Dim 0 (read) or 1 (written).
  void verifyPrefetch(const Expr* E) {
    if (!ops(E, 3))
      return;
    verifyExpr(E->Ops[0], Use::Array);
    if (E->Ops[0]->K != Expr::Kind::Param || !E->Ops[0]->Ty.isBuffer())
      problem(E, "prefetch of " + E->Ops[0]->Ty.str() + ", not of a buffer parameter");
    for (size_t I = 1; I < 3; ++I) {
      verifyExpr(E->Ops[I], Use::Value);
      if (!E->Ops[I]->Ty.isInteger())
        problem(E, "prefetch with a " + E->Ops[I]->Ty.str() + " index, not an integer");
    }
    if (E->Dim > 1 || !E->Ty.isVoid())
      problem(E, "prefetch of kind " + std::to_string(E->Dim) + " yielding " + E->Ty.str());
  }

  /// The sm_90a tile tier's leaves (Kir.h, WgmmaReady .. ProxyFence).
  void verifyWgmma(const Expr* E) {
    const IntrinsicOp Op = E->IOp;
    const std::string Name = intrinsicName(Op);
    if (Op == IntrinsicOp::WgmmaFence || Op == IntrinsicOp::WgmmaCommit ||
        Op == IntrinsicOp::ProxyFence) {
      ops(E, 0);
    } else if (Op == IntrinsicOp::WgmmaWait) {
      if (E->Dim && !E->Ops.empty())
        problem(E, Name + " leaving groups pending names no results");
      if (E->Index > 1)
        problem(E, Name + " of commit flag " + std::to_string(E->Index));
      for (const Expr* O : E->Ops)
        if (O->K != Expr::Kind::Local ||
            (O->Ty != Type::scalar(ScalarType::F32) && O->Ty != Type::scalar(ScalarType::I32)))
          problem(E, Name + " of " + O->Ty.str() + ", not of float32 or int32 locals");
    } else {
      // a from shared memory: {b array, b offset, a array, a offset, c ..}.
      const bool SharedA =
          Op == IntrinsicOp::Wgmma && E->Ops.size() > 2 && E->Ops[2]->K == Expr::Kind::SharedRef;
      const size_t Want = Op == IntrinsicOp::WgmmaReady ? 2 : 6 + 4 * size_t(E->Dim);
      if (!ops(E, SharedA ? Want - 2 : Want))
        return;
      const size_t FirstAcc = SharedA ? 4 : 6;
      verifyExpr(E->Ops[0], Use::Array);
      const ScalarType Elem = E->Ops[0]->Ty.Elem;
      const bool Bytes = Elem == ScalarType::I8 || Elem == ScalarType::U8;
      if (E->Ops[0]->K != Expr::Kind::SharedRef ||
          (Elem != ScalarType::F16 && Elem != ScalarType::BF16 && Elem != ScalarType::U16 &&
           !Bytes))
        problem(E, Name + " reads a float16, bfloat16, int8 or uint8 shared array, not " +
                       E->Ops[0]->Ty.str());
      if (SharedA) {
        verifyExpr(E->Ops[2], Use::Array);
        const SharedArray* SA = E->Ops[2]->Index < Fn->SharedArrays.size()
                                    ? &Fn->SharedArrays[E->Ops[2]->Index]
                                    : nullptr;
        if (E->Ops[2]->Ty.Elem != Elem || !SA || !SA->Swizzle128)
          problem(E, Name + " reads a from " + E->Ops[2]->Ty.str() +
                         ", not a swizzled shared array of b's element type");
      }
      for (size_t I = 1; I < E->Ops.size(); ++I) {
        if (SharedA && I == 2)
          continue;
        verifyExpr(E->Ops[I], Use::Value);
        bool Acc = I >= FirstAcc;
        if (E->Ops[I]->Ty !=
                (Acc ? Type::scalar(Bytes ? ScalarType::I32 : ScalarType::F32) : U32) ||
            (Acc && E->Ops[I]->K != Expr::Kind::Local))
          problem(E, Name + " operand " + std::to_string(I) + " is " + E->Ops[I]->Ty.str());
      }
      const bool Input =
          Bytes ? E->Index == unsigned(MmaInput::S8) || E->Index == unsigned(MmaInput::U8)
                : E->Index == unsigned(MmaInput::F16) || E->Index == unsigned(MmaInput::BF16);
      if (Op == IntrinsicOp::Wgmma &&
          (E->Dim == 0 || E->Dim > 32 || (Bytes && E->Dim % 2) || !Input))
        problem(E, "wgmma of n = " + std::to_string(8 * E->Dim) + " and input type " +
                       std::to_string(E->Index) +
                       " (n 8 .. 256 for float16 or bfloat16 arrays, 16 .. 256 in steps of 16 for "
                       "int8 or uint8 ones)");
      if (Op == IntrinsicOp::WgmmaReady && (E->Dim % 32 || E->Dim > 128 || (Bytes && !E->Dim)))
        problem(E, "wgmma readiness of an operand " + std::to_string(E->Dim) +
                       " bytes deep (0: a 16-bit b, N-major; 32 .. 128 in steps of 32: K-major, "
                       "as every 8-bit b is)");
      if (Op == IntrinsicOp::Wgmma && E->Ops[0]->K == Expr::Kind::SharedRef &&
          E->Ops[0]->Index < Fn->SharedArrays.size()) {
        const SharedArray& SA = Fn->SharedArrays[E->Ops[0]->Index];
        if (!SA.Swizzle128 || (Bytes ? SA.RowAtoms != 1 : E->Dim != 8u * SA.RowAtoms))
          problem(E, "wgmma of n = " + std::to_string(8 * E->Dim) + " reads shared array '" +
                         SA.Name + "', whose rows are not " +
                         (Bytes ? "one swizzled 128-byte atom of K"
                                : "that many swizzled 128-byte atoms"));
      }
      if (Op == IntrinsicOp::WgmmaReady) {
        if (!E->Ty.isBool())
          problem(E, Name + " yields bool, not " + E->Ty.str());
        return;
      }
    }
    if (!E->Ty.isVoid())
      problem(E, Name + " yields void, not " + E->Ty.str());
  }

  void verifyIntrinsic(const Expr* E) {
    IntrinsicOp Op = E->IOp;
    if (Op >= IntrinsicOp::WgmmaReady && Op <= IntrinsicOp::ProxyFence)
      return verifyWgmma(E);
    if (Op == IntrinsicOp::MmaSync)
      return verifyMma(E);
    if (Op == IntrinsicOp::LdMatrix)
      return verifyLdMatrix(E);
    if (Op >= IntrinsicOp::AsyncCopy && Op <= IntrinsicOp::AsyncWait)
      return verifyAsyncCopy(E);
    if (Op == IntrinsicOp::AsyncCopyBlock)
      return verifyAsyncCopyBlock(E);
    if (Op >= IntrinsicOp::MatrixFill && Op <= IntrinsicOp::WaveBarrier)
      return verifyMatrix(E);
    if (Op == IntrinsicOp::LoadWord || Op == IntrinsicOp::StoreWords)
      return verifyWords(E);
    if (Op == IntrinsicOp::TileDot)
      return verifyTileDot(E);
    if (Op == IntrinsicOp::Prefetch)
      return verifyPrefetch(E);
    if (Op >= IntrinsicOp::MbarrierInit && Op <= IntrinsicOp::MbarrierWait)
      return verifyTma(E);
    if (Op == IntrinsicOp::Supports) {
      ops(E, 0);
      if (!E->Ty.isBool() || E->Index >= CAJETA_XPU_CAP_COUNT)
        problem(E,
                "supports of capability " + std::to_string(E->Index) + " yielding " + E->Ty.str());
      return;
    }
    if (Op > IntrinsicOp::MaxNum)
      return problem(E, "unknown intrinsic " + std::to_string(unsigned(Op)));
    std::string Name = std::string("'") + intrinsicName(Op) + "'";
    if (isGeometry(Op)) {
      if (!E->Ops.empty())
        problem(E, Name + " takes no operands, got " + std::to_string(E->Ops.size()));
      if (E->Dim > 2)
        problem(E, Name + " of dimension " + std::to_string(E->Dim) + ", not 0..2");
      if (E->Ty != U32)
        problem(E, Name + " yields uint32, not " + E->Ty.str());
      return;
    }
    if (Op == IntrinsicOp::BufferLength) {
      if (!ops(E, 1))
        return;
      verifyExpr(E->Ops[0], Use::Array);
      if (E->Ty != U64)
        problem(E, Name + " yields uint64, not " + E->Ty.str());
      return;
    }
    if (Op >= IntrinsicOp::DivTrunc)
      return verifyRawPrimitive(E, Name);
    if (!ops(E, mathOperandCount(Op)))
      return;
    for (const Expr* O : E->Ops) {
      verifyExpr(O, Use::Value);
      if (O->Ty != E->Ty)
        return problem(E,
                       "operand of " + Name + " is " + O->Ty.str() + ", the result " + E->Ty.str());
    }
    bool IntegerToo = Op == IntrinsicOp::Abs || Op == IntrinsicOp::Min || Op == IntrinsicOp::Max;
    if (!(E->Ty.isFloat() || (IntegerToo && E->Ty.isInteger())))
      problem(E, Name + " on " + E->Ty.str());
  }

  /// The legalization pass's raw primitives (Kir.h): DivTrunc, RemTrunc, ShiftLeft and
  /// ShiftRight on two integers of the result's type; FToIUnchecked from a float to an integer;
  /// Bitcast between scalars of one width.
  void verifyRawPrimitive(const Expr* E, const std::string& Name) {
    IntrinsicOp Op = E->IOp;
    bool Unary = Op == IntrinsicOp::FToIUnchecked || Op == IntrinsicOp::Bitcast;
    if (!ops(E, Unary ? 1 : 2))
      return;
    for (const Expr* O : E->Ops)
      verifyExpr(O, Use::Value);
    Type From = E->Ops[0]->Ty, To = E->Ty;
    if (Op == IntrinsicOp::MinNum || Op == IntrinsicOp::MaxNum) {
      if (!To.isFloat() || From != To || E->Ops[1]->Ty != To)
        problem(E, Name + " on " + From.str() + " and " + E->Ops[1]->Ty.str() + " yielding " +
                       To.str() + ": needs two floats of the result's type");
      return;
    }
    if (!Unary) {
      if (!To.isInteger() || From != To || E->Ops[1]->Ty != To)
        problem(E, Name + " on " + From.str() + " and " + E->Ops[1]->Ty.str() + " yielding " +
                       To.str() + ": needs two integers of the result's type");
      return;
    }
    if (!From.isScalar() || !To.isScalar() || From.isBool() || To.isBool())
      return problem(E, Name + " from " + From.str() + " to " + To.str());
    if (Op == IntrinsicOp::FToIUnchecked && !(From.isFloat() && To.isInteger()))
      problem(E,
              Name + " from " + From.str() + " to " + To.str() + ": needs a float to an integer");
    if (Op == IntrinsicOp::Bitcast && From.bits() != To.bits())
      problem(E, Name + " from " + From.str() + " to " + To.str() + ": the widths differ");
  }

  void verifyAtomic(const Expr* E) {
    if (E->AOp > AtomicOp::Store)
      return problem(E, "unknown atomic op " + std::to_string(unsigned(E->AOp)));
    if (E->Order > MemoryOrder::SeqCst)
      return problem(E, "unknown memory order " + std::to_string(unsigned(E->Order)));
    if (!ops(E, atomicOperandCount(E->AOp)))
      return;
    bool Array = verifyArray(E);
    verifyIndex(E);
    for (size_t I = 2; I < E->Ops.size(); ++I)
      verifyExpr(E->Ops[I], Use::Value);
    if (!Array)
      return;
    Type Elem = Type::scalar(E->Ops[0]->Ty.Elem);
    if (E->Ty != Elem)
      problem(E, "type " + E->Ty.str() + " differs from the element type " + Elem.str());
    for (size_t I = 2; I < E->Ops.size(); ++I)
      if (E->Ops[I]->Ty != Elem)
        problem(E, "operand " + std::to_string(I) + " is " + E->Ops[I]->Ty.str() +
                       ", the element type " + Elem.str());
    bool Float = Elem.Elem == ScalarType::F32 || Elem.Elem == ScalarType::F64;
    if (!(Elem.isInteger() || (Float && atomicAllowedOnFloat(E->AOp))))
      problem(E, std::string("atomic '") + atomicOpName(E->AOp) + "' on " + Elem.str());
  }

  void verifyField(const Expr* E) {
    if (!ops(E, 1))
      return;
    const Expr* P = E->Ops[0];
    verifyExpr(P, Use::PodRead);
    if (!P->Ty.isPod() || P->Ty.PodIndex >= M.Pods.size())
      return; // reported with the operand or its parameter
    const PodType& Pod = M.Pods[P->Ty.PodIndex];
    if (E->Index >= Pod.Fields.size())
      return problem(E, "POD '" + Pod.Name + "' has no field " + std::to_string(E->Index));
    const PodField& F = Pod.Fields[E->Index];
    if (E->Ty != Type::scalar(F.Type))
      problem(E, "field '" + F.Name + "' of '" + Pod.Name + "' (" + bundle::scalarTypeName(F.Type) +
                     ") read as " + E->Ty.str());
  }

  void verifyWave(const Expr* E) {
    if (E->WOp > WaveOp::ShuffleWord)
      return problem(E, "unknown wave op " + std::to_string(unsigned(E->WOp)));
    std::string Name = std::string("'Wave.") + waveOpName(E->WOp) + "'";
    if (!Fn->UsesWave)
      problem(E, Name + " in a function not marked UsesWave");
    unsigned N = waveOperandCount(E->WOp);
    if (E->Ops.size() != N)
      return problem(E, Name + " takes " + std::to_string(N) + " operands, got " +
                            std::to_string(E->Ops.size()));
    if (!nonNullOps(E))
      return;
    for (const Expr* O : E->Ops)
      verifyExpr(O, Use::Value);
    if (N == 2 && E->Ops[1]->Ty != U32)
      problem(E, "the lane or distance of " + Name + " is " + E->Ops[1]->Ty.str() + ", not uint32");
    // The type rules Sema applies (Kir.cpp), checked again on what passes made.
    Type Operand = N ? E->Ops[0]->Ty : Type::voidTy();
    if (N && !waveOperandAllowed(E->WOp, Operand))
      return problem(E, Name + " on " + Operand.str());
    if (E->Ty != waveResultType(E->WOp, Operand))
      problem(E,
              Name + " yields " + E->Ty.str() + ", not " + waveResultType(E->WOp, Operand).str());
  }

  const Module& M;
  const Function* Fn = nullptr;
  bool PrivateAllowed = false;  // verifying the array operand of a Load or Store
  std::vector<uint32_t> Loops;  // enclosing loops, innermost last
  std::set<uint32_t> SeenLoops; // every loop id of the function so far
  std::vector<std::string> Problems;
};

} // namespace

std::vector<std::string> verifyProblems(const Module& M) {
  return Verifier(M).run();
}

bool verify(const Module& M, std::string& Error) {
  std::vector<std::string> Problems = verifyProblems(M);
  Error.clear();
  for (const std::string& P : Problems)
    Error += (Error.empty() ? "" : "\n") + P;
  return Problems.empty();
}

} // namespace cajeta::kir
