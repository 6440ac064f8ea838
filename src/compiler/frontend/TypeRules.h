// The language's type rules: which conversions are implicit, the common type of a binary
// operation, and whether a constant fits a type. Pure functions over kir::Type.
#pragma once

#include "compiler/kir/Kir.h"

#include <optional>
#include <string>

namespace cajeta::frontend {

/// The scalar type a written name denotes ("float32" -> F32); nullopt if it is not one.
std::optional<kir::ScalarType> primitiveByName(const std::string& Name);

/// For Java/C spellings ("int", "double"), the Cajeta type to suggest; empty otherwise.
std::string suggestPrimitive(const std::string& Name);

/// An implicit (widening) conversion from From to To exists.
bool isWidening(kir::Type From, kir::Type To);

/// Integers narrower than 32 bits promote to int32 in arithmetic (Java's rule).
kir::Type promoteSmall(kir::Type T);

/// The type both operands of an arithmetic or comparison operator convert to; nullopt when
/// there is none (bool with a number, or signed and unsigned of the same promoted width).
std::optional<kir::Type> commonNumericType(kir::Type A, kir::Type B);

/// An integer constant (in 128 bits so that every uint64 and int64 fits) fits in T.
bool integerFits(__int128 Value, kir::Type T);

} // namespace cajeta::frontend
