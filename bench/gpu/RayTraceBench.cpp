// Primary rays into a heightfield through inline ray query (raytrace.cj), beside the same walk
// written by hand in CUDA C++ over the same BVH words, and on the Vulkan backend beside cuda.
#include "GpuWorkloads.h"

#include <cmath>

namespace cajeta::gpubench {

namespace {

constexpr float Eye[3] = {0.5f, -0.5f, 1.5f};

/// A G x G heightfield over [0, 1]^2, two triangles per cell, shared vertices.
void heightfield(uint32_t G, std::vector<float>& V, std::vector<uint32_t>& I) {
  V.clear();
  I.clear();
  for (uint32_t Y = 0; Y <= G; ++Y)
    for (uint32_t X = 0; X <= G; ++X) {
      float Fx = float(X) / G, Fy = float(Y) / G;
      V.insert(V.end(),
               {Fx, Fy,
                0.08f * std::sin(9 * Fx) * std::cos(7 * Fy) + 0.02f * std::sin(53 * Fx + 31 * Fy)});
    }
  for (uint32_t Y = 0; Y < G; ++Y)
    for (uint32_t X = 0; X < G; ++X) {
      uint32_t A = Y * (G + 1) + X, B = A + 1, C = A + G + 1, D = C + 1;
      I.insert(I.end(), {A, B, D, A, D, C});
    }
}

/// Hits of two sides. A ray through an edge two triangles share may name either at the same t
/// (a tie); the sides round the ray's frame differently (nvcc contracts a * b - c into one fma,
/// we do not), so a ray that grazes the scene's border may hit on one side and miss on the
/// other. Up to 1 in 10,000 such rays pass; more fail the run.
std::string compareHits(GpuBenchContext& C, const std::string& What, const std::vector<float>& T,
                        const std::vector<int32_t>& P, const std::vector<float>& WantT,
                        const std::vector<int32_t>& WantP) {
  size_t Differ = 0, Ties = 0, Hits = 0, First = T.size();
  for (size_t I = 0; I < T.size(); ++I) {
    Hits += WantP[I] >= 0;
    bool BothHit = P[I] >= 0 && WantP[I] >= 0;
    bool SameT = std::fabs(T[I] - WantT[I]) <= 1e-4f * std::max(1.0f, std::fabs(WantT[I]));
    if ((P[I] < 0 && WantP[I] < 0) || (BothHit && SameT)) {
      Ties += P[I] != WantP[I];
      continue;
    }
    if (!Differ++)
      First = I;
  }
  char Buf[200];
  std::snprintf(Buf, sizeof(Buf), "%zu of %zu rays hit; %zu edge ties; %zu rays differ", Hits,
                T.size(), Ties, Differ);
  if (Differ * 10000 <= T.size())
    return Buf;
  C.fail(What + ": " + Buf + ", the first ray " + std::to_string(First));
  return std::string("MISMATCH: ") + Buf;
}

/// Median of Reps batches of Batch calls of Item on S, host clock through the sync, per call.
template <class F>
double timeBatches(GpuBenchContext& C, xpu::KernelStream& S, int Batch, F&& Item) {
  std::vector<double> Ms;
  for (int R = -C.Options.Warmup; R < C.Options.Reps; ++R) {
    double T0 = nowMs();
    for (int I = 0; I < Batch; ++I)
      Item();
    S.sync();
    if (R >= 0)
      Ms.push_back((nowMs() - T0) / Batch);
  }
  return median(Ms);
}

/// The device build (AccelerationStructureDesc::fastBuild: a linear BVH made by our kernels) on
/// Device beside the host's binned-SAH build of the same scene: build times, and the same
/// primary rays traced through both trees (the hits must agree with the SAH tree's, Ot/Op).
void benchDeviceBuild(GpuBenchContext& C, OursDevice& Device, const char* Backend,
                      const xpu::AccelerationStructureDesc& Desc, double HostBuildMs,
                      double SahTraceMs, const std::vector<float>& Ot,
                      const std::vector<int32_t>& Op, uint32_t W, uint32_t H) {
  xpu::AccelerationStructureDesc Fast = Desc;
  Fast.fastBuild();
  std::vector<double> Kernels, Wall;
  for (int I = 0; I < 1 + std::max(3, C.Options.Reps / 4); ++I) {
    double T0 = nowMs();
    xpu::AccelerationStructure L = xpu::AccelerationStructure::build(Device.device(), Fast);
    if (I) { // the first loads the kernels
      Wall.push_back(nowMs() - T0);
      Kernels.push_back(L.buildMillis());
    }
  }
  xpu::AccelerationStructure Lbvh = xpu::AccelerationStructure::build(Device.device(), Fast);
  const size_t Rays = size_t(W) * H;
  xpu::Kernel Trace = Device.load("raytrace").kernel("GpuBench.primaryRays");
  xpu::KernelBuffer<float> T(Device.device(), Rays);
  xpu::KernelBuffer<int32_t> P(Device.device(), Rays);
  const uint32_t Block = 128, Groups = uint32_t((Rays + Block - 1) / Block);
  auto trace = [&] {
    Trace.launch(Device.stream(), xpu::grid(Groups), xpu::block(Block))(Lbvh, T, P, W, H, Eye[0],
                                                                        Eye[1], Eye[2], 0u);
  };
  trace();
  Device.stream().sync();
  std::vector<float> Lt;
  std::vector<int32_t> Lp;
  T.download(Lt);
  P.download(Lp);
  std::string Check = compareHits(
      C, std::string("raytrace (") + Backend + ", device-built BVH vs the host-built one)", Lt, Lp,
      Ot, Op);
  double TraceMs = timeBatches(C, Device.stream(), std::max(1, C.Options.Batch / 2), trace);
  double Prims = double(Lbvh.triangleCount());
  std::printf("\n## device BVH build (%s): %s triangles\n\n"
              "| build | ms (kernels) | ms (with upload and allocation) | G prims/s (kernels) | "
              "nodes | trace ms | G rays/s | check |\n"
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n"
              "| linear BVH on the device (fastBuild) | %.3f | %.3f | %.2f | %zu | %.3f | %.2f | "
              "%s |\n"
              "| binned SAH on the host | %.1f | - | %.3f | - | %.3f | %.2f | the reference |\n",
              Backend, sizeText(Lbvh.triangleCount()).c_str(), median(Kernels), median(Wall),
              Prims / median(Kernels) * 1e-6, Lbvh.nodeCount(), TraceMs,
              double(Rays) / TraceMs * 1e-6, Check.c_str(), HostBuildMs, Prims / HostBuildMs * 1e-6,
              SahTraceMs, double(Rays) / SahTraceMs * 1e-6);
}

} // namespace

void runRayTraceBench(GpuBenchContext& C) {
  if (!C.Options.wants("raytrace"))
    return;
  const uint32_t W = C.Options.RayImage, H = C.Options.RayImage, G = C.Options.RayGrid;
  const size_t Rays = size_t(W) * H;
  std::vector<float> Vertices;
  std::vector<uint32_t> Indices;
  heightfield(G, Vertices, Indices);
  xpu::AccelerationStructureDesc Desc;
  Desc.triangles({Vertices, Indices});
  if (C.Options.RayLeafSize)
    Desc.maxLeafSize(C.Options.RayLeafSize);
  double T0 = nowMs();
  xpu::AccelerationStructure Scene = xpu::AccelerationStructure::build(C.Cuda.device(), Desc);
  double BuildMs = nowMs() - T0;
  std::printf("raytrace: %zu triangles, %zu BVH nodes (%.1f MiB), host build %.0f ms (%.0f ms "
              "with the upload)\n",
              Scene.triangleCount(), Scene.nodeCount(), Scene.bytes() / 1048576.0,
              Scene.buildMillis(), BuildMs);

  // The peer walks the very words our kernel walks.
  std::vector<uint32_t> Words(Scene.bytes() / 4);
  xpu::detail::check(cajeta_xpu_buffer_read(cajeta_xpu_accel_buffer(Scene.handle()), nullptr,
                                            Words.data(), Words.size()));
  PeerBytes PeerBvh(Scene.bytes()), PeerPrim(Rays * 4);
  PeerBuffer PeerT(Rays);
  PeerBvh.upload(Words.data());

  xpu::Kernel Trace = C.Cuda.load("raytrace").kernel("GpuBench.primaryRays");
  xpu::KernelStream& S = C.Cuda.stream();
  xpu::KernelBuffer<float> OursT(C.Cuda.device(), Rays);
  xpu::KernelBuffer<int32_t> OursPrim(C.Cuda.device(), Rays);
  const uint32_t Block = 128, Groups = uint32_t((Rays + Block - 1) / Block);
  uint32_t Tiles = 0; // pixels in rows; then 8 x 4 tiles per wave
  auto ours = [&] {
    Trace.launch(S, xpu::grid(Groups), xpu::block(Block))(Scene, OursT, OursPrim, W, H, Eye[0],
                                                          Eye[1], Eye[2], Tiles);
  };
  ours();
  S.sync();
  C.Peers.primaryRays(PeerT, PeerPrim, PeerBvh, W, H, Eye[0], Eye[1], Eye[2], 1);
  std::vector<float> Ot, Pt(Rays);
  std::vector<int32_t> Op, Pp(Rays);
  OursT.download(Ot);
  OursPrim.download(Op);
  PeerT.download(Pt.data());
  PeerPrim.download(Pp.data());
  std::string Check = compareHits(C, "raytrace (cuda vs the CUDA peer)", Ot, Op, Pt, Pp);

  const int Batch = std::max(1, C.Options.Batch / 2);
  Medians M = measure(C, Batch, ours, [&](int Bt) {
    return C.Peers.primaryRays(PeerT, PeerPrim, PeerBvh, W, H, Eye[0], Eye[1], Eye[2], Bt);
  });
  const std::string Name = "primary rays " + std::to_string(W) + "^2, heightfield " +
                           sizeText(Scene.triangleCount()) + " triangles";
  addRow(C, M,
         ResultRow{Name, "nvcc -O3 sm_90, stack walk of the same BVH", M.Ours, M.PeerWall,
                   M.PeerGpu, double(Rays), double(Rays), "G rays/s", 0.95, Check});
  // The same walk with each node's and triangle's words in 128-bit loads.
  C.Peers.primaryRays(PeerT, PeerPrim, PeerBvh, W, H, Eye[0], Eye[1], Eye[2], 1, true, false);
  PeerT.download(Pt.data());
  PeerPrim.download(Pp.data());
  std::string CheckVector =
      compareHits(C, "raytrace (cuda vs the CUDA peer, 128-bit loads)", Ot, Op, Pt, Pp);
  Medians MV = measure(C, Batch, ours, [&](int Bt) {
    return C.Peers.primaryRays(PeerT, PeerPrim, PeerBvh, W, H, Eye[0], Eye[1], Eye[2], Bt, true);
  });
  addRow(C, MV,
         ResultRow{Name, "nvcc -O3 sm_90, the same walk with 128-bit node and triangle loads",
                   MV.Ours, MV.PeerWall, MV.PeerGpu, double(Rays), double(Rays), "G rays/s", 0.95,
                   CheckVector});
  // Each wave's 32 rays an 8 x 4 tile of pixels, as renderers launch them, on both sides: the
  // same rays, so the same image.
  if (W % 8 == 0 && H % 4 == 0) {
    Tiles = 1;
    ours();
    S.sync();
    std::vector<float> Tt;
    std::vector<int32_t> Tp;
    OursT.download(Tt);
    OursPrim.download(Tp);
    std::string CheckTiles = compareHits(C, "raytrace (8 x 4 tiles vs rows)", Tt, Tp, Ot, Op);
    Medians MT = measure(C, Batch, ours, [&](int Bt) {
      return C.Peers.primaryRays(PeerT, PeerPrim, PeerBvh, W, H, Eye[0], Eye[1], Eye[2], Bt, true,
                                 true);
    });
    PeerT.download(Pt.data());
    PeerPrim.download(Pp.data());
    std::string CheckPeer =
        compareHits(C, "raytrace (cuda vs the CUDA peer, 8 x 4 tiles)", Tt, Tp, Pt, Pp);
    addRow(C, MT,
           ResultRow{Name + ", 8 x 4 pixels per wave",
                     "nvcc -O3 sm_90, the 128-bit-load walk, the same tiles", MT.Ours, MT.PeerWall,
                     MT.PeerGpu, double(Rays), double(Rays), "G rays/s", 0.95,
                     CheckTiles + " (vs rows); " + CheckPeer + " (vs the peer)"});
    Tiles = 0;
  }
  benchDeviceBuild(C, C.Cuda, "cuda", Desc, Scene.buildMillis(), M.Ours, Ot, Op, W, H);
  if (C.Vulkan)
    benchDeviceBuild(C, *C.Vulkan, "vulkan", Desc, Scene.buildMillis(), M.Ours, Ot, Op, W, H);
  compareBackends(C, BackendRow{Name, "ray query", BarrierHeavyTarget}, M.Ours,
                  [&](OursDevice& V, BackendRow& R) {
                    xpu::AccelerationStructure VScene =
                        xpu::AccelerationStructure::build(V.device(), Desc);
                    xpu::Kernel VTrace = V.load("raytrace").kernel("GpuBench.primaryRays");
                    xpu::KernelBuffer<float> VT(V.device(), Rays);
                    xpu::KernelBuffer<int32_t> VP(V.device(), Rays);
                    auto vulkan = [&] {
                      VTrace.launch(V.stream(), xpu::grid(Groups), xpu::block(Block))(
                          VScene, VT, VP, W, H, Eye[0], Eye[1], Eye[2], 0u);
                    };
                    vulkan();
                    V.stream().sync();
                    std::vector<float> Gt;
                    std::vector<int32_t> Gp;
                    VT.download(Gt);
                    VP.download(Gp);
                    R.Check = compareHits(C, "raytrace (Vulkan vs cuda)", Gt, Gp, Ot, Op);
                    BackendMedians T = timeBackends(C, Batch, ours, vulkan);
                    R.CudaMs = T.CudaMs;
                    R.VulkanMs = T.VulkanMs;
                  });
}

} // namespace cajeta::gpubench
