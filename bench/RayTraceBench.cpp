// Workload 6: inline ray query (raytrace.cj over our host-built BVH) beside Embree 3, same scene,
// same rays: build times, trace rates, and per-pixel agreement of hit, t and triangle.
#include "Timing.h"
#include "Workloads.h"

#include <cajeta/xpu.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if CAJETA_BENCH_HAVE_EMBREE
#include <embree3/rtcore.h>
#include <omp.h>
#endif

namespace cajeta::bench {

#if !CAJETA_BENCH_HAVE_EMBREE

void runRayTrace(const BenchConfig&, ResultTable&) {
  std::printf("raytrace: skipped: cajeta_bench was built without Embree 3 (libembree-dev)\n");
}

#else

namespace xpu = cajeta::xpu;

namespace {

/// The host builder's threads as the runtime picks them: CAJETA_XPU_BUILD_THREADS, else the
/// hardware's count.
unsigned builderThreads() {
  if (const char* Env = std::getenv("CAJETA_XPU_BUILD_THREADS"))
    if (int N = std::atoi(Env); N > 0)
      return unsigned(N);
  unsigned N = std::thread::hardware_concurrency();
  return N ? N : 1;
}

/// A G x G heightfield over [0, 1]^2: (G+1)^2 shared vertices, two triangles per cell.
struct Heightfield {
  uint32_t VertexCount = 0, TriangleCount = 0;
  std::vector<float> Vertices;   // xyz per vertex, plus one float: Embree reads 16 bytes at once
  std::vector<uint32_t> Indices; // three per triangle
};

Heightfield makeHeightfield(uint32_t G) {
  Heightfield H;
  H.VertexCount = (G + 1) * (G + 1);
  H.TriangleCount = 2 * G * G;
  H.Vertices.reserve(3 * size_t(H.VertexCount) + 1);
  for (uint32_t Y = 0; Y <= G; ++Y)
    for (uint32_t X = 0; X <= G; ++X) {
      double Fx = double(X) / G, Fy = double(Y) / G;
      double Z = 0.08 * std::sin(6 * Fx) * std::cos(4 * Fy) +
                 0.015 * std::sin(41 * Fx + 3) * std::sin(37 * Fy);
      H.Vertices.insert(H.Vertices.end(), {float(Fx), float(Fy), float(Z)});
    }
  H.Vertices.push_back(0.0f);
  H.Indices.reserve(3 * size_t(H.TriangleCount));
  for (uint32_t Y = 0; Y < G; ++Y)
    for (uint32_t X = 0; X < G; ++X) {
      uint32_t A = Y * (G + 1) + X, B = A + 1, C = A + G + 1, D = C + 1;
      H.Indices.insert(H.Indices.end(), {A, B, D, A, D, C});
    }
  return H;
}

/// A pinhole camera: pixel (x, y) looks along B + (x + 0.5) U + (y + 0.5) V from the eye E, the
/// same float operations in the same order as raytrace.cj (the bench builds without contraction).
struct Camera {
  float E[3], B[3], U[3], V[3];

