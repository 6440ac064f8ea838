// The built-in classes of cajeta.xpu that kernel code calls (KernelThread, Workgroup, Math, ...)
// and the intrinsic each static method maps to.
#pragma once

#include "compiler/kir/Kir.h"

#include <optional>
#include <string>

namespace cajeta::frontend {

struct BuiltinMethod {
  kir::IntrinsicOp Op;
  uint8_t Dim = 0;    // geometry dimension
  unsigned Arity = 0; // number of arguments
  bool IsGeometry = false;
};

/// Classes of package cajeta.xpu a program may import (including host-side ones).
bool isXpuClass(const std::string& Name);

/// Built-in classes kernel code may call statics on; Math needs no import.
bool isBuiltinClass(const std::string& Name);
bool builtinNeedsImport(const std::string& Name);

/// The intrinsic behind Class.method, if any.
std::optional<BuiltinMethod> findBuiltin(const std::string& Class, const std::string& Method);

/// cajeta.xpu classes that exist in the spec but not yet in this compiler, with the reason.
std::optional<std::string> unsupportedXpuClass(const std::string& Name);

} // namespace cajeta::frontend
