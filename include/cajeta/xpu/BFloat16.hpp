// xpu::bfloat16: the upper half of an IEEE binary32 (sign, 8 exponent bits, 7 mantissa bits),
// with conversions from float and double (round to nearest even) and to float (exact).
#pragma once

#include <cstdint>
#include <cstring>

namespace cajeta::xpu {

class bfloat16 {
public:
  constexpr bfloat16() = default;
  /// Rounds to the nearest bfloat16, ties to even; overflow gives infinity, NaN stays a quiet NaN.
  bfloat16(float F) : Bits(fromFloat(F)) {}
  /// Rounds once, straight from the double (never through a rounded float).
  explicit bfloat16(double D) : Bits(fromDouble(D)) {}
  operator float() const { return toFloat(Bits); }

  static constexpr bfloat16 fromBits(uint16_t B) {
    bfloat16 H;
    H.Bits = B;
    return H;
  }
  constexpr uint16_t bits() const { return Bits; }

  static uint16_t fromFloat(float F) {
    uint32_t X;
    std::memcpy(&X, &F, 4);
    if ((X & 0x7fffffffu) > 0x7f800000u) // NaN: quiet, with the top payload bits
      return uint16_t((X >> 16) | 0x40u);
    // Adding 0x7fff plus the kept lowest bit rounds the dropped half to nearest even; a carry
    // into the exponent is the correct rounding (up to infinity past the largest finite).
    return uint16_t((X + 0x7fffu + ((X >> 16) & 1u)) >> 16);
  }

  /// float64 to bfloat16 rounded once: to float32 rounding to odd (keeps the sticky bit), then
  /// to nearest even; float32's 24 bits are more than 7 + 2, so the result is as if direct.
  static uint16_t fromDouble(double D) {
    float F = float(D); // nearest even
    uint32_t X;
    std::memcpy(&X, &F, 4);
    if (D == D && double(F) != D && (X & 0x7fffffffu) < 0x7f800000u) {
      // Inexact and finite: take the truncation toward zero, then set the lowest bit.
      if (double(F) > D ? F > 0 : F < 0)
        --X; // F rounded away from zero: one step back toward it (F is never 0 here)
      X |= 1u;
      std::memcpy(&F, &X, 4);
    }
    return fromFloat(F);
  }

  static float toFloat(uint16_t H) {
    uint32_t X = uint32_t(H) << 16;
    float F;
    std::memcpy(&F, &X, 4);
    return F;
  }

  friend constexpr bool operator==(bfloat16 A, bfloat16 B) { return A.Bits == B.Bits; }

private:
  uint16_t Bits = 0;
};

static_assert(sizeof(bfloat16) == 2, "bfloat16 is two bytes in buffers");

} // namespace cajeta::xpu
