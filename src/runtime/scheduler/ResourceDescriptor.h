// A submission's resource descriptor (spec 17.8): the kernel's manifest bound to the arguments
// and geometry of one launch — its read, write and accumulate sets and its costs evaluated.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"
#include "runtime/Backend.h"

#include <vector>

namespace cajeta::xpu::rt {

class Kernel;
struct Submission;

/// A launch's costs: its manifest's cost expressions evaluated with its scalar arguments and
/// geometry; -1 each where unknown (no scheduling section, or a cost the manifest cannot state).
struct LaunchCost {
  double BytesRead = -1, BytesWritten = -1, Operations = -1;
};
LaunchCost launchCost(const Kernel& K, const cajeta_xpu_arg* Args, const LaunchGeometry& Geometry);

/// Fills Out; its accesses live in Storage, which the caller keeps until Out is read.
void describeSubmission(const Kernel& K, const cajeta_xpu_arg* Args, size_t Count,
                        const LaunchGeometry& Geometry, const Submission& Sub,
                        std::vector<cajeta_xpu_buffer_access>& Storage,
                        cajeta_xpu_resource_descriptor& Out);

} // namespace cajeta::xpu::rt
