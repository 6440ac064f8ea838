// A chain recorded as a CUDA graph: one kernel node per launch, each depending on the one before,
// instantiated once and replayed with cuGraphLaunch. A replay whose arguments (tensor maps
// included) differ from the recording's updates only those nodes (cuGraphExecKernelNodeSetParams);
// a chain of other kernels, other code chosen for them (a TMA entry or its plain one) or other
// geometry is recorded anew. Each node has its own status record in a region the chain owns,
// read back when the queue is synchronised.
#pragma once

#include "runtime/Backend.h"
#include "runtime/backends/cuda/CudaDriverApi.h"
#include "runtime/backends/cuda/CudaTensorMaps.h"

#include <vector>

namespace cajeta::xpu::rt::cuda {

class CudaGraphChain {
public:
  /// Records Launches, each running the code of its Choices entry (CudaTensorMaps::choose), and
  /// instantiates the graph; throws RuntimeError naming the driver call.
  CudaGraphChain(const CudaDriverApi& Api, const std::string& DeviceName, CUstream Stream,
                 std::vector<ChainLaunch>& Launches, const std::vector<CudaLaunchChoice>& Choices);
  ~CudaGraphChain();
  CudaGraphChain(const CudaGraphChain&) = delete;
  CudaGraphChain& operator=(const CudaGraphChain&) = delete;

  /// Whether Launches are this recording's kernels running the same code with its geometry, in
  /// order.
  bool matches(const std::vector<ChainLaunch>& Launches,
               const std::vector<CudaLaunchChoice>& Choices) const;
  /// Sets the arguments of the nodes whose arguments differ (Launches must match).
  void update(std::vector<ChainLaunch>& Launches, const std::vector<CudaLaunchChoice>& Choices);
  void launch(CUstream Stream);

  /// The status records, one per node, and the tags of their launches.
  CUdeviceptr statusRecords() const { return Status; }
  const std::vector<const void*>& tags() const { return Tags; }

private:
  struct Node {
    CUgraphNode Handle = nullptr;
    const void* Kernel = nullptr;
    CUfunction Fn = nullptr; // the code chosen for it
    LaunchGeometry Geometry{};
    std::vector<uint8_t> Arguments; // argumentBytes (with the maps) of what it was last given
  };
  void check(CUresult R, const char* What) const;
  CudaKernelNodeParams paramsFor(const ChainLaunch& L, const CudaLaunchChoice& Choice,
                                 CUdeviceptr* StatusRecord, void** Params) const;
  void release();

  const CudaDriverApi& Api;
  std::string DeviceName;
  CUgraph Graph = nullptr;
  CUgraphExec Exec = nullptr;
  CUdeviceptr Status = 0;
  std::vector<Node> Nodes;
  std::vector<const void*> Tags;
  std::vector<uint8_t> Scratch;
};

} // namespace cajeta::xpu::rt::cuda
