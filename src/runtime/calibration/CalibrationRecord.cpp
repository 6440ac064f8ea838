#include "runtime/calibration/CalibrationRecord.h"

#include "bundle/Hash.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cajeta::xpu::rt {

namespace {

constexpr const char* Format = "cajeta-calibration 1";

nlohmann::ordered_json keyJson(const CalibrationKey& K) {
  return {{"subject", K.Subject},
          {"device", K.Device},
          {"driver", K.Driver},
          {"compiler", K.Compiler},
          {"power", K.Power}};
}

/// The checksummed part: everything but the checksum, printed the one way dump() prints it.
nlohmann::ordered_json body(const CalibrationRecord& R) {
  nlohmann::ordered_json Facts = nlohmann::ordered_json::array();
  for (const CalibrationFact& F : R.Facts) {
    nlohmann::ordered_json J = {{"name", F.Name}, {"unit", F.Unit}};
    if (F.Value)
      J["value"] = *F.Value;
    else
      J["absent"] = F.Absent;
    if (!F.Note.empty())
      J["note"] = F.Note;
    Facts.push_back(std::move(J));
  }
  return {{"format", Format},
          {"key", keyJson(R.Key)},
          {"measured-at", R.MeasuredAtUnixSeconds},
          {"measuring-seconds", R.MeasuringSeconds},
          {"facts", std::move(Facts)}};
}

std::string checksumOf(const nlohmann::ordered_json& Body) {
  std::string Text = Body.dump();
  return fmt::format("{:016x}", bundle::hash64(Text.data(), Text.size()));
}

} // namespace

std::string CalibrationKey::digest() const {
  std::string Text = keyJson(*this).dump();
  return fmt::format("{:016x}", bundle::hash64(Text.data(), Text.size()));
}

const CalibrationFact* CalibrationRecord::fact(const std::string& Name) const {
  for (const CalibrationFact& F : Facts)
    if (F.Name == Name)
      return &F;
  return nullptr;
}

std::string CalibrationRecord::serialize() const {
  nlohmann::ordered_json J = body(*this);
  J["checksum"] = checksumOf(J);
  return J.dump(2) + "\n";
}

std::optional<CalibrationRecord> CalibrationRecord::parse(const std::string& Text,
                                                          std::string& Why) {
  nlohmann::ordered_json J =
      nlohmann::ordered_json::parse(Text, nullptr, /*allow_exceptions=*/false);
  if (J.is_discarded() || !J.is_object()) {
    Why = "not JSON";
    return std::nullopt;
  }
  try {
    if (J.value("format", "") != Format) {
      Why = fmt::format("not a '{}' record", Format);
      return std::nullopt;
    }
    CalibrationRecord R;
    const auto& K = J.at("key");
    R.Key = {K.at("subject").get<std::string>(), K.at("device").get<std::string>(),
             K.at("driver").get<std::string>(), K.at("compiler").get<std::string>(),
             K.at("power").get<std::string>()};
    R.MeasuredAtUnixSeconds = J.at("measured-at").get<uint64_t>();
    R.MeasuringSeconds = J.at("measuring-seconds").get<double>();
    for (const auto& F : J.at("facts")) {
      CalibrationFact Fact;
      Fact.Name = F.at("name").get<std::string>();
      Fact.Unit = F.at("unit").get<std::string>();
      if (F.contains("value"))
        Fact.Value = F.at("value").get<double>();
      else
        Fact.Absent = F.at("absent").get<std::string>();
      Fact.Note = F.value("note", "");
      R.Facts.push_back(std::move(Fact));
    }
    // The checksum is of the record as this code prints it: any change to a field, or a
    // field this code does not know, makes it differ.
    if (J.at("checksum").get<std::string>() != checksumOf(body(R)) ||
        body(R).size() + 1 != J.size()) {
      Why = "its checksum does not match its contents";
      return std::nullopt;
    }
    return R;
  } catch (const nlohmann::json::exception& E) {
    Why = fmt::format("malformed: {}", E.what());
    return std::nullopt;
  }
}

} // namespace cajeta::xpu::rt
