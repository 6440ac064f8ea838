// ResultTable: the rows the workloads measured, printed as one aligned table.
#pragma once

#include <string>
#include <vector>

namespace cajeta::bench {

struct PairTimes;

struct ResultRow {
  std::string Workload; // "saxpy n=2^24"
  std::string Shape;    // launch geometry of our kernel
  double Bytes = 0;     // bytes moved by one run (reads + writes of the buffers, once each)
  double Flops = 0;     // when set, the rate columns show GFLOP/s instead of GB/s
  double Items = 0;     // when set, the rate columns show millions of ItemUnit per second
  std::string ItemUnit; // "rays", "triangles"
  double OursMs = 0;    // median launch + sync
  double PeerMs = 0;    // median of the OpenMP loop
  double OursMinMs = 0; // fastest run of each side
  double PeerMinMs = 0;
  bool Verified = false; // our output equals the peer's (exactly, or within PassLabel's terms)
  std::string Check;     // what the comparison found ("N elements bit-identical", or the diffs)
  std::string Note;      // a remark printed under the table

  std::string PassLabel = "exact"; // the check column of a verified row

  /// The four time columns from one comparison of the two sides.
  void setTimes(const PairTimes& T);
};

class ResultTable {
public:
  void add(ResultRow Row) { Rows.push_back(std::move(Row)); }
  const std::vector<ResultRow>& rows() const { return Rows; }
  bool allVerified() const;
  /// Prints the table; Timed=false leaves the timing columns out (smoke runs).
  void print(bool Timed) const;

private:
  std::vector<ResultRow> Rows;
};

} // namespace cajeta::bench
