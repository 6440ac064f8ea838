// The KIR tests' front end: Sema's module for a source text, as the compiler makes it.
#pragma once

#include "compiler/kir/Kir.h"

#include <memory>
#include <string>

namespace cajeta::kir {

/// Sema's module for Source (named FileName in diagnostics), or null; Diags holds the rendered
/// diagnostics either way.
std::unique_ptr<Module> kirFromSource(const std::string& FileName, const std::string& Source,
                                      std::string& Diags);

/// Sema's module for `class K { Body }` (importing cajeta.xpu), or null with a test failure
/// that shows the diagnostics.
std::unique_ptr<Module> kirOfClassK(const std::string& Body);

} // namespace cajeta::kir
