// Builds bundles around the hand-written test kernel library, for the runtime tests.
#pragma once

#include "bundle/Manifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::xpu::test {

/// The Program describing TestKernels.c (K.saxpy, K.coords, K.sleepy, K.checked, K.scalars,
/// K.align, and the device-subset kernels K.pod, K.apply, K.half, K.dynamic, K.deep, K.sharedOob;
/// K.fast is @Backend("cuda") with no CPU code)
/// with the bytes of the built shared object as its cpu-x86_64 payload.
bundle::Program makeTestProgram();

/// BundleWriter::write(makeTestProgram()).
std::vector<uint8_t> testBundleBytes();

} // namespace cajeta::xpu::test
