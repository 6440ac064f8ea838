// KIR, the kernel IR: typed, structured (if / loop / break / continue / return, never a goto),
// with variables and expression trees. Sema produces it; the analyses, the LLVM lowering and
// (later) the SPIR-V emitter consume it. Every conversion is an explicit Cast and every builtin
// an enumerated IntrinsicOp, so a lowering never has to re-derive language rules.
#pragma once

#include "bundle/Manifest.h"

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace cajeta::kir {

using bundle::ScalarType;

struct SourceLoc {
  uint32_t Line = 0;
  uint32_t Col = 0;
};

/// A KIR type: void, a scalar, or a buffer of scalars (a kernel or helper parameter only).
struct Type {
  enum Kind : uint8_t { Void, Scalar, Buffer };
  Kind K = Void;
  ScalarType Elem = ScalarType::I32; // Scalar: the type; Buffer: the element type

  static Type voidTy() { return {}; }
  static Type scalar(ScalarType T) { return {Scalar, T}; }
  static Type buffer(ScalarType T) { return {Buffer, T}; }

  bool isVoid() const { return K == Void; }
  bool isScalar() const { return K == Scalar; }
  bool isBuffer() const { return K == Buffer; }
  bool isBool() const { return K == Scalar && Elem == ScalarType::Bool; }
  bool isInteger() const; // any intN/uintN (not bool)
  bool isSigned() const;  // intN
  bool isUnsigned() const;
  bool isFloat() const;  // float16/32/64
  unsigned bits() const; // scalar width in bits (bool = 1)
  std::string str() const;
  bool operator==(const Type& O) const { return K == O.K && (K == Void || Elem == O.Elem); }
  bool operator!=(const Type& O) const { return !(*this == O); }
};

enum class UnaryOp : uint8_t {
  Neg,    // arithmetic negation (integers wrap)
  Not,    // logical not, bool only
  BitNot, // ~, integers only
};

/// Both operands of a Binary have the same type (Sema inserts the casts); comparisons yield bool.
enum class BinaryOp : uint8_t {
  Add,
  Sub,
  Mul,
  Div,  // integers: x / 0 == 0, MIN / -1 == MIN (wraps); floats: IEEE
  Rem,  // integers: x % 0 == 0, MIN % -1 == 0; floats: fmod semantics (C fmod / LLVM frem)
  Shl,  // count masked to the width: x << (c & (bits-1))
  Shr,  // >> : arithmetic for signed, logical for unsigned; count masked
  UShr, // >>> : always logical; count masked
  And,
  Or,
  Xor, // bitwise on integers, non-short-circuit on bool
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge, // ordered comparisons for floats (NaN compares false, != true)
  LogicalAnd,
  LogicalOr, // short-circuit, bool operands
};

/// Builtins. Geometry ops read dimension Expr::Dim (0 = x, 1 = y, 2 = z) and yield uint32.
enum class IntrinsicOp : uint8_t {
  LocalId,    // KernelThread.x(): work-item index within the workgroup
  GlobalId,   // KernelThread.globalIdX(): GroupId * GroupDim + LocalId
  GroupId,    // Workgroup.x(): workgroup index within the grid
  GroupDim,   // Workgroup.dimX(): workgroup size (work-items)
  GridDim,    // Workgroup.countX(): number of workgroups
  GlobalSize, // KernelThread.globalSizeX(): GridDim * GroupDim
  // Math. Floats: the libm function of the operand type, correctly rounded where IEEE says so
  // (sqrt), no fast-math. Abs/Min/Max also take integers (Abs of MIN wraps to MIN).
  Sqrt,
  Rsqrt,
  Exp,
  Log,
  Pow,
  Sin,
  Cos,
  Tanh,
  Abs,
  Min,
  Max,
  Floor,
  Ceil,
  Fma,          // fused multiply-add, one rounding
  BufferLength, // buf.length(): uint64 element count of Ops[0] (a buffer expression)
};

struct Expr {
  enum class Kind : uint8_t {
    Const,     // IntValue (integers and bool: the value, two's complement in 64 bits) or FloatValue
    Local,     // read local Index
    Param,     // read parameter Index (buffers appear only as the operand of
               // Load/Store/Call/BufferLength)
    Unary,     // UOp Ops[0]
    Binary,    // Ops[0] BOp Ops[1]
    Cast,      // Ops[0] converted to Ty. int->int: trunc / sign- or zero-extend by the source's
               // signedness; float->int: round toward zero, saturating, NaN -> 0; int->float:
               // round to nearest; float->float: round to nearest; bool->number: 0/1;
               // number->bool: != 0.
    Select,    // Ops[0] ? Ops[1] : Ops[2], only the chosen arm is evaluated
    Load,      // Ops[0][Ops[1]]: buffer, index (any integer type, extended by its signedness)
    Store,     // Ops[0][Ops[1]] = Ops[2]; yields the stored value
    Assign,    // local Index = Ops[0]; yields the value
    Seq,       // evaluate Ops in order; yields the last one's value (Ty = its type)
    Call,      // call Module::Functions[Index] with Ops as arguments; Ty = its return type
    Intrinsic, // IOp over Ops (Dim for geometry)
  };
  Kind K = Kind::Const;
  Type Ty;
  SourceLoc Loc;
  UnaryOp UOp = UnaryOp::Neg;
  BinaryOp BOp = BinaryOp::Add;
  IntrinsicOp IOp = IntrinsicOp::LocalId;
  uint8_t Dim = 0;
  uint32_t Index = 0;
  uint64_t IntValue = 0;
  double FloatValue = 0;
  std::vector<Expr*> Ops;
};

struct Stmt {
  enum class Kind : uint8_t {
    Block,    // Body in order
    Eval,     // evaluate E, drop the value
    If,       // if (E) Then else Else (Else may be null)
    Loop,     // see below
    Break,    // leave loop LoopId
    Continue, // go to loop LoopId's step (then its test)
    Return,   // return E (null in a void function or a kernel)
  };
  Kind K = Kind::Block;
  SourceLoc Loc;
  std::vector<Stmt*> Body;
  Expr* E = nullptr;
  Stmt* Then = nullptr;
  Stmt* Else = nullptr;
  /// Loop: `while (E) { LoopBody; Step }`, E == null means true. With TestAtEnd (do-while) the
  /// body runs first and E is tested after Step. `continue` runs Step, then the test.
  Stmt* LoopBody = nullptr;
  Stmt* Step = nullptr;
  bool TestAtEnd = false;
  uint32_t LoopId = 0; // Loop: its own id (unique in the function); Break/Continue: the target
};

struct Local {
  std::string Name; // source name (not unique: shadowing in sibling scopes gives two locals)
  Type Ty;
  SourceLoc Loc;
};

struct Param {
  std::string Name;
  Type Ty;
  SourceLoc Loc;
};

struct Function {
  std::string Name;   // qualified source name, "K.saxpy"
  std::string Symbol; // the symbol the lowering gives it, e.g. "cj_K_saxpy"
  bool IsKernel = false;
  bool FastMath = false; // @FastMath: contraction allowed
  Type ReturnType;       // void for kernels
  std::vector<Param> Params;
  std::vector<Local>
      Locals; // every local of the function; Sema initialises each at its declaration
  Stmt* Body = nullptr;
  SourceLoc Loc;
  /// Filled by analyzeAccess: one entry per parameter (None for scalars).
  std::vector<bundle::Access> ParamAccess;
};

/// A compiled program's device part. Owns every node.
class Module {
public:
  std::string SourceFile;
  std::vector<std::unique_ptr<Function>> Functions; // kernels and @Device helpers

  Expr* newExpr(Expr::Kind K, Type Ty, SourceLoc Loc);
  Stmt* newStmt(Stmt::Kind K, SourceLoc Loc);
  const Function* findFunction(const std::string& Name) const;

private:
  std::deque<Expr> Exprs;
  std::deque<Stmt> Stmts;
};

const char* unaryOpName(UnaryOp Op);
const char* binaryOpName(BinaryOp Op);
const char* intrinsicName(IntrinsicOp Op);

/// The readable dump printed by `cajeta emit --target=kir`.
std::string dump(const Module& M);

} // namespace cajeta::kir
