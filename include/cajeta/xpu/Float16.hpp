// xpu::float16: IEEE binary16 storage with conversions from/to float (round to nearest even).
#pragma once

#include <cstdint>
#include <cstring>

namespace cajeta::xpu {

class float16 {
public:
  constexpr float16() = default;
  /// Rounds to the nearest binary16, ties to even; overflow gives infinity, NaN stays NaN.
  float16(float F) : Bits(fromFloat(F)) {}
  operator float() const { return toFloat(Bits); }

  static constexpr float16 fromBits(uint16_t B) {
    float16 H;
    H.Bits = B;
    return H;
  }
  constexpr uint16_t bits() const { return Bits; }

  static uint16_t fromFloat(float F) {
    uint32_t X;
    std::memcpy(&X, &F, 4);
    uint16_t Sign = uint16_t((X >> 16) & 0x8000u);
    uint32_t Abs = X & 0x7fffffffu;
    if (Abs > 0x7f800000u) // NaN: keep a quiet NaN with the top payload bits
      return uint16_t(Sign | 0x7e00u | ((Abs >> 13) & 0x3ffu));
    if (Abs >= 0x477ff000u) // rounds to above the largest finite half (65504)
      return uint16_t(Sign | 0x7c00u);
    if (Abs < 0x38800000u) { // below the smallest normal half: subnormal or zero
      if (Abs < 0x33000000u) // below half of the smallest subnormal (2^-25): zero
        return Sign;
      uint32_t Exp = Abs >> 23;
      uint32_t Mant = (Abs & 0x7fffffu) | 0x800000u;
      uint32_t Shift = 126 - Exp; // 14 .. 24: value = Mant * 2^(Exp - 150), half ulp = 2^-24
      uint32_t Half = Mant >> Shift;
      uint32_t Rest = Mant & ((1u << Shift) - 1);
      uint32_t Mid = 1u << (Shift - 1);
      if (Rest > Mid || (Rest == Mid && (Half & 1)))
        ++Half;
      return uint16_t(Sign | Half);
    }
    // Normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even.
    uint32_t Rebased = Abs - ((127u - 15u) << 23);
    uint32_t Half = Rebased >> 13;
    uint32_t Rest = Rebased & 0x1fffu;
    if (Rest > 0x1000u || (Rest == 0x1000u && (Half & 1)))
      ++Half; // a carry into the exponent is the correct rounding (up to infinity)
    return uint16_t(Sign | Half);
  }

  static float toFloat(uint16_t H) {
    uint32_t Sign = uint32_t(H & 0x8000u) << 16;
    uint32_t Exp = (H >> 10) & 0x1fu;
    uint32_t Mant = H & 0x3ffu;
    uint32_t X;
    if (Exp == 0x1f) {
      X = Sign | 0x7f800000u | (Mant << 13);
    } else if (Exp != 0) {
      X = Sign | ((Exp + 127 - 15) << 23) | (Mant << 13);
    } else if (Mant == 0) {
      X = Sign;
    } else { // subnormal: normalise
      Exp = 127 - 15 + 1;
      while (!(Mant & 0x400u)) {
        Mant <<= 1;
        --Exp;
      }
      X = Sign | (Exp << 23) | ((Mant & 0x3ffu) << 13);
    }
    float F;
    std::memcpy(&F, &X, 4);
    return F;
  }

  friend constexpr bool operator==(float16 A, float16 B) { return A.Bits == B.Bits; }

private:
  uint16_t Bits = 0;
};

static_assert(sizeof(float16) == 2, "float16 is two bytes in buffers");

} // namespace cajeta::xpu
