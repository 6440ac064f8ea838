// The native tile tiers' rules: whether a function's tiles have the form a native tier takes
// (roles, shapes, element types, the products of its macs, the layouts that add and convertFrom
// combine), and what does not fit, with its line, for the [mma-tiering] note. One table of
// rules per tier (NativeRules); the check is written once.
#pragma once

#include "compiler/kir/Kir.h"

#include <string>

namespace cajeta::kir::tiles {

/// mma.sync (NVIDIA sm_80+): float16 or bfloat16 into float32, int8 or uint8 into int32.
bool functionFitsMmaSync(const Function* F, std::string& Why);
/// SPV_KHR_cooperative_matrix (the shapes a device lists are the runtime's to check).
bool functionFitsCoopMatrix(const Function* F, std::string& Why);
/// The CPU's dot products: bfloat16 into float32 with Bf16 (AVX512-BF16), int8 or uint8 into
/// int32 with Int8 (AVX512-VNNI).
bool functionFitsCpuDot(const Function* F, bool Bf16, bool Int8, std::string& Why);

} // namespace cajeta::kir::tiles
