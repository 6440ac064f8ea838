// System.out.printf's conversions as java.util.Formatter renders them, for one specifier and one
// value of a kernel scalar type (cajeta_host_printf).
#pragma once

#include "cajeta/xpu/FormatSpec.hpp"
#include "cajeta/xpu/cajeta_xpu.h"

#include <cstdint>
#include <string>

namespace cajeta::xpu::rt {

class JavaFormatter {
public:
  /// The text of Spec applied to the value whose type is Type and whose bits are Bits (a signed
  /// integer sign-extended, an unsigned one zero-extended, a float's own bits in the low ones).
  /// Spec was checked against Type by the compiler; a mismatch formats as %s would.
  static std::string format(const FormatSpec& Spec, cajeta_xpu_scalar_type Type, uint64_t Bits);
};

} // namespace cajeta::xpu::rt
