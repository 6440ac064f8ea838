// One Java format specifier (java.util.Formatter: %[flags][width][.precision]conversion), parsed
// the same way by the compiler (which checks printf's arguments against it) and by the runtime
// (which formats them, cajeta_host_printf).
#pragma once

#include <cstddef>
#include <string>

namespace cajeta::xpu {

struct FormatSpec {
  std::string Flags;  // of "-#+ 0,("
  int Width = -1;     // -1: none
  int Precision = -1; // -1: none
  char Conversion = 0;

  /// Parses the specifier at Text[At] (a '%'); advances At past it. False (At unchanged) when it
  /// is not one this implementation knows: argument indices (`%1$d`), dates (`%t`), `%h`, `%a`.
  static bool parse(const std::string& Text, size_t& At, FormatSpec& Out) {
    size_t I = At + 1;
    FormatSpec S;
    while (I < Text.size() && std::string("-#+ 0,(").find(Text[I]) != std::string::npos)
      S.Flags += Text[I++];
    auto Number = [&](int& N) {
      if (I >= Text.size() || Text[I] < '0' || Text[I] > '9')
        return false;
      N = 0;
      while (I < Text.size() && Text[I] >= '0' && Text[I] <= '9' && N < 100000)
        N = N * 10 + (Text[I++] - '0');
      return true;
    };
    Number(S.Width);
    if (I < Text.size() && Text[I] == '.') {
      ++I;
      if (!Number(S.Precision))
        return false;
    }
    if (I >= Text.size() || Text[I] == '$')
      return false;
    S.Conversion = Text[I++];
    if (std::string("doxXeEfgGsSbBn%").find(S.Conversion) == std::string::npos)
      return false;
    Out = S;
    At = I;
    return true;
  }

  /// The conversion takes an argument (all but %n and %%).
  bool takesArgument() const { return Conversion != 'n' && Conversion != '%'; }
  bool integral() const { return std::string("doxX").find(Conversion) != std::string::npos; }
  bool floating() const { return std::string("eEfgG").find(Conversion) != std::string::npos; }
};

} // namespace cajeta::xpu
