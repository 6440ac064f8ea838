#include "CalibrationSnapshot.h"

#include "bundle/RegularFile.h"
#include "runtime/calibration/CalibrationRecord.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>

namespace cajeta::cli {

namespace {

using Json = nlohmann::ordered_json;
constexpr const char* SnapshotFormat = "cajeta-calibration-snapshot 1";

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V.empty() ? 0.0 : V[V.size() / 2];
}

std::vector<Json> parseLines(const std::string& Lines) {
  std::vector<Json> Out;
  std::istringstream In(Lines);
  std::string Line;
  while (std::getline(In, Line)) {
    Json J = Json::parse(Line, nullptr, /*allow_exceptions=*/false);
    if (!J.is_discarded() && J.is_object())
      Out.push_back(std::move(J)); // a line cut short by a crash is dropped
  }
  return Out;
}

/// The solo launches of one kernel on one device.
struct KernelRuns {
  std::string Kernel;
  xpu::rt::CalibrationKey Key;
  std::vector<double> Seconds, Bandwidth, Flops, Intensity;
};

std::string formatRate(double V, const char* Unit) {
  const char* Prefix[] = {"", "K", "M", "G", "T", "P"};
  int P = 0;
  while (V >= 1000 && P < 5) {
    V /= 1000;
    ++P;
  }
  return fmt::format("{:.3g} {}{}", V, Prefix[P], Unit);
}

} // namespace

std::string launchSequence(const std::string& Lines) {
  std::string Out;
  for (const Json& J : parseLines(Lines))
    if (J.contains("kernel"))
      Out += fmt::format("{} {} {}\n", J["kernel"].get<std::string>(), J["grid"].dump(),
                         J["block"].dump());
  return Out;
}

std::vector<std::string> recordsFromSoloRun(const std::string& Lines, std::string& Summary) {
  std::vector<std::string> Records;
  std::map<std::string, KernelRuns> Runs; // by key digest, in first-launch order below
  std::vector<std::string> Order;
  for (const Json& J : parseLines(Lines)) {
    if (J.contains("device-record")) {
      std::string Text = J["device-record"].get<std::string>();
      if (std::find(Records.begin(), Records.end(), Text) == Records.end())
        Records.push_back(Text);
      continue;
    }
    if (!J.contains("kernel") || !J.contains("seconds"))
      continue;
    const Json& K = J["key"];
    xpu::rt::CalibrationKey Key{K["subject"], K["device"], K["driver"], K["compiler"], K["power"]};
    std::string Digest = Key.digest();
    KernelRuns& R = Runs[Digest];
    if (R.Kernel.empty()) {
      R.Kernel = J["kernel"];
      R.Key = Key;
      Order.push_back(Digest);
    }
    double Seconds = std::max(J["seconds"].get<double>(), 1e-9);
    double Bytes = J["bytes"], Ops = J["operations"];
    R.Seconds.push_back(Seconds);
    if (Bytes >= 0)
      R.Bandwidth.push_back(Bytes / Seconds);
    if (Ops >= 0)
      R.Flops.push_back(Ops / Seconds);
    if (Bytes > 0 && Ops >= 0)
      R.Intensity.push_back(Ops / Bytes);
  }
  uint64_t Now = uint64_t(std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count());
  for (const std::string& Digest : Order) {
    const KernelRuns& R = Runs[Digest];
    xpu::rt::CalibrationRecord Rec;
    Rec.Key = R.Key;
    Rec.MeasuredAtUnixSeconds = Now;
    for (double S : R.Seconds)
      Rec.MeasuringSeconds += S;
    auto [Fastest, Slowest] = std::minmax_element(R.Seconds.begin(), R.Seconds.end());
    Rec.Facts.push_back({"launches", "launches", double(R.Seconds.size()), "", R.Kernel});
    Rec.Facts.push_back(
        {"solo-seconds", "s", median(R.Seconds), "",
         fmt::format("median of {} solo launches, fastest {:.3g} s, slowest {:.3g} s",
                     R.Seconds.size(), *Fastest, *Slowest)});
    auto Add = [&](const char* Name, const char* Unit, const std::vector<double>& V) {
      if (V.empty())
        Rec.Facts.push_back({Name, Unit, std::nullopt,
                             "the kernel's manifest cannot bound its costs for these launches",
                             ""});
      else
        Rec.Facts.push_back({Name, Unit, median(V), "", "median over its solo launches"});
    };
    Add("achieved-bandwidth", "B/s", R.Bandwidth);
    Add("achieved-flops", "FLOP/s", R.Flops);
    Add("intensity", "FLOP/B", R.Intensity);
    Records.push_back(Rec.serialize());
    Summary += fmt::format("  {} ({}): {} launches, {:.3g} s median", R.Kernel,
                           R.Key.Device.substr(0, R.Key.Device.find(' ')), R.Seconds.size(),
                           median(R.Seconds));
    if (!R.Bandwidth.empty())
      Summary += ", " + formatRate(median(R.Bandwidth), "B/s");
    if (!R.Flops.empty())
      Summary += ", " + formatRate(median(R.Flops), "FLOP/s");
    Summary += "\n";
  }
  return Records;
}

bool writeSnapshot(const std::string& Path, const std::vector<std::string>& Records,
                   std::string& Error) {
  Json J = {{"format", SnapshotFormat}, {"records", Records}};
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out << J.dump(2) << "\n";
  Out.flush();
  if (!Out) {
    Error = fmt::format("cannot write '{}'", Path);
    return false;
  }
  return true;
}

bool readSnapshot(const std::string& Path, std::vector<std::string>& Records, std::string& Error) {
  std::string Text;
  if (!bundle::readRegularFile(Path, "calibration snapshot", Text, Error))
    return false;
  Json J = Json::parse(Text, nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded() || !J.is_object() || J.value("format", "") != SnapshotFormat ||
      !J.contains("records") || !J["records"].is_array()) {
    Error = fmt::format("'{}' is not a calibration snapshot ({}), as `cajeta calibrate "
                        "<program> --out=FILE` writes",
                        Path, SnapshotFormat);
    return false;
  }
  for (size_t I = 0; I != J["records"].size(); ++I) {
    const Json& R = J["records"][I];
    std::string Why = "not a string";
    if (!R.is_string() || !xpu::rt::CalibrationRecord::parse(R.get<std::string>(), Why)) {
      Error = fmt::format("'{}': record {} is refused: {}", Path, I, Why);
      return false;
    }
    Records.push_back(R.get<std::string>());
  }
  return true;
}

} // namespace cajeta::cli
