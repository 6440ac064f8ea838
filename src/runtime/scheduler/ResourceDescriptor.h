// A submission's resource descriptor (spec 17.8): the kernel's manifest bound to the arguments
// and geometry of one launch — its read, write and accumulate sets and its costs evaluated.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"
#include "runtime/Backend.h"

#include <vector>

namespace cajeta::xpu::rt {

class Kernel;
struct Submission;

/// Fills Out; its accesses live in Storage, which the caller keeps until Out is read.
void describeSubmission(const Kernel& K, const cajeta_xpu_arg* Args, size_t Count,
                        const LaunchGeometry& Geometry, const Submission& Sub,
                        std::vector<cajeta_xpu_buffer_access>& Storage,
                        cajeta_xpu_resource_descriptor& Out);

} // namespace cajeta::xpu::rt
