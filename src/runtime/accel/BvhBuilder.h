// Builds the portable software BVH of an acceleration structure (bundle/AccelLayout.h) on the
// host: binned SAH over triangles and boxes, written as the one uint32 word array the traversal
// reads.
//
// A build uses several threads: the large nodes at the top split with their binning and
// partition spread over chunks, the subtrees below them build as independent jobs, and their
// nodes are numbered as the single-threaded depth-first build numbers them. The words are the
// same whatever the thread count and timing. The thread count is Scene::Threads, else the
// environment variable CAJETA_XPU_BUILD_THREADS (a positive number), else the hardware's
// (std::thread::hardware_concurrency); small scenes build on the calling thread alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace cajeta::xpu::rt {

class BvhBuilder {
public:
  /// What to build over; viewed, not copied. Triangles and boxes are numbered apart.
  struct Scene {
    std::span<const float> Vertices;   // xyz per vertex
    std::span<const uint32_t> Indices; // three per triangle; empty: vertices 3i, 3i+1, 3i+2
    size_t TriangleCount = 0;
    std::span<const float> Aabbs; // min xyz, max xyz per box
    uint32_t MaxLeafSize = 0;     // 0: DefaultLeafSize; at most bundle::accel::MaxLeafSize
    bool OpaqueTriangles = true;  // false: triangle slots carry no PrimOpaque flag
    unsigned Threads = 0;         // 0: CAJETA_XPU_BUILD_THREADS, else the hardware's count
    bool OnDevice = false;        // AccelerationStructure: LbvhBuilder's build, not this one
  };

  struct Stats {
    size_t Triangles = 0; // in the description
    size_t Aabbs = 0;
    size_t Skipped = 0; // primitives left out: a box with a NaN or infinite coordinate
    size_t Prims = 0;   // in the tree
    uint32_t Nodes = 0;
    uint32_t Leaves = 0;
    uint32_t MaxDepth = 0; // the root is depth 0 (the device build leaves it 0: not measured)
    size_t Words = 0;
  };

  static constexpr uint32_t DefaultLeafSize = 4;
  static constexpr uint32_t Bins = 16;

  /// The words of the BVH over S. Throws std::invalid_argument for a description that is not
  /// one (an index out of range names the triangle and the index; a vertex array that is not
  /// xyz triples; a leaf size above the layout's maximum; a BVH above 2^32 words).
  static std::vector<uint32_t> build(const Scene& S, Stats* Out = nullptr);

  /// Where build writes the words: called once with their count, it returns memory for that
  /// many, every one of which build then writes (it need not be zeroed). A device whose memory
  /// the host addresses gives its buffer's memory, so the words are never copied.
  using Storage = std::function<uint32_t*(size_t Words)>;
  /// The same words, written into Into's memory; returns their count.
  static size_t build(const Scene& S, const Storage& Into, Stats* Out = nullptr);

  /// Checks S as build does (throws std::invalid_argument).
  static void validate(const Scene& S);
  /// The same without looking at each index (the device build checks those itself).
  static void validateShape(const Scene& S);
  /// Triangle T's vertices (v0 xyz, v1 xyz, v2 xyz) of a validated scene.
  static void triangle(const Scene& S, size_t T, float Out[9]);
  /// Whether every coordinate of triangle T / box B is finite: the builder leaves out the rest.
  static bool triangleIsFinite(const Scene& S, size_t T);
  static bool aabbIsFinite(const Scene& S, size_t B);
};

} // namespace cajeta::xpu::rt
