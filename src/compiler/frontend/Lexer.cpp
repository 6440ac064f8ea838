// The lexer: Java-like tokens, nested generics closing with '>>' are split by the parser.
#include "compiler/frontend/Lexer.h"

#include <cctype>
#include <unordered_map>

namespace cajeta::frontend {

static const std::unordered_map<std::string, Tok>& keywords() {
  static const std::unordered_map<std::string, Tok> Map = {
      {"import", Tok::KwImport},
      {"package", Tok::KwPackage},
      {"class", Tok::KwClass},
      {"interface", Tok::KwInterface},
      {"enum", Tok::KwEnum},
      {"record", Tok::KwRecord},
      {"extends", Tok::KwExtends},
      {"implements", Tok::KwImplements},
      {"public", Tok::KwPublic},
      {"private", Tok::KwPrivate},
      {"protected", Tok::KwProtected},
      {"static", Tok::KwStatic},
      {"final", Tok::KwFinal},
      {"abstract", Tok::KwAbstract},
      {"void", Tok::KwVoid},
      {"if", Tok::KwIf},
      {"else", Tok::KwElse},
      {"while", Tok::KwWhile},
      {"do", Tok::KwDo},
      {"for", Tok::KwFor},
      {"break", Tok::KwBreak},
      {"continue", Tok::KwContinue},
      {"return", Tok::KwReturn},
      {"true", Tok::KwTrue},
      {"false", Tok::KwFalse},
      {"new", Tok::KwNew},
      {"heap", Tok::KwHeap},
      {"shared", Tok::KwShared},
      {"throw", Tok::KwThrow},
      {"try", Tok::KwTry},
      {"catch", Tok::KwCatch},
      {"finally", Tok::KwFinally},
      {"switch", Tok::KwSwitch},
      {"case", Tok::KwCase},
      {"default", Tok::KwDefault},
      {"null", Tok::KwNull},
      {"this", Tok::KwThis},
      {"super", Tok::KwSuper},
  };
  return Map;
}

const char* tokSpelling(Tok K) {
  switch (K) {
  case Tok::Eof:
    return "end of file";
  case Tok::Identifier:
    return "identifier";
  case Tok::IntLiteral:
    return "integer literal";
  case Tok::FloatLiteral:
    return "float literal";
  case Tok::StringLiteral:
    return "string literal";
  case Tok::CharLiteral:
    return "character literal";
  case Tok::LParen:
    return "'('";
  case Tok::RParen:
    return "')'";
  case Tok::LBrace:
    return "'{'";
  case Tok::RBrace:
    return "'}'";
  case Tok::LBracket:
    return "'['";
  case Tok::RBracket:
    return "']'";
  case Tok::Semi:
    return "';'";
  case Tok::Comma:
    return "','";
  case Tok::Dot:
    return "'.'";
  case Tok::At:
    return "'@'";
  case Tok::Question:
    return "'?'";
  case Tok::Colon:
    return "':'";
  case Tok::ColonColon:
    return "'::'";
  case Tok::Assign:
    return "'='";
  case Tok::Less:
    return "'<'";
  case Tok::Greater:
    return "'>'";
  default:
    break;
  }
  for (const auto& [Name, Kind] : keywords())
    if (Kind == K)
      return "keyword";
  return "operator";
}

char Lexer::peek(uint32_t Ahead) const {
  uint32_t P = Pos + Ahead;
  return P < File.text().size() ? File.text()[P] : '\0';
}

Token Lexer::make(Tok K, uint32_t Start) {
  Token T;
  T.Kind = K;
  T.Range = {Start, Pos};
  T.Text = File.text().substr(Start, Pos - Start);
  return T;
}

void Lexer::skipTrivia() {
  const std::string& S = File.text();
  while (Pos < S.size()) {
    char C = S[Pos];
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f') {
      ++Pos;
      continue;
    }
    if (C == '/' && peek(1) == '/') {
      while (Pos < S.size() && S[Pos] != '\n')
        ++Pos;
      continue;
    }
    if (C == '/' && peek(1) == '*') {
      uint32_t Start = Pos;
      Pos += 2;
      while (Pos < S.size() && !(S[Pos] == '*' && peek(1) == '/'))
        ++Pos;
      if (Pos >= S.size()) {
        Diags.error({Start, Start + 2}, "unterminated comment");
        return;
      }
      Pos += 2;
      continue;
    }
    return;
  }
}

