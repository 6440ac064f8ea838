// PolyBench/GPU: our kernels (polybench.cjx) beside the same kernels built by nvcc, on the same
// data, each side checked against the float64 reference on the host; and ours on the Vulkan
// backend beside ours on cuda, checked the same way.
#include "GpuWorkloads.h"
#include "PolyBenchCudaPeers.h"
#include "PolyBenchTarget.h"

#include <cmath>
#include <exception>
#include <memory>

namespace cajeta::gpubench {

namespace pb = cajeta::polybench;

namespace {

/// The largest relative error of Got's checked arrays against the reference (NaN stays NaN);
/// Ok false when one is over the bound.
template <class GetArray>
double worstError(const pb::Case& K, const std::vector<std::vector<double>>& Ref, GetArray&& Got,
                  bool& Ok) {
  double Worst = 0;
  for (size_t A : K.Checked) {
    std::vector<float> V = Got(A);
    double E = pb::relativeError(V.data(), Ref[A]);
    Ok = Ok && E <= pb::ErrorBound;
    Worst = std::isnan(E) || std::isnan(Worst) ? NAN : std::max(Worst, E);
  }
  return Worst;
}

/// "rel. err vs float64: ours 2.1e-07, nvcc 1.9e-07 (bound 1e-04)".
std::string errorText(const char* AName, double A, const char* BName, double B) {
  char Buf[128];
  std::snprintf(Buf, sizeof(Buf), "rel. err vs float64: %s %.1e, %s %.1e (bound %.0e)", AName, A,
                BName, B, pb::ErrorBound);
  return Buf;
}

void runCase(GpuBenchContext& C, const xpu::Program& Program, const pb::Case& K) {
  xpu::KernelStream& S = C.Cuda.stream();
  pb::PolyBenchTarget Ours(Program, C.Cuda.device(), S, K);
  std::vector<std::unique_ptr<PeerBuffer>> Peer;
  std::vector<float*> PeerArrays;
  for (const std::vector<float>& Init : K.Init) {
    Peer.push_back(std::make_unique<PeerBuffer>(Init.size()));
    Peer.back()->upload(Init.data());
    PeerArrays.push_back(Peer.back()->data());
  }
  const PolyBenchCudaPeer PeerRun = polyBenchCudaPeer(K.Name);
  auto ours = [&] { K.Ours(Ours, K.D); };
  auto peer = [&](int Batch) {
    return C.Peers.timed(Batch, [&](void* Stream) { PeerRun(Stream, PeerArrays.data(), K.D); });
  };

  // One run of each side from the initial data, checked; the timed runs then continue from
  // where it left the arrays (every case stays finite over them).
  ours();
  S.sync();
  peer(1);
  const std::vector<std::vector<double>> Ref = pb::referenceResult(K);
  bool Ok = true;
  double OursErr = worstError(
      K, Ref, [&](size_t A) { return Ours.download(A); }, Ok);
  double PeerErr = worstError(
      K, Ref,
      [&](size_t A) {
        std::vector<float> V(K.Init[A].size());
        Peer[A]->download(V.data());
        return V;
      },
      Ok);
  const std::string Name = "polybench " + K.Name + " " + K.Size;
  std::string Check = errorText("ours", OursErr, "nvcc", PeerErr);
  if (!Ok) {
    C.fail(Name + ": " + Check);
    Check = "MISMATCH: " + Check;
  }
  const int Batch = std::max(1, C.Options.Batch / 5);
  Medians M = measure(C, Batch, ours, peer);
  addRow(C, M,
         ResultRow{Name, "nvcc -O3 sm_90", M.Ours, M.PeerWall, M.PeerGpu, K.Flops, K.Flops,
                   "GFLOP/s", 0, Check});

  compareBackends(C, BackendRow{Name, "compute", 0}, M.Ours, [&](OursDevice& V, BackendRow& R) {
    xpu::Program VProgram = V.load("polybench");
    pb::PolyBenchTarget Vk(VProgram, V.device(), V.stream(), K);
    K.Ours(Vk, K.D);
    V.stream().sync();
    bool VOk = true;
    double VErr = worstError(
        K, Ref, [&](size_t A) { return Vk.download(A); }, VOk);
    R.Check = errorText("Vulkan", VErr, "cuda", OursErr);
    if (!VOk) {
      C.fail(Name + " on Vulkan: " + R.Check);
      R.Check = "MISMATCH: " + R.Check;
    }
    BackendMedians T = timeBackends(C, Batch, ours, [&] { K.Ours(Vk, K.D); });
    R.CudaMs = T.CudaMs;
    R.VulkanMs = T.VulkanMs;
  });
}

} // namespace

void runPolyBenchBench(GpuBenchContext& C) {
  std::vector<std::string> Cases;
  for (const std::string& Name : pb::caseNames())
    if (C.Options.wantsPolyBench(Name))
      Cases.push_back(Name);
  if (Cases.empty())
    return;
  xpu::Program Program = C.Cuda.load("polybench");
  for (const std::string& Name : Cases) {
    try {
      runCase(C, Program, pb::makeCase(Name, C.Options.PolySizes));
    } catch (const std::exception& E) {
      C.fail("polybench " + Name + ": " + E.what());
    }
  }
}

} // namespace cajeta::gpubench
