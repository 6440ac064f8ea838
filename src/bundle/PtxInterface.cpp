#include "bundle/PtxInterface.h"

#include "bundle/KernelAbiRecord.h"

#include <cctype>

namespace cajeta::bundle {
namespace {

/// Ptx without its // and /* */ comments (each replaced by one space).
std::string stripComments(std::string_view Ptx) {
  std::string Out;
  Out.reserve(Ptx.size());
  for (size_t I = 0; I < Ptx.size();) {
    if (Ptx.compare(I, 2, "//") == 0) {
      size_t End = Ptx.find('\n', I);
      I = End == std::string_view::npos ? Ptx.size() : End;
      Out += ' ';
    } else if (Ptx.compare(I, 2, "/*") == 0) {
      size_t End = Ptx.find("*/", I + 2);
      I = End == std::string_view::npos ? Ptx.size() : End + 2;
      Out += ' ';
    } else {
      Out += Ptx[I++];
    }
  }
  return Out;
}

bool isIdentChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '$' || C == '.' ||
         C == '%';
}

/// Bytes of a PTX fundamental type (".u32" -> 4), 0 when Token is not one.
unsigned typeBytes(std::string_view Token) {
  static const std::pair<const char*, unsigned> Types[] = {
      {".pred", 1}, {".b8", 1},  {".s8", 1},   {".u8", 1},  {".b16", 2}, {".s16", 2},
      {".u16", 2},  {".f16", 2}, {".bf16", 2}, {".b32", 4}, {".s32", 4}, {".u32", 4},
      {".f32", 4},  {".b64", 8}, {".s64", 8},  {".u64", 8}, {".f64", 8}};
  for (const auto& [Name, Bytes] : Types)
    if (Token == Name)
      return Bytes;
  return 0;
}

std::vector<std::string_view> splitWords(std::string_view Text) {
  std::vector<std::string_view> Words;
  size_t I = 0;
  while (I < Text.size()) {
    while (I < Text.size() && std::isspace(static_cast<unsigned char>(Text[I])))
      ++I;
    size_t Start = I;
    while (I < Text.size() && !std::isspace(static_cast<unsigned char>(Text[I])))
      ++I;
    if (I > Start)
      Words.push_back(Text.substr(Start, I - Start));
  }
  return Words;
}

bool parseNumber(std::string_view Text, uint64_t& Out) {
  if (Text.empty() || Text.size() > 12)
    return false;
  Out = 0;
  for (char C : Text) {
    if (!std::isdigit(static_cast<unsigned char>(C)))
      return false;
    Out = Out * 10 + uint64_t(C - '0');
  }
  return true;
}

/// One ".param [.ptr] [.space] [.align N] .type name[N]?" declaration.
bool parseParam(std::string_view Decl, PtxParam& Out, std::string& Why) {
  std::vector<std::string_view> Words = splitWords(Decl);
  if (Words.empty() || Words[0] != ".param") {
    Why = "a parameter that is not a .param";
    return false;
  }
  uint64_t Align = 0;
  unsigned Bytes = 0;
  size_t I = 1;
  for (; I < Words.size() && !Bytes; ++I) {
    if (Words[I] == ".align") {
      if (I + 1 >= Words.size() || !parseNumber(Words[I + 1], Align) || !Align) {
        Why = "a bad .align";
        return false;
      }
      ++I;
    } else if (unsigned B = typeBytes(Words[I])) {
      Bytes = B;
    } else if (Words[I] != ".ptr" && Words[I] != ".global" && Words[I] != ".const" &&
               Words[I] != ".shared" && Words[I] != ".local") {
      Why = "an unknown qualifier '" + std::string(Words[I]) + "'";
      return false;
    }
  }
  // Qualifiers may follow the type (".u64 .ptr .global .align 1 name").
  for (; I + 1 < Words.size(); ++I) {
    if (Words[I] == ".align") {
      if (!parseNumber(Words[I + 1], Align) || !Align) {
        Why = "a bad .align";
        return false;
      }
      ++I;
    } else if (Words[I] != ".ptr" && Words[I] != ".global" && Words[I] != ".const" &&
               Words[I] != ".shared" && Words[I] != ".local") {
      Why = "an unknown qualifier '" + std::string(Words[I]) + "'";
      return false;
    }
  }
  if (!Bytes || I + 1 != Words.size()) {
    Why = "a parameter without a type and a name";
    return false;
  }
  std::string_view Name = Words[I];
  uint64_t Count = 1;
  if (size_t Open = Name.find('['); Open != std::string_view::npos) {
    if (Name.back() != ']' || !parseNumber(Name.substr(Open + 1, Name.size() - Open - 2), Count)) {
      Why = "a bad array length in '" + std::string(Name) + "'";
      return false;
    }
  }
  Out.Size = Bytes * Count;
  Out.Align = uint32_t(Align ? Align : Bytes);
  return true;
}

/// The record arrays: ".b8 cajeta_abi_NAME[N] = {b0, b1, ...}" (NUL-terminated text).
bool readRecords(const std::string& Text, std::map<std::string, std::string>& Out,
                 std::string& Error) {
  const std::string Prefix = kernelAbiRecordSymbol("");
  for (size_t At = Text.find(Prefix); At != std::string::npos; At = Text.find(Prefix, At + 1)) {
    if (At < 4 || Text.compare(At - 4, 4, ".b8 ") != 0)
      continue; // a use, not the definition
    size_t I = At;
    while (I < Text.size() && isIdentChar(Text[I]))
      ++I;
    std::string Name = Text.substr(At, I - At);
    size_t Open = Text.find('{', I), Close = Text.find('}', I), Semi = Text.find(';', I);
    if (Semi != std::string::npos && Semi < Open) {
      // No initialiser: zero bytes, the empty record of a kernel without parameters.
      if (!Out.emplace(Name, "").second) {
        Error = "record '" + Name + "' is defined twice";
        return false;
      }
      continue;
    }
    if (Open == std::string::npos || Close == std::string::npos || Close < Open) {
      Error = "record '" + Name + "' has no initialiser";
      return false;
    }
    std::string Value;
    std::string_view List(Text.data() + Open + 1, Close - Open - 1);
    for (size_t Start = 0; Start <= List.size();) {
      size_t Comma = List.find(',', Start);
      std::vector<std::string_view> Words = splitWords(List.substr(
          Start, Comma == std::string_view::npos ? std::string_view::npos : Comma - Start));
      uint64_t Byte = 0;
      if (Words.size() != 1 || !parseNumber(Words[0], Byte) || Byte > 255) {
        Error = "record '" + Name + "' holds something other than bytes";
        return false;
      }
      if (Byte == 0)
        break;
      Value += char(Byte);
      if (Comma == std::string_view::npos)
        break;
      Start = Comma + 1;
    }
    if (!Out.emplace(Name, Value).second) {
      Error = "record '" + Name + "' is defined twice";
      return false;
    }
    At = Close;
  }
  return true;
}

} // namespace

