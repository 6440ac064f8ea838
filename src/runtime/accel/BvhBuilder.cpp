// The binned-SAH BVH builder: primitive boxes, a top-down split per node (SAH over Bins bins of
// the centroids on all three axes, a median split where the centroids coincide), and the words.
// Threads: the top nodes split wide (bins and partitions in chunks), the subtrees below them
// build as jobs, and number() gives every node the index the depth-first build would.
#include "runtime/accel/BvhBuilder.h"

#include "bundle/AccelLayout.h"
#include "runtime/accel/BuildPool.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
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

using BinAxes = Bin[3][BvhBuilder::Bins];

/// Uninitialised storage for bins: a node sets up only the bins it uses.
template <class T, size_t N> struct Uninit { alignas(T) unsigned char Bytes[sizeof(T) * N]; };

/// A subtree built as one job. Its nodes are numbered as the depth-first build numbers them
/// from its root: the root 0, the children pairs from 1 on. Placed, the root becomes node
/// Global and local node K > 0 becomes First + K - 1 (First is odd, as K is for a first child).
struct Subtree {
  Task Root;
  std::unique_ptr<uint32_t[]> Nodes; // NodeWords per node
  std::unique_ptr<uint32_t[]> Parents;
  uint32_t Count = 0;
  uint32_t Leaves = 0;
  uint32_t MaxDepth = 0;
  uint32_t Global = 0;
  uint32_t First = 0;
};

/// A node split before the subtrees are built. Child: a TopNode's index, or SubtreeBit and a
/// Subtree's index.
struct TopNode {
  Box Bounds;
  uint32_t Depth = 0;
  uint32_t Axis = 0;
  bool Leaf = false; // then Begin and End are its primitives
  uint32_t Begin = 0;
  uint32_t End = 0;
  uint32_t Child[2] = {0, 0};
  uint32_t Global = 0;
  uint32_t First = 0;
};

constexpr uint32_t SubtreeBit = 0x80000000u;

bool finite3(const float* P) {
  return std::isfinite(P[0]) && std::isfinite(P[1]) && std::isfinite(P[2]);
}

[[noreturn]] void invalid(const std::string& Message) {
  throw std::invalid_argument(Message);
}

/// The start of chunk C of Parts over [Begin, Begin + Count).
uint32_t chunkStart(uint32_t Begin, uint32_t Count, size_t Parts, size_t C) {
  return Begin + uint32_t(uint64_t(Count) * C / Parts);
}

class Build {
public:
  Build(const BvhBuilder::Scene& S, uint32_t LeafSize) : S(S), LeafSize(LeafSize) {}

  size_t run(const BvhBuilder::Storage& Into, BvhBuilder::Stats& Stats);

private:
  /// Below this many primitives a scene builds on the calling thread alone.
  static constexpr size_t SmallScene = 32768;
  /// Chunks hold at least this many primitives.
  static constexpr uint32_t MinChunk = 2048;

  /// Calls F(I) for I in [0, N): on the pool when there is one.
  void forEach(size_t N, const std::function<void(size_t)>& F) const {
    if (Pool)
      Pool->run(N, F);
    else
      for (size_t I = 0; I != N; ++I)
        F(I);
  }
  size_t chunksFor(size_t Count) const {
    size_t Most = Pool ? size_t(Pool->threads()) * 4 : 1;
    size_t N = Count / MinChunk;
    return N < 1 ? 1 : N < Most ? N : Most;
  }

  void collect(BvhBuilder::Stats& Stats, Box& Bounds, Box& Centroids);
  void buildTop(const Task& Root);
  void buildSubtree(Subtree& U);
  /// Splits T: returns false when T should be a leaf. Sets the children's tasks and the axis.
  /// Wide: bins and partitions in chunks on the pool.
  bool split(const Task& T, Task& Left, Task& Right, uint32_t& Axis, bool Wide);
  /// Bins the refs [Begin, End) into Out's first NB bins of each axis.
  void binRange(uint32_t Begin, uint32_t End, uint32_t NB, V4 Min2V, V4 ScaleV, BinAxes& Out) const;
  /// Partitions T's refs by bin (<= Last goes left) along Axis; fills the children's boxes.
  uint32_t partition(const Task& T, int Axis, float Min2, float Scale, uint32_t NB, uint32_t Last,
                     Task& Left, Task& Right);
  /// partition in chunks, with the same result: the k-th right-side ref from the left swaps
  /// with the k-th left-side ref from the right.
  /// Lefts: the refs the bins put on the left side.
  uint32_t partitionWide(const Task& T, int Axis, float Min2, float Scale, uint32_t NB,
                         uint32_t Last, uint32_t Lefts, Task& Left, Task& Right);
  void boundsOf(uint32_t Begin, uint32_t End, Box& Bounds, Box& Centroids) const;
  /// Numbers the top nodes and places the subtrees; returns the node count.
  uint32_t number();
  void writeNodes(uint32_t* Words, uint32_t NodeBase, uint32_t ParentBase) const;
  void writePrims(uint32_t* Words, uint32_t PrimBase) const;

