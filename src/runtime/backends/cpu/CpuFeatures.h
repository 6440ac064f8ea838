// Checks a payload's target-feature list ("+avx2,+fma,-sse4a") against the host CPU.
#pragma once

#include <string>

namespace cajeta::xpu::rt {

/// The first feature the list requires ("+name") that the host lacks, or "" when all present.
/// Features the host check cannot map are ignored; "-name" entries require nothing.
std::string firstMissingCpuFeature(const std::string& Features);

} // namespace cajeta::xpu::rt
