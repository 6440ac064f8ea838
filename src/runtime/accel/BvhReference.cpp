// The reference traversal: a stack walk over the BVH's words and Möller–Trumbore per triangle.
#include "runtime/accel/BvhReference.h"

#include "bundle/AccelLayout.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cajeta::xpu::rt {

namespace L = bundle::accel;

namespace {

inline float asFloat(uint32_t W) {
  return std::bit_cast<float>(W);
}

inline void cross(const float* A, const float* B, float* Out) {
  Out[0] = A[1] * B[2] - A[2] * B[1];
  Out[1] = A[2] * B[0] - A[0] * B[2];
  Out[2] = A[0] * B[1] - A[1] * B[0];
}

inline float dot(const float* A, const float* B) {
  return A[0] * B[0] + A[1] * B[1] + A[2] * B[2];
}

/// Whether the box of Node overlaps [TNear, TFar] of the ray. A NaN slab end (a zero direction
/// component with the origin on the slab's plane) leaves the interval as it is.
inline bool hitsBox(const uint32_t* Node, const float* O, const float* InvDir, float TNear,
                    float TFar) {
  for (int A = 0; A < 3; ++A) {
    float T0 = (asFloat(Node[A]) - O[A]) * InvDir[A];
    float T1 = (asFloat(Node[3 + A]) - O[A]) * InvDir[A];
    if (T0 > T1) {
      float Swap = T0;
      T0 = T1;
      T1 = Swap;
    }
    T1 += (T1 < 0 ? -T1 : T1) * 4.0e-7f; // 1 + 2 gamma(3): rounding of the slab ends
    TNear = T0 > TNear ? T0 : TNear;
    TFar = T1 < TFar ? T1 : TFar;
  }
  return TNear <= TFar;
}

/// Whether a hit at (T, Prim) is nearer than the best so far; equal t: the lower index.
inline bool nearer(const BvhReference::Hit& Best, float T, uint32_t Prim) {
  return !Best.Found || T < Best.T || (T == Best.T && Prim < Best.Prim);
}

} // namespace

BvhReference::BvhReference(std::span<const uint32_t> W) : Words(W) {
  if (W.size() < L::HeaderWords || W[L::HMagic] != L::Magic || W[L::HVersion] != L::Version)
    throw std::invalid_argument("not an acceleration structure of layout version " +
                                std::to_string(L::Version));
  NodeCount = W[L::HNodeCount];
  PrimCount = W[L::HPrimCount];
  NodeBase = W[L::HNodeBase];
  PrimBase = W[L::HPrimBase];
  if (NodeBase % L::NodeBaseAlign || PrimBase % L::PrimBaseAlign)
    throw std::invalid_argument("acceleration structure sections not aligned (nodes from word " +
                                std::to_string(NodeBase) + ", primitives from word " +
                                std::to_string(PrimBase) + ")");
  if (uint64_t(NodeBase) + uint64_t(NodeCount) * L::NodeWords > W.size() ||
      uint64_t(PrimBase) + uint64_t(PrimCount) * L::PrimWords > W.size())
    throw std::invalid_argument("acceleration structure sections run past its " +
                                std::to_string(W.size()) + " words");
}

bool BvhReference::intersect(const Ray& R, const float* V0, const float* V1, const float* V2,
                             float& T, float& U, float& V) {
  const float* D = R.Dir;
  int Kz = std::fabs(D[0]) >= std::fabs(D[1]) ? (std::fabs(D[0]) >= std::fabs(D[2]) ? 0 : 2)
                                              : (std::fabs(D[1]) >= std::fabs(D[2]) ? 1 : 2);
  int Kx = (Kz + 1) % 3, Ky = (Kx + 1) % 3;
  if (D[Kz] < 0)
    std::swap(Kx, Ky);
  float Sx = D[Kx] / D[Kz], Sy = D[Ky] / D[Kz], Sz = 1.0f / D[Kz];
  float X[3], Y[3], Z[3];
  const float* Vs[3] = {V0, V1, V2};
  for (int K = 0; K < 3; ++K) {
    float Ax = Vs[K][Kx] - R.Origin[Kx], Ay = Vs[K][Ky] - R.Origin[Ky],
          Az = Vs[K][Kz] - R.Origin[Kz];
    X[K] = Ax - Sx * Az;
    Y[K] = Ay - Sy * Az;
    Z[K] = Sz * Az;
  }
  float Eu = X[2] * Y[1] - Y[2] * X[1];
  float Ev = X[0] * Y[2] - Y[0] * X[2];
  float Ew = X[1] * Y[0] - Y[1] * X[0];
  if ((Eu < 0 || Ev < 0 || Ew < 0) && (Eu > 0 || Ev > 0 || Ew > 0))
    return false;
  float Det = Eu + Ev + Ew;
  if (Det == 0)
    return false;
  float Inv = 1.0f / Det;
  T = (Eu * Z[0] + Ev * Z[1] + Ew * Z[2]) * Inv;
  U = Ev * Inv;
  V = Ew * Inv;
  return T >= R.TMin && T < R.TMax;
}

BvhReference::Hit BvhReference::trace(const Ray& R, Counters* Count) const {
  Hit Best;
  if (!NodeCount)
    return Best;
  float InvDir[3] = {1.0f / R.Dir[0], 1.0f / R.Dir[1], 1.0f / R.Dir[2]};
  std::vector<uint32_t> Stack; // at most the tree's depth + 1 entries
  Stack.reserve(64);
  Stack.push_back(0);
  const uint32_t* Nodes = Words.data() + NodeBase;
  while (!Stack.empty()) {
    uint32_t N = Stack.back();
    Stack.pop_back();
    const uint32_t* Node = Nodes + size_t(N) * L::NodeWords;
    if (Count)
      ++Count->Nodes;
    float TFar = Best.Found && Best.T < R.TMax ? Best.T : R.TMax;
    if (!hitsBox(Node, R.Origin, InvDir, R.TMin, TFar))
      continue;
    uint32_t Info = Node[L::NodeInfo];
    uint32_t First = Node[L::NodeChild];
    if ((Info & 3) != L::LeafTag) {
      // Far child below, near child on top: the near one is the lower side when the ray runs
      // up the split axis.
      bool Down = R.Dir[Info] < 0;
      Stack.push_back(Down ? First : First + 1);
      Stack.push_back(Down ? First + 1 : First);
      continue;
    }
    uint32_t Prims = Info >> 2;
    for (uint32_t I = 0; I != Prims; ++I) {
      const uint32_t* P = Words.data() + PrimBase + size_t(First + I) * L::PrimWords;
      if (P[L::PrimKind] != L::PrimTriangle)
        continue;
      if (Count)
        ++Count->Triangles;
      float F[9];
      std::memcpy(F, P, sizeof(F));
      float T, U, V;
      if (intersect(R, F, F + 3, F + 6, T, U, V) && nearer(Best, T, P[L::PrimIndex]))
        Best = Hit{true, T, U, V, P[L::PrimIndex]};
    }
  }
  return Best;
}

BvhReference::Hit BvhReference::bruteForce(const BvhBuilder::Scene& S, const Ray& R) {
  Hit Best;
  for (size_t I = 0; I != S.TriangleCount; ++I) {
    if (!BvhBuilder::triangleIsFinite(S, I))
      continue;
    float V[9];
    BvhBuilder::triangle(S, I, V);
    float T, U, W;
    if (intersect(R, V, V + 3, V + 6, T, U, W) && nearer(Best, T, uint32_t(I)))
      Best = Hit{true, T, U, W, uint32_t(I)};
  }
  return Best;
}

} // namespace cajeta::xpu::rt
