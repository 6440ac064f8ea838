// Renders the GPU bench's results as a markdown table.
#include "GpuResultTable.h"

#include <cstdio>

namespace cajeta::gpubench {

namespace {

double scale(const std::string& Unit) {
  if (Unit == "GB/s")
    return 1e9;
  if (Unit == "TFLOP/s" || Unit == "TOP/s")
    return 1e12;
  if (Unit == "GFLOP/s")
    return 1e9;
  if (Unit == "M launches/s")
    return 1e6;
  if (Unit == "G rays/s")
    return 1e9;
  return 1;
}

std::string format(const char* Fmt, double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), Fmt, V);
  return Buf;
}

std::string ms(double V) {
  return V > 0 ? format(V < 0.1 ? "%.5f" : "%.3f", V) : "-";
}

} // namespace

double ResultRow::oursRate() const {
  return OursMs > 0 ? OursWork / (OursMs * 1e-3) / scale(Unit) : 0;
}

double ResultRow::peerRate() const {
  return PeerMs > 0 ? PeerWork / (PeerMs * 1e-3) / scale(Unit) : 0;
}

double ResultRow::gpuRatio() const {
  if (OursGpuMs <= 0 || PeerGpuMs <= 0 || PeerWork <= 0)
    return 0;
  return (OursWork / OursGpuMs) / (PeerWork / PeerGpuMs);
}

std::string GpuResultTable::render() const {
  std::string Out = "| workload | peer | ours ms | peer ms | ours | peer | ratio | target | "
                    "GPU ms ours (CUPTI) / peer (events) | GPU ratio | check |\n"
                    "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- |\n";
  for (const ResultRow& R : Rows) {
    std::string Target = "-";
    if (R.Target > 0)
      Target = format(">= %.3g", R.Target) + (R.ratio() >= R.Target ? " met" : " MISSED");
    std::string GpuRatio = R.gpuRatio() > 0 ? format("%.3f", R.gpuRatio()) : "-";
    Out += "| " + R.Workload + " | " + R.Peer + " | " + ms(R.OursMs) + " | " + ms(R.PeerMs) +
           " | " + format("%.2f ", R.oursRate()) + R.Unit + " | " + format("%.2f ", R.peerRate()) +
           R.Unit + " | " + format("%.3f", R.ratio()) + " | " + Target + " | " + ms(R.OursGpuMs) +
           " / " + ms(R.PeerGpuMs) + " | " + GpuRatio + " | " + R.Check + " |\n";
  }
  return Out;
}

std::vector<std::string> GpuResultTable::missedTargets() const {
  std::vector<std::string> Missed;
  for (const ResultRow& R : Rows)
    if (R.Target > 0 && R.ratio() < R.Target)
      Missed.push_back(R.Workload + " vs " + R.Peer);
  return Missed;
}

} // namespace cajeta::gpubench
