// Conformance of inline ray query (kir::RayQueryOp over an AccelerationStructure) against a
// brute-force oracle: nearest hits with t, barycentrics, primitive and facing; any hit;
// candidate counts; procedural spheres in boxes; flags; an empty scene; degenerate triangles,
// parallel and NaN rays; huge and tiny coordinates; rays from inside a closed mesh.
#include "ConformanceSupport.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <span>

namespace conformance {
namespace {

using Vec = std::array<float, 3>;

struct Scene {
  std::vector<float> Vertices;   // xyz
  std::vector<uint32_t> Indices; // three per triangle
  size_t triangles() const { return Indices.size() / 3; }
  Vec vertex(uint32_t Tri, int K) const {
    uint32_t V = Indices[3 * Tri + K];
    return {Vertices[3 * V], Vertices[3 * V + 1], Vertices[3 * V + 2]};
  }
};

struct Ray {
  Vec O, D;
};

struct Hit {
  float T = 0, U = 0, V = 0;
  bool Front = false;
  float Edge = 1; // distance in barycentrics to the nearest edge (small: a grazing hit)
};

/// Moller-Trumbore in double precision, with a slack on the barycentric bounds so that a
/// grazing hit is seen (and marked by Edge) rather than missed: an oracle independent of the
/// kernels' float32 watertight test.
std::optional<Hit> intersect(const Scene& S, uint32_t Tri, const Ray& R, float TMin, float TMax,
                             float Slack) {
  double V0[3], E1[3], E2[3], O[3], D[3];
  Vec A = S.vertex(Tri, 0), B = S.vertex(Tri, 1), C = S.vertex(Tri, 2);
  for (int K = 0; K < 3; ++K) {
    V0[K] = A[K];
    E1[K] = double(B[K]) - A[K];
    E2[K] = double(C[K]) - A[K];
    O[K] = R.O[K];
    D[K] = R.D[K];
  }
  auto Cross = [](const double* X, const double* Y, double* Out) {
    Out[0] = X[1] * Y[2] - X[2] * Y[1];
    Out[1] = X[2] * Y[0] - X[0] * Y[2];
    Out[2] = X[0] * Y[1] - X[1] * Y[0];
  };
  auto Dot = [](const double* X, const double* Y) {
    return X[0] * Y[0] + X[1] * Y[1] + X[2] * Y[2];
  };
  double P[3], Q[3], Sv[3];
  Cross(D, E2, P);
  double Det = Dot(E1, P);
  if (Det == 0)
    return std::nullopt;
  for (int K = 0; K < 3; ++K)
    Sv[K] = O[K] - V0[K];
  double U = Dot(Sv, P) / Det;
  Cross(Sv, E1, Q);
  double V = Dot(D, Q) / Det, T = Dot(E2, Q) / Det;
  if (U < -Slack || V < -Slack || U + V > 1 + Slack || !(T >= TMin && T < TMax))
    return std::nullopt;
  return Hit{float(T), float(U), float(V), Det > 0, float(std::min({U, V, 1 - U - V}))};
}

struct Nearest {
  int Prim = -1;
  Hit H;
  bool Ambiguous = false; // a grazing hit, or two hits at almost the same t
};

Nearest bruteForce(const Scene& S, const Ray& R, float TMin, float TMax) {
  Nearest N;
  float Second = TMax;
  for (uint32_t I = 0; I < S.triangles(); ++I) {
    auto H = intersect(S, I, R, TMin, TMax, 1e-4f);
    if (!H)
      continue;
    N.Ambiguous |= H->Edge < 1e-4f;
    if (N.Prim < 0 || H->T < N.H.T) {
      Second = N.Prim < 0 ? Second : N.H.T;
      N.Prim = int(I);
      N.H = *H;
    } else {
      Second = std::min(Second, H->T);
    }
  }
  if (N.Prim >= 0 && Second - N.H.T <= 1e-4f * std::max(1.0f, std::fabs(N.H.T)))
    N.Ambiguous = true;
  return N;
}

std::vector<float> packRays(const std::vector<Ray>& Rays) {
  std::vector<float> Out;
  for (const Ray& R : Rays)
    for (const Vec* V : {&R.O, &R.D})
      Out.insert(Out.end(), V->begin(), V->end());
  return Out;
}

/// Where this instantiation builds its scenes: the host's binned-SAH build, or the device's
/// linear BVH (AccelerationStructureDesc::fastBuild). Every test runs with both.
bool BuildOnDevice = false;

class RayQuery : public ::testing::TestWithParam<bool> {
protected:
  void SetUp() override { BuildOnDevice = GetParam(); }
};

xpu::AccelerationStructure build(const Scene& S, std::span<const float> Boxes = {}) {
  xpu::AccelerationStructureDesc D;
  D.fastBuild(BuildOnDevice);
  if (S.triangles())
    D.triangles({S.Vertices, S.Indices});
  if (!Boxes.empty())
    D.aabbs(Boxes);
  return xpu::AccelerationStructure::build(D);
}

/// N random triangles about Size across in [0, Scale)^3.
Scene soup(size_t N, uint64_t Seed, float Scale = 1, float Size = 0.05f) {
  Rng G(Seed);
  Scene S;
  for (size_t I = 0; I < N; ++I) {
    Vec C = {float(G.uniform(0, 1)), float(G.uniform(0, 1)), float(G.uniform(0, 1))};
    for (int K = 0; K < 3; ++K) {
      S.Indices.push_back(uint32_t(S.Vertices.size() / 3));
      for (int A = 0; A < 3; ++A)
        S.Vertices.push_back(Scale * (C[A] + Size * float(G.uniform(-1, 1))));
    }
  }
  return S;
}

/// A G x G heightfield over [0, 1]^2: two triangles per cell, shared vertices.
Scene heightfield(uint32_t G) {
  Scene S;
  for (uint32_t Y = 0; Y <= G; ++Y)
    for (uint32_t X = 0; X <= G; ++X) {
      float Fx = float(X) / G, Fy = float(Y) / G;
      S.Vertices.insert(S.Vertices.end(), {Fx, Fy, 0.1f * std::sin(6 * Fx) * std::cos(4 * Fy)});
    }
  for (uint32_t Y = 0; Y < G; ++Y)
    for (uint32_t X = 0; X < G; ++X) {
      uint32_t A = Y * (G + 1) + X, B = A + 1, C = A + G + 1, D = C + 1;
      S.Indices.insert(S.Indices.end(), {A, B, D, A, D, C});
    }
  return S;
}

std::vector<Ray> randomRays(size_t N, uint64_t Seed, float Scale = 1) {
  Rng G(Seed);
  std::vector<Ray> Rays;
  for (size_t I = 0; I < N; ++I) {
    Ray R;
    for (int A = 0; A < 3; ++A)
      R.O[A] = Scale * float(G.uniform(-0.2, 1.2));
    for (int A = 0; A < 3; ++A)
      R.D[A] = float(G.uniform(-1, 1));
    Rays.push_back(R);
  }
  return Rays;
}

struct Traced {
  std::vector<float> Hits;    // t, u, v, front per ray
  std::vector<int32_t> Prims; // committed type, primitive per ray
};

Traced traceNearest(const xpu::Program& P, const xpu::AccelerationStructure& A,
                    const std::vector<Ray>& Rays, int32_t Flags = 0, float TMin = 0,
                    float TMax = 1e30f) {
  auto DRays = toDevice(packRays(Rays));
  auto Hits = filledBuffer<float>(4 * Rays.size(), -7.0f);
  auto Prims = filledBuffer<int32_t>(2 * Rays.size(), -7);
  run1D(P.kernel("RayQueries.nearest"), Rays.size(), 64, A, DRays, Hits, Prims, Flags, TMin, TMax,
        int32_t(Rays.size()));
  return {fromDevice(Hits), fromDevice(Prims)};
}

/// Each ray's nearest hit equals the brute force's (grazing and tied rays may name either).
void expectNearest(const Scene& S, const std::vector<Ray>& Rays, const Traced& Got,
                   const std::string& What, float TMin = 0, float TMax = 1e30f) {
  size_t Checked = 0, Hits = 0;
  for (size_t I = 0; I < Rays.size(); ++I) {
    Nearest Want = bruteForce(S, Rays[I], TMin, TMax);
    int32_t Type = Got.Prims[2 * I], Prim = Got.Prims[2 * I + 1];
    if (Want.Ambiguous)
      continue;
    ++Checked;
    std::string At = What + ", ray " + std::to_string(I);
    if (Want.Prim < 0) {
      EXPECT_EQ(Type, 0) << At << ": a hit where the brute force finds none";
      EXPECT_EQ(Prim, -1) << At;
      continue;
    }
    ++Hits;
    ASSERT_EQ(Type, 1) << At << ": missed triangle " << Want.Prim << " at t " << Want.H.T;
    EXPECT_EQ(Prim, Want.Prim) << At;
    float Tol = 1e-4f * std::max(1.0f, std::fabs(Want.H.T));
    EXPECT_NEAR(Got.Hits[4 * I], Want.H.T, Tol) << At;
    EXPECT_NEAR(Got.Hits[4 * I + 1], Want.H.U, 1e-3f) << At;
    EXPECT_NEAR(Got.Hits[4 * I + 2], Want.H.V, 1e-3f) << At;
    EXPECT_EQ(Got.Hits[4 * I + 3], Want.H.Front ? 1.0f : 0.0f) << At;
  }
  // The comparison has to mean something: most rays are decided, many of them hit.
  EXPECT_GE(Checked, Rays.size() * 9 / 10) << What;
  EXPECT_GE(Hits, Checked / 10) << What;
}

TEST_P(RayQuery, NearestHitsMatchBruteForceOnATriangleSoup) {
  xpu::Program P = compileProgram("RayQueries");
  Scene S = soup(3000, 11);
  xpu::AccelerationStructure A = build(S);
  EXPECT_EQ(A.impl(), xpu::AsImpl::Software);
  EXPECT_EQ(A.triangleCount(), 3000u);
  std::vector<Ray> Rays = randomRays(2048, 12);
  expectNearest(S, Rays, traceNearest(P, A, Rays), "soup");
  // A shorter interval: [0.3, 0.9).
  expectNearest(S, Rays, traceNearest(P, A, Rays, 0, 0.3f, 0.9f), "soup in [0.3, 0.9)", 0.3f, 0.9f);
}

TEST_P(RayQuery, HeightfieldRaysThroughVerticesAndEdgesHit) {
  xpu::Program P = compileProgram("RayQueries");
  const uint32_t G = 48;
  Scene S = heightfield(G);
  xpu::AccelerationStructure A = build(S);
  std::vector<Ray> Rays;
  // Straight down at every vertex and the midpoint of every edge inside the grid.
  for (uint32_t Y = 1; Y < G; ++Y)
    for (uint32_t X = 1; X < G; ++X)
      for (auto [Dx, Dy] : {std::pair{0.0f, 0.0f}, {0.5f, 0.0f}, {0.0f, 0.5f}, {0.5f, 0.5f}})
        Rays.push_back({{(X + Dx) / G, (Y + Dy) / G, 1.0f}, {0, 0, -1}});
  Traced Got = traceNearest(P, A, Rays);
  size_t Missed = 0;
  for (size_t I = 0; I < Rays.size(); ++I)
    Missed += Got.Prims[2 * I] != 1;
  EXPECT_EQ(Missed, 0u) << "of " << Rays.size() << " rays through shared vertices and edges";
  // Oblique rays from above: compared with the brute force.
  Rng R(31);
  std::vector<Ray> Oblique;
  for (int I = 0; I < 1024; ++I)
    Oblique.push_back({{float(R.uniform(0, 1)), float(R.uniform(0, 1)), 0.5f},
                       {float(R.uniform(-0.5, 0.5)), float(R.uniform(-0.5, 0.5)), -1}});
  expectNearest(S, Oblique, traceNearest(P, A, Oblique), "heightfield");
}

TEST_P(RayQuery, AnyHitAgreesWithTheNearestHit) {
  xpu::Program P = compileProgram("RayQueries");
  Scene S = soup(1500, 21);
  xpu::AccelerationStructure A = build(S);
  std::vector<Ray> Rays = randomRays(2048, 22);
  const float TMax = 0.5f;
  auto DRays = toDevice(packRays(Rays));
  auto Out = filledBuffer<int32_t>(Rays.size(), -1);
  run1D(P.kernel("RayQueries.anyHit"), Rays.size(), 64, A, DRays, Out, TMax, int32_t(Rays.size()));
  std::vector<int32_t> Got = fromDevice(Out);
  size_t Hits = 0;
  for (size_t I = 0; I < Rays.size(); ++I) {
    Nearest Want = bruteForce(S, Rays[I], 0, TMax);
    if (Want.Ambiguous)
      continue;
    Hits += Want.Prim >= 0;
    EXPECT_EQ(Got[I], Want.Prim >= 0 ? 1 : 0) << "ray " << I;
  }
  EXPECT_GT(Hits, 100u);
}

TEST_P(RayQuery, EveryIntersectionIsOneCandidate) {
  xpu::Program P = compileProgram("RayQueries");
  Scene S = soup(1200, 41);
  Rng G(42);
  std::vector<float> Boxes;
  for (int I = 0; I < 400; ++I) {
    float X = float(G.uniform(0, 1)), Y = float(G.uniform(0, 1)), Z = float(G.uniform(0, 1));
    float H = float(G.uniform(0.005, 0.04));
    Boxes.insert(Boxes.end(), {X - H, Y - H, Z - H, X + H, Y + H, Z + H});
  }
  xpu::AccelerationStructure A = build(S, Boxes);
  EXPECT_EQ(A.aabbCount(), 400u);
  std::vector<Ray> Rays = randomRays(1024, 43);
  auto DRays = toDevice(packRays(Rays));
  auto Out = filledBuffer<int32_t>(2 * Rays.size(), -1);
  run1D(P.kernel("RayQueries.candidates"), Rays.size(), 32, A, DRays, Out, int32_t(Rays.size()));
  std::vector<int32_t> Got = fromDevice(Out);
  size_t Checked = 0, Total = 0;
  for (size_t I = 0; I < Rays.size(); ++I) {
    const Ray& R = Rays[I];
    int32_t Triangles = 0, BoxHits = 0;
    bool Ambiguous = false;
    for (uint32_t T = 0; T < S.triangles(); ++T)
      if (auto H = intersect(S, T, R, 0, 1e30f, 1e-4f)) {
        Triangles += H->Edge >= 0;
        Ambiguous |= std::fabs(H->Edge) < 1e-4f;
      }
    for (size_t B = 0; B < Boxes.size() / 6; ++B) {
      float Near = 0, Far = 1e30f;
      for (int K = 0; K < 3; ++K) {
        float Inv = 1.0f / R.D[K];
        float T0 = (Boxes[6 * B + K] - R.O[K]) * Inv, T1 = (Boxes[6 * B + 3 + K] - R.O[K]) * Inv;
        Near = std::max(Near, std::min(T0, T1));
        Far = std::min(Far, std::max(T0, T1));
      }
      BoxHits += Near <= Far;
      Ambiguous |= std::fabs(Near - Far) < 1e-4f * std::max(1.0f, Far);
    }
    if (Ambiguous)
      continue;
    ++Checked;
    Total += Triangles + BoxHits;
    EXPECT_EQ(Got[2 * I], Triangles) << "ray " << I << ": triangle candidates";
    EXPECT_EQ(Got[2 * I + 1], BoxHits) << "ray " << I << ": box candidates";
  }
  EXPECT_GE(Checked, Rays.size() * 9 / 10);
  EXPECT_GT(Total, 500u);

  // proceed() on the right of &&: at most k candidates are walked to; a ray with more has one
  // more candidate after the k-th (reported as -k).
  const int32_t K = 2;
  auto Capped = filledBuffer<int32_t>(Rays.size(), 99);
  run1D(P.kernel("RayQueries.capped"), Rays.size(), 32, A, DRays, Capped, K, int32_t(Rays.size()));
  std::vector<int32_t> GotCapped = fromDevice(Capped);
  for (size_t I = 0; I < Rays.size(); ++I) {
    int32_t All = Got[2 * I] + Got[2 * I + 1];
    int32_t Want = All > K ? -K : All;
    EXPECT_EQ(GotCapped[I], Want) << "ray " << I << " with " << All << " candidates";
  }
}

TEST_P(RayQuery, ProceduralSpheresInBoxes) {
  xpu::Program P = compileProgram("RayQueries");
  Rng G(51);
  std::vector<float> Boxes;
  for (int I = 0; I < 300; ++I) {
    float X = float(G.uniform(0, 1)), Y = float(G.uniform(0, 1)), Z = float(G.uniform(0, 1));
    float R = float(G.uniform(0.01, 0.05));
    Boxes.insert(Boxes.end(), {X - R, Y - R, Z - R, X + R, Y + R, Z + R});
  }
  xpu::AccelerationStructure A = build(Scene{}, Boxes);
  std::vector<Ray> Rays = randomRays(1024, 52);
  auto DRays = toDevice(packRays(Rays));
  auto DBoxes = toDevice(Boxes);
  auto Hits = filledBuffer<float>(Rays.size(), -7.0f);
  auto Prims = filledBuffer<int32_t>(Rays.size(), -7);
  run1D(P.kernel("RayQueries.spheres"), Rays.size(), 64, A, DRays, DBoxes, Hits, Prims,
        int32_t(Rays.size()));
  std::vector<float> GotT = fromDevice(Hits);
  std::vector<int32_t> GotP = fromDevice(Prims);
  size_t Found = 0;
  for (size_t I = 0; I < Rays.size(); ++I) {
    const Ray& R = Rays[I];
    double Best = 1e30;
    int BestPrim = -1;
    for (size_t B = 0; B < Boxes.size() / 6; ++B) {
      double C[3], Pv[3], Rad = 0.5 * (double(Boxes[6 * B + 3]) - Boxes[6 * B]);
      for (int K = 0; K < 3; ++K) {
        C[K] = 0.5 * (double(Boxes[6 * B + K]) + Boxes[6 * B + 3 + K]);
        Pv[K] = R.O[K] - C[K];
      }
      double Aq = 0, Hb = 0, Cq = -Rad * Rad;
      for (int K = 0; K < 3; ++K) {
        Aq += double(R.D[K]) * R.D[K];
        Hb += Pv[K] * R.D[K];
        Cq += Pv[K] * Pv[K];
      }
      double Disc = Hb * Hb - Aq * Cq;
      if (Disc < 0)
        continue;
      double T = (-Hb - std::sqrt(Disc)) / Aq;
      if (T >= 0 && T < Best) {
        Best = T;
        BestPrim = int(B);
      }
    }
    if (BestPrim < 0) {
      EXPECT_EQ(GotP[I], -1) << "ray " << I;
      continue;
    }
    ++Found;
    EXPECT_EQ(GotP[I], BestPrim) << "ray " << I;
    EXPECT_NEAR(GotT[I], Best, 1e-3 * std::max(1.0, Best)) << "ray " << I;
  }
  EXPECT_GT(Found, 20u);
}

TEST_P(RayQuery, FlagsCullFacesAndSkipGeometry) {
  xpu::Program P = compileProgram("RayQueries");
  Scene S = soup(800, 61);
  xpu::AccelerationStructure A = build(S);
  std::vector<Ray> Rays = randomRays(1024, 62);
  Traced All = traceNearest(P, A, Rays);
  const int32_t CullBack = 0x10, CullFront = 0x20, SkipTriangles = 0x100;
  Traced Back = traceNearest(P, A, Rays, CullBack);
  Traced Front = traceNearest(P, A, Rays, CullFront);
  Traced Skip = traceNearest(P, A, Rays, SkipTriangles);
  size_t Hits = 0;
  for (size_t I = 0; I < Rays.size(); ++I) {
    EXPECT_EQ(Skip.Prims[2 * I], 0) << "ray " << I << " hit with SkipTriangles";
    // Every hit of a culled query faces the kept way, and is the nearest such face.
    if (Back.Prims[2 * I] == 1) {
      EXPECT_EQ(Back.Hits[4 * I + 3], 1.0f) << "ray " << I;
    }
    if (Front.Prims[2 * I] == 1) {
      EXPECT_EQ(Front.Hits[4 * I + 3], 0.0f) << "ray " << I;
    }
    if (All.Prims[2 * I] != 1)
      continue;
    ++Hits;
    // The unculled nearest hit is the nearer of the two culled ones.
    bool FrontHit = All.Hits[4 * I + 3] == 1.0f;
    const Traced& Same = FrontHit ? Back : Front;
    EXPECT_EQ(Same.Prims[2 * I + 1], All.Prims[2 * I + 1]) << "ray " << I;
  }
  EXPECT_GT(Hits, 100u);
}

TEST_P(RayQuery, EmptySceneDegenerateParallelAndNanRays) {
  xpu::Program P = compileProgram("RayQueries");
  // An empty scene: nothing is hit, and the query before initialize has nothing committed.
  xpu::AccelerationStructure Empty = build(Scene{});
  EXPECT_EQ(Empty.triangleCount(), 0u);
  Traced None = traceNearest(P, Empty, randomRays(64, 71));
  for (size_t I = 0; I < 64; ++I)
    EXPECT_EQ(None.Prims[2 * I], 0) << "ray " << I;
  auto Out = filledBuffer<int32_t>(4, -9);
  runKernel(P.kernel("RayQueries.untouched"), xpu::grid(1), xpu::block(1), Empty, Out);
  EXPECT_EQ(fromDevice(Out), (std::vector<int32_t>{0, 0, 0, -1}))
      << "no hardware ray query; nothing committed before initialize; no walk after terminate";
  // A degenerate triangle (a line), a point, and one plain triangle in the plane z = 0.
  Scene S;
  S.Vertices = {0, 0, 0, 1, 0, 0, 2, 0, 0, 5, 5, 0, 5, 5, 0, 5, 5, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0};
  S.Indices = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  xpu::AccelerationStructure A = build(S);
  const float NaN = std::numeric_limits<float>::quiet_NaN();
  std::vector<Ray> Rays = {
      {{1.5f, 0, 1}, {0, 0, -1}},        // onto the line: degenerate, missed
      {{5, 5, 1}, {0, 0, -1}},           // onto the point: missed
      {{-1, 0.25f, 0}, {1, 0, 0}},       // in the triangle's plane: parallel, missed
      {{0.25f, 0.25f, 1}, {0, 0, -1}},   // straight onto the triangle: hit, front
      {{0.25f, 0.25f, -1}, {0, 0, 1}},   // from below: hit, back
      {{NaN, 0.25f, 1}, {0, 0, -1}},     // NaN origin: missed
      {{0.25f, 0.25f, 1}, {0, NaN, -1}}, // NaN direction: missed
  };
  Traced Got = traceNearest(P, A, Rays);
  std::vector<int32_t> WantType = {0, 0, 0, 1, 1, 0, 0};
  for (size_t I = 0; I < Rays.size(); ++I)
    EXPECT_EQ(Got.Prims[2 * I], WantType[I]) << "ray " << I;
  EXPECT_EQ(Got.Prims[7], 2);
  EXPECT_FLOAT_EQ(Got.Hits[12], 1.0f);
  EXPECT_EQ(Got.Hits[15], 1.0f) << "counter-clockwise seen from the origin is the front";
  EXPECT_EQ(Got.Hits[19], 0.0f);
  EXPECT_FLOAT_EQ(Got.Hits[13], 0.25f);
  EXPECT_FLOAT_EQ(Got.Hits[14], 0.25f);
  // tmin > tmax: nothing.
  Traced Inverted = traceNearest(P, A, {Rays[3]}, 0, 2.0f, 1.0f);
  EXPECT_EQ(Inverted.Prims[0], 0);
}

TEST_P(RayQuery, HugeAndTinyCoordinatesGiveTheSameHits) {
  xpu::Program P = compileProgram("RayQueries");
  for (float Scale : {1e6f, 1e-6f}) {
    Scene S = soup(1000, 81, Scale);
    xpu::AccelerationStructure A = build(S);
    std::vector<Ray> Rays = randomRays(1024, 82, Scale);
    expectNearest(S, Rays, traceNearest(P, A, Rays), "scale " + std::to_string(Scale));
  }
}

TEST_P(RayQuery, NoRayEscapesAClosedMesh) {
  xpu::Program P = compileProgram("RayQueries");
  // A sphere: an octahedron subdivided four times, vertices on the unit sphere, shared.
  Scene S;
  S.Vertices = {1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1};
  S.Indices = {0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5};
  for (int Level = 0; Level < 4; ++Level) {
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> Mid;
    auto Middle = [&](uint32_t A, uint32_t B) {
      auto Key = std::minmax(A, B);
      auto [It, New] = Mid.emplace(Key, uint32_t(S.Vertices.size() / 3));
      if (New) {
        float M[3], L = 0;
        for (int K = 0; K < 3; ++K) {
          M[K] = S.Vertices[3 * A + K] + S.Vertices[3 * B + K];
          L += M[K] * M[K];
        }
        for (int K = 0; K < 3; ++K)
          S.Vertices.push_back(M[K] / std::sqrt(L));
      }
      return It->second;
    };
    std::vector<uint32_t> Next;
    for (size_t T = 0; T < S.Indices.size(); T += 3) {
      uint32_t A = S.Indices[T], B = S.Indices[T + 1], C = S.Indices[T + 2];
      uint32_t Ab = Middle(A, B), Bc = Middle(B, C), Ca = Middle(C, A);
      Next.insert(Next.end(), {A, Ab, Ca, Ab, B, Bc, Ca, Bc, C, Ab, Bc, Ca});
    }
    S.Indices = std::move(Next);
  }
  xpu::AccelerationStructure A = build(S);
  Rng G(91);
  std::vector<Ray> Rays;
  for (int I = 0; I < 8192; ++I) {
    Ray R;
    for (int K = 0; K < 3; ++K) {
      R.O[K] = float(G.uniform(-0.5, 0.5));
      R.D[K] = float(G.uniform(-1, 1));
    }
    Rays.push_back(R);
  }
  // Some rays straight at vertices, where up to six triangles meet.
  for (size_t V = 0; V < S.Vertices.size() / 3 && Rays.size() < 9000; ++V)
    Rays.push_back({{0, 0, 0}, {S.Vertices[3 * V], S.Vertices[3 * V + 1], S.Vertices[3 * V + 2]}});
  Traced Got = traceNearest(P, A, Rays);
  size_t Escaped = 0, Outward = 0;
  for (size_t I = 0; I < Rays.size(); ++I) {
    Escaped += Got.Prims[2 * I] != 1;
    Outward += Got.Prims[2 * I] == 1 && Got.Hits[4 * I + 3] == 0.0f; // seen from inside: back
  }
  EXPECT_EQ(Escaped, 0u) << "of " << Rays.size() << " rays from inside the closed mesh";
  EXPECT_EQ(Outward, Rays.size() - Escaped) << "the outward-wound mesh is hit on its back";
}

INSTANTIATE_TEST_SUITE_P(Built, RayQuery, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& I) {
                           return I.param ? "OnDevice" : "OnHost";
                         });

} // namespace
} // namespace conformance
