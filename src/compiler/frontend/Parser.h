// Recursive-descent parser: tokens -> CompilationUnit. Reports syntax errors and recovers at
// statement and member boundaries so later errors are still found.
#pragma once

#include "compiler/Diagnostics.h"
#include "compiler/frontend/Ast.h"

#include <vector>

namespace cajeta::frontend {

class Parser {
public:
  Parser(std::vector<Token> Tokens, AstContext& Ctx, Diagnostics& Diags)
      : Toks(std::move(Tokens)), Ctx(Ctx), Diags(Diags) {}

  CompilationUnit parseUnit();

private:
  // token helpers
  const Token& tok(unsigned Ahead = 0) const;
  bool at(Tok K) const { return tok().Kind == K; }
  bool accept(Tok K);
  bool expect(Tok K, const char* What);
  Token take();
  SourceRange rangeFrom(uint32_t Begin) const;
  void errorHere(const std::string& Msg);
  void syncToStatement();
  void syncToMember();

  // declarations
  void parseImport(CompilationUnit& U);
  void parseClass(CompilationUnit& U, std::vector<Annotation> Annos);
  std::vector<Annotation> parseAnnotations();
  void parseModifiers(bool& IsStatic);
  void parseMember(ClassDecl& C);
  bool parseType(TypeRef& Out);
  void skipBalancedBody();

  // statements
  Stmt* parseStatement();
  Stmt* parseBlock();
  Stmt* parseLocalVar(TypeRef Type, uint32_t Begin);
  Stmt* parseFor(uint32_t Begin);
  Stmt* parseTry(uint32_t Begin);
  bool looksLikeDeclaration() const;

  // expressions
  Expr* parseExpr();
  Expr* parseAssignment();
  Expr* parseTernary();
  Expr* parseBinary(int MinPrec);
  Expr* parseUnary();
  Expr* parsePostfix(Expr* E);
  Expr* parsePrimary();
  Expr* parseAlloc();
  Stmt* parseStatementNested();
  Expr* parseUnaryNested();
  Expr* invalid(SourceRange R);
  bool looksLikeCast() const;

  /// Statements and expressions nest at most MaxNesting deep: every later phase recurses over
  /// them, and a deeper program would overflow the compiler's stack (in a JIT, the user's).
  static constexpr unsigned MaxNesting = 1024;
  /// A method takes at most MaxParams parameters: later phases are not linear in them, and no
  /// backend passes more than a few dozen (kernels: Sema's MaxKernelParams).
  static constexpr unsigned MaxParams = 255;
  /// Enters one more level of nesting; false (reported once, the rest of the input skipped)
  /// past MaxNesting. Pair with leaveNesting.
  bool enterNesting();
  void leaveNesting() { --Nesting; }

  std::vector<Token> Toks;
  size_t Pos = 0;
  unsigned PendingGreater = 0; // a '>>' closed two generic lists
  unsigned Nesting = 0;
  AstContext& Ctx;
  Diagnostics& Diags;
};

} // namespace cajeta::frontend
