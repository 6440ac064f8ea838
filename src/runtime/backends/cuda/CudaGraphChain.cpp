// Chains as CUDA graphs (CudaGraphChain.h).
#include "runtime/backends/cuda/CudaGraphChain.h"
#include "runtime/backends/cuda/CudaAbandonedWork.h"

#include "bundle/GpuKernelAbi.h"
#include "runtime/RuntimeError.h"
#include "runtime/backends/cuda/CudaKernelParams.h"

#include <cstring>
#include <fmt/format.h>

namespace cajeta::xpu::rt::cuda {

namespace {
constexpr unsigned DefaultSharedLimit = 48 * 1024; // above it a kernel must opt in
}

void CudaGraphChain::check(CUresult R, const char* What) const {
  if (R == CUDA_SUCCESS)
    return;
  fail(R == CUDA_ERROR_OUT_OF_MEMORY ? CAJETA_XPU_OUT_OF_DEVICE_MEMORY : CAJETA_XPU_LAUNCH_ERROR,
       fmt::format("cuda device '{}': recording a chain: {}: {}", DeviceName, What,
                   Api.describe(R)));
}

CudaKernelNodeParams CudaGraphChain::paramsFor(const ChainLaunch& L, const CudaLaunchChoice& Choice,
                                               CUdeviceptr* StatusRecord, void** Params) const {
  // The driver copies the parameters, tensor maps included, into the node.
  packKernelParams(*L.Info, L.Args.data(), StatusRecord, Params, Choice.Maps.data(),
                   Choice.Maps.size());
  CudaKernelNodeParams P{};
  P.func = Choice.Fn;
  P.gridDimX = L.Geometry.Grid[0];
  P.gridDimY = L.Geometry.Grid[1];
  P.gridDimZ = L.Geometry.Grid[2];
  P.blockDimX = L.Geometry.Block[0];
  P.blockDimY = L.Geometry.Block[1];
  P.blockDimZ = L.Geometry.Block[2];
  P.sharedMemBytes = L.Geometry.DynamicSharedBytes;
  P.kernelParams = Params;
  return P;
}

CudaGraphChain::CudaGraphChain(const CudaDriverApi& Api, const std::string& DeviceName,
                               CUstream Stream, std::vector<ChainLaunch>& Launches,
                               const std::vector<CudaLaunchChoice>& Choices)
    : Api(Api), DeviceName(DeviceName) {
  try {
    size_t Bytes = Launches.size() * sizeof(CajetaGpuStatus);
    check(Api.cuMemAlloc(&Status, Bytes), "cuMemAlloc (status records)");
    // Zeroed on the stream that launches the graph, so before any replay runs.
    check(Api.cuMemsetD8Async(Status, 0, Bytes, Stream), "cuMemsetD8Async");
    check(Api.cuGraphCreate(&Graph, 0), "cuGraphCreate");
    for (size_t I = 0; I != Launches.size(); ++I) {
      const ChainLaunch& L = Launches[I];
      if (L.Info->Params.size() > MaxKernelParams)
        fail(CAJETA_XPU_LAUNCH_ERROR,
             fmt::format("{}: {} parameters; the cuda backend passes at most {}", L.Info->Name,
                         L.Info->Params.size(), MaxKernelParams));
      const CudaLaunchChoice& Choice = Choices[I];
      CUfunction Fn = Choice.Fn;
      if (L.Geometry.DynamicSharedBytes &&
          L.Geometry.DynamicSharedBytes + Choice.StaticSharedBytes > DefaultSharedLimit)
        check(Api.cuFuncSetAttribute(Fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     int(L.Geometry.DynamicSharedBytes)),
              "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
      CUdeviceptr Record = Status + I * sizeof(CajetaGpuStatus);
      void* Params[MaxParamSlots];
      CudaKernelNodeParams P = paramsFor(L, Choice, &Record, Params);
      Node N;
      const CUgraphNode* Deps = Nodes.empty() ? nullptr : &Nodes.back().Handle;
      check(Api.cuGraphAddKernelNode(&N.Handle, Graph, Deps, Nodes.empty() ? 0 : 1, &P),
            "cuGraphAddKernelNode");
      N.Kernel = L.Kernel;
      N.Fn = Fn;
      N.Geometry = L.Geometry;
      argumentBytes(*L.Info, L.Args.data(), N.Arguments, Choice.Maps.data(), Choice.Maps.size());
      Nodes.push_back(std::move(N));
      Tags.push_back(L.Tag);
    }
    check(Api.cuGraphInstantiateWithFlags(&Exec, Graph, 0), "cuGraphInstantiateWithFlags");
  } catch (...) {
    release();
    throw;
  }
}

CudaGraphChain::~CudaGraphChain() {
  release();
}

void CudaGraphChain::release() {
  if (Exec)
    Api.cuGraphExecDestroy(Exec);
  if (Graph)
    Api.cuGraphDestroy(Graph);
  if (Status && !workAbandoned())
    Api.cuMemFree(Status);
  Exec = nullptr;
  Graph = nullptr;
  Status = 0;
}

bool CudaGraphChain::matches(const std::vector<ChainLaunch>& Launches,
                             const std::vector<CudaLaunchChoice>& Choices) const {
  if (Launches.size() != Nodes.size())
    return false;
  for (size_t I = 0; I != Nodes.size(); ++I) {
    const LaunchGeometry& A = Nodes[I].Geometry;
    const LaunchGeometry& B = Launches[I].Geometry;
    // A node's function cannot be swapped on the instantiated graph.
    if (Nodes[I].Kernel != Launches[I].Kernel || Nodes[I].Fn != Choices[I].Fn ||
        Tags[I] != Launches[I].Tag || std::memcmp(A.Grid, B.Grid, sizeof(A.Grid)) ||
        std::memcmp(A.Block, B.Block, sizeof(A.Block)) ||
        A.DynamicSharedBytes != B.DynamicSharedBytes)
      return false;
  }
  return true;
}

void CudaGraphChain::update(std::vector<ChainLaunch>& Launches,
                            const std::vector<CudaLaunchChoice>& Choices) {
  for (size_t I = 0; I != Nodes.size(); ++I) {
    const ChainLaunch& L = Launches[I];
    const CudaLaunchChoice& Choice = Choices[I];
    argumentBytes(*L.Info, L.Args.data(), Scratch, Choice.Maps.data(), Choice.Maps.size());
    if (Scratch == Nodes[I].Arguments)
      continue;
    CUdeviceptr Record = Status + I * sizeof(CajetaGpuStatus);
    void* Params[MaxParamSlots];
    CudaKernelNodeParams P = paramsFor(L, Choice, &Record, Params);
    check(Api.cuGraphExecKernelNodeSetParams(Exec, Nodes[I].Handle, &P),
          "cuGraphExecKernelNodeSetParams");
    Nodes[I].Arguments.swap(Scratch);
  }
}

void CudaGraphChain::launch(CUstream Stream) {
  check(Api.cuGraphLaunch(Exec, Stream), "cuGraphLaunch");
}

} // namespace cajeta::xpu::rt::cuda
