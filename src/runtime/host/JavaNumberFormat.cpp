// Float.toString / Double.toString (JDK 19+): the shortest digits from std::to_chars, Java's rule
// for one-digit results, then Java's choice of plain or computerized scientific notation.
#include "runtime/host/JavaNumberFormat.h"

#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

namespace cajeta::xpu::rt {

namespace {

/// A positive decimal Digits[0].Digits[1..] x 10^Exponent; Digits has no leading zero and no
/// trailing zero but a lone one.
struct Decimal {
  std::string Digits;
  int Exponent = 0;
};

/// Reads std::to_chars' scientific form of a positive finite value: "d[.ddd]e[+-]nn".
Decimal parseScientific(const char* Begin, const char* End) {
  Decimal D;
  const char* P = Begin;
  for (; P != End && *P != 'e'; ++P)
    if (*P != '.')
      D.Digits += *P;
  if (P != End)
    ++P; // 'e'
  bool Negative = P != End && *P == '-';
  if (P != End && (*P == '-' || *P == '+'))
    ++P;
  int Exponent = 0;
  for (; P != End; ++P)
    Exponent = Exponent * 10 + (*P - '0');
  D.Exponent = Negative ? -Exponent : Exponent;
  while (D.Digits.size() > 1 && D.Digits.back() == '0')
    D.Digits.pop_back();
  return D;
}

/// The shortest decimal that reads back as V (the closest to V of those).
template <class T> Decimal shortest(T V) {
  char Buf[64];
  std::to_chars_result R = std::to_chars(Buf, Buf + sizeof(Buf), V, std::chars_format::scientific);
  return parseScientific(Buf, R.ptr);
}

/// V correctly rounded to two significant digits.
template <class T> Decimal twoDigits(T V) {
  char Buf[64];
  std::to_chars_result R =
      std::to_chars(Buf, Buf + sizeof(Buf), V, std::chars_format::scientific, 1);
  return parseScientific(Buf, R.ptr);
}

/// Whether D reads back as exactly V.
template <class T> bool readsBackAs(const Decimal& D, T V) {
  std::string Text = D.Digits.substr(0, 1) + "." +
                     (D.Digits.size() > 1 ? D.Digits.substr(1) : "0") + "e" +
                     std::to_string(D.Exponent);
  T Back{};
  std::from_chars_result R = std::from_chars(Text.data(), Text.data() + Text.size(), Back);
  return R.ec == std::errc() && Back == V;
}

/// The two-digit mantissa (10..99) of a decimal of at most two digits.
int mantissa2(const Decimal& D) {
  int M = (D.Digits[0] - '0') * 10;
  if (D.Digits.size() > 1)
    M += D.Digits[1] - '0';
  return M;
}

bool less(const Decimal& A, const Decimal& B) {
  if (A.Exponent != B.Exponent)
    return A.Exponent < B.Exponent;
  return mantissa2(A) < mantissa2(B);
}

/// The two-digit decimal next to D (of at most two digits) upwards or downwards.
Decimal neighbour(const Decimal& D, bool Up) {
  int M = mantissa2(D) + (Up ? 1 : -1);
  Decimal N;
  N.Exponent = D.Exponent;
  if (M == 100) {
    M = 10;
    ++N.Exponent;
  } else if (M == 9) {
    M = 99;
    --N.Exponent;
  }
  N.Digits = std::to_string(M);
  if (N.Digits.back() == '0')
    N.Digits.pop_back();
  return N;
}

/// Java's decimal for a positive finite V: of the decimals that read back as V, those of the
/// least length m, or when m is 1 those of length 1 or 2; of these the closest to V.
template <class T> Decimal javaDecimal(T V) {
  Decimal S = shortest(V);
  if (S.Digits.size() != 1)
    return S;
  // Every one-digit decimal is a two-digit one; the two-digit decimal closest to V is the answer
  // if it reads back as V. Else it lies on the other side of V than S, and the two-digit decimal
  // next to it towards S lies between V and S: it reads back as V and is no farther than S.
  Decimal Two = twoDigits(V);
  if (readsBackAs(Two, V))
    return Two;
  Decimal Other = neighbour(Two, less(Two, S));
  return readsBackAs(Other, V) ? Other : S;
}

std::string render(bool Negative, const Decimal& D) {
  std::string Out = Negative ? "-" : "";
  const std::string& G = D.Digits;
  int E = D.Exponent;
  int N = int(G.size());
  if (E >= -3 && E < 7) {
    if (E < 0)
      Out += "0." + std::string(size_t(-E - 1), '0') + G;
    else if (N <= E + 1)
      Out += G + std::string(size_t(E + 1 - N), '0') + ".0";
    else
      Out += G.substr(0, size_t(E + 1)) + "." + G.substr(size_t(E + 1));
    return Out;
  }
  Out += G[0];
  Out += '.';
  Out += N > 1 ? G.substr(1) : "0";
  Out += 'E';
  Out += std::to_string(E);
  return Out;
}

template <class T> std::string format(T V) {
  if (std::isnan(V))
    return "NaN";
  bool Negative = std::signbit(V);
  if (std::isinf(V))
    return Negative ? "-Infinity" : "Infinity";
  if (V == 0)
    return Negative ? "-0.0" : "0.0";
  return render(Negative, javaDecimal(Negative ? -V : V));
}

} // namespace

std::string JavaNumberFormat::formatFloat(float Value) {
  return format(Value);
}

std::string JavaNumberFormat::formatDouble(double Value) {
  return format(Value);
}

} // namespace cajeta::xpu::rt
