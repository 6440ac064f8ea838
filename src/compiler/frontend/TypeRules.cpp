// Implicit conversions, numeric promotion and constant ranges.
#include "compiler/frontend/TypeRules.h"

namespace cajeta::frontend {

using kir::ScalarType;
using kir::Type;

std::optional<ScalarType> primitiveByName(const std::string& Name) {
  return bundle::parseScalarType(Name);
}

std::string suggestPrimitive(const std::string& Name) {
  if (Name == "int" || Name == "Integer")
    return "int32";
  if (Name == "long" || Name == "Long")
    return "int64";
  if (Name == "short" || Name == "Short")
    return "int16";
  if (Name == "byte" || Name == "Byte")
    return "int8";
  if (Name == "char")
    return "uint16";
  if (Name == "float" || Name == "Float")
    return "float32";
  if (Name == "double" || Name == "Double")
    return "float64";
  if (Name == "boolean" || Name == "Boolean")
    return "bool";
  if (Name == "unsigned" || Name == "uint")
    return "uint32";
  return "";
}

bool isWidening(Type From, Type To) {
  if (From == To)
    return true;
  if (!From.isScalar() || !To.isScalar() || From.isBool() || To.isBool())
    return false;
  if (From.isInteger() && To.isFloat())
    return To.bits() > 16; // float16 holds too few integers exactly: cast explicitly
  if (From.isFloat())
    return To.isFloat() && To.bits() > From.bits();
  if (From.isSigned() == To.isSigned())
    return To.bits() >= From.bits();
  // unsigned -> strictly wider signed
  return From.isUnsigned() && To.isSigned() && To.bits() > From.bits();
}

Type promoteSmall(Type T) {
  if (T.isInteger() && T.bits() < 32)
    return Type::scalar(ScalarType::I32);
  return T;
}

std::optional<Type> commonNumericType(Type A, Type B) {
  if (!A.isScalar() || !B.isScalar() || A.isBool() || B.isBool())
    return std::nullopt;
  if (A.isFloat() || B.isFloat()) {
    if (!A.isFloat())
      return B;
    if (!B.isFloat())
      return A;
    if (A.bits() == B.bits() && A != B) // float16 and bfloat16: neither holds the other
      return Type::scalar(ScalarType::F32);
    return A.bits() >= B.bits() ? A : B;
  }
  A = promoteSmall(A);
  B = promoteSmall(B);
  if (A.isSigned() == B.isSigned())
    return A.bits() >= B.bits() ? A : B;
  Type S = A.isSigned() ? A : B;
  Type U = A.isSigned() ? B : A;
  if (S.bits() > U.bits())
    return S;
  return std::nullopt;
}

bool integerFits(__int128 V, Type T) {
  if (!T.isInteger())
    return false;
  unsigned Bits = T.bits();
  if (T.isSigned()) {
    __int128 Min = -(static_cast<__int128>(1) << (Bits - 1));
    __int128 Max = (static_cast<__int128>(1) << (Bits - 1)) - 1;
    return V >= Min && V <= Max;
  }
  __int128 Max = (static_cast<__int128>(1) << Bits) - 1;
  return V >= 0 && V <= Max;
}

} // namespace cajeta::frontend
