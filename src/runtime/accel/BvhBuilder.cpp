// The binned-SAH BVH builder: primitive boxes, a top-down split per node (SAH over Bins bins of
// the centroids on all three axes, a median split where the centroids coincide), and the words.
#include "runtime/accel/BvhBuilder.h"

#include "bundle/AccelLayout.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>

namespace cajeta::xpu::rt {

namespace L = bundle::accel;

namespace {

// Select-based min/max: no libm call, and the compiler keeps them in registers.
inline float minf(float A, float B) {
  return A < B ? A : B;
}
inline float maxf(float A, float B) {
  return A > B ? A : B;
}

constexpr float Inf = std::numeric_limits<float>::infinity();

// Four floats (xyz and an unused lane, kept 0 or finite) in one SIMD register.
typedef float V4 __attribute__((vector_size(16)));
typedef int32_t I4 __attribute__((vector_size(16)));

inline V4 vmin(V4 A, V4 B) {
  return A < B ? A : B;
}
inline V4 vmax(V4 A, V4 B) {
  return A > B ? A : B;
}

struct Box {
  V4 Lo = {Inf, Inf, Inf, Inf};
  V4 Hi = {-Inf, -Inf, -Inf, -Inf};

  void grow(V4 L, V4 H) {
    Lo = vmin(Lo, L);
    Hi = vmax(Hi, H);
  }
  void grow(const Box& B) { grow(B.Lo, B.Hi); }
  void growPoint(V4 P) { grow(P, P); }
  /// Half the surface area (SAH only compares ratios); 0 for an empty box.
  float halfArea() const {
    V4 E = Hi - Lo;
    if (!(E[0] >= 0 && E[1] >= 0 && E[2] >= 0))
      return 0;
    return E[0] * E[1] + E[1] * E[2] + E[2] * E[0];
  }
};

/// A primitive's box in the tree (its source: Build::Ids at the same position). The fourth
/// lanes are 0.
struct PrimRef {
  V4 Lo;
  V4 Hi;

  /// Twice the centroid (the builder bins doubled centroids).
  V4 centroid2() const { return Lo + Hi; }
};

/// A node still to be split: its refs [Begin, End), its box and its doubled-centroid bounds.
struct Task {
  uint32_t Node;
  uint32_t Begin;
  uint32_t End;
  uint32_t Depth;
  Box Bounds;
  Box Centroids;
};

struct Bin {
  Box Bounds;
  uint32_t Count = 0;
};

/// Uninitialised storage for bins: a node sets up only the bins it uses.
template <class T, size_t N> struct Uninit { alignas(T) unsigned char Bytes[sizeof(T) * N]; };

bool finite3(const float* P) {
  return std::isfinite(P[0]) && std::isfinite(P[1]) && std::isfinite(P[2]);
}

[[noreturn]] void invalid(const std::string& Message) {
  throw std::invalid_argument(Message);
}

class Build {
public:
  Build(const BvhBuilder::Scene& S, uint32_t LeafSize) : S(S), LeafSize(LeafSize) {}

  std::vector<uint32_t> run(BvhBuilder::Stats& Stats);

private:
  void collect(BvhBuilder::Stats& Stats, Box& Bounds, Box& Centroids);
  void writeBox(uint32_t Node, const Box& B) {
    uint32_t* W = &Nodes[size_t(Node) * L::NodeWords];
    float F[6] = {B.Lo[0], B.Lo[1], B.Lo[2], B.Hi[0], B.Hi[1], B.Hi[2]};
    std::memcpy(W, F, sizeof(F));
  }
  void makeLeaf(const Task& T) {
    uint32_t* W = &Nodes[size_t(T.Node) * L::NodeWords];
    W[L::NodeChild] = T.Begin;
    W[L::NodeInfo] = ((T.End - T.Begin) << 2) | L::LeafTag;
    ++Leaves;
  }
  /// Splits T: returns false when T should be a leaf. Sets the children's tasks and the axis.
  bool split(const Task& T, Task& Left, Task& Right, uint32_t& Axis);
  /// Partitions T's refs by bin (<= Last goes left) along Axis; fills the children's boxes.
  uint32_t partition(const Task& T, int Axis, float Min2, float Scale, uint32_t NB, uint32_t Last,
                     Task& Left, Task& Right);
  void boundsOf(uint32_t Begin, uint32_t End, Box& Bounds, Box& Centroids) const;
  void writePrims(std::vector<uint32_t>& Words, uint32_t PrimBase) const;

