// BvhBuilder and BvhReference: the BVH's structure (bundle/AccelLayout.h) on random, regular and
// broken scenes, and the reference traversal against brute force.
#include "runtime/accel/BvhBuilder.h"
#include "bundle/AccelLayout.h"
#include "runtime/accel/BvhReference.h"

#include "BvhTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <set>
#include <vector>

namespace cajeta::xpu::rt {
namespace {

namespace L = bundle::accel;
using namespace bvhtest;

TEST(BvhBuilder, RandomSoupHasTheLayoutsStructure) {
  for (uint32_t Seed : {1u, 2u, 3u}) {
    std::vector<float> V = soup(3000, Seed);
    Scene S = soupScene(V);
    BvhBuilder::Stats Stats;
    std::vector<uint32_t> W = BvhBuilder::build(S, &Stats);
    checkStructure(W, S);
    EXPECT_EQ(Stats.Prims, 3000u);
    EXPECT_EQ(Stats.Skipped, 0u);
    EXPECT_EQ(Stats.Nodes, W[L::HNodeCount]);
    EXPECT_EQ(Stats.Words, W.size());
    EXPECT_EQ(Stats.Nodes, 2 * Stats.Leaves - 1);
  }
}

TEST(BvhBuilder, LeafSizesFromOneToTheLayoutsMaximum) {
  std::vector<float> V = soup(500, 7);
  for (uint32_t Leaf : {1u, 2u, 8u, L::MaxLeafSize}) {
    Scene S = soupScene(V);
    S.MaxLeafSize = Leaf;
    std::vector<uint32_t> W = BvhBuilder::build(S);
    uint32_t Leaves = checkStructure(W, S, Leaf);
    if (Leaf == 1) {
      EXPECT_EQ(Leaves, 500u);
    }
  }
  Scene S = soupScene(V);
  S.MaxLeafSize = L::MaxLeafSize + 1;
  EXPECT_THROW(BvhBuilder::build(S), std::invalid_argument);
}

TEST(BvhBuilder, NonOpaqueTrianglesCarryNoOpaqueFlag) {
  std::vector<float> V = soup(50, 4);
  Scene S = soupScene(V);
  S.OpaqueTriangles = false;
  checkStructure(BvhBuilder::build(S), S);
}

TEST(BvhBuilder, EmptySceneHasNoNodes) {
  Scene S;
  BvhBuilder::Stats Stats;
  std::vector<uint32_t> W = BvhBuilder::build(S, &Stats);
  ASSERT_EQ(W.size(), L::HeaderWords);
  EXPECT_EQ(W[L::HNodeCount], 0u);
  EXPECT_EQ(W[L::HPrimCount], 0u);
  EXPECT_EQ(W[L::HKinds], 0u);
  checkStructure(W, S);
  BvhReference Bvh(W);
  EXPECT_FALSE(Bvh.trace(Ray{{0, 0, 0}, {1, 0, 0}, 0, 1e30f}).Found);
}

TEST(BvhBuilder, OneTriangleIsARootLeaf) {
  std::vector<float> V = {0, 0, 0, 1, 0, 0, 0, 1, 0};
  Scene S = soupScene(V);
  std::vector<uint32_t> W = BvhBuilder::build(S);
  checkStructure(W, S);
  ASSERT_EQ(W[L::HNodeCount], 1u);
  EXPECT_EQ(W[L::HeaderWords + L::NodeInfo], (1u << 2) | L::LeafTag);
  BvhReference::Hit H = BvhReference(W).trace(Ray{{0.25f, 0.25f, 1}, {0, 0, -1}, 0, 10});
  ASSERT_TRUE(H.Found);
  EXPECT_EQ(H.T, 1.0f);
  EXPECT_EQ(H.U, 0.25f);
  EXPECT_EQ(H.V, 0.25f);
  EXPECT_EQ(H.Prim, 0u);
  // tmax is exclusive, tmin inclusive.
  EXPECT_FALSE(BvhReference(W).trace(Ray{{0.25f, 0.25f, 1}, {0, 0, -1}, 0, 1.0f}).Found);
  EXPECT_TRUE(BvhReference(W).trace(Ray{{0.25f, 0.25f, 1}, {0, 0, -1}, 1.0f, 2.0f}).Found);
}

TEST(BvhBuilder, CoincidentCentroidsSplitAtTheMedian) {
  std::vector<float> V;
  for (int I = 0; I != 100; ++I) // the same triangle, 100 times
    V.insert(V.end(), {0, 0, 0, 1, 0, 0, 0, 1, 0});
  Scene S = soupScene(V);
  std::vector<uint32_t> W = BvhBuilder::build(S);
  checkStructure(W, S);
  BvhReference::Hit H = BvhReference(W).trace(Ray{{0.2f, 0.2f, 5}, {0, 0, -1}, 0, 100});
  ASSERT_TRUE(H.Found);
  EXPECT_EQ(H.Prim, 0u); // equal t: the lowest index
}

/// Triangles at exponentially growing distances, one per leaf: each is found, and the tree fits
/// a walk's stack of MaxDepth entries (the builder halves instead of SAH splitting once a tree
/// gets that deep; no scene here drives SAH that deep, so the halving itself is not exercised).
TEST(BvhBuilder, ExponentialSpacingStaysWithinTheStackDepth) {
  std::vector<float> V;
  // At x = 1.5^i, up to 3.7e10: within the float range of the triangle test (its t is a
  // product of three coordinates over two, so coordinates stay below about 1e12).
  const int Count = 60;
  for (int I = 0; I != Count; ++I) {
    float X = std::pow(1.5f, float(I));
    V.insert(V.end(), {X, 0, 0, 1.25f * X, 0, 0, X, 0.25f * X, 0});
  }
  Scene S = soupScene(V);
  S.MaxLeafSize = 1;
  BvhBuilder::Stats Stats;
  std::vector<uint32_t> W = BvhBuilder::build(S, &Stats);
  checkStructure(W, S);
  EXPECT_LT(Stats.MaxDepth, L::MaxDepth);
  for (int I = 0; I != Count; ++I) {
    float X = std::pow(1.5f, float(I));
    Ray R{{1.05f * X, 0.05f * X, X}, {0, 0, -1}, 0, 2 * X};
    BvhReference::Hit H = BvhReference(W).trace(R);
    ASSERT_TRUE(H.Found) << "triangle " << I;
    EXPECT_EQ(H.Prim, uint32_t(I));
  }
}

TEST(BvhBuilder, DegenerateTrianglesAreKeptAndNeverHit) {
  // Triangle 0 is a point, 1 a segment along x, 2 a segment along z: zero area each.
  std::vector<float> Flat = {2, 2, 2, 2, 2, 2, 2, 2, 2, //
                             1, 2, 2, 2, 2, 2, 3, 2, 2, //
                             2, 2, 1, 2, 2, 3, 2, 2, 2};
  Scene Degenerate = soupScene(Flat);
  std::vector<uint32_t> W = BvhBuilder::build(Degenerate);
  checkStructure(W, Degenerate);
  EXPECT_EQ(W[L::HPrimCount], 3u);
  BvhReference Only(W);
  for (Ray R : {Ray{{2, 2, -5}, {0, 0, 1}, 0, 100}, Ray{{2, -5, 2}, {0, 1, 0}, 0, 100},
                Ray{{0, 2, 2}, {1, 0, 0}, 0, 100}, Ray{{0, 0, 0}, {1, 1, 1}, 0, 100}})
    EXPECT_FALSE(Only.trace(R).Found);

  std::vector<float> V = soup(200, 9);
  V.insert(V.begin(), Flat.begin(), Flat.end());
  Scene S = soupScene(V);
  BvhBuilder::Stats Stats;
  W = BvhBuilder::build(S, &Stats);
  checkStructure(W, S);
  EXPECT_EQ(Stats.Skipped, 0u);
  BvhReference Bvh(W);
  std::mt19937 Rng(5);
  for (int I = 0; I != 300; ++I)
    expectSameHit(S, Bvh, randomRay(Rng, S, I % 2), I);
}

TEST(BvhBuilder, NanAndInfiniteTrianglesAreLeftOutAndCounted) {
  std::vector<float> V = soup(300, 11);
  V[9 * 5 + 4] = std::numeric_limits<float>::quiet_NaN();
  V[9 * 17 + 0] = std::numeric_limits<float>::infinity();
  V[9 * 18 + 8] = -std::numeric_limits<float>::infinity();
  for (int K = 0; K < 9; ++K) // one all NaN
    V[9 * 40 + K] = std::numeric_limits<float>::quiet_NaN();
  Scene S = soupScene(V);
  BvhBuilder::Stats Stats;
  std::vector<uint32_t> W = BvhBuilder::build(S, &Stats);
  checkStructure(W, S);
  EXPECT_EQ(Stats.Skipped, 4u);
  EXPECT_EQ(Stats.Prims, 296u);
  std::mt19937 Rng(6);
  BvhReference Bvh(W);
  for (int I = 0; I != 300; ++I)
    expectSameHit(S, Bvh, randomRay(Rng, S, I % 2), I);

  std::vector<float> AllNan(27, std::numeric_limits<float>::quiet_NaN());
  Scene Nothing = soupScene(AllNan);
  W = BvhBuilder::build(Nothing, &Stats);
  EXPECT_EQ(W[L::HNodeCount], 0u);
  EXPECT_EQ(Stats.Skipped, 3u);
}

TEST(BvhBuilder, IndexOutOfRangeNamesTheTriangleAndTheIndex) {
  std::vector<float> V = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
  std::vector<uint32_t> I = {0, 1, 2, 1, 7, 2};
  Scene S;
  S.Vertices = V;
  S.Indices = I;
  S.TriangleCount = 2;
  try {
    BvhBuilder::build(S);
    FAIL() << "no error";
  } catch (const std::invalid_argument& E) {
    std::string M = E.what();
    EXPECT_NE(M.find("triangle 1"), std::string::npos) << M;
    EXPECT_NE(M.find("index 7"), std::string::npos) << M;
    EXPECT_NE(M.find("4 vertices"), std::string::npos) << M;
  }
  S.TriangleCount = 3; // six indices for three triangles
  EXPECT_THROW(BvhBuilder::build(S), std::invalid_argument);
  Scene NoIndices;
  NoIndices.Vertices = V; // four vertices: one triangle
  NoIndices.TriangleCount = 2;
  EXPECT_THROW(BvhBuilder::build(NoIndices), std::invalid_argument);
  std::vector<float> Odd = {0, 0};
  Scene BadVertices;
  BadVertices.Vertices = Odd;
  EXPECT_THROW(BvhBuilder::build(BadVertices), std::invalid_argument);
}

TEST(BvhBuilder, AabbOnlyAndMixedScenesBuild) {
  std::mt19937 Rng(12);
  std::uniform_real_distribution<float> Pos(0, 10), Size(0, 0.5f);
  std::vector<float> Boxes;
  for (int I = 0; I != 400; ++I) {
    float C[3] = {Pos(Rng), Pos(Rng), Pos(Rng)};
    for (int A = 0; A < 3; ++A)
      Boxes.push_back(C[A] - Size(Rng));
    for (int A = 0; A < 3; ++A)
      Boxes.push_back(C[A] + Size(Rng));
  }
  Boxes[6 * 9 + 2] = std::numeric_limits<float>::quiet_NaN();
  Scene OnlyBoxes;
  OnlyBoxes.Aabbs = Boxes;
  BvhBuilder::Stats Stats;
  std::vector<uint32_t> W = BvhBuilder::build(OnlyBoxes, &Stats);
  checkStructure(W, OnlyBoxes);
  EXPECT_EQ(Stats.Skipped, 1u);
  EXPECT_EQ(W[L::HKinds], 2u);
  EXPECT_FALSE(BvhReference(W).trace(Ray{{5, 5, -1}, {0, 0, 1}, 0, 1e30f}).Found);

  std::vector<float> V = soup(300, 13);
  Scene Mixed = soupScene(V);
  Mixed.Aabbs = Boxes;
  W = BvhBuilder::build(Mixed, &Stats);
  checkStructure(W, Mixed);
  EXPECT_EQ(W[L::HKinds], 3u);
  EXPECT_EQ(Stats.Prims, 699u);
  BvhReference Bvh(W);
  for (int I = 0; I != 300; ++I)
    expectSameHit(Mixed, Bvh, randomRay(Rng, Mixed, I % 2), I);
}

TEST(BvhReference, EqualsBruteForceOnRandomSoups) {
  for (uint32_t Seed : {21u, 22u, 23u}) {
    std::vector<float> V = soup(2000, Seed, Seed == 23 ? 4.0f : 1.0f);
    Scene S = soupScene(V);
    std::vector<uint32_t> W = BvhBuilder::build(S);
    BvhReference Bvh(W);
    std::mt19937 Rng(Seed);
    for (int I = 0; I != 2000; ++I)
      expectSameHit(S, Bvh, randomRay(Rng, S, I % 2), I);
  }
}

TEST(BvhReference, EqualsBruteForceOnAHeightfield) {
  Heightfield H(32, 32);
  Scene S = H.scene();
  std::vector<uint32_t> W = BvhBuilder::build(S);
  checkStructure(W, S);
  BvhReference Bvh(W);
  std::mt19937 Rng(31);
  std::uniform_real_distribution<float> Over(0, 32), Dir(-1, 1);
  for (int I = 0; I != 2000; ++I) {
    Ray R{{Over(Rng), 6.0f, Over(Rng)}, {Dir(Rng), -1.0f, Dir(Rng)}, 0, 1e30f};
    if (I % 4 == 0) // grazing rays from the side, and axis-parallel ones
      R = Ray{{-1.0f, Dir(Rng) * 3, Over(Rng)}, {1.0f, Dir(Rng) * 0.1f, 0.0f}, 0, 1e30f};
    if (I % 4 == 1)
      R = Ray{{Over(Rng), 5.0f, Over(Rng)}, {0, -1, 0}, 0, 1e30f};
    expectSameHit(S, Bvh, R, I);
  }
}

TEST(BvhReference, RejectsWordsThatAreNotABvh) {
  std::vector<uint32_t> W(L::HeaderWords, 0);
  EXPECT_THROW(BvhReference{W}, std::invalid_argument);
  Scene S;
  W = BvhBuilder::build(S);
  W[L::HNodeCount] = 5;
  EXPECT_THROW(BvhReference{W}, std::invalid_argument);
}

/// The words do not depend on the thread count: scenes above the size that builds on one
/// thread, with left-out primitives spread through them (the refs are compacted across chunks).
TEST(BvhBuilder, ThreadCountsGiveTheSameWords) {
  Heightfield H(200, 200); // 80000 triangles
  std::vector<float> V = soup(60000, 51, 0.2f);
  for (size_t I = 0; I < V.size(); I += 9 * 997)
    V[I + 4] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> Boxes = smallBoxes(20000, 52);
  Scene Mixed = soupScene(V);
  Mixed.Aabbs = Boxes;
  for (Scene S : {H.scene(), Mixed}) {
    S.Threads = 1;
    BvhBuilder::Stats One;
    std::vector<uint32_t> Want = BvhBuilder::build(S, &One);
    checkStructure(Want, S);
    EXPECT_LT(One.MaxDepth, L::MaxDepth);
    for (unsigned Threads : {2u, 3u, 4u, 16u}) {
      S.Threads = Threads;
      BvhBuilder::Stats Many;
      std::vector<uint32_t> Got = BvhBuilder::build(S, &Many);
      EXPECT_TRUE(Got == Want) << Threads << " threads";
      EXPECT_EQ(Many.Leaves, One.Leaves);
      EXPECT_EQ(Many.MaxDepth, One.MaxDepth);
      EXPECT_EQ(Many.Skipped, One.Skipped);
    }
    // Threads 0: the environment's count.
    S.Threads = 0;
    setenv("CAJETA_XPU_BUILD_THREADS", "4", 1);
    std::vector<uint32_t> Env = BvhBuilder::build(S);
    unsetenv("CAJETA_XPU_BUILD_THREADS");
    EXPECT_TRUE(Env == Want);
  }
}

/// The storage form writes every word of memory it did not zero (filled with two different
/// patterns here, the words must come out alike and equal to the vector form's), and asks once.
TEST(BvhBuilder, StorageFormWritesEveryWord) {
  std::vector<float> V = soup(40000, 61, 0.2f);
  std::vector<float> Boxes = smallBoxes(5000, 62);
  Scene S = soupScene(V);
  S.Aabbs = Boxes;
  S.Threads = 2;
  std::vector<uint32_t> Want = BvhBuilder::build(S);
  for (uint32_t Fill : {0xDEADBEEFu, 0xFFFFFFFFu}) {
    std::vector<uint32_t> Got;
    int Calls = 0;
    size_t Count = BvhBuilder::build(S, [&](size_t N) {
      ++Calls;
      Got.assign(N, Fill);
      return Got.data();
    });
    EXPECT_EQ(Calls, 1);
    EXPECT_EQ(Count, Want.size());
    EXPECT_TRUE(Got == Want) << std::hex << Fill;
  }
}

/// 2M triangles (a 1000 x 1000 heightfield): the build time, printed; the structure spot-checked.
TEST(BvhBuilder, TwoMillionTriangleHeightfield) {
  Heightfield H(1000, 1000);
  Scene S = H.scene();
  BvhBuilder::Stats Stats;
  auto Start = std::chrono::steady_clock::now();
  std::vector<uint32_t> W = BvhBuilder::build(S, &Stats);
  double Ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start).count();
  std::printf("2M-triangle heightfield: %.1f ms, %u nodes, %u leaves, depth %u, %.1f MiB\n", Ms,
              Stats.Nodes, Stats.Leaves, Stats.MaxDepth, Stats.Words * 4.0 / (1 << 20));
  RecordProperty("build_ms", std::to_string(Ms));
  // On one thread: the same words.
  S.Threads = 1;
  Start = std::chrono::steady_clock::now();
  std::vector<uint32_t> One = BvhBuilder::build(S);
  double OneMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start).count();
  std::printf("  on one thread: %.1f ms\n", OneMs);
  RecordProperty("build_ms_one_thread", std::to_string(OneMs));
  EXPECT_TRUE(One == W);
  One = {};
  EXPECT_EQ(Stats.Prims, 2000000u);
  EXPECT_EQ(Stats.Nodes, 2 * Stats.Leaves - 1);
  BvhReference Bvh(W);
  std::mt19937 Rng(41);
  std::uniform_real_distribution<float> Over(1, 998); // the rays land inside the grid
  BvhReference::Counters Count;
  for (int I = 0; I != 1000; ++I) {
    Ray R{{Over(Rng), 10.0f, Over(Rng)}, {0.1f, -1.0f, 0.05f}, 0, 1e30f};
    BvhReference::Hit Hit = Bvh.trace(R, &Count);
    if (!Hit.Found) {
      BvhReference::Hit Want = BvhReference::bruteForce(S, R);
      FAIL() << "ray " << I << " misses; brute force: " << (Want.Found ? "a hit" : "a miss");
    }
    float V[9];
    BvhBuilder::triangle(S, Hit.Prim, V);
    float P[3] = {R.Origin[0] + Hit.T * R.Dir[0], R.Origin[2] + Hit.T * R.Dir[2]};
    // The hit point lies over the triangle's cell.
    EXPECT_NEAR(P[0], (V[0] + V[3] + V[6]) / 3, 1.0f);
    EXPECT_NEAR(P[1], (V[2] + V[5] + V[8]) / 3, 1.0f);
  }
  std::printf("  %.1f nodes and %.1f triangles visited per ray\n", Count.Nodes / 1000.0,
              Count.Triangles / 1000.0);
}

} // namespace
} // namespace cajeta::xpu::rt
