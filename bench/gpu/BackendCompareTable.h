// The Vulkan-vs-CUDA table: our kernels on both backends of one GPU, with the Vulkan targets.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace cajeta::gpubench {

struct BackendRow {
  BackendRow(std::string Workload, std::string Kind, double MaxRatio)
      : Workload(std::move(Workload)), Kind(std::move(Kind)), MaxRatio(MaxRatio) {}

  std::string Workload; // "saxpy n=2^28"
  std::string Kind;     // "memory-bound", "barrier-heavy", "launch"
  double MaxRatio = 0;  // target: Vulkan time at most this times the CUDA time (0: none)
  double CudaMs = 0;    // medians per item, host clock around a batch through its sync
  double VulkanMs = 0;  // 0: not measured (Check says why)
  std::string Check;    // "bit-exact vs CUDA", "no Vulkan device ...", "ERROR: ..."
  std::string Note;     // e.g. per-launch microseconds

  /// Vulkan time over CUDA time (0: not measured).
  double ratio() const { return CudaMs > 0 && VulkanMs > 0 ? VulkanMs / CudaMs : 0; }
  bool missed() const { return MaxRatio > 0 && ratio() > MaxRatio; }
};

class BackendCompareTable {
public:
  void add(BackendRow Row) { Rows.push_back(std::move(Row)); }
  bool empty() const { return Rows.empty(); }
  /// Markdown: workload | kind | CUDA ms | Vulkan ms | Vulkan/CUDA | target | check.
  std::string render() const;
  /// The measured rows over their target, by workload name.
  std::vector<std::string> missedTargets() const;

private:
  std::vector<BackendRow> Rows;
};

} // namespace cajeta::gpubench
