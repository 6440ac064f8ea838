#include "BvhTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <set>

namespace cajeta::xpu::rt::bvhtest {

namespace L = bundle::accel;

float f(uint32_t W) {
  return std::bit_cast<float>(W);
}

std::vector<float> soup(size_t N, uint32_t Seed, float Size) {
  std::mt19937 Rng(Seed);
  std::uniform_real_distribution<float> Pos(0, 10), Off(-Size, Size);
  std::vector<float> V;
  V.reserve(N * 9);
  for (size_t I = 0; I != N; ++I) {
    float C[3] = {Pos(Rng), Pos(Rng), Pos(Rng)};
    for (int K = 0; K < 3; ++K)
      for (int A = 0; A < 3; ++A)
        V.push_back(C[A] + Off(Rng));
  }
  return V;
}

std::vector<float> smallBoxes(size_t N, uint32_t Seed) {
  std::mt19937 Rng(Seed);
  std::uniform_real_distribution<float> Pos(0, 10);
  std::vector<float> Boxes;
  Boxes.reserve(N * 6);
  for (size_t I = 0; I != N; ++I) {
    float X = Pos(Rng), Y = Pos(Rng), Z = Pos(Rng);
    Boxes.insert(Boxes.end(), {X, Y, Z, X + 0.05f, Y + 0.05f, Z + 0.05f});
  }
  return Boxes;
}

Heightfield::Heightfield(uint32_t W, uint32_t H) {
  Vertices.reserve(size_t(W + 1) * (H + 1) * 3);
  for (uint32_t Z = 0; Z <= H; ++Z)
    for (uint32_t X = 0; X <= W; ++X) {
      Vertices.push_back(float(X));
      Vertices.push_back(std::sin(0.37f * X) * std::cos(0.23f * Z) * 3.0f);
      Vertices.push_back(float(Z));
    }
  Indices.reserve(size_t(W) * H * 6);
  for (uint32_t Z = 0; Z != H; ++Z)
    for (uint32_t X = 0; X != W; ++X) {
      uint32_t A = Z * (W + 1) + X, B = A + 1, C = A + W + 1, D = C + 1;
      Indices.insert(Indices.end(), {A, B, C, B, D, C});
    }
}

Scene Heightfield::scene() const {
  Scene S;
  S.Vertices = Vertices;
  S.Indices = Indices;
  S.TriangleCount = Indices.size() / 3;
  return S;
}

namespace {

struct Bounds {
  float Lo[3], Hi[3];
};

/// Checks everything the layout promises; returns the centroid bounds of the subtree of Node.
class StructureCheck {
public:
  StructureCheck(const std::vector<uint32_t>& W, const Scene& S, StructureOptions O)
      : W(W), S(S), LeafSize(O.LeafSize), Separate(O.SplitsSeparateCentroids) {}

  void run() {
    ASSERT_GE(W.size(), L::HeaderWords);
    EXPECT_EQ(W[L::HMagic], L::Magic);
    EXPECT_EQ(W[L::HVersion], L::Version);
    Nodes = W[L::HNodeCount];
    Prims = W[L::HPrimCount];
    EXPECT_EQ(W[L::HNodeBase], L::HeaderWords);
    EXPECT_EQ(W[L::HPrimBase], W[L::HNodeBase] + Nodes * L::NodeWords);
    EXPECT_EQ(W[L::HParentBase], W[L::HPrimBase] + Prims * L::PrimWords);
    EXPECT_EQ(W.size(), size_t(W[L::HParentBase]) + size_t(Nodes));
    EXPECT_EQ(W[L::HNodeBase] % L::NodeBaseAlign, 0u);
    EXPECT_EQ(W[L::HPrimBase] % L::PrimBaseAlign, 0u);
    // The primitives the tree must hold: every finite one of the description, once.
    std::multiset<std::pair<uint32_t, uint32_t>> Expected;
    bool Tris = false, Boxes = false;
    for (size_t T = 0; T != S.TriangleCount; ++T)
      if (BvhBuilder::triangleIsFinite(S, T)) {
        Expected.insert({L::PrimTriangle, uint32_t(T)});
        Tris = true;
      }
    for (size_t B = 0; B != S.Aabbs.size() / 6; ++B)
      if (BvhBuilder::aabbIsFinite(S, B)) {
        Expected.insert({L::PrimAabb, uint32_t(B)});
        Boxes = true;
      }
    EXPECT_EQ(Prims, Expected.size());
    EXPECT_EQ(W[L::HKinds], (Tris ? 1u : 0u) | (Boxes ? 2u : 0u));
    if (!Nodes) {
      EXPECT_EQ(Prims, 0u);
      return;
    }
    SlotSeen.assign(Prims, 0);
    NodeSeen.assign(Nodes, 0);
    EXPECT_EQ(parent(0), L::NoParent);
    Bounds C;
    walk(0, C);
    for (uint32_t N = 0; N != Nodes; ++N)
      EXPECT_EQ(NodeSeen[N], 1) << "node " << N << " is not reached exactly once";
    std::multiset<std::pair<uint32_t, uint32_t>> Got;
    for (uint32_t P = 0; P != Prims; ++P) {
      EXPECT_EQ(SlotSeen[P], 1) << "slot " << P << " is not in exactly one leaf";
      const uint32_t* Slot = prim(P);
      Got.insert({Slot[L::PrimKind], Slot[L::PrimIndex]});
    }
    EXPECT_TRUE(Got == Expected) << "the leaves do not hold each finite primitive once";
  }

