// The device build (CAJETA_XPU_ACCEL_FAST_BUILD, runtime/accel/LbvhBuilder) on the default
// device: the words it leaves in the accel's buffer keep every promise of the layout, the
// reference traversal over them finds what brute force finds, and it leaves out and reports what
// the host build does.
#include "BvhTestSupport.h"

#include "bundle/AccelLayout.h"

#include <cajeta/xpu.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {
namespace {

namespace L = bundle::accel;
using namespace bvhtest;

/// A scene built by the device build, and its words read back.
struct DeviceBvh {
  cajeta_xpu_accel* A = nullptr;
  std::vector<uint32_t> Words;
  ~DeviceBvh() { cajeta_xpu_accel_destroy(A); }
};

cajeta_xpu_accel_desc descOf(const Scene& S) {
  cajeta_xpu_accel_desc D{};
  D.vertices = S.Vertices.data();
  D.vertex_count = S.Vertices.size() / 3;
  D.indices = S.Indices.empty() ? nullptr : S.Indices.data();
  D.triangle_count = S.TriangleCount;
  D.aabbs = S.Aabbs.data();
  D.aabb_count = S.Aabbs.size() / 6;
  D.flags = CAJETA_XPU_ACCEL_FAST_BUILD |
            (S.OpaqueTriangles ? 0u : uint32_t(CAJETA_XPU_ACCEL_NON_OPAQUE_TRIANGLES));
  return D;
}

void buildOnDevice(const Scene& S, DeviceBvh& Out) {
  cajeta_xpu_accel_desc D = descOf(S);
  ASSERT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_AUTO, &Out.A),
            CAJETA_XPU_SUCCESS)
      << cajeta_xpu_last_error();
  uint64_t Bytes = cajeta_xpu_accel_bytes(Out.A);
  ASSERT_EQ(Bytes % 4, 0u);
  cajeta_xpu_buffer* B = cajeta_xpu_accel_buffer(Out.A);
  ASSERT_GE(cajeta_xpu_buffer_count(B), Bytes / 4);
  std::vector<uint32_t> All(cajeta_xpu_buffer_count(B));
  ASSERT_EQ(cajeta_xpu_buffer_read(B, nullptr, All.data(), All.size()), CAJETA_XPU_SUCCESS);
  All.resize(Bytes / 4); // the rest is room for primitives left out
  Out.Words = std::move(All);
}

StructureOptions linear() {
  StructureOptions O;
  O.LeafSize = 1;
  O.SplitsSeparateCentroids = false;
  return O;
}

/// The deepest node's depth (the root is 0).
uint32_t depthOf(const std::vector<uint32_t>& W) {
  if (!W[L::HNodeCount])
    return 0;
  uint32_t Deepest = 0;
  std::vector<std::pair<uint32_t, uint32_t>> Stack = {{0, 0}};
  while (!Stack.empty()) {
    auto [N, Depth] = Stack.back();
    Stack.pop_back();
    Deepest = std::max(Deepest, Depth);
    const uint32_t* Node = &W[W[L::HNodeBase] + N * L::NodeWords];
    if ((Node[L::NodeInfo] & 3) != L::LeafTag) {
      Stack.push_back({Node[L::NodeChild], Depth + 1});
      Stack.push_back({Node[L::NodeChild] + 1, Depth + 1});
    }
  }
  return Deepest;
}

void expectTracesAsBruteForce(const Scene& S, const std::vector<uint32_t>& W, int Rays,
                              uint32_t Seed) {
  BvhReference Bvh(W);
  std::mt19937 Rng(Seed);
  for (int I = 0; I != Rays; ++I)
    expectSameHit(S, Bvh, randomRay(Rng, S, I % 4 != 0), I);
}

TEST(Lbvh, RandomSoupsHaveTheLayoutsStructureAndTraceAsBruteForce) {
  for (uint32_t Seed : {1u, 2u, 3u}) {
    std::vector<float> V = soup(3000, Seed);
    Scene S = soupScene(V);
    DeviceBvh B;
    buildOnDevice(S, B);
    EXPECT_EQ(checkStructure(B.Words, S, linear()), 3000u);
    EXPECT_EQ(cajeta_xpu_accel_node_count(B.A), 5999u);
    EXPECT_EQ(cajeta_xpu_accel_skipped_count(B.A), 0u);
    EXPECT_EQ(cajeta_xpu_accel_triangle_count(B.A), 3000u);
    EXPECT_GE(cajeta_xpu_accel_build_ms(B.A), 0.0);
    expectTracesAsBruteForce(S, B.Words, 400, Seed);
  }
}

