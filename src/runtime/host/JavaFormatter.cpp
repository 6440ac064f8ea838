// java.util.Formatter's conversions (JavaFormatter.h).
#include "runtime/host/JavaFormatter.h"

#include "cajeta/xpu/BFloat16.hpp"
#include "cajeta/xpu/Float16.hpp"
#include "runtime/host/JavaNumberFormat.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace cajeta::xpu::rt {

namespace {

bool isFloat(cajeta_xpu_scalar_type T) {
  return T == CAJETA_XPU_FLOAT16 || T == CAJETA_XPU_BFLOAT16 || T == CAJETA_XPU_FLOAT32 ||
         T == CAJETA_XPU_FLOAT64;
}

bool isSigned(cajeta_xpu_scalar_type T) {
  return T == CAJETA_XPU_INT8 || T == CAJETA_XPU_INT16 || T == CAJETA_XPU_INT32 ||
         T == CAJETA_XPU_INT64;
}

double toDouble(cajeta_xpu_scalar_type T, uint64_t Bits) {
  if (T == CAJETA_XPU_FLOAT64) {
    double D;
    std::memcpy(&D, &Bits, sizeof D);
    return D;
  }
  if (T == CAJETA_XPU_FLOAT32) {
    uint32_t B = uint32_t(Bits);
    float F;
    std::memcpy(&F, &B, sizeof F);
    return F;
  }
  if (T == CAJETA_XPU_FLOAT16)
    return float(float16::fromBits(uint16_t(Bits)));
  if (T == CAJETA_XPU_BFLOAT16)
    return float(bfloat16::fromBits(uint16_t(Bits)));
  return isSigned(T) ? double(int64_t(Bits)) : double(Bits);
}

/// Java's toString of the value (what %s prints).
std::string javaString(cajeta_xpu_scalar_type T, uint64_t Bits) {
  if (T == CAJETA_XPU_BOOL)
    return Bits ? "true" : "false";
  if (T == CAJETA_XPU_FLOAT64)
    return JavaNumberFormat::formatDouble(toDouble(T, Bits));
  if (isFloat(T))
    return JavaNumberFormat::formatFloat(float(toDouble(T, Bits)));
  return isSigned(T) ? std::to_string(int64_t(Bits)) : std::to_string(Bits);
}

bool has(const FormatSpec& S, char Flag) {
  return S.Flags.find(Flag) != std::string::npos;
}

/// Pads Text to the width: left-justified with '-', else right; with '0', zeros after the sign
/// (or the opening parenthesis, or a 0x prefix).
std::string pad(const FormatSpec& S, std::string Text, bool Numeric) {
  if (S.Width < 0 || int(Text.size()) >= S.Width)
    return Text;
  size_t Fill = size_t(S.Width) - Text.size();
  if (has(S, '-'))
    return Text + std::string(Fill, ' ');
  if (Numeric && has(S, '0')) {
    size_t At = 0;
    while (At < Text.size() && std::strchr("+-( ", Text[At]))
      ++At;
    if (Text.compare(At, 2, "0x") == 0 || Text.compare(At, 2, "0X") == 0)
      At += 2;
    return Text.insert(At, Fill, '0');
  }
  return std::string(Fill, ' ') + Text;
}

/// Inserts ',' every three digits of the integer part (the ',' flag).
std::string group(std::string Text) {
  size_t Begin = 0;
  while (Begin < Text.size() && !std::isdigit(static_cast<unsigned char>(Text[Begin])))
    ++Begin;
  size_t End = Begin;
  while (End < Text.size() && std::isdigit(static_cast<unsigned char>(Text[End])))
    ++End;
  for (size_t At = End; At > Begin + 3; At -= 3)
    Text.insert(At - 3, 1, ',');
  return Text;
}

/// A number without width, with its sign handled by the flags: '+', ' ', '(' .
std::string signed_(const FormatSpec& S, bool Negative, std::string Magnitude) {
  if (Negative)
    return has(S, '(') ? "(" + Magnitude + ")" : "-" + Magnitude;
  if (has(S, '+'))
    return "+" + Magnitude;
  if (has(S, ' '))
    return " " + Magnitude;
  return Magnitude;
}

std::string formatInteger(const FormatSpec& S, cajeta_xpu_scalar_type T, uint64_t Bits) {
  char Buf[80];
  if (S.Conversion == 'd') {
    bool Negative = isSigned(T) && int64_t(Bits) < 0;
    uint64_t Magnitude = Negative ? 0 - Bits : Bits;
    std::snprintf(Buf, sizeof Buf, "%llu", static_cast<unsigned long long>(Magnitude));
    std::string Digits = has(S, ',') ? group(Buf) : std::string(Buf);
    return pad(S, signed_(S, Negative, Digits), true);
  }
  // o, x, X: the bits of the value's own width (Sema passes signed values as their unsigned
  // type's), with the base's prefix under '#'.
  const char* Conv = S.Conversion == 'o' ? "%llo" : S.Conversion == 'x' ? "%llx" : "%llX";
  std::snprintf(Buf, sizeof Buf, Conv, static_cast<unsigned long long>(Bits));
  std::string Text = Buf;
  if (has(S, '#'))
    Text = (S.Conversion == 'o' ? "0" : S.Conversion == 'x' ? "0x" : "0X") + Text;
  return pad(S, Text, true);
}

std::string formatFloating(const FormatSpec& S, double V) {
  bool Upper = S.Conversion == 'E' || S.Conversion == 'G';
  if (std::isnan(V))
    return pad(S, "NaN", false);
  if (std::isinf(V))
    return pad(S, signed_(S, V < 0, "Infinity"), false);
  int Precision = S.Precision < 0 ? 6 : S.Precision;
  char Conv = char(std::tolower(static_cast<unsigned char>(S.Conversion)));
  if (Conv == 'g' && Precision == 0)
    Precision = 1; // Java's rule
  char Spec[16];
  // Java's %g keeps its trailing zeros, as C's %#g does.
  std::snprintf(Spec, sizeof Spec, "%%%s.%d%c", Conv == 'g' || has(S, '#') ? "#" : "", Precision,
                Conv);
  char Buf[512];
  std::snprintf(Buf, sizeof Buf, Spec, std::fabs(V));
  std::string Magnitude = Buf;
  if (has(S, ','))
    Magnitude = group(Magnitude);
  if (Upper)
    for (char& C : Magnitude)
      C = char(std::toupper(static_cast<unsigned char>(C)));
  return pad(S, signed_(S, std::signbit(V), Magnitude), true);
}

} // namespace