  uint32_t Leaves = 0;

private:
  const uint32_t* node(uint32_t N) const { return &W[W[L::HNodeBase] + N * L::NodeWords]; }
  uint32_t parent(uint32_t N) const { return W[W[L::HParentBase] + N]; }
  const uint32_t* prim(uint32_t P) const { return &W[W[L::HPrimBase] + P * L::PrimWords]; }

  static void grow(Bounds& B, const float* P) {
    for (int A = 0; A < 3; ++A) {
      B.Lo[A] = std::min(B.Lo[A], P[A]);
      B.Hi[A] = std::max(B.Hi[A], P[A]);
    }
  }
  static Bounds empty() {
    float I = std::numeric_limits<float>::infinity();
    return Bounds{{I, I, I}, {-I, -I, -I}};
  }
  /// Whether point P lies in node N's box.
  bool inside(uint32_t N, const float* P) const {
    const uint32_t* Node = node(N);
    for (int A = 0; A < 3; ++A)
      if (!(f(Node[A]) <= P[A] && P[A] <= f(Node[3 + A])))
        return false;
    return true;
  }

  void walk(uint32_t N, Bounds& Centroids) {
    ASSERT_LT(N, Nodes);
    ++NodeSeen[N];
    Centroids = empty();
    const uint32_t* Node = node(N);
    uint32_t Info = Node[L::NodeInfo], First = Node[L::NodeChild];
    if ((Info & 3) == L::LeafTag) {
      ++Leaves;
      uint32_t Count = Info >> 2;
      EXPECT_GE(Count, 1u);
      EXPECT_LE(Count, LeafSize);
      ASSERT_LE(uint64_t(First) + Count, Prims);
      for (uint32_t P = First; P != First + Count; ++P) {
        ++SlotSeen[P];
        const uint32_t* Slot = prim(P);
        float Pts[6], C[3];
        if (Slot[L::PrimKind] == L::PrimTriangle) {
          ASSERT_LT(Slot[L::PrimIndex], S.TriangleCount);
          float V[9];
          BvhBuilder::triangle(S, Slot[L::PrimIndex], V);
          for (int K = 0; K < 3; ++K)
            EXPECT_TRUE(inside(N, V + 3 * K)) << "triangle " << Slot[L::PrimIndex];
          EXPECT_EQ(Slot[L::PrimFlags], S.OpaqueTriangles ? L::PrimOpaque : 0u);
          EXPECT_EQ(f(Slot[0]), V[0]);
          EXPECT_EQ(f(Slot[3]), V[3]);
          EXPECT_EQ(f(Slot[8]), V[8]);
          for (int A = 0; A < 3; ++A)
            C[A] = std::min({V[A], V[3 + A], V[6 + A]}) + std::max({V[A], V[3 + A], V[6 + A]});
        } else {
          ASSERT_EQ(Slot[L::PrimKind], L::PrimAabb);
          ASSERT_LT(Slot[L::PrimIndex], S.Aabbs.size() / 6);
          const float* B = &S.Aabbs[6 * Slot[L::PrimIndex]];
          std::copy(B, B + 6, Pts);
          EXPECT_TRUE(inside(N, Pts) && inside(N, Pts + 3)) << "box " << Slot[L::PrimIndex];
          EXPECT_EQ(Slot[L::PrimFlags], 0u);
          for (int A = 0; A < 3; ++A)
            C[A] = Pts[A] + Pts[3 + A];
        }
        grow(Centroids, C);
      }
      return;
    }
    ASSERT_LE(Info, 2u) << "inner node " << N << " has split axis " << Info;
    ASSERT_EQ(First % 2, 1u) << "node " << N << "'s first child " << First << " is even";
    ASSERT_LT(First + 1, Nodes);
    EXPECT_EQ(parent(First), N);
    EXPECT_EQ(parent(First + 1), N);
    for (uint32_t Child : {First, First + 1}) {
      const uint32_t* C = node(Child);
      for (int A = 0; A < 3; ++A) {
        EXPECT_LE(f(Node[A]), f(C[A]));
        EXPECT_GE(f(Node[3 + A]), f(C[3 + A]));
      }
    }
    Bounds Lower, Upper;
    walk(First, Lower);
    walk(First + 1, Upper);
    // The first child holds the lower centroids along the split axis.
    if (Separate) {
      EXPECT_LE(Lower.Hi[Info], Upper.Lo[Info]) << "node " << N;
    }
    for (int A = 0; A < 3; ++A) {
      Centroids.Lo[A] = std::min(Lower.Lo[A], Upper.Lo[A]);
      Centroids.Hi[A] = std::max(Lower.Hi[A], Upper.Hi[A]);
    }
  }

