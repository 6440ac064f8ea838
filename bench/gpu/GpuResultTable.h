// The GPU bench's result rows and their markdown table, with ratios and targets.
#pragma once

#include <string>
#include <vector>

namespace cajeta::gpubench {

struct ResultRow {
  std::string Workload; // "saxpy n=2^28"
  std::string Peer;     // "nvcc -O3 sm_90"
  double OursMs = 0;    // medians, per item (one kernel, one sum, one launch ...)
  double PeerMs = 0;    // host clock around the batch, as ours
  double PeerGpuMs = 0; // CUDA events around the peer's batch (0: not measured)
  double OursWork = 0;  // bytes, FLOPs or launches per item
  double PeerWork = 0;
  std::string Unit;     // "GB/s" (Work in bytes), "TFLOP/s", "GFLOP/s" (FLOPs), "M launches/s",
                        // "G rays/s"
  double Target = 0;    // the ratio to reach (0: none)
  std::string Check;    // "bit-exact", "rel. err 3e-7 (peer 2e-7)", "MISMATCH: ..."
  double OursGpuMs = 0; // CUPTI: our kernels' GPU time per item (0: not measured)

  double oursRate() const;
  double peerRate() const;
  /// Our rate over the peer's: peer time / our time when the work is the same.
  double ratio() const { return peerRate() > 0 ? oursRate() / peerRate() : 0; }
  /// The same on GPU time alone: ours from CUPTI, the peer's from its events (0: not measured).
  double gpuRatio() const;
};

class GpuResultTable {
public:
  void add(ResultRow Row) { Rows.push_back(std::move(Row)); }
  /// Markdown: workload | peer | ours ms | peer ms | ours | peer | ratio | target | GPU ms ours /
  /// peer | GPU ratio | check.
  std::string render() const;
  /// The rows that miss their target, by workload name.
  std::vector<std::string> missedTargets() const;

private:
  std::vector<ResultRow> Rows;
};

} // namespace cajeta::gpubench