bool PtxInterface::read(std::string_view Ptx, PtxInterface& Result, std::string& Error) {
  std::string Text = stripComments(Ptx);
  Result = PtxInterface();
  std::map<std::string, std::vector<PtxParam>>& Out = Result.Entries;
  for (size_t At = Text.find(".entry"); At != std::string::npos; At = Text.find(".entry", At + 6)) {
    bool TokenStart = At == 0 || std::isspace(static_cast<unsigned char>(Text[At - 1]));
    bool TokenEnd = At + 6 < Text.size() && std::isspace(static_cast<unsigned char>(Text[At + 6]));
    if (!TokenStart || !TokenEnd)
      continue;
    size_t I = At + 6;
    while (I < Text.size() && std::isspace(static_cast<unsigned char>(Text[I])))
      ++I;
    size_t NameStart = I;
    while (I < Text.size() && isIdentChar(Text[I]))
      ++I;
    std::string Name = Text.substr(NameStart, I - NameStart);
    if (Name.empty()) {
      Error = "an .entry without a name";
      return false;
    }
    while (I < Text.size() && std::isspace(static_cast<unsigned char>(Text[I])))
      ++I;
    std::vector<PtxParam> Params;
    if (I < Text.size() && Text[I] == '(') {
      size_t Close = Text.find(')', I);
      if (Close == std::string::npos) {
        Error = "entry '" + Name + "': its parameter list does not end";
        return false;
      }
      std::string_view List(Text.data() + I + 1, Close - I - 1);
      bool Empty = splitWords(List).empty();
      for (size_t Start = 0; !Empty;) {
        size_t Comma = List.find(',', Start);
        std::string_view Decl = List.substr(
            Start, Comma == std::string_view::npos ? std::string_view::npos : Comma - Start);
        PtxParam P;
        std::string Why;
        if (!parseParam(Decl, P, Why)) {
          Error = "entry '" + Name + "', parameter " + std::to_string(Params.size()) + ": " + Why;
          return false;
        }
        Params.push_back(P);
        if (Comma == std::string_view::npos)
          break;
        Start = Comma + 1;
      }
      I = Close + 1;
    }
    if (!Out.emplace(Name, std::move(Params)).second) {
      Error = "entry '" + Name + "' is defined twice";
      return false;
    }
    At = I - 6; // continue after the parameter list
  }
  return readRecords(Text, Result.Records, Error);
}

} // namespace cajeta::bundle