std::string JavaFormatter::format(const FormatSpec& S, cajeta_xpu_scalar_type T, uint64_t Bits) {
  switch (S.Conversion) {
  case 'n':
    return "\n";
  case '%':
    return pad(S, "%", false);
  case 'd':
  case 'o':
  case 'x':
  case 'X':
    if (!isFloat(T) && T != CAJETA_XPU_BOOL)
      return formatInteger(S, T, Bits);
    break;
  case 'e':
  case 'E':
  case 'f':
  case 'g':
  case 'G':
    if (isFloat(T))
      return formatFloating(S, toDouble(T, Bits));
    break;
  case 'b':
  case 'B': {
    std::string Text = T == CAJETA_XPU_BOOL ? javaString(T, Bits) : "true"; // non-null: true
    if (S.Precision >= 0 && int(Text.size()) > S.Precision)
      Text.resize(size_t(S.Precision));
    if (S.Conversion == 'B')
      for (char& C : Text)
        C = char(std::toupper(static_cast<unsigned char>(C)));
    return pad(S, Text, false);
  }
  default:
    break;
  }
  // %s, %S (and a conversion the compiler would have refused): Java's toString of the value.
  std::string Text = javaString(T, Bits);
  if (S.Precision >= 0 && int(Text.size()) > S.Precision)
    Text.resize(size_t(S.Precision));
  if (S.Conversion == 'S')
    for (char& C : Text)
      C = char(std::toupper(static_cast<unsigned char>(C)));
  return pad(S, Text, false);
}

} // namespace cajeta::xpu::rt