  void ray(uint32_t I, uint32_t W, float D[3]) const {
    float Fx = float(I % W) + 0.5f;
    float Fy = float(I / W) + 0.5f;
    for (int K = 0; K < 3; ++K)
      D[K] = B[K] + Fx * U[K] + Fy * V[K];
  }
};

/// From behind and above the near edge of the field, looking down at a point near its middle,
/// 40 degrees of vertical field of view: about 3/4 of the rays hit; the top corners of the
/// image see past the field's far corners and miss.
Camera makeCamera(uint32_t W, uint32_t H) {
  const double Eye[3] = {0.5, -0.3, 0.9}, Target[3] = {0.5, 0.45, 0.0};
  double F[3], R[3], Up[3];
  for (int K = 0; K < 3; ++K)
    F[K] = Target[K] - Eye[K];
  auto normalize = [](double* X) {
    double L = std::sqrt(X[0] * X[0] + X[1] * X[1] + X[2] * X[2]);
    for (int K = 0; K < 3; ++K)
      X[K] /= L;
  };
  normalize(F);
  R[0] = F[1], R[1] = -F[0], R[2] = 0; // F x (0, 0, 1)
  normalize(R);
  Up[0] = R[1] * F[2] - R[2] * F[1], Up[1] = R[2] * F[0] - R[0] * F[2];
  Up[2] = R[0] * F[1] - R[1] * F[0];
  const double TanY = std::tan(20.0 * M_PI / 180.0), TanX = TanY * W / H;
  Camera C;
  for (int K = 0; K < 3; ++K) {
    C.E[K] = float(Eye[K]);
    C.B[K] = float(F[K] - TanX * R[K] + TanY * Up[K]); // the top-left corner of the image
    C.U[K] = float(2 * TanX * R[K] / W);
    C.V[K] = float(-2 * TanY * Up[K] / H);
  }
  return C;
}

constexpr float TFar = 1.0e30f;

/// An Embree scene of the heightfield (shared buffers) at build quality Q; Millis gets the time
/// of rtcCommitScene.
RTCScene embreeScene(RTCDevice Dev, const Heightfield& H, RTCBuildQuality Q, double& Millis) {
  RTCScene Scene = rtcNewScene(Dev);
  rtcSetSceneBuildQuality(Scene, Q);
  RTCGeometry Geom = rtcNewGeometry(Dev, RTC_GEOMETRY_TYPE_TRIANGLE);
  rtcSetGeometryBuildQuality(Geom, Q);
  rtcSetSharedGeometryBuffer(Geom, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3, H.Vertices.data(),
                             0, 3 * sizeof(float), H.VertexCount);
  rtcSetSharedGeometryBuffer(Geom, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3, H.Indices.data(), 0,
                             3 * sizeof(uint32_t), H.TriangleCount);
  rtcCommitGeometry(Geom);
  rtcAttachGeometry(Scene, Geom);
  rtcReleaseGeometry(Geom);
  Millis = timeOnceMs([&] { rtcCommitScene(Scene); });
  if (RTCError E = rtcGetDeviceError(Dev); E != RTC_ERROR_NONE)
    throw std::runtime_error("raytrace: Embree build failed, error " + std::to_string(int(E)));
  return Scene;
}

/// The peer: rtcIntersect1 per pixel, the pixels shared out by OpenMP in chunks of 64 (our
/// launch's block).
void embreeTrace(RTCScene Scene, const Camera& C, uint32_t W, uint32_t N, float* T, int32_t* Prim) {
#pragma omp parallel
  {
    RTCIntersectContext Ctx;
    rtcInitIntersectContext(&Ctx);
#pragma omp for schedule(dynamic, 64)
    for (int64_t I = 0; I < int64_t(N); ++I) {
      float D[3];
      C.ray(uint32_t(I), W, D);
      RTCRayHit RH;
      RH.ray.org_x = C.E[0];
      RH.ray.org_y = C.E[1];
      RH.ray.org_z = C.E[2];
      RH.ray.tnear = 0.0f;
      RH.ray.dir_x = D[0];
      RH.ray.dir_y = D[1];
      RH.ray.dir_z = D[2];
      RH.ray.time = 0.0f;
      RH.ray.tfar = TFar;
      RH.ray.mask = ~0u;
      RH.ray.id = 0;
      RH.ray.flags = 0;
      RH.hit.geomID = RTC_INVALID_GEOMETRY_ID;
      RH.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
      rtcIntersect1(Scene, &Ctx, &RH);
      bool Hit = RH.hit.geomID != RTC_INVALID_GEOMETRY_ID;
      T[I] = Hit ? RH.ray.tfar : -1.0f;
      Prim[I] = Hit ? int32_t(RH.hit.primID) : -1;
    }
  }
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t Mid = V.size() / 2;
  return V.size() % 2 ? V[Mid] : (V[Mid - 1] + V[Mid]) / 2;
}

double minimum(const std::vector<double>& V) {
  return *std::min_element(V.begin(), V.end());
}

/// Per pixel: hit/miss equal; where both hit, the triangle equal unless the two t are a tie
/// (within 1e-4 max(1, t): a shared edge or vertex), and t within 1e-3 relative.
struct Agreement {
  size_t HitMiss = 0, OursOnly = 0, PrimDiff = 0, Ties = 0, TFarOff = 0, Hits = 0;
  float MaxRelT = 0;
  std::string Example;
};

Agreement compare(const std::vector<float>& OursT, const std::vector<int32_t>& OursP,
                  const std::vector<float>& PeerT, const std::vector<int32_t>& PeerP) {
  Agreement A;
  char Line[200];
  auto note = [&](size_t I, const char* What) {
    if (!A.Example.empty())
      return;
    std::snprintf(Line, sizeof Line,
                  "first at pixel %zu: %s (ours t %.9g prim %d, Embree t %.9g prim %d)", I, What,
                  double(OursT[I]), OursP[I], double(PeerT[I]), PeerP[I]);
    A.Example = Line;
  };
  for (size_t I = 0; I < OursT.size(); ++I) {
    bool HitO = OursP[I] >= 0, HitE = PeerP[I] >= 0;
    if (HitO != HitE) {
      ++A.HitMiss;
      A.OursOnly += HitO;
      note(I, "hit/miss");
      continue;
    }
    if (!HitO)
      continue;
    ++A.Hits;
    float Diff = std::fabs(OursT[I] - PeerT[I]);
    A.MaxRelT = std::max(A.MaxRelT, Diff / std::fabs(PeerT[I]));
    if (Diff > 1e-3f * std::fabs(PeerT[I])) {
      ++A.TFarOff;
      note(I, "t");
    }
    if (OursP[I] != PeerP[I]) {
      if (Diff <= 1e-4f * std::max(1.0f, PeerT[I])) {
        ++A.Ties;
      } else {
        ++A.PrimDiff;
        note(I, "triangle");
      }
    }
  }
  return A;
}

std::string count(double N) {
  char Buf[32];
  if (N >= 1e6)
    std::snprintf(Buf, sizeof Buf, "%.2fM", N / 1e6);
  else
    std::snprintf(Buf, sizeof Buf, "%.0f", N);
  return Buf;
}

} // namespace

void runRayTrace(const BenchConfig& Config, ResultTable& Table) {
  const uint32_t G = Config.RayGrid, W = Config.RayImageW, H = Config.RayImageH;
  const uint32_t N = W * H;
  const Heightfield Field = makeHeightfield(G);
  const Camera Cam = makeCamera(W, H);
  const std::span<const float> Vertices(Field.Vertices.data(), 3 * size_t(Field.VertexCount));
  const auto Desc = xpu::AccelerationStructureDesc{}.triangles({Vertices, Field.Indices});

  const int Threads = omp_get_max_threads();
  RTCDevice Dev = rtcNewDevice(("threads=" + std::to_string(Threads)).c_str());
  if (!Dev)
    throw std::runtime_error("raytrace: rtcNewDevice failed, error " +
                             std::to_string(int(rtcGetDeviceError(nullptr))));
  struct Release {
    RTCDevice D;
    RTCScene S = nullptr;
    ~Release() {
      if (S)
        rtcReleaseScene(S);
      rtcReleaseDevice(D);
    }
  } Guard{Dev};

  // Builds: ours (the whole build() call: host build and upload, and buildMillis() alone), then
  // Embree MEDIUM and LOW, in turn, RayBuildReps times; the last of ours and of MEDIUM are kept.
  std::optional<xpu::AccelerationStructure> Accel, Fast;
  std::vector<double> OursWhole, OursHost, FastWhole, FastKernels, Medium, Low;
  const auto FastDesc = xpu::AccelerationStructureDesc(Desc).fastBuild();
  Fast.emplace(xpu::AccelerationStructure::build(FastDesc)); // loads the build's kernels
  for (unsigned R = 0; R < Config.RayBuildReps; ++R) {
    Accel.reset();
    OursWhole.push_back(
        timeOnceMs([&] { Accel.emplace(xpu::AccelerationStructure::build(Desc)); }));
    OursHost.push_back(Accel->buildMillis());
    Fast.reset();
    FastWhole.push_back(
        timeOnceMs([&] { Fast.emplace(xpu::AccelerationStructure::build(FastDesc)); }));
    FastKernels.push_back(Fast->buildMillis());
    double Ms = 0;
    if (Guard.S)
      rtcReleaseScene(Guard.S);
    Guard.S = embreeScene(Dev, Field, RTC_BUILD_QUALITY_MEDIUM, Ms);
    Medium.push_back(Ms);
    rtcReleaseScene(embreeScene(Dev, Field, RTC_BUILD_QUALITY_LOW, Ms));
    Low.push_back(Ms);
  }

  xpu::Program Program = compileKernels(Config, "raytrace.cj");
  xpu::Kernel Trace = Program.kernel("Bench.raytrace");
  xpu::KernelStream& S = xpu::KernelStream::current();
  xpu::KernelBuffer<float> HitT(N);
  xpu::KernelBuffer<int32_t> HitPrim(N);
  std::vector<float> OursT(N), PeerT(N);
  std::vector<int32_t> OursP(N), PeerP(N);
  const uint32_t Block = 64, Groups = (N + Block - 1) / Block;

  auto TraceThrough = [&](const xpu::AccelerationStructure& Through) {
    Trace.launch(S, xpu::grid(Groups), xpu::block(Block))(
        Through, HitT, HitPrim, Cam.E[0], Cam.E[1], Cam.E[2], Cam.B[0], Cam.B[1], Cam.B[2],
        Cam.U[0], Cam.U[1], Cam.U[2], Cam.V[0], Cam.V[1], Cam.V[2], W, N);
    S.sync();
  };
  auto Ours = [&] { TraceThrough(*Accel); };
  auto Peer = [&] { embreeTrace(Guard.S, Cam, W, N, PeerT.data(), PeerP.data()); };

  Ours();
  Peer();
  HitT.download(OursT.data(), N);
  HitPrim.download(OursP.data(), N);
  Agreement A = compare(OursT, OursP, PeerT, PeerP);
  const size_t Allowed = N / 1000; // 0.1% of the pixels
  const bool Agrees = A.HitMiss + A.PrimDiff <= Allowed && A.TFarOff == 0;
  char Check[400];
  std::snprintf(Check, sizeof Check,
                "%u pixels, %zu hits; hit/miss differ %zu (%zu hit by ours only), triangle differs "
                "%zu (+%zu ties), t "
                "beyond 1e-3 %zu, max rel t diff %.2g; allowed %zu disagreements%s%s",
                N, A.Hits, A.HitMiss, A.OursOnly, A.PrimDiff, A.Ties, A.TFarOff, double(A.MaxRelT),
                Allowed, A.Example.empty() ? "" : "; ", A.Example.c_str());

  const std::string Scene = "G=" + std::to_string(G);
  std::printf("raytrace: heightfield %s, %s triangles, our BVH %zu nodes, %.1f MiB; %ux%u rays; "
              "Embree %d.%d.%d, %d threads\n  check: %s\n",
              Scene.c_str(), count(Field.TriangleCount).c_str(), Accel->nodeCount(),
              double(Accel->bytes()) / (1 << 20), W, H, RTC_VERSION_MAJOR, RTC_VERSION_MINOR,
              RTC_VERSION_PATCH, Threads, Check);

  // A build row: our builds' times beside the peer's, per triangle.
  auto buildRow = [&](std::string Workload, std::string Shape, const std::vector<double>& OursMs,
                      const std::vector<double>& PeerMs) {
    ResultRow Row;
    Row.Workload = std::move(Workload);
    Row.Shape = std::move(Shape);
    Row.Items = Field.TriangleCount;
    Row.ItemUnit = "triangles";
    Row.OursMs = median(OursMs);
    Row.PeerMs = median(PeerMs);
    Row.OursMinMs = minimum(OursMs);
    Row.PeerMinMs = minimum(PeerMs);
    return Row;
  };
  auto addBuild = [&](const char* Peer, const std::vector<double>& PeerMs) {
    ResultRow Row =
        buildRow("rq build " + Scene + " vs Embree " + Peer,
                 "host SAH, " + std::to_string(builderThreads()) + " threads", OursWhole, PeerMs);
    Row.Verified = Agrees;
    Row.PassLabel = "agrees";
    Row.Check = Check;
    char Note[200];
    std::snprintf(Note, sizeof Note,
                  "ours = the whole build() call (median of %zu); buildMillis() alone %.1f ms, "
                  "the rest %.1f ms; the OpenMP ms column is Embree's rtcCommitScene",
                  OursWhole.size(), median(OursHost), median(OursWhole) - median(OursHost));
    Row.Note = Note;
    Table.add(std::move(Row));
  };
  addBuild("MEDIUM", Medium);
  addBuild("LOW", Low);

  // The device build (a linear BVH by the runtime's kernels, here on the cpu backend) beside
  // Embree LOW, Embree's own Morton-code builder; its tree traced once and checked the same way.
  TraceThrough(*Fast);
  std::vector<float> FastT(N);
  std::vector<int32_t> FastP(N);
  HitT.download(FastT.data(), N);
  HitPrim.download(FastP.data(), N);
  Agreement FA = compare(FastT, FastP, PeerT, PeerP);
  ResultRow FastRow = buildRow("rq fast build " + Scene + " vs Embree LOW",
                               "LBVH kernels on the cpu backend", FastWhole, Low);
  FastRow.Verified = FA.HitMiss + FA.PrimDiff <= Allowed && FA.TFarOff == 0;
  FastRow.PassLabel = "agrees";
  char FastCheck[300];
  std::snprintf(FastCheck, sizeof FastCheck,
                "its tree traced: hit/miss differ %zu, triangle differs %zu (+%zu ties), t beyond "
                "1e-3 %zu; allowed %zu",
                FA.HitMiss, FA.PrimDiff, FA.Ties, FA.TFarOff, Allowed);
  FastRow.Check = FastCheck;
  char FastNote[200];
  std::snprintf(FastNote, sizeof FastNote,
                "ours = the whole build() call with fastBuild() (median of %zu); the kernels "
                "alone %.1f ms; %zu nodes",
                FastWhole.size(), median(FastKernels), Fast->nodeCount());
  FastRow.Note = FastNote;
  Table.add(std::move(FastRow));

  ResultRow Row;
  Row.Workload = "rq trace " + std::to_string(W) + "x" + std::to_string(H) + " vs Embree";
  Row.Shape = "grid " + std::to_string(Groups) + " x blk " + std::to_string(Block);
  Row.Items = N;
  Row.ItemUnit = "rays";
  Row.Verified = Agrees;
  Row.PassLabel = "agrees";
  Row.Check = Check;
  Row.Note = "the OpenMP ms column is Embree: rtcIntersect1 per pixel over the MEDIUM scene, "
             "OpenMP dynamic chunks of 64";
  PairTimes T = comparePair(Config.Warmup, Config.Reps, Config.Rounds, Ours, Peer);
  Row.setTimes(T);
  Table.add(std::move(Row));
}

#endif

} // namespace cajeta::bench
