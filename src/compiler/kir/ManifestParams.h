// How the host marshals a kernel's parameters, as the manifest (bundle::ParamInfo) says: one
// derivation shared by the manifest writer and the CPU payload's ABI record.
#pragma once

#include "bundle/Manifest.h"
#include "compiler/kir/Kir.h"

#include <vector>

namespace cajeta::kir {

/// Parameter I of kernel Fn of M.
bundle::ParamInfo manifestParam(const Module& M, const Function& Fn, size_t I);
/// Every parameter of Fn.
std::vector<bundle::ParamInfo> manifestParams(const Module& M, const Function& Fn);

} // namespace cajeta::kir
