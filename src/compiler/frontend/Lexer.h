// Turns a SourceFile into tokens; reports malformed literals and unterminated comments.
#pragma once

#include "compiler/Diagnostics.h"
#include "compiler/frontend/Token.h"

#include <vector>

namespace cajeta::frontend {

class Lexer {
public:
  Lexer(const SourceFile& File, Diagnostics& Diags) : File(File), Diags(Diags) {}
  /// The whole file; always ends with an Eof token.
  std::vector<Token> lexAll();

private:
  Token next();
  void skipTrivia();
  Token lexNumber(uint32_t Start);
  Token lexString(uint32_t Start, char Quote);
  Token make(Tok K, uint32_t Start);
  char peek(uint32_t Ahead = 0) const;

  const SourceFile& File;
  Diagnostics& Diags;
  uint32_t Pos = 0;
};

} // namespace cajeta::frontend
