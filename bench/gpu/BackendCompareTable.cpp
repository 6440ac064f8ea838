// Renders the Vulkan-vs-CUDA table as markdown.
#include "BackendCompareTable.h"

#include <cstdio>

namespace cajeta::gpubench {

namespace {

std::string format(const char* Fmt, double V) {
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), Fmt, V);
  return Buf;
}

std::string ms(double V) {
  return V > 0 ? format(V < 0.1 ? "%.5f" : "%.3f", V) : "-";
}

} // namespace

std::string BackendCompareTable::render() const {
  std::string Out = "| workload | kind | CUDA ms | Vulkan ms | Vulkan/CUDA | target | check |\n"
                    "| --- | --- | ---: | ---: | ---: | --- | --- |\n";
  for (const BackendRow& R : Rows) {
    std::string Target = "-";
    if (R.MaxRatio > 0)
      Target = format("<= %.3gx", R.MaxRatio) + (R.ratio() <= 0 ? " (not measured)"
                                                 : R.missed()   ? " MISSED"
                                                                : " met");
    std::string Ratio = R.ratio() > 0 ? format("%.3f", R.ratio()) : "-";
    std::string Vulkan = R.VulkanMs > 0 ? ms(R.VulkanMs) : "no run";
    std::string Check = R.Check + (R.Note.empty() ? "" : "; " + R.Note);
    Out += "| " + R.Workload + " | " + R.Kind + " | " + ms(R.CudaMs) + " | " + Vulkan + " | " +
           Ratio + " | " + Target + " | " + Check + " |\n";
  }
  return Out;
}

std::vector<std::string> BackendCompareTable::missedTargets() const {
  std::vector<std::string> Missed;
  for (const BackendRow& R : Rows)
    if (R.missed())
      Missed.push_back(R.Workload + ": Vulkan " + format("%.3f", R.ratio()) +
                       "x CUDA, target <= " + format("%.3g", R.MaxRatio) + "x");
  return Missed;
}

} // namespace cajeta::gpubench