// The scene bounds meet as integers ordered like the floats: in positive, negative and
// mixed-sign coordinates the tree is a good one (bounds decoded wrong squeeze the Morton cells,
// and the walks visit twenty times the nodes).
TEST(Lbvh, NegativeAndMixedSignCoordinatesGetTheSameTree) {
  auto visits = [](float Shift) {
    std::vector<float> V = soup(2000, 31, 0.5f);
    for (float& X : V)
      X += Shift;
    Scene S = soupScene(V);
    DeviceBvh B;
    buildOnDevice(S, B);
    EXPECT_EQ(checkStructure(B.Words, S, linear()), 2000u);
    BvhReference Bvh(B.Words);
    std::mt19937 Rng(32);
    BvhReference::Counters Count;
    for (int I = 0; I != 300; ++I) {
      Ray R = randomRay(Rng, S, true);
      for (int A = 0; A < 3; ++A)
        R.Origin[A] += Shift; // randomRay draws origins in [-2, 12]^3
      expectSameHit(S, Bvh, R, I);
      Bvh.trace(R, &Count);
    }
    return double(Count.Nodes);
  };
  // 14,000 to 24,000 nodes for these 300 rays; 400,000 to 570,000 with the positive floats'
  // bounds decoded wrong.
  for (float Shift : {0.0f, -15.0f, -5.0f})
    EXPECT_LT(visits(Shift), 60000.0) << "moved by " << Shift;
}

TEST(Lbvh, AHeightfieldWithIndicesAndNonOpaqueTriangles) {
  Heightfield H(120, 90);
  Scene S = H.scene();
  S.OpaqueTriangles = false;
  DeviceBvh B;
  buildOnDevice(S, B);
  EXPECT_EQ(checkStructure(B.Words, S, linear()), 120u * 90 * 2);
  expectTracesAsBruteForce(S, B.Words, 400, 9);
}

TEST(Lbvh, EmptyOneAndTwoPrimitiveScenes) {
  Scene Empty;
  DeviceBvh E;
  buildOnDevice(Empty, E);
  ASSERT_EQ(E.Words.size(), L::HeaderWords);
  EXPECT_EQ(E.Words[L::HMagic], L::Magic);
  EXPECT_EQ(E.Words[L::HNodeCount], 0u);
  EXPECT_EQ(E.Words[L::HKinds], 0u);
  checkStructure(E.Words, Empty, linear());

  std::vector<float> One = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  Scene S1 = soupScene(One);
  DeviceBvh B1;
  buildOnDevice(S1, B1);
  EXPECT_EQ(B1.Words[L::HNodeCount], 1u);
  EXPECT_EQ(B1.Words[B1.Words[L::HParentBase]], L::NoParent);
  checkStructure(B1.Words, S1, linear());
  expectTracesAsBruteForce(S1, B1.Words, 50, 3);

  std::vector<float> Two = {0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5, 6, 5, 5, 5, 6, 5};
  Scene S2 = soupScene(Two);
  DeviceBvh B2;
  buildOnDevice(S2, B2);
  EXPECT_EQ(checkStructure(B2.Words, S2, linear()), 2u);
  EXPECT_EQ(B2.Words[L::HNodeCount], 3u);
}