  const BvhBuilder::Scene& S;
  uint32_t LeafSize;
  std::unique_ptr<BuildPool> Pool; // none for one thread or a small scene
  uint32_t PrimCount = 0;
  std::unique_ptr<PrimRef[]> Refs;
  std::unique_ptr<uint32_t[]> Ids; // per ref: a triangle's index, or TriangleCount + a box's
  std::vector<TopNode> Top;
  std::vector<Subtree> Subtrees;
  uint32_t RootRef = SubtreeBit;
  bool HasTriangles = false;
  bool HasAabbs = false;
};

void Build::collect(BvhBuilder::Stats& Stats, Box& Bounds, Box& Centroids) {
  size_t Tris = S.TriangleCount, Boxes = S.Aabbs.size() / 6, Total = Tris + Boxes;
  Refs.reset(new PrimRef[Total ? Total : 1]);
  Ids.reset(new uint32_t[Total ? Total : 1]);
  struct Part {
    size_t Kept = 0;
    Box Bounds, Centroids;
    bool Tris = false, Aabbs = false;
  };
  size_t Parts = chunksFor(Total);
  std::vector<Part> Out(Parts);
  // Adding +0 turns a -0 into +0: min and max then give the same bits in any order, so the
  // boxes do not depend on how the refs are chunked.
  const V4 Zero = {0, 0, 0, 0};
  forEach(Parts, [&](size_t C) {
    size_t Begin = Total * C / Parts, End = Total * (C + 1) / Parts;
    Part& P = Out[C];
    PrimRef* R = &Refs[Begin];
    uint32_t* Id = &Ids[Begin];
    for (size_t K = Begin; K != End; ++K) {
      V4 Lo, Hi;
      if (K < Tris) {
        float V[9];
        BvhBuilder::triangle(S, K, V);
        if (!finite3(V) || !finite3(V + 3) || !finite3(V + 6))
          continue;
        V4 A = {V[0], V[1], V[2], 0}, B = {V[3], V[4], V[5], 0}, D = {V[6], V[7], V[8], 0};
        Lo = vmin(vmin(A, B), D);
        Hi = vmax(vmax(A, B), D);
        P.Tris = true;
      } else {
        const float* F = &S.Aabbs[(K - Tris) * 6];
        if (!finite3(F) || !finite3(F + 3))
          continue;
        V4 Min = {F[0], F[1], F[2], 0}, Max = {F[3], F[4], F[5], 0};
        Lo = vmin(Min, Max);
        Hi = vmax(Min, Max);
        P.Aabbs = true;
      }
      PrimRef Ref{Lo + Zero, Hi + Zero};
      R[P.Kept] = Ref;
      Id[P.Kept] = uint32_t(K);
      ++P.Kept;
      P.Bounds.grow(Ref.Lo, Ref.Hi);
      P.Centroids.growPoint(Ref.centroid2());
    }
  });
  // The kept refs of each chunk, moved down over the left-out ones.
  size_t Dst = 0;
  for (size_t C = 0; C != Parts; ++C) {
    size_t Begin = Total * C / Parts;
    const Part& P = Out[C];
    if (Dst != Begin && P.Kept) {
      std::memmove(&Refs[Dst], &Refs[Begin], P.Kept * sizeof(PrimRef));
      std::memmove(&Ids[Dst], &Ids[Begin], P.Kept * sizeof(uint32_t));
    }
    Dst += P.Kept;
    Bounds.grow(P.Bounds);
    Centroids.grow(P.Centroids);
    HasTriangles |= P.Tris;
    HasAabbs |= P.Aabbs;
  }
  Stats.Skipped = Total - Dst;
  PrimCount = uint32_t(Dst);
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
  PrimRef* Data = Refs.get();
  uint32_t* Id = Ids.get();
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

uint32_t Build::partitionWide(const Task& T, int Axis, float Min2, float Scale, uint32_t NB,
                              uint32_t Last, uint32_t Lefts, Task& Left, Task& Right) {
  PrimRef* Data = Refs.get();
  uint32_t* Id = Ids.get();
  auto IsLeft = [&](const PrimRef& R) {
    uint32_t K = uint32_t((R.Lo[Axis] + R.Hi[Axis] - Min2) * Scale);
    return (K < NB - 1 ? K : NB - 1) <= Last;
  };
  uint32_t Count = T.End - T.Begin;
  size_t Parts = chunksFor(Count);
  struct Part {
    uint32_t Lefts = 0;
    Box LeftBounds, LeftCentroids, RightBounds, RightCentroids;
    std::vector<uint32_t> Misplaced; // positions below Mid (XCount of them), then above
    uint32_t XCount = 0;
  };
  std::vector<Part> P(Parts);
  // The bins counted Lefts refs on the left side; the refs on the wrong side of that Mid, in
  // position order, are found in the same pass as the children's boxes.
  uint32_t Mid = T.Begin + Lefts;
  auto Classify = [&](size_t C) {
    Part& Q = P[C];
    for (uint32_t I = chunkStart(T.Begin, Count, Parts, C),
                  E = chunkStart(T.Begin, Count, Parts, C + 1);
         I != E; ++I) {
      const PrimRef& R = Data[I];
      bool ToLeft = IsLeft(R);
      if (ToLeft) {
        ++Q.Lefts;
        Q.LeftBounds.grow(R.Lo, R.Hi);
        Q.LeftCentroids.growPoint(R.centroid2());
      } else {
        Q.RightBounds.grow(R.Lo, R.Hi);
        Q.RightCentroids.growPoint(R.centroid2());
      }
      if (ToLeft != (I < Mid)) {
        Q.Misplaced.push_back(I);
        Q.XCount += I < Mid;
      }
    }
  };
  forEach(Parts, Classify);
  uint32_t Counted = T.Begin;
  for (const Part& Q : P)
    Counted += Q.Lefts;
  if (Counted != Mid) {
    // The bins and this test disagree on a ref (they compute its bin alike, so this should not
    // happen): classify again around the true Mid.
    Mid = Counted;
    P.assign(Parts, Part{});
    forEach(Parts, Classify);
  }
  for (const Part& Q : P) {
    Left.Bounds.grow(Q.LeftBounds);
    Left.Centroids.grow(Q.LeftCentroids);
    Right.Bounds.grow(Q.RightBounds);
    Right.Centroids.grow(Q.RightCentroids);
  }
  if (Mid == T.Begin || Mid == T.End)
    return Mid;
  std::vector<uint32_t> XOffset(Parts), YOffset(Parts);
  uint32_t Xs = 0, Ys = 0;
  for (size_t C = 0; C != Parts; ++C) {
    XOffset[C] = Xs;
    YOffset[C] = Ys;
    Xs += P[C].XCount;
    Ys += uint32_t(P[C].Misplaced.size()) - P[C].XCount;
  }
  forEach(Parts, [&](size_t C) {
    const Part& Q = P[C];
    for (uint32_t K = 0; K != Q.XCount; ++K) {
      uint32_t Rank = Ys - 1 - (XOffset[C] + K); // among the Ys, from the left
      size_t D =
          size_t(std::upper_bound(YOffset.begin(), YOffset.end(), Rank) - YOffset.begin()) - 1;
      uint32_t X = Q.Misplaced[K];
      uint32_t Y = P[D].Misplaced[P[D].XCount + (Rank - YOffset[D])];
      std::swap(Data[X], Data[Y]);
      std::swap(Id[X], Id[Y]);
    }
  });
  return Mid;
}

void Build::binRange(uint32_t Begin, uint32_t End, uint32_t NB, V4 Min2V, V4 ScaleV,
                     BinAxes& Out) const {
  // Two sets of bins, alternate primitives into each: neighbours often share a bin, and one set
  // would make each update wait for the last.
  Uninit<Bin, 3 * BvhBuilder::Bins> Storage;
  auto& Second = *reinterpret_cast<BinAxes*>(Storage.Bytes);
  bool Two = End - Begin >= 64;
  for (int A = 0; A < 3; ++A)
    for (uint32_t K = 0; K != NB; ++K) {
      new (&Out[A][K]) Bin{};
      if (Two)
        new (&Second[A][K]) Bin{};
    }
  const PrimRef* Data = Refs.get();
  const int32_t Last = int32_t(NB - 1);
  const I4 Top = {Last, Last, Last, 0};
  auto Put = [&](BinAxes& Set, const PrimRef& R) {
    I4 K = __builtin_convertvector((R.centroid2() - Min2V) * ScaleV, I4);
    K = K < Top ? K : Top;
    for (int A = 0; A < 3; ++A) {
      Bin& B = Set[A][K[A]];
      B.Bounds.grow(R.Lo, R.Hi);
      ++B.Count;
    }
  };
  uint32_t I = Begin;
  if (Two) {
    for (; I + 1 < End; I += 2) {
      Put(Out, Data[I]);
      Put(Second, Data[I + 1]);
    }
    for (int A = 0; A < 3; ++A)
      for (uint32_t K = 0; K != NB; ++K) {
        Out[A][K].Bounds.grow(Second[A][K].Bounds);
        Out[A][K].Count += Second[A][K].Count;
      }
  }
  for (; I != End; ++I)
    Put(Out, Data[I]);
}

bool Build::split(const Task& T, Task& Left, Task& Right, uint32_t& Axis, bool Wide) {
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
  // Deep in the tree, halving instead of SAH bounds the depth: 32 more halvings reach one
  // primitive from 2^32, so no node is MaxDepth levels down (bundle/AccelLayout.h).
  bool Deep = T.Depth + 33 >= L::MaxDepth;
  Wide = Wide && Pool && chunksFor(Count) > 1;
  if (Any && !Deep) {
    Uninit<Bin, 3 * BvhBuilder::Bins> Storage;
    auto& Bins = *reinterpret_cast<BinAxes*>(Storage.Bytes);
    V4 Min2V = {Min2[0], Min2[1], Min2[2], 0}, ScaleV = {Scale[0], Scale[1], Scale[2], 0};
    if (Wide) {
      // Bins per chunk, merged: min, max and counts, the same in any order.
      size_t Parts = chunksFor(Count);
      std::vector<Uninit<Bin, 3 * BvhBuilder::Bins>> PartBins(Parts);
      forEach(Parts, [&](size_t C) {
        binRange(chunkStart(T.Begin, Count, Parts, C), chunkStart(T.Begin, Count, Parts, C + 1), NB,
                 Min2V, ScaleV, *reinterpret_cast<BinAxes*>(PartBins[C].Bytes));
      });
      for (size_t C = 0; C != Parts; ++C) {
        const BinAxes& B = *reinterpret_cast<const BinAxes*>(PartBins[C].Bytes);
        for (int A = 0; A < 3; ++A)
          for (uint32_t K = 0; K != NB; ++K) {
            if (C == 0) {
              new (&Bins[A][K]) Bin(B[A][K]);
              continue;
            }
            Bins[A][K].Bounds.grow(B[A][K].Bounds);
            Bins[A][K].Count += B[A][K].Count;
          }
      }
    } else {
      binRange(T.Begin, T.End, NB, Min2V, ScaleV, Bins);
    }
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
        Acc.grow(Bins[A][K].Bounds);
        N += Bins[A][K].Count;
        RightCost[K] = N ? Acc.halfArea() * float(N) : Inf;
      }
      Acc = Box{};
      N = 0;
      for (uint32_t K = 0; K + 1 < NB; ++K) {
        Acc.grow(Bins[A][K].Bounds);
        N += Bins[A][K].Count;
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
      uint32_t Mid;
      if (Wide) {
        uint32_t Lefts = 0;
        for (uint32_t K = 0; K <= BestLast; ++K)
          Lefts += Bins[BestAxis][K].Count;
        Mid = partitionWide(T, BestAxis, Min2[BestAxis], Scale[BestAxis], NB, BestLast, Lefts, Left,
                            Right);
      } else {
        Mid = partition(T, BestAxis, Min2[BestAxis], Scale[BestAxis], NB, BestLast, Left, Right);
      }
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

void Build::buildTop(const Task& Root) {
  // Nodes of at least TopMin primitives split here, with wide binning and partitions; smaller
  // ones become subtrees, several per thread so that the jobs balance.
  uint32_t TopMin = SmallScene;
  if (Pool) {
    uint32_t PerJob = uint32_t(PrimCount / (size_t(Pool->threads()) * 8));
    TopMin = PerJob > 8192 ? PerJob : 8192;
  }
  auto Place = [&](const Task& T) -> uint32_t {
    if (!Pool || T.End - T.Begin < TopMin) {
      Subtrees.emplace_back();
      Subtrees.back().Root = T;
      Subtrees.back().Root.Node = 0;
      return SubtreeBit | uint32_t(Subtrees.size() - 1);
    }
    Top.emplace_back();
    return uint32_t(Top.size() - 1);
  };
  std::vector<Task> Stack;
  RootRef = Place(Root);
  if (RootRef & SubtreeBit)
    return;
  Stack.push_back(Root);
  Stack.back().Node = RootRef;
  while (!Stack.empty()) {
    Task T = Stack.back();
    Stack.pop_back();
    Task Left, Right;
    uint32_t Axis = 0;
    bool Inner = split(T, Left, Right, Axis, true);
    TopNode& N = Top[T.Node];
    N.Bounds = T.Bounds;
    N.Depth = T.Depth;
    N.Begin = T.Begin;
    N.End = T.End;
    if (!Inner) {
      N.Leaf = true;
      continue;
    }
    N.Axis = Axis;
    uint32_t L = Place(Left);
    uint32_t R = Place(Right);
    Top[T.Node].Child[0] = L;
    Top[T.Node].Child[1] = R;
    for (uint32_t Ref : {R, L})
      if (!(Ref & SubtreeBit)) {
        Stack.push_back(Ref == L ? Left : Right);
        Stack.back().Node = Ref;
      }
  }
}

void Build::buildSubtree(Subtree& U) {
  // A binary tree with leaves of one or more primitives: at most 2n - 1 nodes.
  size_t MaxNodes = 2 * size_t(U.Root.End - U.Root.Begin) - 1;
  U.Nodes.reset(new uint32_t[MaxNodes * L::NodeWords]);
  U.Parents.reset(new uint32_t[MaxNodes]);
  U.Count = 1;
  U.Parents[0] = L::NoParent;
  std::vector<Task> Stack;
  Stack.reserve(128);
  Stack.push_back(U.Root);
  while (!Stack.empty()) {
    Task T = Stack.back();
    Stack.pop_back();
    uint32_t* W = &U.Nodes[size_t(T.Node) * L::NodeWords];
    float F[6] = {T.Bounds.Lo[0], T.Bounds.Lo[1], T.Bounds.Lo[2],
                  T.Bounds.Hi[0], T.Bounds.Hi[1], T.Bounds.Hi[2]};
    std::memcpy(W, F, sizeof(F));
    U.MaxDepth = T.Depth > U.MaxDepth ? T.Depth : U.MaxDepth;
    Task Left, Right;
    uint32_t Axis = 0;
    if (!split(T, Left, Right, Axis, false)) {
      W[L::NodeChild] = T.Begin;
      W[L::NodeInfo] = ((T.End - T.Begin) << 2) | L::LeafTag;
      ++U.Leaves;
      continue;
    }
    // Children in pairs after the root: the first has an odd index.
    uint32_t First = U.Count;
    U.Count += 2;
    W[L::NodeChild] = First;
    W[L::NodeInfo] = Axis;
    U.Parents[First] = U.Parents[First + 1] = T.Node;
    Left.Node = First;
    Right.Node = First + 1;
    Stack.push_back(Right);
    Stack.push_back(Left); // depth first, lower side first
  }
}

uint32_t Build::number() {
  // The order of the depth-first build: a node's children take the next pair when the node is
  // reached, then its lower side's whole subtree is numbered before its upper side.
  uint64_t Count = 1;
  std::vector<std::pair<uint32_t, uint32_t>> Stack{{RootRef, 0u}};
  while (!Stack.empty()) {
    auto [Ref, Global] = Stack.back();
    Stack.pop_back();
    if (Ref & SubtreeBit) {
      Subtree& U = Subtrees[Ref & ~SubtreeBit];
      U.Global = Global;
      U.First = uint32_t(Count);
      Count += U.Count - 1;
      continue;
    }
    TopNode& N = Top[Ref];
    N.Global = Global;
    if (N.Leaf)
      continue;
    N.First = uint32_t(Count);
    Count += 2;
    Stack.push_back({N.Child[1], N.First + 1});
    Stack.push_back({N.Child[0], N.First});
  }
  return uint32_t(Count); // at most 2n - 1 for n < 2^32 primitives
}

void Build::writeNodes(uint32_t* Words, uint32_t NodeBase, uint32_t ParentBase) const {
  uint32_t* Nodes = &Words[NodeBase];
  uint32_t* Parents = &Words[ParentBase];
  Parents[0] = L::NoParent;
  for (const TopNode& N : Top) {
    uint32_t* W = &Nodes[size_t(N.Global) * L::NodeWords];
    float F[6] = {N.Bounds.Lo[0], N.Bounds.Lo[1], N.Bounds.Lo[2],
                  N.Bounds.Hi[0], N.Bounds.Hi[1], N.Bounds.Hi[2]};
    std::memcpy(W, F, sizeof(F));
    if (N.Leaf) {
      W[L::NodeChild] = N.Begin;
      W[L::NodeInfo] = ((N.End - N.Begin) << 2) | L::LeafTag;
      continue;
    }
    W[L::NodeChild] = N.First;
    W[L::NodeInfo] = N.Axis;
    Parents[N.First] = Parents[N.First + 1] = N.Global;
  }
  forEach(Subtrees.size(), [&](size_t I) {
    const Subtree& U = Subtrees[I];
    auto Place = [&](uint32_t K) { return K ? U.First + K - 1 : U.Global; };
    for (uint32_t K = 0; K != U.Count; ++K) {
      const uint32_t* From = &U.Nodes[size_t(K) * L::NodeWords];
      uint32_t* W = &Nodes[size_t(Place(K)) * L::NodeWords];
      std::memcpy(W, From, L::NodeWords * 4);
      if ((W[L::NodeInfo] & 3) != L::LeafTag)
        W[L::NodeChild] = Place(W[L::NodeChild]);
      if (K)
        Parents[Place(K)] = Place(U.Parents[K]);
    }
  });
}

void Build::writePrims(uint32_t* Words, uint32_t PrimBase) const {
  uint32_t Flags = S.OpaqueTriangles ? L::PrimOpaque : 0;
  size_t Parts = chunksFor(PrimCount);
  forEach(Parts, [&](size_t C) {
    for (uint32_t I = chunkStart(0, PrimCount, Parts, C),
                  E = chunkStart(0, PrimCount, Parts, C + 1);
         I != E; ++I) {
      uint32_t* W = &Words[PrimBase + size_t(I) * L::PrimWords];
      uint32_t Id = Ids[I];
      float F[9] = {};
      if (Id < S.TriangleCount) {
        BvhBuilder::triangle(S, Id, F);
        std::memcpy(W, F, sizeof(F));
        W[L::PrimIndex] = Id;
        W[L::PrimKind] = L::PrimTriangle;
        W[L::PrimFlags] = Flags;
      } else {
        // From the description, not the ref: the ref's zeros are all +0.
        const float* P = &S.Aabbs[size_t(Id - S.TriangleCount) * 6];
        for (int A = 0; A < 3; ++A) {
          F[A] = minf(P[A], P[3 + A]);
          F[3 + A] = maxf(P[A], P[3 + A]);
        }
        std::memcpy(W, F, sizeof(F));
        W[L::PrimIndex] = uint32_t(Id - S.TriangleCount);
        W[L::PrimKind] = L::PrimAabb;
        W[L::PrimFlags] = 0;
      }
    }
  });
}

size_t Build::run(const BvhBuilder::Storage& Into, BvhBuilder::Stats& Stats) {
  unsigned Threads = S.Threads ? S.Threads : BuildPool::defaultThreads();
  size_t Total = S.TriangleCount + S.Aabbs.size() / 6;
  if (Threads > 1 && Total >= SmallScene)
    Pool = std::make_unique<BuildPool>(Threads);
  Task Root{0, 0, 0, 0, Box{}, Box{}};
  collect(Stats, Root.Bounds, Root.Centroids);
  Root.End = PrimCount;
  uint32_t NodeCount = 0;
  if (PrimCount) {
    buildTop(Root);
    // The largest subtrees first, so that the last jobs are short.
    std::vector<uint32_t> Order(Subtrees.size());
    for (uint32_t I = 0; I != Order.size(); ++I)
      Order[I] = I;
    std::sort(Order.begin(), Order.end(), [&](uint32_t A, uint32_t B) {
      uint32_t SizeA = Subtrees[A].Root.End - Subtrees[A].Root.Begin;
      uint32_t SizeB = Subtrees[B].Root.End - Subtrees[B].Root.Begin;
      return SizeA != SizeB ? SizeA > SizeB : A < B;
    });
    forEach(Order.size(), [&](size_t I) { buildSubtree(Subtrees[Order[I]]); });
    NodeCount = number();
  }
  uint64_t Total64 = uint64_t(L::HeaderWords) + uint64_t(NodeCount) * (L::NodeWords + 1) +
                     uint64_t(PrimCount) * L::PrimWords;
  if (Total64 > std::numeric_limits<uint32_t>::max())
    invalid("the acceleration structure would need " + std::to_string(Total64) +
            " words, above the 2^32 - 1 a uint32 index reaches");
  // Every word is written below: the header whole, each node's and primitive's words, and each
  // node's parent (the root's is NoParent).
  uint32_t* Words = Into(size_t(Total64));
  uint32_t NodeBase = L::HeaderWords;
  uint32_t PrimBase = NodeBase + NodeCount * L::NodeWords;
  uint32_t ParentBase = PrimBase + PrimCount * L::PrimWords;
  std::fill(Words, Words + L::HeaderWords, 0u);
  Words[L::HMagic] = L::Magic;
  Words[L::HVersion] = L::Version;
  Words[L::HNodeCount] = NodeCount;
  Words[L::HPrimCount] = PrimCount;
  Words[L::HNodeBase] = NodeBase;
  Words[L::HParentBase] = ParentBase;
  Words[L::HPrimBase] = PrimBase;
  Words[L::HKinds] = (HasTriangles ? 1u : 0u) | (HasAabbs ? 2u : 0u);
  uint32_t Leaves = 0, MaxDepth = 0;
  if (NodeCount)
    writeNodes(Words, NodeBase, ParentBase);
  for (const TopNode& N : Top) {
    Leaves += N.Leaf;
    MaxDepth = N.Depth > MaxDepth ? N.Depth : MaxDepth;
  }
  for (const Subtree& U : Subtrees) {
    Leaves += U.Leaves;
    MaxDepth = U.MaxDepth > MaxDepth ? U.MaxDepth : MaxDepth;
  }
  writePrims(Words, PrimBase);
  Stats.Prims = PrimCount;
  Stats.Nodes = NodeCount;
  Stats.Leaves = Leaves;
  Stats.MaxDepth = MaxDepth;
  Stats.Words = size_t(Total64);
  return size_t(Total64);
}

} // namespace

void BvhBuilder::validateShape(const Scene& S) {
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
}

void BvhBuilder::validate(const Scene& S) {
  validateShape(S);
  size_t VertexCount = S.Vertices.size() / 3;
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

size_t BvhBuilder::build(const Scene& S, const Storage& Into, Stats* Out) {
  validate(S);
  Stats Local;
  Local.Triangles = S.TriangleCount;
  Local.Aabbs = S.Aabbs.size() / 6;
  Build B(S, S.MaxLeafSize ? S.MaxLeafSize : DefaultLeafSize);
  size_t Count = B.run(Into, Local);
  if (Out)
    *Out = Local;
  return Count;
}

std::vector<uint32_t> BvhBuilder::build(const Scene& S, Stats* Out) {
  std::vector<uint32_t> Words;
  build(
      S,
      [&](size_t Count) {
        Words.resize(Count);
        return Words.data();
      },
      Out);
  return Words;
}

} // namespace cajeta::xpu::rt
