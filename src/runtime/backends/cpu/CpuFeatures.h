// Checks a payload's target-feature list ("+avx2,+fma,-sse4a") against the host CPU.
#pragma once

#include <string>

namespace cajeta::xpu::rt {

/// The first feature the list requires ("+name") that the host lacks, or "" when all present.
/// Features the host check cannot map are ignored; "-name" entries require nothing.
std::string firstMissingCpuFeature(const std::string& Features);

/// Throws RuntimeError (bundle error) "<What>: compiled for CPU feature '<name>', which this host
/// lacks (payload features: ...); rebuild ..." when a payload compiled for Features (its
/// "features" attribute) cannot run here. What names the payload ("cpu payload").
void requireCpuFeatures(const std::string& Features, const std::string& What);

} // namespace cajeta::xpu::rt
