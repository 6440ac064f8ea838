// Printing of the benchmark table: times, bandwidths, ratio (peer / ours), verification.
#include "ResultTable.h"

#include "Timing.h"

#include <cstdio>

namespace cajeta::bench {

void ResultRow::setTimes(const PairTimes& T) {
  OursMs = T.OursMs;
  PeerMs = T.PeerMs;
  OursMinMs = T.OursMinMs;
  PeerMinMs = T.PeerMinMs;
}

bool ResultTable::allVerified() const {
  for (const ResultRow& R : Rows)
    if (!R.Verified)
      return false;
  return true;
}

void ResultTable::print(bool Timed) const {
  if (Timed) {
    std::printf("| %-34s | %-22s | %9s | %9s | %9s | %8s | %6s | %9s | %-8s |\n", "workload",
                "our launch", "ours ms", "OpenMP ms", "ours GB/s", "OMP GB/s", "ratio", "min ratio",
                "check");
    std::printf("|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n", "------------------------------------",
                "------------------------", "----------:", "----------:", "----------:",
                "---------:", "-------:", "----------:", "----------");
  }
  for (const ResultRow& R : Rows) {
    const char* Status = R.Verified ? R.PassLabel.c_str() : "MISMATCH";
    if (!Timed) {
      std::printf("%-36s %-16s %s (%s)\n", R.Workload.c_str(), R.Shape.c_str(), Status,
                  R.Check.c_str());
      continue;
    }
    // GFLOP/s, GB/s, or millions of items per second.
    const double Work = R.Items > 0 ? R.Items * 1e3 : R.Flops > 0 ? R.Flops : R.Bytes;
    double OursGbs = Work / (R.OursMs * 1e6);
    double PeerGbs = Work / (R.PeerMs * 1e6);
    std::printf("| %-34s | %-22s | %9.3f | %9.3f | %9.2f | %8.2f | %5.2fx | %8.2fx | %-8s |\n",
                R.Workload.c_str(), R.Shape.c_str(), R.OursMs, R.PeerMs, OursGbs, PeerGbs,
                R.PeerMs / R.OursMs, R.PeerMinMs / R.OursMinMs, Status);
  }
  for (const ResultRow& R : Rows) {
    if (Timed && !R.Verified)
      std::printf("  %s: %s\n", R.Workload.c_str(), R.Check.c_str());
    if (Timed && R.Items > 0)
      std::printf("  %s: the rate columns are M%s/s, not GB/s\n", R.Workload.c_str(),
                  R.ItemUnit.c_str());
    else if (Timed && R.Flops > 0)
      std::printf("  %s: the rate columns are GFLOP/s, not GB/s\n", R.Workload.c_str());
    if (Timed && !R.Note.empty())
      std::printf("  %s: %s\n", R.Workload.c_str(), R.Note.c_str());
  }
}

} // namespace cajeta::bench
