// A host model of the software ray query over a BVH's words (bundle/AccelLayout.h): the nearest
// triangle hit of one ray, for tests and benchmarks, and a brute-force oracle over the scene.
#pragma once

#include "runtime/accel/BvhBuilder.h"

#include <cstdint>
#include <span>

namespace cajeta::xpu::rt {

class BvhReference {
public:
  struct Ray {
    float Origin[3];
    float Dir[3];
    float TMin;
    float TMax;
  };

  /// The nearest triangle hit: t, barycentrics (hit point = (1 - u - v) v0 + u v1 + v v2) and the
  /// triangle's index in the description. Boxes are not intersected (they need the kernel's
  /// own test).
  struct Hit {
    bool Found = false;
    float T = 0, U = 0, V = 0;
    uint32_t Prim = 0;
  };

  /// What a trace visited, for benchmarks.
  struct Counters {
    uint64_t Nodes = 0;
    uint64_t Triangles = 0;
  };

  /// Throws std::invalid_argument when Words is not a BVH of this layout (magic, version,
  /// sections out of range).
  explicit BvhReference(std::span<const uint32_t> Words);

  /// Near-child-first traversal with a stack. The box test widens each slab's far end by a few
  /// ulps so rounding never culls a box a triangle hit lies in. Ties in t go to the lower index.
  Hit trace(const Ray& R, Counters* Count = nullptr) const;

  /// The watertight test of Woop, Benthin and Wald (2013), as the kernels' traversal computes
  /// it: the vertices in a frame sheared along the ray, edge functions U, V, W whose signs
  /// decide (zero counts as inside, so a shared edge or vertex is never missed), det = U + V + W
  /// == 0 a miss, TMin <= t < TMax; u = V / det, v = W / det. V0, V1, V2: xyz each.
  static bool intersect(const Ray& R, const float* V0, const float* V1, const float* V2, float& T,
                        float& U, float& V);

  /// Every triangle of S that the builder keeps (finite coordinates), tested in turn.
  static Hit bruteForce(const BvhBuilder::Scene& S, const Ray& R);

private:
  std::span<const uint32_t> Words;
  uint32_t NodeCount, PrimCount, NodeBase, PrimBase;
};

} // namespace cajeta::xpu::rt
