// The syntax tree the parser builds: untyped, close to the source. Sema turns it into KIR.
#pragma once

#include "compiler/frontend/SourceFile.h"
#include "compiler/frontend/Token.h"

#include <deque>
#include <string>
#include <vector>

namespace cajeta::frontend {

/// A written type: `float32`, `KernelBuffer<float32>`, `float32[]`.
struct TypeRef {
  std::string Name;
  std::vector<TypeRef> Args; // generic arguments; Fn: return type, then parameter types
  unsigned ArrayDims = 0;
  bool IsFunction = false; // Fn<R(A, B)>
  bool IsInteger = false;  // an integer type argument (Tile<float16, 16, 16>): Name is its text
  SourceRange Range;
};

struct Expr {
  enum class Kind {
    IntLit,
    FloatLit,
    BoolLit,
    StringLit,
    Name,
    Member,
    Call,
    Index,
    Unary,
    Postfix,
    Binary,
    Assign,
    Ternary,
    Cast,
    Alloc,     // `new`/`heap`/`shared` allocation (device-subset checks)
    MethodRef, // Class::method (Text = method, CastType.Name = class)
    NamedArg,  // `grid: [4]` in an argument list: Text = the name, Ops[0] = the value
    ArrayLit,  // `[4, 2]`: Ops = the elements
    Invalid,
  };
  Kind K = Kind::Invalid;
  SourceRange Range;
  std::string Text;       // literal spelling, name, member name
  Tok Op = Tok::Eof;      // operator token for Unary/Postfix/Binary/Assign; Alloc: the keyword
  TypeRef CastType;       // Cast target; Alloc element type
  std::vector<Expr*> Ops; // operands; Call: Ops[0] = callee, rest = args; Member: Ops[0] = object
};

struct Annotation {
  std::string Name;
  std::vector<std::string> Args; // string arguments of @Backend("cuda", ...)
  SourceRange Range;
};

struct Stmt {
  enum class Kind {
    Block,
    LocalVar,
    ExprStmt,
    If,
    While,
    DoWhile,
    For,
    ForRange,
    Break,
    Continue,
    Return,
    Labeled,
    Try, // Then: the body; Catches: the clauses
    Empty,
    Unsupported, // Unsupported: throw/try/switch...: Text names it
  };
  Kind K = Kind::Empty;
  SourceRange Range;
  std::vector<Stmt*> Body; // Block; For: init statements
  TypeRef VarType;         // LocalVar; ForRange: element type
  struct Declarator {
    std::string Name;
    SourceRange Range;
    Expr* Init = nullptr;
    bool Borrowed = false; // initialised with `#=`
  };
  std::vector<Declarator> Vars; // LocalVar; ForRange: [index, element]
  Expr* Cond = nullptr;         // If/While/DoWhile/For condition; ExprStmt/Return value;
                                // ForRange: the buffer expression
  Expr* Extra = nullptr;        // ForRange: the count n
  std::vector<Expr*> Updates;   // For
  Stmt* Then = nullptr;         // If then; loops: body; Labeled: the statement
  Stmt* Else = nullptr;
  std::string Label; // Break/Continue target, Labeled name; Unsupported: keyword
  struct CatchClause {
    std::vector<TypeRef> Types; // catch (A | B e)
    std::string Var;
    SourceRange Range; // the clause's head, `catch (A e)`
    Stmt* Body = nullptr;
  };
  std::vector<CatchClause> Catches; // Try
  SourceRange FinallyRange;         // Try: a `finally` clause (not supported), else empty
};

struct Param {
  TypeRef Type;
  std::string Name;
  std::vector<Annotation> Annotations;
  SourceRange Range;
};

struct Method {
  std::vector<Annotation> Annotations;
  bool IsStatic = false;
  TypeRef ReturnType; // Name "void" for void
  std::string Name;
  std::vector<Param> Params;
  Stmt* Body = nullptr; // null for abstract methods
  bool IsHost = false;  // neither @Kernel nor @Device: host code
  SourceRange NameRange;
  SourceRange Range;

  const Annotation* annotation(const std::string& N) const {
    for (const Annotation& A : Annotations)
      if (A.Name == N)
        return &A;
    return nullptr;
  }
};

struct Field {
  TypeRef Type;
  std::string Name;
  SourceRange Range;
  bool IsStatic = false;
  Expr* Init = nullptr; // `= value`
};

struct ClassDecl {
  std::string Name;
  SourceRange NameRange;
  std::vector<Annotation> Annotations;
  std::vector<Method> Methods;
  std::vector<Field> Fields;
  bool HasSuper = false; // extends / implements (not supported in device code)
  SourceRange SuperRange;
};

struct Import {
  std::string Path; // "cajeta.xpu.KernelBuffer" or "cajeta.xpu.*"
  SourceRange Range;
};

struct CompilationUnit {
  std::vector<Import> Imports;
  std::vector<ClassDecl> Classes;
};

/// Owns every Expr and Stmt of one file.
class AstContext {
public:
  Expr* newExpr(Expr::Kind K, SourceRange R) {
    Expr& E = Exprs.emplace_back();
    E.K = K;
    E.Range = R;
    return &E;
  }
  Stmt* newStmt(Stmt::Kind K, SourceRange R) {
    Stmt& S = Stmts.emplace_back();
    S.K = K;
    S.Range = R;
    return &S;
  }

private:
  std::deque<Expr> Exprs;
  std::deque<Stmt> Stmts;
};

} // namespace cajeta::frontend
