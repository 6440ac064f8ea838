// The parser of Cajeta's Java-like syntax, restricted to what the kernel language needs.
#include "compiler/frontend/Parser.h"

namespace cajeta::frontend {

const Token& Parser::tok(unsigned Ahead) const {
  size_t P = Pos + Ahead;
  return P < Toks.size() ? Toks[P] : Toks.back();
}

bool Parser::accept(Tok K) {
  if (!at(K))
    return false;
  ++Pos;
  return true;
}

Token Parser::take() {
  Token T = tok();
  if (Pos < Toks.size() - 1)
    ++Pos;
  return T;
}

SourceRange Parser::rangeFrom(uint32_t Begin) const {
  uint32_t End = Pos > 0 ? Toks[Pos - 1].Range.End : Begin;
  return {Begin, std::max(Begin, End)};
}

void Parser::errorHere(const std::string& Msg) {
  const Token& T = tok();
  // After an earlier error, a complaint at end of file is a cascade (an unterminated comment or
  // a missing brace already explained it).
  if (T.Kind == Tok::Eof && Diags.hasErrors())
    return;
  if (T.Kind == Tok::Unknown) {
    Diags.error(T.Range, "unexpected character '" + T.Text + "'");
    return;
  }
  Diags.error(T.Range, Msg);
}

static std::string describe(const Token& T) {
  if (T.Kind == Tok::Eof)
    return "end of file";
  return "'" + T.Text + "'";
}

bool Parser::expect(Tok K, const char* What) {
  if (accept(K))
    return true;
  std::string Msg = std::string("expected ") + What + ", found " + describe(tok());
  // A missing terminator is best shown right after the previous token when the next token is
  // already on a later line (as clang does for a missing ';').
  if (Pos > 0 && tok().Kind != Tok::Unknown && tok().Kind != Tok::Eof) {
    const SourceFile& F = Diags.file();
    uint32_t PrevEnd = Toks[Pos - 1].Range.End;
    if (F.lineOf(PrevEnd) < F.lineOf(tok().Range.Begin)) {
      Diags.error({PrevEnd, PrevEnd + 1}, Msg);
      return false;
    }
  }
  errorHere(Msg);
  return false;
}

void Parser::syncToStatement() {
  int Depth = 0;
  while (!at(Tok::Eof)) {
    if (at(Tok::LBrace))
      ++Depth;
    if (at(Tok::RBrace)) {
      if (Depth == 0)
        return;
      --Depth;
      if (Depth == 0) {
        ++Pos;
        return;
      }
    }
    if (at(Tok::Semi) && Depth == 0) {
      ++Pos;
      return;
    }
    ++Pos;
  }
}

void Parser::syncToMember() {
  int Depth = 0;
  while (!at(Tok::Eof)) {
    if (at(Tok::LBrace))
      ++Depth;
    else if (at(Tok::RBrace)) {
      if (Depth == 0)
        return;
      if (--Depth == 0) {
        ++Pos;
        return;
      }
    } else if (at(Tok::Semi) && Depth == 0) {
      ++Pos;
      return;
    }
    ++Pos;
  }
}

// ---- declarations ----

CompilationUnit Parser::parseUnit() {
  CompilationUnit U;
  if (at(Tok::KwPackage)) {
    // package a.b.c;  accepted and ignored (kernels are named Class.method)
    take();
    while (!at(Tok::Semi) && !at(Tok::Eof))
      take();
    expect(Tok::Semi, "';' after package declaration");
  }
  while (!at(Tok::Eof)) {
    if (at(Tok::KwImport)) {
      parseImport(U);
      continue;
    }
    std::vector<Annotation> Annos = parseAnnotations();
    bool IsStatic = false;
    parseModifiers(IsStatic);
    if (at(Tok::KwClass)) {
      parseClass(U, std::move(Annos));
      continue;
    }
    if (at(Tok::KwInterface) || at(Tok::KwEnum) || at(Tok::KwRecord)) {
      Diags.error(tok().Range, "'" + tok().Text +
                                   "' declarations are not supported in kernel programs yet; "
                                   "use a class with static methods");
      take();
      syncToMember();
      continue;
    }
    errorHere("expected 'import' or a class declaration, found " + describe(tok()));
    take();
    syncToMember();
  }
  return U;
}

void Parser::parseImport(CompilationUnit& U) {
  uint32_t Begin = take().Range.Begin;
  std::string Path;
  if (!at(Tok::Identifier)) {
    errorHere("expected a qualified name after 'import'");
    syncToStatement();
    return;
  }
  Path = take().Text;
  while (accept(Tok::Dot)) {
    if (accept(Tok::Star)) {
      Path += ".*";
      break;
    }
    if (!at(Tok::Identifier)) {
      errorHere("expected a name after '.' in import");
      syncToStatement();
      return;
    }
    Path += "." + take().Text;
  }
  SourceRange R = rangeFrom(Begin);
  if (!expect(Tok::Semi, "';' after import")) {
    syncToStatement();
    return;
  }
  U.Imports.push_back({Path, R});
}

std::vector<Annotation> Parser::parseAnnotations() {
  std::vector<Annotation> Result;
  while (at(Tok::At)) {
    uint32_t Begin = take().Range.Begin;
    if (!at(Tok::Identifier)) {
      errorHere("expected an annotation name after '@'");
      continue;
    }
    Annotation A;
    A.Name = take().Text;
    if (accept(Tok::LParen)) {
      while (!at(Tok::RParen) && !at(Tok::Eof)) {
        if (at(Tok::StringLiteral)) {
          A.Args.push_back(take().Text);
        } else {
          errorHere("expected a string argument in @" + A.Name + "(...)");
          while (!at(Tok::RParen) && !at(Tok::Eof))
            take();
          break;
        }
        if (!accept(Tok::Comma))
          break;
      }
      expect(Tok::RParen, "')' to close the annotation");
    }
    A.Range = rangeFrom(Begin);
    Result.push_back(std::move(A));
  }
  return Result;
}

void Parser::parseModifiers(bool& IsStatic) {
  while (true) {
    if (at(Tok::KwStatic)) {
      IsStatic = true;
      take();
      continue;
    }
    if (at(Tok::KwPublic) || at(Tok::KwPrivate) || at(Tok::KwProtected) || at(Tok::KwFinal) ||
        at(Tok::KwAbstract)) {
      take();
      continue;
    }
    return;
  }
}

void Parser::parseClass(CompilationUnit& U, std::vector<Annotation> Annos) {
  take(); // class
  ClassDecl C;
  C.Annotations = std::move(Annos);
  if (!at(Tok::Identifier)) {
    errorHere("expected a class name");
    syncToMember();
    return;
  }
  C.NameRange = tok().Range;
  C.Name = take().Text;
  if (at(Tok::KwExtends) || at(Tok::KwImplements)) {
    uint32_t Begin = tok().Range.Begin;
    while (!at(Tok::LBrace) && !at(Tok::Eof))
      take();
    C.HasSuper = true;
    C.SuperRange = rangeFrom(Begin);
  }
  if (!expect(Tok::LBrace, "'{' to open the class body")) {
    syncToMember();
    return;
  }
  while (!at(Tok::RBrace) && !at(Tok::Eof)) {
    size_t Before = Pos;
    parseMember(C);
    if (Pos == Before)
      take(); // guarantee progress
  }
  expect(Tok::RBrace, "'}' to close the class body");
  U.Classes.push_back(std::move(C));
}

void Parser::skipBalancedBody() {
  // At '{': skip to the matching '}' without parsing (host method bodies).
  int Depth = 0;
  do {
    if (at(Tok::LBrace))
      ++Depth;
    else if (at(Tok::RBrace))
      --Depth;
    take();
  } while (Depth > 0 && !at(Tok::Eof));
}

void Parser::parseMember(ClassDecl& C) {
  uint32_t Begin = tok().Range.Begin;
  std::vector<Annotation> Annos = parseAnnotations();
  bool IsStatic = false;
  parseModifiers(IsStatic);
  if (at(Tok::KwClass)) {
    Diags.error(tok().Range, "nested classes are not supported in kernel programs");
    take();
    syncToMember();
    return;
  }
  TypeRef RetType;
  if (at(Tok::KwVoid)) {
    RetType.Name = "void";
    RetType.Range = take().Range;
  } else if (!parseType(RetType)) {
    syncToMember();
    return;
  }
  if (!at(Tok::Identifier)) {
    if (at(Tok::LParen) && RetType.Name == C.Name) {
      Diags.error(RetType.Range, "constructors are not supported in kernel programs");
      syncToMember();
      return;
    }
    errorHere("expected a member name, found " + describe(tok()));
    syncToMember();
    return;
  }
  SourceRange NameRange = tok().Range;
  std::string Name = take().Text;
  if (!at(Tok::LParen)) {
    // A field: T name [= init] ;
    Field F{RetType, Name, NameRange, IsStatic};
    if (accept(Tok::Assign))
      F.Init = parseExpr();
    if (!expect(Tok::Semi, "';' after the field"))
      while (!at(Tok::Semi) && !at(Tok::Eof) && !at(Tok::RBrace))
        take();
    accept(Tok::Semi);
    C.Fields.push_back(std::move(F));
    return;
  }
  Method M;
  M.Annotations = std::move(Annos);
  M.IsStatic = IsStatic;
  M.ReturnType = RetType;
  M.Name = Name;
  M.NameRange = NameRange;
  take(); // (
  while (!at(Tok::RParen) && !at(Tok::Eof)) {
    Param P;
    uint32_t PBegin = tok().Range.Begin;
    P.Annotations = parseAnnotations();
    bool Dummy = false;
    parseModifiers(Dummy);
    if (!parseType(P.Type)) {
      while (!at(Tok::RParen) && !at(Tok::Eof) && !at(Tok::LBrace))
        take();
      break;
    }
    if (!at(Tok::Identifier)) {
      errorHere("expected a parameter name, found " + describe(tok()));
      while (!at(Tok::RParen) && !at(Tok::Eof) && !at(Tok::LBrace))
        take();
      break;
    }
    P.Name = take().Text;
    P.Range = rangeFrom(PBegin);
    if (M.Params.size() == MaxParams) {
      Diags.error(P.Range, "too many parameters: a method takes at most " +
                               std::to_string(MaxParams) +
                               "; pass a POD class or a buffer instead");
      while (!at(Tok::RParen) && !at(Tok::Eof) && !at(Tok::LBrace))
        take();
      break;
    }
    M.Params.push_back(std::move(P));
    if (!accept(Tok::Comma))
      break;
  }
  expect(Tok::RParen, "')' to close the parameter list");
  bool IsDeviceCode = M.annotation("Kernel") || M.annotation("Device");
  if (accept(Tok::Semi)) {
    M.Range = rangeFrom(Begin);
    C.Methods.push_back(std::move(M));
    return;
  }
  if (!at(Tok::LBrace)) {
    errorHere("expected '{' to open the method body, found " + describe(tok()));
    syncToMember();
    return;
  }
  M.IsHost = !IsDeviceCode;
  M.Body = parseBlock();
  M.Range = rangeFrom(Begin);
  C.Methods.push_back(std::move(M));
}

bool Parser::parseType(TypeRef& Out) {
  if (!at(Tok::Identifier)) {
    errorHere("expected a type, found " + describe(tok()));
    return false;
  }
  uint32_t Begin = tok().Range.Begin;
  Out.Name = take().Text;
  while (at(Tok::Dot) && tok(1).Kind == Tok::Identifier) {
    take();
    Out.Name += "." + take().Text;
  }
  if (Out.Name == "Fn" && at(Tok::Less)) {
    // Fn<R(A, B)>: a function type.
    take();
    Out.IsFunction = true;
    TypeRef Ret;
    if (at(Tok::KwVoid)) {
      Ret.Name = "void";
      Ret.Range = take().Range;
    } else if (!parseType(Ret)) {
      return false;
    }
    Out.Args.push_back(Ret);
    if (!expect(Tok::LParen, "'(' after the return type in Fn<R(...)>"))
      return false;
    while (!at(Tok::RParen) && !at(Tok::Eof)) {
      TypeRef P;
      if (!parseType(P))
        return false;
      Out.Args.push_back(P);
      if (!accept(Tok::Comma))
        break;
    }
    if (!expect(Tok::RParen, "')' to close the parameter types"))
      return false;
    if (!expect(Tok::Greater, "'>' to close Fn<...>"))
      return false;
    Out.Range = rangeFrom(Begin);
    return true;
  }
  if (accept(Tok::Less)) {
    while (true) {
      TypeRef Arg;
      if (at(Tok::IntLiteral)) {
        // An integer argument (a tile's shape); Sema checks where one is allowed.
        Arg.Range = tok().Range;
        Arg.Name = take().Text;
        Arg.IsInteger = true;
      } else if (!parseType(Arg)) {
        return false;
      }
      Out.Args.push_back(std::move(Arg));
      if (PendingGreater > 0)
        break;
      if (!accept(Tok::Comma))
        break;
    }
    if (PendingGreater > 0) {
      --PendingGreater;
    } else if (at(Tok::Shr)) {
      take();
      PendingGreater = 1;
    } else if (at(Tok::UShr)) {
      take();
      PendingGreater = 2;
    } else if (!expect(Tok::Greater, "'>' to close the type arguments")) {
      return false;
    }
  }
  if (PendingGreater == 0) {
    while (at(Tok::LBracket) && tok(1).Kind == Tok::RBracket) {
      take();
      take();
      ++Out.ArrayDims;
    }
  }
  Out.Range = rangeFrom(Begin);
  return true;
}

// ---- statements ----

Stmt* Parser::parseBlock() {
  uint32_t Begin = tok().Range.Begin;
  Stmt* B = Ctx.newStmt(Stmt::Kind::Block, {Begin, Begin});
  expect(Tok::LBrace, "'{'");
  while (!at(Tok::RBrace) && !at(Tok::Eof)) {
    size_t Before = Pos;
    if (Stmt* S = parseStatement())
      B->Body.push_back(S);
    if (Pos == Before)
      take();
  }
  expect(Tok::RBrace, "'}' to close the block");
  B->Range = rangeFrom(Begin);
  return B;
}

bool Parser::looksLikeDeclaration() const {
  if (tok().Kind != Tok::Identifier)
    return false;
  unsigned I = 1;
  while (tok(I).Kind == Tok::Dot && tok(I + 1).Kind == Tok::Identifier)
    I += 2;
  if (tok(I).Kind == Tok::Identifier)
    return true;
  if (tok(I).Kind == Tok::Less) {
    // Type<...> name : scan a balanced generic list of names, commas, dots.
    int Depth = 0;
    for (;; ++I) {
      Tok K = tok(I).Kind;
      if (K == Tok::Less)
        ++Depth;
      else if (K == Tok::Greater)
        --Depth;
      else if (K == Tok::Shr)
        Depth -= 2;
      else if (K == Tok::UShr)
        Depth -= 3;
      else if (K != Tok::Identifier && K != Tok::Comma && K != Tok::Dot && K != Tok::LParen &&
               K != Tok::RParen && K != Tok::KwVoid && // Fn<void(int32)>
               K != Tok::IntLiteral)                   // Tile<float16, 16, 16>
        return false;
      if (Depth <= 0)
        break;
    }
    ++I;
    while (tok(I).Kind == Tok::LBracket && tok(I + 1).Kind == Tok::RBracket)
      I += 2;
    return tok(I).Kind == Tok::Identifier;
  }
  if (tok(I).Kind == Tok::LBracket && tok(I + 1).Kind == Tok::RBracket) {
    while (tok(I).Kind == Tok::LBracket && tok(I + 1).Kind == Tok::RBracket)
      I += 2;
    return tok(I).Kind == Tok::Identifier;
  }
  return false;
}

Stmt* Parser::parseLocalVar(TypeRef Type, uint32_t Begin) {
  Stmt* S = Ctx.newStmt(Stmt::Kind::LocalVar, {Begin, Begin});
  S->VarType = std::move(Type);
  while (true) {
    if (!at(Tok::Identifier)) {
      errorHere("expected a variable name, found " + describe(tok()));
      syncToStatement();
      return nullptr;
    }
    Stmt::Declarator D;
    D.Range = tok().Range;
    D.Name = take().Text;
    if (at(Tok::Assign) || at(Tok::HashAssign)) {
      D.Borrowed = take().Kind == Tok::HashAssign;
      D.Init = parseExpr();
    } else if (at(Tok::Unknown) || at(Tok::Colon)) {
      errorHere("expected '=' or ';' after the variable name, found " + describe(tok()));
      syncToStatement();
      return nullptr;
    }
    S->Vars.push_back(D);
    if (!accept(Tok::Comma))
      break;
  }
  S->Range = rangeFrom(Begin);
  return S;
}

Stmt* Parser::parseTry(uint32_t Begin) {
  // try Block (catch '(' Type ('|' Type)* Name ')' Block)* [finally Block]
  Stmt* S = Ctx.newStmt(Stmt::Kind::Try, {Begin, Begin});
  if (!at(Tok::LBrace)) {
    errorHere("expected '{' after 'try', found " + describe(tok()));
    syncToStatement();
    return nullptr;
  }
  S->Then = parseBlock();
  while (at(Tok::KwCatch)) {
    uint32_t ClauseBegin = tok().Range.Begin;
    take();
    Stmt::CatchClause C;
    expect(Tok::LParen, "'(' after 'catch'");
    do {
      TypeRef T;
      if (!parseType(T)) {
        syncToStatement();
        return nullptr;
      }
      C.Types.push_back(std::move(T));
    } while (accept(Tok::Pipe));
    if (at(Tok::Identifier))
      C.Var = take().Text;
    else
      errorHere("expected the exception's name after its class, found " + describe(tok()));
    expect(Tok::RParen, "')' after the catch parameter");
    C.Range = rangeFrom(ClauseBegin);
    if (!at(Tok::LBrace)) {
      errorHere("expected '{' to open the catch block, found " + describe(tok()));
      syncToStatement();
      return nullptr;
    }
    C.Body = parseBlock();
    S->Catches.push_back(std::move(C));
  }
  if (at(Tok::KwFinally)) {
    uint32_t FinallyBegin = tok().Range.Begin;
    take();
    if (at(Tok::LBrace))
      parseBlock();
    S->FinallyRange = rangeFrom(FinallyBegin);
  }
  if (S->Catches.empty() && S->FinallyRange.Begin == S->FinallyRange.End)
    Diags.error(rangeFrom(Begin), "a 'try' needs a 'catch' (or 'finally') clause");
  S->Range = rangeFrom(Begin);
  return S;
}

Stmt* Parser::parseFor(uint32_t Begin) {
  expect(Tok::LParen, "'(' after 'for'");
  // Grid-stride form: for (i, T v : buf.range(n))
  if (at(Tok::Identifier) && tok(1).Kind == Tok::Comma) {
    Stmt* S = Ctx.newStmt(Stmt::Kind::ForRange, {Begin, Begin});
    Stmt::Declarator Index;
    Index.Range = tok().Range;
    Index.Name = take().Text;
    take(); // ,
    TypeRef ElemType;
    if (!parseType(ElemType) || !at(Tok::Identifier)) {
      if (!Diags.hasErrors() || at(Tok::Colon))
        errorHere("expected 'T name' after 'for (i,' in a grid-stride loop");
      syncToStatement();
      return nullptr;
    }
    Stmt::Declarator Elem;
    Elem.Range = tok().Range;
    Elem.Name = take().Text;
    S->VarType = ElemType;
    S->Vars = {Index, Elem};
    if (!expect(Tok::Colon, "':' in the grid-stride loop")) {
      syncToStatement();
      return nullptr;
    }
    Expr* Range = parseExpr();
    // Expect buf.range(n)
    if (Range->K != Expr::Kind::Call || Range->Ops[0]->K != Expr::Kind::Member ||
        Range->Ops[0]->Text != "range" || Range->Ops.size() != 2) {
      Diags.error(Range->Range, "a grid-stride loop iterates 'buffer.range(n)'");
    } else {
      S->Cond = Range->Ops[0]->Ops[0];
      S->Extra = Range->Ops[1];
    }
    expect(Tok::RParen, "')' to close the for header");
    S->Then = parseStatement();
    S->Range = rangeFrom(Begin);
    return S;
  }
  Stmt* S = Ctx.newStmt(Stmt::Kind::For, {Begin, Begin});
  if (!at(Tok::Semi)) {
    uint32_t InitBegin = tok().Range.Begin;
    if (looksLikeDeclaration()) {
      TypeRef T;
      parseType(T);
      if (Stmt* D = parseLocalVar(T, InitBegin))
        S->Body.push_back(D);
    } else {
      while (true) {
        Stmt* E = Ctx.newStmt(Stmt::Kind::ExprStmt, tok().Range);
        E->Cond = parseExpr();
        E->Range = E->Cond->Range;
        S->Body.push_back(E);
        if (!accept(Tok::Comma))
          break;
      }
    }
  }
  expect(Tok::Semi, "';' after the for initialiser");
  if (!at(Tok::Semi))
    S->Cond = parseExpr();
  expect(Tok::Semi, "';' after the for condition");
  if (!at(Tok::RParen)) {
    while (true) {
      S->Updates.push_back(parseExpr());
      if (!accept(Tok::Comma))
        break;
    }
  }
  expect(Tok::RParen, "')' to close the for header");
  S->Then = parseStatement();
  S->Range = rangeFrom(Begin);
  return S;
}

bool Parser::enterNesting() {
  if (++Nesting <= MaxNesting)
    return true;
  if (Nesting == MaxNesting + 1)
    errorHere("the code nests too deeply here (more than " + std::to_string(MaxNesting) +
              " levels of statements, blocks and expressions); split it into helpers or "
              "locals");
  while (!at(Tok::Eof)) // nothing after this point can be trusted: stop here
    take();
  return false;
}

Stmt* Parser::parseStatement() {
  if (!enterNesting()) {
    leaveNesting();
    return nullptr;
  }
  Stmt* S = parseStatementNested();
  leaveNesting();
  return S;
}

Stmt* Parser::parseStatementNested() {
  uint32_t Begin = tok().Range.Begin;
  switch (tok().Kind) {
  case Tok::LBrace:
    return parseBlock();
  case Tok::Semi:
    take();
    return Ctx.newStmt(Stmt::Kind::Empty, rangeFrom(Begin));
  case Tok::KwIf: {
    take();
    Stmt* S = Ctx.newStmt(Stmt::Kind::If, {Begin, Begin});
    expect(Tok::LParen, "'(' after 'if'");
    S->Cond = parseExpr();
    expect(Tok::RParen, "')' after the if condition");
    S->Then = parseStatement();
    if (accept(Tok::KwElse))
      S->Else = parseStatement();
    S->Range = rangeFrom(Begin);
    return S;
  }
  case Tok::KwWhile: {
    take();
    Stmt* S = Ctx.newStmt(Stmt::Kind::While, {Begin, Begin});
    expect(Tok::LParen, "'(' after 'while'");
    S->Cond = parseExpr();
    expect(Tok::RParen, "')' after the while condition");
    S->Then = parseStatement();
    S->Range = rangeFrom(Begin);
    return S;
  }
  case Tok::KwDo: {
    take();
    Stmt* S = Ctx.newStmt(Stmt::Kind::DoWhile, {Begin, Begin});
    S->Then = parseStatement();
    expect(Tok::KwWhile, "'while' after the do body");
    expect(Tok::LParen, "'(' after 'while'");
    S->Cond = parseExpr();
    expect(Tok::RParen, "')' after the do-while condition");
    expect(Tok::Semi, "';' after do-while");
    S->Range = rangeFrom(Begin);
    return S;
  }
  case Tok::KwFor:
    take();
    return parseFor(Begin);
  case Tok::KwBreak:
  case Tok::KwContinue: {
    bool IsBreak = take().Kind == Tok::KwBreak;
    Stmt* S = Ctx.newStmt(IsBreak ? Stmt::Kind::Break : Stmt::Kind::Continue, {Begin, Begin});
    if (at(Tok::Identifier))
      S->Label = take().Text;
    S->Range = rangeFrom(Begin);
    expect(Tok::Semi, IsBreak ? "';' after 'break'" : "';' after 'continue'");
    return S;
  }
  case Tok::KwReturn: {
    take();
    Stmt* S = Ctx.newStmt(Stmt::Kind::Return, {Begin, Begin});
    if (!at(Tok::Semi))
      S->Cond = parseExpr();
    S->Range = rangeFrom(Begin);
    expect(Tok::Semi, "';' after return");
    return S;
  }
  case Tok::KwTry:
    take();
    return parseTry(Begin);
  case Tok::KwThrow:
  case Tok::KwSwitch: {
    Stmt* S = Ctx.newStmt(Stmt::Kind::Unsupported, tok().Range);
    S->Label = tok().Text;
    take();
    // Skip the construct: up to ';' for throw, the blocks for try/switch.
    if (S->Label == "throw") {
      while (!at(Tok::Semi) && !at(Tok::Eof) && !at(Tok::RBrace))
        take();
      accept(Tok::Semi);
    } else {
      while (!at(Tok::LBrace) && !at(Tok::Eof) && !at(Tok::Semi))
        take();
      while (at(Tok::LBrace)) {
        skipBalancedBody();
        while ((at(Tok::KwCatch) || at(Tok::KwFinally)) && !at(Tok::Eof)) {
          while (!at(Tok::LBrace) && !at(Tok::Eof))
            take();
        }
      }
    }
    return S;
  }
  default:
    break;
  }
  if (at(Tok::Identifier) && tok(1).Kind == Tok::Colon) {
    Stmt* S = Ctx.newStmt(Stmt::Kind::Labeled, {Begin, Begin});
    S->Label = take().Text;
    take(); // :
    S->Then = parseStatement();
    S->Range = rangeFrom(Begin);
    return S;
  }
  if (looksLikeDeclaration()) {
    TypeRef T;
    if (!parseType(T)) {
      syncToStatement();
      return nullptr;
    }
    Stmt* S = parseLocalVar(T, Begin);
    if (S && !expect(Tok::Semi, "';' after the declaration"))
      syncToStatement();
    return S;
  }
  Stmt* S = Ctx.newStmt(Stmt::Kind::ExprStmt, {Begin, Begin});
  S->Cond = parseExpr();
  S->Range = rangeFrom(Begin);
  if (S->Cond->K == Expr::Kind::Invalid) {
    syncToStatement();
    return S;
  }
  if (!expect(Tok::Semi, "';' after the expression"))
    syncToStatement();
  return S;
}

// ---- expressions ----

Expr* Parser::invalid(SourceRange R) {
  return Ctx.newExpr(Expr::Kind::Invalid, R);
}

Expr* Parser::parseExpr() {
  uint32_t Begin = tok().Range.Begin;
  if (!enterNesting()) {
    leaveNesting();
    return invalid({Begin, Begin});
  }
  Expr* E = parseAssignment();
  leaveNesting();
  return E;
}

static bool isAssignOp(Tok K) {
  switch (K) {
  case Tok::Assign:
  case Tok::PlusAssign:
  case Tok::MinusAssign:
  case Tok::StarAssign:
  case Tok::SlashAssign:
  case Tok::PercentAssign:
  case Tok::AmpAssign:
  case Tok::PipeAssign:
  case Tok::CaretAssign:
  case Tok::ShlAssign:
  case Tok::ShrAssign:
  case Tok::UShrAssign:
    return true;
  default:
    return false;
  }
}

Expr* Parser::parseAssignment() {
  Expr* Lhs = parseTernary();
  if (!isAssignOp(tok().Kind))
    return Lhs;
  Tok Op = take().Kind;
  Expr* Rhs = parseAssignment();
  Expr* E = Ctx.newExpr(Expr::Kind::Assign, {Lhs->Range.Begin, Rhs->Range.End});
  E->Op = Op;
  E->Ops = {Lhs, Rhs};
  return E;
}

Expr* Parser::parseTernary() {
  Expr* Cond = parseBinary(0);
  if (!accept(Tok::Question))
    return Cond;
  Expr* A = parseTernary();
  expect(Tok::Colon, "':' in the conditional expression");
  Expr* B = parseTernary();
  Expr* E = Ctx.newExpr(Expr::Kind::Ternary, {Cond->Range.Begin, B->Range.End});
  E->Ops = {Cond, A, B};
  return E;
}

/// Java's binary precedence, lowest first; -1 for a token that is not a binary operator.
static int precedence(Tok K) {
  switch (K) {
  case Tok::PipePipe:
    return 0;
  case Tok::AmpAmp:
    return 1;
  case Tok::Pipe:
    return 2;
  case Tok::Caret:
    return 3;
  case Tok::Amp:
    return 4;
  case Tok::EqEq:
  case Tok::NotEq:
    return 5;
  case Tok::Less:
  case Tok::LessEq:
  case Tok::Greater:
  case Tok::GreaterEq:
    return 6;
  case Tok::Shl:
  case Tok::Shr:
  case Tok::UShr:
    return 7;
  case Tok::Plus:
  case Tok::Minus:
    return 8;
  case Tok::Star:
  case Tok::Slash:
  case Tok::Percent:
    return 9;
  default:
    return -1;
  }
}

Expr* Parser::parseBinary(int MinPrec) {
  Expr* Lhs = parseUnary();
  while (true) {
    int Prec = precedence(tok().Kind);
    if (Prec < 0 || Prec < MinPrec)
      return Lhs;
    Tok Op = take().Kind;
    Expr* Rhs = parseBinary(Prec + 1);
    Expr* E = Ctx.newExpr(Expr::Kind::Binary, {Lhs->Range.Begin, Rhs->Range.End});
    E->Op = Op;
    E->Ops = {Lhs, Rhs};
    Lhs = E;
  }
}

static bool isPrimitiveName(const std::string& N) {
  static const char* Names[] = {"bool",    "int8",    "int16",   "int32",  "int64",
                                "uint8",   "uint16",  "uint32",  "uint64", "float16",
                                "float32", "float64", "bfloat16"};
  for (const char* P : Names)
    if (N == P)
      return true;
  return false;
}

bool Parser::looksLikeCast() const {
  // ( Name ) operand  — a primitive name always casts; another name casts when an operand follows.
  if (tok().Kind != Tok::LParen || tok(1).Kind != Tok::Identifier || tok(2).Kind != Tok::RParen)
    return false;
  if (isPrimitiveName(tok(1).Text))
    return true;
  Tok Next = tok(3).Kind;
  return Next == Tok::Identifier || Next == Tok::IntLiteral || Next == Tok::FloatLiteral ||
         Next == Tok::LParen || Next == Tok::Bang || Next == Tok::Tilde || Next == Tok::KwTrue ||
         Next == Tok::KwFalse;
}

Expr* Parser::parseUnary() {
  uint32_t Begin = tok().Range.Begin;
  if (!enterNesting()) { // - - - ... x recurses here without passing parseExpr
    leaveNesting();
    return invalid({Begin, Begin});
  }
  Expr* E = parseUnaryNested();
  leaveNesting();
  return E;
}

Expr* Parser::parseUnaryNested() {
  uint32_t Begin = tok().Range.Begin;
  switch (tok().Kind) {
  case Tok::Plus:
  case Tok::Minus:
  case Tok::Bang:
  case Tok::Tilde:
  case Tok::PlusPlus:
  case Tok::MinusMinus: {
    Tok Op = take().Kind;
    Expr* Operand = parseUnary();
    Expr* E = Ctx.newExpr(Expr::Kind::Unary, {Begin, Operand->Range.End});
    E->Op = Op;
    E->Ops = {Operand};
    return E;
  }
  default:
    break;
  }
  if (looksLikeCast()) {
    take(); // (
    Expr* E = Ctx.newExpr(Expr::Kind::Cast, {Begin, Begin});
    E->CastType.Name = tok().Text;
    E->CastType.Range = take().Range;
    take(); // )
    Expr* Operand = parseUnary();
    E->Ops = {Operand};
    E->Range = {Begin, Operand->Range.End};
    return E;
  }
  return parsePostfix(parsePrimary());
}

Expr* Parser::parsePostfix(Expr* E) {
  while (true) {
    uint32_t Begin = E->Range.Begin;
    if (at(Tok::Dot)) {
      take();
      if (!at(Tok::Identifier)) {
        errorHere("expected a member name after '.', found " + describe(tok()));
        return invalid(rangeFrom(Begin));
      }
      Expr* M = Ctx.newExpr(Expr::Kind::Member, {Begin, tok().Range.End});
      M->Text = take().Text;
      M->Ops = {E};
      E = M;
      continue;
    }
    if (at(Tok::LParen)) {
      take();
      Expr* C = Ctx.newExpr(Expr::Kind::Call, {Begin, Begin});
      C->Ops.push_back(E);
      while (!at(Tok::RParen) && !at(Tok::Eof)) {
        if ((at(Tok::Identifier) || at(Tok::KwShared)) && tok(1).Kind == Tok::Colon) {
          // A named argument: launch(s, grid: [4], block: [256]).
          uint32_t ArgBegin = tok().Range.Begin;
          Expr* N = Ctx.newExpr(Expr::Kind::NamedArg, {ArgBegin, ArgBegin});
          N->Text = take().Text;
          take(); // :
          N->Ops = {parseExpr()};
          N->Range = rangeFrom(ArgBegin);
          C->Ops.push_back(N);
        } else {
          C->Ops.push_back(parseExpr());
        }
        if (!accept(Tok::Comma))
          break;
      }
      if (!expect(Tok::RParen, "')' to close the argument list"))
        return invalid(rangeFrom(Begin));
      C->Range = rangeFrom(Begin);
      E = C;
      continue;
    }
    if (at(Tok::LBracket)) {
      take();
      Expr* I = Ctx.newExpr(Expr::Kind::Index, {Begin, Begin});
      I->Ops = {E, parseExpr()};
      if (!expect(Tok::RBracket, "']' to close the index"))
        return invalid(rangeFrom(Begin));
      I->Range = rangeFrom(Begin);
      E = I;
      continue;
    }
    if (at(Tok::PlusPlus) || at(Tok::MinusMinus)) {
      Tok Op = take().Kind;
      Expr* P = Ctx.newExpr(Expr::Kind::Postfix, rangeFrom(Begin));
      P->Op = Op;
      P->Ops = {E};
      E = P;
      continue;
    }
    return E;
  }
}

Expr* Parser::parseAlloc() {
  uint32_t Begin = tok().Range.Begin;
  Token Kw = take();
  Expr* E = Ctx.newExpr(Expr::Kind::Alloc, {Begin, Begin});
  E->Op = Kw.Kind;
  if (!parseType(E->CastType))
    return invalid(rangeFrom(Begin));
  if (accept(Tok::LBracket)) {
    if (!at(Tok::RBracket)) // `shared float32[]`: sized at launch
      E->Ops.push_back(parseExpr());
    expect(Tok::RBracket, "']' after the array size");
  } else if (accept(Tok::LParen)) {
    while (!at(Tok::RParen) && !at(Tok::Eof)) {
      E->Ops.push_back(parseExpr());
      if (!accept(Tok::Comma))
        break;
    }
    expect(Tok::RParen, "')' after the arguments");
  }
  E->Range = rangeFrom(Begin);
  return E;
}

Expr* Parser::parsePrimary() {
  const Token& T = tok();
  uint32_t Begin = T.Range.Begin;
  switch (T.Kind) {
  case Tok::IntLiteral: {
    Expr* E = Ctx.newExpr(Expr::Kind::IntLit, T.Range);
    E->Text = take().Text;
    return E;
  }
  case Tok::FloatLiteral: {
    Expr* E = Ctx.newExpr(Expr::Kind::FloatLit, T.Range);
    E->Text = take().Text;
    return E;
  }
  case Tok::KwTrue:
  case Tok::KwFalse: {
    Expr* E = Ctx.newExpr(Expr::Kind::BoolLit, T.Range);
    E->Text = take().Text;
    return E;
  }
  case Tok::StringLiteral:
  case Tok::CharLiteral: {
    Expr* E = Ctx.newExpr(Expr::Kind::StringLit, T.Range);
    E->Text = take().Text;
    return E;
  }
  case Tok::Identifier: {
    if (tok(1).Kind == Tok::ColonColon && tok(2).Kind == Tok::Identifier) {
      Expr* E = Ctx.newExpr(Expr::Kind::MethodRef, T.Range);
      E->CastType.Name = take().Text;
      take(); // ::
      E->Text = take().Text;
      E->Range = rangeFrom(Begin);
      return E;
    }
    Expr* E = Ctx.newExpr(Expr::Kind::Name, T.Range);
    E->Text = take().Text;
    return E;
  }
  case Tok::LParen: {
    take();
    Expr* Inner = parseExpr();
    if (!expect(Tok::RParen, "')'"))
      return invalid(rangeFrom(Begin));
    return Inner;
  }
  case Tok::KwNew:
  case Tok::KwHeap:
  case Tok::KwShared:
    return parseAlloc();
  case Tok::LBracket: {
    // An array literal: [4] or [8, 8] (launch geometry).
    take();
    Expr* E = Ctx.newExpr(Expr::Kind::ArrayLit, {Begin, Begin});
    while (!at(Tok::RBracket) && !at(Tok::Eof)) {
      E->Ops.push_back(parseExpr());
      if (!accept(Tok::Comma))
        break;
    }
    if (!expect(Tok::RBracket, "']' to close the array"))
      return invalid(rangeFrom(Begin));
    E->Range = rangeFrom(Begin);
    return E;
  }
  case Tok::KwNull:
  case Tok::KwThis:
  case Tok::KwSuper: {
    Expr* E = Ctx.newExpr(Expr::Kind::Name, T.Range);
    E->Text = take().Text;
    return E;
  }
  default:
    errorHere("expected an expression, found " + describe(T));
    return invalid(T.Range);
  }
}

} // namespace cajeta::frontend
