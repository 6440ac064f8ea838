// Float.toString and Double.toString as Java (JDK 19 and later) print them.
#pragma once

#include <string>

namespace cajeta::xpu::rt {

/// Java's rendering of float32 and float64 values: the shortest decimal that reads back to the
/// same value (of one or two digits when one would do, whichever is closer), in plain notation
/// with at least one fraction digit for 1e-3 <= |d| < 1e7 ("3.0", "0.001", "1234567.0"), else as
/// d.dddE[-]n ("1.0E7", "1.234E-5"); "NaN", "Infinity", "-Infinity", "0.0", "-0.0".
class JavaNumberFormat {
public:
  static std::string formatFloat(float Value);
  static std::string formatDouble(double Value);
};

} // namespace cajeta::xpu::rt
