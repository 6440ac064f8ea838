// Shared by the BVH tests (BvhBuilderTest, LbvhBuilderTest): scenes, a check of everything the
// layout (bundle/AccelLayout.h) promises, and rays checked against brute force.
#pragma once

#include "bundle/AccelLayout.h"
#include "runtime/accel/BvhBuilder.h"
#include "runtime/accel/BvhReference.h"

#include <cstdint>
#include <random>
#include <vector>

namespace cajeta::xpu::rt::bvhtest {

using Scene = BvhBuilder::Scene;
using Ray = BvhReference::Ray;

float f(uint32_t W);

/// Triangles of sides up to Size around random points of [0, 10]^3, without indices.
std::vector<float> soup(size_t N, uint32_t Seed, float Size = 1.0f);

/// N boxes (min xyz, max xyz) of side 0.05 at random points of [0, 10]^3.
std::vector<float> smallBoxes(size_t N, uint32_t Seed);

/// A W x H grid of cells over [0, W] x [0, H] in x and z, heights in y, two triangles a cell.
struct Heightfield {
  std::vector<float> Vertices;
  std::vector<uint32_t> Indices;
  Heightfield(uint32_t W, uint32_t H);
  Scene scene() const;
};

struct StructureOptions {
  uint32_t LeafSize = 4; // the most primitives a leaf may hold
  /// The first child's centroids lie below the second's along the node's split axis. A linear
  /// BVH splits primitives of one Morton cell by their order alone, so it does not promise it.
  bool SplitsSeparateCentroids = true;
};

/// Checks everything the layout promises of W, a BVH of S (gtest failures); returns the leaves
/// counted.
uint32_t checkStructure(const std::vector<uint32_t>& W, const Scene& S,
                        StructureOptions O = StructureOptions());
uint32_t checkStructure(const std::vector<uint32_t>& W, const Scene& S, uint32_t LeafSize);

Scene soupScene(const std::vector<float>& V);

/// A ray from a random point of [-2, 12]^3: toward a random triangle's centroid when Aim, else in
/// a random direction.
Ray randomRay(std::mt19937& Rng, const Scene& S, bool Aim);

/// The BVH's nearest hit equals brute force: the same hit or miss, t within 1e-5 relative, and
/// the same triangle unless both are hit at that t (a shared edge).
void expectSameHit(const Scene& S, const BvhReference& Bvh, const Ray& R, int RayIndex);

} // namespace cajeta::xpu::rt::bvhtest