// Primitives of one Morton cell are split by their sorted order alone: the tree stays within the
// walk's stack however many share a cell.
TEST(Lbvh, CoincidentCentroidsStayWithinTheStackDepth) {
  std::vector<float> V;
  for (int I = 0; I < 5000; ++I)
    V.insert(V.end(), {0, 0, 0, 1, 0, 0, 0, 1, 0});
  Scene S = soupScene(V);
  DeviceBvh B;
  buildOnDevice(S, B);
  EXPECT_EQ(checkStructure(B.Words, S, linear()), 5000u);
  EXPECT_LT(depthOf(B.Words), L::MaxDepth);
  // Exponentially spaced triangles, as BvhBuilder's test of the same name: most share the
  // lowest Morton cell.
  std::vector<float> E;
  const int Count = 60;
  for (int I = 0; I != Count; ++I) {
    float X = std::pow(1.5f, float(I));
    E.insert(E.end(), {X, 0, 0, 1.25f * X, 0, 0, X, 0.25f * X, 0});
  }
  Scene SE = soupScene(E);
  DeviceBvh BE;
  buildOnDevice(SE, BE);
  checkStructure(BE.Words, SE, linear());
  EXPECT_LT(depthOf(BE.Words), L::MaxDepth);
  BvhReference Bvh(BE.Words);
  for (int I = 0; I != Count; ++I) {
    float X = std::pow(1.5f, float(I));
    BvhReference::Hit H = Bvh.trace(Ray{{1.05f * X, 0.05f * X, X}, {0, 0, -1}, 0, 2 * X});
    ASSERT_TRUE(H.Found) << "triangle " << I;
    EXPECT_EQ(H.Prim, uint32_t(I));
  }
}

TEST(Lbvh, NanAndInfiniteAreLeftOutAndCountedAsByTheHostBuild) {
  std::vector<float> V = soup(200, 11);
  float Nan = std::numeric_limits<float>::quiet_NaN();
  float Inf = std::numeric_limits<float>::infinity();
  V[9 * 3 + 1] = Nan;
  V[9 * 50 + 8] = Inf;
  V[9 * 199] = -Inf;
  std::vector<float> Boxes = {0, 0, 0, 1, 1, 1, Nan, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
  Scene S = soupScene(V);
  S.Aabbs = Boxes;
  DeviceBvh B;
  buildOnDevice(S, B);
  EXPECT_EQ(cajeta_xpu_accel_skipped_count(B.A), 4u);
  EXPECT_EQ(B.Words[L::HPrimCount], 197u + 2u);
  EXPECT_EQ(B.Words[L::HKinds], 3u);
  checkStructure(B.Words, S, linear());
  expectTracesAsBruteForce(S, B.Words, 300, 12);

  // Only boxes, and boxes given max before min (the build orders each pair).
  Scene Only;
  std::vector<float> Flipped = {1, 1, 1, 0, 0, 0, 4, 2, 2, 3, 3, 3};
  Only.Aabbs = Flipped;
  DeviceBvh OB;
  buildOnDevice(Only, OB);
  EXPECT_EQ(OB.Words[L::HKinds], 2u);
  EXPECT_EQ(checkStructure(OB.Words, Only, linear()), 2u);
}

TEST(Lbvh, AnIndexOutOfRangeNamesTheLowestTriangleAndTheIndex) {
  Heightfield H(20, 20);
  H.Indices[3 * 700 + 2] = 5000;
  H.Indices[3 * 301 + 1] = 441; // one past the last vertex
  Scene S = H.scene();
  cajeta_xpu_accel_desc D = descOf(S);
  cajeta_xpu_accel* A = nullptr;
  EXPECT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_AUTO, &A), CAJETA_XPU_ERROR);
  EXPECT_EQ(A, nullptr);
  EXPECT_STREQ(cajeta_xpu_last_error(),
               "acceleration structure: triangle 301: index 441 is out of range (441 vertices)");
  // The host build says the same.
  D.flags = 0;
  EXPECT_EQ(cajeta_xpu_accel_build(nullptr, &D, CAJETA_XPU_AS_IMPL_AUTO, &A), CAJETA_XPU_ERROR);
  EXPECT_STREQ(cajeta_xpu_last_error(),
               "acceleration structure: triangle 301: index 441 is out of range (441 vertices)");
}

// More primitives than one round of the per-primitive kernels' grids (4096 x 256) and hundreds
// of the sort's tiles.
TEST(Lbvh, AMillionTrianglesTakeSeveralGridRounds) {
  std::vector<float> V = soup(1100000, 21, 0.02f);
  Scene S = soupScene(V);
  DeviceBvh B;
  buildOnDevice(S, B);
  EXPECT_EQ(checkStructure(B.Words, S, linear()), 1100000u);
  EXPECT_LT(depthOf(B.Words), L::MaxDepth);
  expectTracesAsBruteForce(S, B.Words, 30, 22);
}

} // namespace
} // namespace cajeta::xpu::rt