static bool isIdentStart(char C) {
  return std::isalpha(static_cast<unsigned char>(C)) || C == '_' || C == '$';
}
static bool isIdentChar(char C) {
  return isIdentStart(C) || std::isdigit(static_cast<unsigned char>(C));
}

Token Lexer::lexNumber(uint32_t Start) {
  const std::string& S = File.text();
  bool IsFloat = false;
  bool Hex = false, Bin = false, NoExponentDigits = false;
  if (S[Pos] == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
    Hex = true;
    Pos += 2;
    while (std::isxdigit(static_cast<unsigned char>(peek())) || peek() == '_')
      ++Pos;
  } else if (S[Pos] == '0' && (peek(1) == 'b' || peek(1) == 'B')) {
    Bin = true;
    Pos += 2;
    while (peek() == '0' || peek() == '1' || peek() == '_')
      ++Pos;
  } else {
    while (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '_')
      ++Pos;
    if (peek() == '.' && std::isdigit(static_cast<unsigned char>(peek(1)))) {
      IsFloat = true;
      ++Pos;
      while (std::isdigit(static_cast<unsigned char>(peek())) || peek() == '_')
        ++Pos;
    } else if (peek() == '.' && !isIdentStart(peek(1))) {
      IsFloat = true; // "1." is a float
      ++Pos;
    }
    if (peek() == 'e' || peek() == 'E') {
      // An exponent needs digits: "7e" or "1.5e+" is an error, never 7 or 1.5.
      ++Pos;
      if (peek() == '+' || peek() == '-')
        ++Pos;
      IsFloat = true;
      NoExponentDigits = !std::isdigit(static_cast<unsigned char>(peek()));
      while (std::isdigit(static_cast<unsigned char>(peek())))
        ++Pos;
    }
  }
  // Suffixes: f F d D (floats), u U L l uL UL (integers).
  while (isIdentChar(peek()))
    ++Pos;
  Token T = make(IsFloat ? Tok::FloatLiteral : Tok::IntLiteral, Start);
  std::string Body = T.Text;
  std::string Suffix;
  size_t DigitsEnd = Body.size();
  auto isSuffixChar = [&](char C) {
    if (Hex)
      return C == 'u' || C == 'U' || C == 'L' || C == 'l';
    return C == 'f' || C == 'F' || C == 'd' || C == 'D' || C == 'u' || C == 'U' || C == 'L' ||
           C == 'l';
  };
  while (DigitsEnd > 0 && isSuffixChar(Body[DigitsEnd - 1]))
    --DigitsEnd;
  Suffix = Body.substr(DigitsEnd);
  if (!Bin && !Hex && (Suffix == "f" || Suffix == "F" || Suffix == "d" || Suffix == "D"))
    T.Kind = Tok::FloatLiteral;
  static const char* Valid[] = {"",  "f", "F",  "d",  "D",  "u",  "U",
                                "L", "l", "uL", "UL", "ul", "Ul", "uL"};
  bool Ok = false;
  for (const char* V : Valid)
    Ok |= Suffix == V;
  if (T.Kind == Tok::FloatLiteral &&
      (Suffix == "u" || Suffix == "U" || Suffix == "L" || Suffix == "l" || Suffix.size() == 2))
    Ok = false;
  // Anything else trailing the digits (a letter that is not a suffix) is malformed.
  for (size_t I = Hex || Bin ? 2 : 0; I < DigitsEnd; ++I) {
    char C = Body[I];
    bool Digit = Hex ? std::isxdigit(static_cast<unsigned char>(C))
                     : (Bin ? (C == '0' || C == '1') : std::isdigit(static_cast<unsigned char>(C)));
    if (!(Digit || C == '_' || C == '.' ||
          (!Hex && (C == 'e' || C == 'E' || C == '+' || C == '-'))))
      Ok = false;
  }
  if ((Hex || Bin) && DigitsEnd <= 2)
    Ok = false;
  if (NoExponentDigits)
    Diags.error(T.Range, "malformed number '" + T.Text + "': the exponent has no digits");
  else if (!Ok)
    Diags.error(T.Range, "malformed number '" + T.Text + "'");
  return T;
}

