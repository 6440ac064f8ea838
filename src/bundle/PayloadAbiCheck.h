// Holds each kernel's manifest against the code object it describes, before a driver sees it: a
// manifest whose parameters disagree with the payload would otherwise marshal the wrong bytes
// into running code. Covers the PTX entries' parameter lists and the SPIR-V kernels' attributes
// and interfaces. A CPU payload's record (KernelAbiRecord.h) is checked by the loader on the
// loaded object.
#pragma once

#include "bundle/Manifest.h"

#include <string>

namespace cajeta::bundle {

class PayloadAbiCheck {
public:
  /// Every kernel of P that has a manifest under Target ("nvptx-sm_90", "spirv", ...) against
  /// the payload that holds its code; "" or the first disagreement, naming the kernel, the
  /// parameter and both sides. Targets without a check here (the CPU's) pass.
  static std::string checkTarget(const Program& P, const std::string& Target);
  /// checkTarget for every target any manifest names.
  static std::string checkProgram(const Program& P);
};

} // namespace cajeta::bundle
