// Builds the portable software BVH of an acceleration structure on its device: a linear BVH
// over Morton codes (Karras 2012) made by the kernels of LbvhKernels.cj, on every backend. The
// same layout (bundle/AccelLayout.h) as BvhBuilder's binned-SAH build on the host, so the same
// traversal reads it; one primitive per leaf, and the primitives BvhBuilder leaves out (a NaN or
// infinite coordinate) are left out here too. Faster to build than the host's SAH tree, slower
// to trace (Embree's LOW quality against its MEDIUM). On a device whose driver loses ordered
// atomics in loops (lavapipe: BackendDevice::orderedAtomicsInLoopsWork) the kernels run on the
// cpu backend and the words are copied to the device.
#pragma once

#include "runtime/accel/BvhBuilder.h"

#include <memory>

namespace cajeta::xpu::rt {

class BackendDevice;
class Buffer;

class LbvhBuilder {
public:
  struct Result {
    std::shared_ptr<Buffer> Words; // the BVH, possibly longer than Stats.Words
    BvhBuilder::Stats Stats;
    double BuildMillis = 0; // the kernels, from the first launch to their completion
  };

  /// Builds S on Device and waits for it. Throws std::invalid_argument for a description that
  /// is not one (as BvhBuilder::build, naming the first triangle with an index out of range),
  /// RuntimeError when the kernels cannot be loaded or fail.
  static Result build(BackendDevice& Device, const BvhBuilder::Scene& S);
};

} // namespace cajeta::xpu::rt
