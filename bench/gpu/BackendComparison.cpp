// The Vulkan side of a workload beside the CUDA side: one row of the Vulkan-vs-CUDA table.
#include "GpuWorkloads.h"

#include <exception>

namespace cajeta::gpubench {

void compareBackends(GpuBenchContext& C, BackendRow Row, double CudaHostMs,
                     const std::function<void(OursDevice& Vulkan, BackendRow& Row)>& VulkanSide) {
  if (!C.Vulkan) {
    Row.CudaMs = CudaHostMs;
    Row.Check = "Vulkan: " + C.NoVulkan;
    C.Backends.add(std::move(Row));
    return;
  }
  try {
    VulkanSide(*C.Vulkan, Row);
  } catch (const std::exception& E) {
    C.fail(Row.Workload + " on " + C.Vulkan->describe() + ": " + E.what());
    Row.VulkanMs = 0;
    Row.Check = "ERROR on Vulkan: " + std::string(E.what());
    if (Row.CudaMs <= 0)
      Row.CudaMs = CudaHostMs;
    // A failed launch leaves its error on the stream; drain it so later workloads start clean.
    try {
      C.Vulkan->stream().sync();
    } catch (const std::exception&) {
    }
  }
  C.Backends.add(std::move(Row));
}

std::string checkAgainstCuda(GpuBenchContext& C, const std::string& What,
                             const std::vector<float>& Got, const std::vector<float>& Want) {
  size_t First = 0;
  size_t Diff = countBitDifferences(Got, Want, First);
  if (!Diff)
    return "bit-exact vs CUDA";
  std::string Where;
  if (First < Got.size() && First < Want.size())
    Where = ", first at " + std::to_string(First) + " (" + std::to_string(Got[First]) + " vs " +
            std::to_string(Want[First]) + ")";
  C.fail(What + ": Vulkan and CUDA differ in " + std::to_string(Diff) + " elements" + Where);
  return "MISMATCH vs CUDA (" + std::to_string(Diff) + " elements" + Where + ")";
}

} // namespace cajeta::gpubench