  const std::vector<uint32_t>& W;
  const Scene& S;
  uint32_t LeafSize;
  bool Separate;
  uint32_t Nodes = 0, Prims = 0;
  std::vector<int> SlotSeen, NodeSeen;
};

} // namespace

uint32_t checkStructure(const std::vector<uint32_t>& W, const Scene& S, StructureOptions O) {
  StructureCheck C(W, S, O);
  C.run();
  return C.Leaves;
}

uint32_t checkStructure(const std::vector<uint32_t>& W, const Scene& S, uint32_t LeafSize) {
  StructureOptions O;
  O.LeafSize = LeafSize;
  return checkStructure(W, S, O);
}

Scene soupScene(const std::vector<float>& V) {
  Scene S;
  S.Vertices = V;
  S.TriangleCount = V.size() / 9;
  return S;
}

Ray randomRay(std::mt19937& Rng, const Scene& S, bool Aim) {
  std::uniform_real_distribution<float> Pos(-2, 12), Dir(-1, 1);
  Ray R{{Pos(Rng), Pos(Rng), Pos(Rng)}, {0, 0, 0}, 0.0f, std::numeric_limits<float>::infinity()};
  if (Aim && S.TriangleCount) {
    float V[9];
    BvhBuilder::triangle(S, Rng() % S.TriangleCount, V);
    for (int A = 0; A < 3; ++A)
      R.Dir[A] = (V[A] + V[3 + A] + V[6 + A]) / 3.0f - R.Origin[A];
  } else {
    for (int A = 0; A < 3; ++A)
      R.Dir[A] = Dir(Rng);
  }
  return R;
}

void expectSameHit(const Scene& S, const BvhReference& Bvh, const Ray& R, int RayIndex) {
  BvhReference::Hit Want = BvhReference::bruteForce(S, R);
  BvhReference::Hit Got = Bvh.trace(R);
  ASSERT_EQ(Got.Found, Want.Found) << "ray " << RayIndex;
  if (!Want.Found)
    return;
  EXPECT_LE(std::fabs(Got.T - Want.T), 1e-5f * std::max(1.0f, std::fabs(Want.T)))
      << "ray " << RayIndex;
  if (Got.Prim != Want.Prim) {
    float V[9], T, U, W;
    BvhBuilder::triangle(S, Got.Prim, V);
    EXPECT_TRUE(BvhReference::intersect(R, V, V + 3, V + 6, T, U, W) && T == Got.T)
        << "ray " << RayIndex << ": triangle " << Got.Prim << " instead of " << Want.Prim;
  }
}

} // namespace cajeta::xpu::rt::bvhtest