Token Lexer::lexString(uint32_t Start, char Quote) {
  const std::string& S = File.text();
  ++Pos;
  std::string Value;
  while (Pos < S.size() && S[Pos] != Quote && S[Pos] != '\n') {
    if (S[Pos] == '\\' && Pos + 1 < S.size() && S[Pos + 1] != '\n') {
      // Java's escapes; any other is an error at the backslash.
      char E = S[Pos + 1];
      static const std::string From = "ntr0\\\"'", To = "\n\t\r" + std::string(1, '\0') + "\\\"'";
      size_t At = From.find(E);
      if (At == std::string::npos)
        Diags.error({uint32_t(Pos), uint32_t(Pos + 2)},
                    std::string("unknown escape sequence '\\") + E +
                        "' (known: \\n \\t \\r \\0 \\\\ \\\" \\')");
      Value += At == std::string::npos ? E : To[At];
      Pos += 2;
      continue;
    }
    Value += S[Pos++];
  }
  if (Pos >= S.size() || S[Pos] != Quote) {
    Diags.error({Start, Start + 1},
                Quote == '"' ? "unterminated string literal" : "unterminated character literal");
    Token T = make(Quote == '"' ? Tok::StringLiteral : Tok::CharLiteral, Start);
    T.Text = Value;
    return T;
  }
  ++Pos;
  Token T = make(Quote == '"' ? Tok::StringLiteral : Tok::CharLiteral, Start);
  T.Text = Value;
  return T;
}

Token Lexer::next() {
  skipTrivia();
  const std::string& S = File.text();
  uint32_t Start = Pos;
  if (Pos >= S.size())
    return make(Tok::Eof, Start);
  char C = S[Pos];
  if (isIdentStart(C)) {
    while (isIdentChar(peek()))
      ++Pos;
    Token T = make(Tok::Identifier, Start);
    auto It = keywords().find(T.Text);
    if (It != keywords().end())
      T.Kind = It->second;
    return T;
  }
  if (std::isdigit(static_cast<unsigned char>(C)) ||
      (C == '.' && std::isdigit(static_cast<unsigned char>(peek(1)))))
    return lexNumber(Start);
  if (C == '"' || C == '\'')
    return lexString(Start, C);

  struct Op {
    const char* Spelling;
    Tok Kind;
  };
  // Longest first.
  static const Op Ops[] = {
      {">>>=", Tok::UShrAssign},
      {"<<=", Tok::ShlAssign},
      {"#=", Tok::HashAssign},
      {">>=", Tok::ShrAssign},
      {">>>", Tok::UShr},
      {"::", Tok::ColonColon},
      {"==", Tok::EqEq},
      {"!=", Tok::NotEq},
      {"<=", Tok::LessEq},
      {">=", Tok::GreaterEq},
      {"&&", Tok::AmpAmp},
      {"||", Tok::PipePipe},
      {"++", Tok::PlusPlus},
      {"--", Tok::MinusMinus},
      {"+=", Tok::PlusAssign},
      {"-=", Tok::MinusAssign},
      {"*=", Tok::StarAssign},
      {"/=", Tok::SlashAssign},
      {"%=", Tok::PercentAssign},
      {"&=", Tok::AmpAssign},
      {"|=", Tok::PipeAssign},
      {"^=", Tok::CaretAssign},
      {"<<", Tok::Shl},
      {">>", Tok::Shr},
      {"(", Tok::LParen},
      {")", Tok::RParen},
      {"{", Tok::LBrace},
      {"}", Tok::RBrace},
      {"[", Tok::LBracket},
      {"]", Tok::RBracket},
      {";", Tok::Semi},
      {",", Tok::Comma},
      {".", Tok::Dot},
      {"@", Tok::At},
      {"?", Tok::Question},
      {":", Tok::Colon},
      {"=", Tok::Assign},
      {"<", Tok::Less},
      {">", Tok::Greater},
      {"!", Tok::Bang},
      {"~", Tok::Tilde},
      {"+", Tok::Plus},
      {"-", Tok::Minus},
      {"*", Tok::Star},
      {"/", Tok::Slash},
      {"%", Tok::Percent},
      {"&", Tok::Amp},
      {"|", Tok::Pipe},
      {"^", Tok::Caret},
  };
  for (const Op& O : Ops) {
    size_t Len = std::char_traits<char>::length(O.Spelling);
    if (S.compare(Pos, Len, O.Spelling) == 0) {
      Pos += Len;
      return make(O.Kind, Start);
    }
  }
  // One UTF-8 sequence as one unknown token.
  ++Pos;
  while (Pos < S.size() && (static_cast<unsigned char>(S[Pos]) & 0xC0) == 0x80)
    ++Pos;
  return make(Tok::Unknown, Start);
}

std::vector<Token> Lexer::lexAll() {
  std::vector<Token> Tokens;
  while (true) {
    Tokens.push_back(next());
    if (Tokens.back().Kind == Tok::Eof)
      break;
  }
  return Tokens;
}

} // namespace cajeta::frontend