  const BvhBuilder::Scene& S;
  uint32_t LeafSize;
  std::vector<PrimRef> Refs;
  std::vector<uint32_t> Ids;   // per ref: a triangle's index, or TriangleCount + a box's
  std::vector<uint32_t> Nodes; // NodeWords per node
  std::vector<uint32_t> Parents;
  uint32_t NodeCount = 0;
  uint32_t Leaves = 0;
  uint32_t MaxDepth = 0;
  bool HasTriangles = false;
  bool HasAabbs = false;
};

void Build::collect(BvhBuilder::Stats& Stats, Box& Bounds, Box& Centroids) {
  size_t Tris = S.TriangleCount, Boxes = S.Aabbs.size() / 6;
  Refs.reserve(Tris + Boxes);
  Ids.reserve(Tris + Boxes);
  for (size_t T = 0; T != Tris; ++T) {
    float V[9];
    BvhBuilder::triangle(S, T, V);
    if (!finite3(V) || !finite3(V + 3) || !finite3(V + 6)) {
      ++Stats.Skipped;
      continue;
    }
    V4 A = {V[0], V[1], V[2], 0}, B = {V[3], V[4], V[5], 0}, C = {V[6], V[7], V[8], 0};
    Refs.push_back(PrimRef{vmin(vmin(A, B), C), vmax(vmax(A, B), C)});
    Ids.push_back(uint32_t(T));
    HasTriangles = true;
  }
  for (size_t B = 0; B != Boxes; ++B) {
    const float* P = &S.Aabbs[B * 6];
    if (!finite3(P) || !finite3(P + 3)) {
      ++Stats.Skipped;
      continue;
    }
    V4 Min = {P[0], P[1], P[2], 0}, Max = {P[3], P[4], P[5], 0};
    Refs.push_back(PrimRef{vmin(Min, Max), vmax(Min, Max)});
    Ids.push_back(uint32_t(Tris + B));
    HasAabbs = true;
  }
  boundsOf(0, uint32_t(Refs.size()), Bounds, Centroids);
}

void Build::boundsOf(uint32_t Begin, uint32_t End, Box& Bounds, Box& Centroids) const {
  for (uint32_t I = Begin; I != End; ++I) {
    const PrimRef& R = Refs[I];
    Bounds.grow(R.Lo, R.Hi);
    Centroids.growPoint(R.centroid2());
  }
}

uint32_t Build::partition(const Task& T, int Axis, float Min2, float Scale, uint32_t NB,
                          uint32_t Last, Task& Left, Task& Right) {
  PrimRef* Data = Refs.data();
  uint32_t* Id = Ids.data();
  uint32_t I = T.Begin, J = T.End;
  auto BinOf = [&](const PrimRef& R) {
    uint32_t K = uint32_t((R.Lo[Axis] + R.Hi[Axis] - Min2) * Scale);
    return K < NB - 1 ? K : NB - 1;
  };
  while (true) {
    while (I < J && BinOf(Data[I]) <= Last) {
      const PrimRef& R = Data[I];
      Left.Bounds.grow(R.Lo, R.Hi);
      Left.Centroids.growPoint(R.centroid2());
      ++I;
    }
    while (I < J && BinOf(Data[J - 1]) > Last) {
      const PrimRef& R = Data[J - 1];
      Right.Bounds.grow(R.Lo, R.Hi);
      Right.Centroids.growPoint(R.centroid2());
      --J;
    }
    if (I >= J)
      break;
    std::swap(Data[I], Data[J - 1]); // both sides account for them on the next pass
    std::swap(Id[I], Id[J - 1]);
  }
  return I;
}

bool Build::split(const Task& T, Task& Left, Task& Right, uint32_t& Axis) {
  uint32_t Count = T.End - T.Begin;
  if (Count <= 1)
    return false;
  // Fewer bins than primitives would be wasted: small nodes bin into Count bins.
  uint32_t NB = Count < BvhBuilder::Bins ? Count : BvhBuilder::Bins;
  float Min2[3], Scale[3];
  bool Any = false;
  for (int A = 0; A < 3; ++A) {
    float Extent = T.Centroids.Hi[A] - T.Centroids.Lo[A];
    Min2[A] = T.Centroids.Lo[A];
    // Just under NB at the top, so the largest centroid lands in the last bin.
    float Sc = Extent > 0 ? float(NB) * 0.99999f / Extent : 0.0f;
    Scale[A] = std::isfinite(Sc) ? Sc : 0.0f;
    Any |= Scale[A] > 0;
  }
  Left = Task{0, T.Begin, 0, T.Depth + 1, Box{}, Box{}};
  Right = Task{0, 0, T.End, T.Depth + 1, Box{}, Box{}};
  if (Any) {
    // Two sets of bins, alternate primitives into each: neighbours often share a bin, and one
    // set would make each update wait for the last.
    Uninit<Bin, 2 * 3 * BvhBuilder::Bins> Storage;
    auto& Bins = *reinterpret_cast<Bin(*)[2][3][BvhBuilder::Bins]>(Storage.Bytes);
    uint32_t Sets = Count >= 64 ? 2 : 1;
    for (uint32_t Set = 0; Set != Sets; ++Set)
      for (int A = 0; A < 3; ++A)
        for (uint32_t K = 0; K != NB; ++K)
          new (&Bins[Set][A][K]) Bin{};
    const PrimRef* Data = Refs.data();
    V4 Min2V = {Min2[0], Min2[1], Min2[2], 0}, ScaleV = {Scale[0], Scale[1], Scale[2], 0};
    const int32_t Last = int32_t(NB - 1);
    const I4 Top = {Last, Last, Last, 0};
    auto Put = [&](Bin(&Set)[3][BvhBuilder::Bins], const PrimRef& R) {
      I4 K = __builtin_convertvector((R.centroid2() - Min2V) * ScaleV, I4);
      K = K < Top ? K : Top;
      for (int A = 0; A < 3; ++A) {
        Bin& B = Set[A][K[A]];
        B.Bounds.grow(R.Lo, R.Hi);
        ++B.Count;
      }
    };
    uint32_t I = T.Begin;
    if (Sets == 2) {
      for (; I + 1 < T.End; I += 2) {
        Put(Bins[0], Data[I]);
        Put(Bins[1], Data[I + 1]);
      }
      for (int A = 0; A < 3; ++A)
        for (uint32_t K = 0; K != NB; ++K) {
          Bins[0][A][K].Bounds.grow(Bins[1][A][K].Bounds);
          Bins[0][A][K].Count += Bins[1][A][K].Count;
        }
    }
    for (; I != T.End; ++I)
      Put(Bins[0], Data[I]);
    // Cost of a split after bin K: area-weighted counts each side (relative to this node's
    // area; traversal and intersection cost 1 each).
    float BestCost = Inf;
    int BestAxis = -1;
    uint32_t BestLast = 0;
    for (int A = 0; A < 3; ++A) {
      if (Scale[A] <= 0)
        continue;
      float RightCost[BvhBuilder::Bins];
      Box Acc;
      uint32_t N = 0;
      for (uint32_t K = NB - 1; K > 0; --K) {
        Acc.grow(Bins[0][A][K].Bounds);
        N += Bins[0][A][K].Count;
        RightCost[K] = N ? Acc.halfArea() * float(N) : Inf;
      }
      Acc = Box{};
      N = 0;
      for (uint32_t K = 0; K + 1 < NB; ++K) {
        Acc.grow(Bins[0][A][K].Bounds);
        N += Bins[0][A][K].Count;
        if (!N)
          continue;
        float Cost = Acc.halfArea() * float(N) + RightCost[K + 1];
        if (Cost < BestCost) {
          BestCost = Cost;
          BestAxis = A;
          BestLast = K;
        }
      }
    }
    if (BestAxis >= 0) {
      float Area = T.Bounds.halfArea();
      float SplitCost = 1.0f + (Area > 0 ? BestCost / Area : float(Count));
      if (Count <= LeafSize && float(Count) <= SplitCost)
        return false;
      uint32_t Mid =
          partition(T, BestAxis, Min2[BestAxis], Scale[BestAxis], NB, BestLast, Left, Right);
      if (Mid != T.Begin && Mid != T.End) {
        Left.End = Mid;
        Right.Begin = Mid;
        Axis = uint32_t(BestAxis);
        return true;
      }
      // Unreachable with finite boxes (both end bins hold a centroid); fall through safely.
      Left = Task{0, T.Begin, 0, T.Depth + 1, Box{}, Box{}};
      Right = Task{0, 0, T.End, T.Depth + 1, Box{}, Box{}};
    }
  }
  // The centroids coincide: SAH cannot tell the primitives apart; halve them in place.
  if (Count <= LeafSize)
    return false;
  uint32_t Mid = T.Begin + Count / 2;
  Left.End = Mid;
  Right.Begin = Mid;
  boundsOf(Left.Begin, Left.End, Left.Bounds, Left.Centroids);
  boundsOf(Right.Begin, Right.End, Right.Bounds, Right.Centroids);
  Axis = 0;
  float Best = T.Bounds.Hi[0] - T.Bounds.Lo[0];
  for (uint32_t A = 1; A < 3; ++A)
    if (T.Bounds.Hi[A] - T.Bounds.Lo[A] > Best) {
      Best = T.Bounds.Hi[A] - T.Bounds.Lo[A];
      Axis = A;
    }
  return true;
}

void Build::writePrims(std::vector<uint32_t>& Words, uint32_t PrimBase) const {
  uint32_t Flags = S.OpaqueTriangles ? L::PrimOpaque : 0;
  for (size_t I = 0; I != Refs.size(); ++I) {
    uint32_t* W = &Words[PrimBase + I * L::PrimWords];
    uint32_t Id = Ids[I];
    float F[9] = {};
    if (Id < S.TriangleCount) {
      float V[9];
      BvhBuilder::triangle(S, Id, V);
      for (int A = 0; A < 3; ++A) {
        F[A] = V[A];
        F[3 + A] = V[3 + A];
        F[6 + A] = V[6 + A];
      }
      std::memcpy(W, F, sizeof(F));
      W[L::PrimIndex] = Id;
      W[L::PrimKind] = L::PrimTriangle;
      W[L::PrimFlags] = Flags;
    } else {
      for (int A = 0; A < 3; ++A) {
        F[A] = Refs[I].Lo[A];
        F[3 + A] = Refs[I].Hi[A];
      }
      std::memcpy(W, F, sizeof(F));
      W[L::PrimIndex] = uint32_t(Id - S.TriangleCount);
      W[L::PrimKind] = L::PrimAabb;
      W[L::PrimFlags] = 0;
    }
  }
}

std::vector<uint32_t> Build::run(BvhBuilder::Stats& Stats) {
  Task Root{0, 0, 0, 0, Box{}, Box{}};
  collect(Stats, Root.Bounds, Root.Centroids);
  uint32_t PrimCount = uint32_t(Refs.size());
  Root.End = PrimCount;
  if (PrimCount) {
    // A binary tree with leaves of one or more primitives: at most 2n - 1 nodes.
    size_t MaxNodes = 2 * size_t(PrimCount) - 1;
    Nodes.resize(MaxNodes * L::NodeWords);
    Parents.resize(MaxNodes);
    NodeCount = 1;
    Parents[0] = L::NoParent;
    std::vector<Task> Stack;
    Stack.reserve(128);
    Stack.push_back(Root);
    while (!Stack.empty()) {
      Task T = Stack.back();
      Stack.pop_back();
      writeBox(T.Node, T.Bounds);
      MaxDepth = T.Depth > MaxDepth ? T.Depth : MaxDepth;
      Task Left, Right;
      uint32_t Axis = 0;
      if (!split(T, Left, Right, Axis)) {
        makeLeaf(T);
        continue;
      }
      // Children in pairs after the root: the first has an odd index.
      uint32_t First = NodeCount;
      NodeCount += 2;
      uint32_t* W = &Nodes[size_t(T.Node) * L::NodeWords];
      W[L::NodeChild] = First;
      W[L::NodeInfo] = Axis;
      Parents[First] = Parents[First + 1] = T.Node;
      Left.Node = First;
      Right.Node = First + 1;
      Stack.push_back(Right);
      Stack.push_back(Left); // depth first, lower side first
    }
  }
  uint64_t Total = uint64_t(L::HeaderWords) + uint64_t(NodeCount) * (L::NodeWords + 1) +
                   uint64_t(PrimCount) * L::PrimWords;
  if (Total > std::numeric_limits<uint32_t>::max())
    invalid("the acceleration structure would need " + std::to_string(Total) +
            " words, above the 2^32 - 1 a uint32 index reaches");
  std::vector<uint32_t> Words(Total);
  uint32_t NodeBase = L::HeaderWords;
  uint32_t ParentBase = NodeBase + NodeCount * L::NodeWords;
  uint32_t PrimBase = ParentBase + NodeCount;
  Words[L::HMagic] = L::Magic;
  Words[L::HVersion] = L::Version;
  Words[L::HNodeCount] = NodeCount;
  Words[L::HPrimCount] = PrimCount;
  Words[L::HNodeBase] = NodeBase;
  Words[L::HParentBase] = ParentBase;
  Words[L::HPrimBase] = PrimBase;
  Words[L::HKinds] = (HasTriangles ? 1u : 0u) | (HasAabbs ? 2u : 0u);
  if (NodeCount) {
    std::memcpy(&Words[NodeBase], Nodes.data(), size_t(NodeCount) * L::NodeWords * 4);
    std::memcpy(&Words[ParentBase], Parents.data(), size_t(NodeCount) * 4);
  }
  writePrims(Words, PrimBase);
  Stats.Prims = PrimCount;
  Stats.Nodes = NodeCount;
  Stats.Leaves = Leaves;
  Stats.MaxDepth = MaxDepth;
  Stats.Words = Words.size();
  return Words;
}

} // namespace

void BvhBuilder::validate(const Scene& S) {
  if (S.Vertices.size() % 3)
    invalid("the vertex array holds " + std::to_string(S.Vertices.size()) +
            " floats, not xyz triples");
  if (S.Aabbs.size() % 6)
    invalid("the box array holds " + std::to_string(S.Aabbs.size()) +
            " floats, not (min xyz, max xyz) sextuples");
  if (S.MaxLeafSize > L::MaxLeafSize)
    invalid("max leaf size " + std::to_string(S.MaxLeafSize) + " is above " +
            std::to_string(L::MaxLeafSize));
  size_t VertexCount = S.Vertices.size() / 3;
  if (S.TriangleCount > std::numeric_limits<uint32_t>::max() ||
      S.Aabbs.size() / 6 > std::numeric_limits<uint32_t>::max() - S.TriangleCount)
    invalid("too many primitives: at most 2^32 - 1 in one acceleration structure");
  if (S.Indices.empty()) {
    if (S.TriangleCount > VertexCount / 3)
      invalid(std::to_string(S.TriangleCount) + " triangles without indices need " +
              std::to_string(3 * S.TriangleCount) + " vertices; there are " +
              std::to_string(VertexCount));
    return;
  }
  if (S.Indices.size() != 3 * S.TriangleCount)
    invalid(std::to_string(S.TriangleCount) + " triangles need " +
            std::to_string(3 * S.TriangleCount) + " indices; there are " +
            std::to_string(S.Indices.size()));
  for (size_t I = 0; I != S.Indices.size(); ++I)
    if (S.Indices[I] >= VertexCount)
      invalid("triangle " + std::to_string(I / 3) + ": index " + std::to_string(S.Indices[I]) +
              " is out of range (" + std::to_string(VertexCount) + " vertices)");
}

void BvhBuilder::triangle(const Scene& S, size_t T, float Out[9]) {
  for (int K = 0; K < 3; ++K) {
    size_t V = S.Indices.empty() ? 3 * T + K : S.Indices[3 * T + K];
    std::memcpy(Out + 3 * K, &S.Vertices[3 * V], 12);
  }
}

bool BvhBuilder::triangleIsFinite(const Scene& S, size_t T) {
  float V[9];
  triangle(S, T, V);
  return finite3(V) && finite3(V + 3) && finite3(V + 6);
}

bool BvhBuilder::aabbIsFinite(const Scene& S, size_t B) {
  return finite3(&S.Aabbs[6 * B]) && finite3(&S.Aabbs[6 * B + 3]);
}

std::vector<uint32_t> BvhBuilder::build(const Scene& S, Stats* Out) {
  validate(S);
  Stats Local;
  Local.Triangles = S.TriangleCount;
  Local.Aabbs = S.Aabbs.size() / 6;
  Build B(S, S.MaxLeafSize ? S.MaxLeafSize : DefaultLeafSize);
  std::vector<uint32_t> Words = B.run(Local);
  if (Out)
    *Out = Local;
  return Words;
}

} // namespace cajeta::xpu::rt
