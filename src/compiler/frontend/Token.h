// Tokens of the Cajeta kernel language.
#pragma once

#include "compiler/frontend/SourceFile.h"

#include <cstdint>
#include <string>

namespace cajeta::frontend {

enum class Tok : uint8_t {
  Eof,
  Identifier,
  IntLiteral,
  FloatLiteral,
  StringLiteral,
  CharLiteral,
  // keywords
  KwImport,
  KwPackage,
  KwClass,
  KwInterface,
  KwEnum,
  KwRecord,
  KwExtends,
  KwImplements,
  KwPublic,
  KwPrivate,
  KwProtected,
  KwStatic,
  KwFinal,
  KwAbstract,
  KwVoid,
  KwIf,
  KwElse,
  KwWhile,
  KwDo,
  KwFor,
  KwBreak,
  KwContinue,
  KwReturn,
  KwTrue,
  KwFalse,
  KwNew,
  KwHeap,
  KwShared,
  KwThrow,
  KwTry,
  KwCatch,
  KwFinally,
  KwSwitch,
  KwCase,
  KwDefault,
  KwNull,
  KwThis,
  KwSuper,
  // punctuation
  LParen,
  RParen,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  Semi,
  Comma,
  Dot,
  At,
  Question,
  Colon,
  ColonColon,
  // operators
  Assign,
  PlusAssign,
  MinusAssign,
  StarAssign,
  SlashAssign,
  PercentAssign,
  AmpAssign,
  PipeAssign,
  CaretAssign,
  ShlAssign,
  ShrAssign,
  UShrAssign,
  HashAssign, // `#=`: binds a borrowed reference (KernelStream s #= KernelStream.current())
  EqEq,
  NotEq,
  Less,
  LessEq,
  Greater,
  GreaterEq,
  AmpAmp,
  PipePipe,
  Bang,
  Tilde,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  Amp,
  Pipe,
  Caret,
  Shl,
  Shr,
  UShr,
  PlusPlus,
  MinusMinus,
  Unknown, // a character the language does not use (reported where the parser meets it)
};

struct Token {
  Tok Kind = Tok::Eof;
  SourceRange Range;
  std::string Text; // the spelling (identifiers, literals: without quotes for strings)
};

const char* tokSpelling(Tok K);

} // namespace cajeta::frontend
