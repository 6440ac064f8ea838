// One calibration record: what was measured (facts), of what (the key), and a checksum that
// covers both. Records are the only form in which measurements leave memory (CalibrationStore).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

/// What a record is about and where its measurements hold. A record is used only where every
/// field equals the live one: the same device through the same driver, measured by the same
/// code, in the same power mode.
struct CalibrationKey {
  std::string Subject;  // "device", or a kernel's manifest code hash
  std::string Device;   // "<backend> '<name>' <identity>"
  std::string Driver;   // "cuda 13.0", "" where the backend cannot say
  std::string Compiler; // what made the measuring code ("cajeta-xpu calibration 1, jit ...")
  std::string Power;    // "governor performance", "" where unknown

  friend bool operator==(const CalibrationKey&, const CalibrationKey&) = default;
  /// A short name for the key (hex of a hash of every field): a store's file name.
  std::string digest() const;
};

/// One measured quantity, or the reason it is absent (never another device's value).
struct CalibrationFact {
  std::string Name; // "copy-bandwidth"
  std::string Unit; // "B/s"
  std::optional<double> Value;
  std::string Absent; // why there is no value
  std::string Note;   // how it was measured, where that matters ("best of 5")
};

struct CalibrationRecord {
  CalibrationKey Key;
  std::vector<CalibrationFact> Facts;
  uint64_t MeasuredAtUnixSeconds = 0;
  double MeasuringSeconds = 0; // how long the measurement took

  const CalibrationFact* fact(const std::string& Name) const;
  /// The JSON text of the record, with its checksum.
  std::string serialize() const;
  /// The record in Text, or nullopt with Why set when it is not a record of this format or its
  /// checksum does not match its contents.
  static std::optional<CalibrationRecord> parse(const std::string& Text, std::string& Why);
};

} // namespace cajeta::xpu::rt
