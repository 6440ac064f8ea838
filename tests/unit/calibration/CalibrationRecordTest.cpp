// Calibration records: what a store keeps, and what it must refuse.
#include "runtime/calibration/CalibrationRecord.h"

#include <gtest/gtest.h>

using cajeta::xpu::rt::CalibrationFact;
using cajeta::xpu::rt::CalibrationKey;
using cajeta::xpu::rt::CalibrationRecord;

namespace {

CalibrationRecord sample() {
  CalibrationRecord R;
  R.Key = {"device", "cpu 'AMD EPYC' 2 threads", "", "cajeta-compiler 0.9.3", "governor schedutil"};
  R.MeasuredAtUnixSeconds = 1796000000;
  R.MeasuringSeconds = 1.25;
  R.Facts.push_back({"copy-bandwidth", "B/s", 1.9123456789e10, "", "256 MiB buffers"});
  R.Facts.push_back({"fp16-tile-flops", "FLOP/s", std::nullopt, "not measured", ""});
  R.Facts.push_back({"memory-latency", "s", 2.3e-7, "", ""});
  return R;
}

} // namespace

TEST(CalibrationRecord, RoundTripsEveryFieldExactly) {
  CalibrationRecord R = sample();
  std::string Why;
  std::optional<CalibrationRecord> Back = CalibrationRecord::parse(R.serialize(), Why);
  ASSERT_TRUE(Back) << Why;
  EXPECT_EQ(Back->Key, R.Key);
  EXPECT_EQ(Back->MeasuredAtUnixSeconds, R.MeasuredAtUnixSeconds);
  EXPECT_EQ(Back->MeasuringSeconds, R.MeasuringSeconds);
  ASSERT_EQ(Back->Facts.size(), R.Facts.size());
  for (size_t I = 0; I != R.Facts.size(); ++I) {
    EXPECT_EQ(Back->Facts[I].Name, R.Facts[I].Name);
    EXPECT_EQ(Back->Facts[I].Unit, R.Facts[I].Unit);
    EXPECT_EQ(Back->Facts[I].Value, R.Facts[I].Value); // bit for bit
    EXPECT_EQ(Back->Facts[I].Absent, R.Facts[I].Absent);
    EXPECT_EQ(Back->Facts[I].Note, R.Facts[I].Note);
  }
  EXPECT_EQ(Back->serialize(), R.serialize());
}

TEST(CalibrationRecord, EveryChangedCharacterOfTheContentsIsRefused) {
  std::string Text = sample().serialize();
  size_t Checksum = Text.find("\"checksum\"");
  ASSERT_NE(Checksum, std::string::npos);
  // Every digit, letter or dot before the checksum field, changed to another that keeps the
  // text JSON: each is refused (as not a record or by its checksum), never read as other facts.
  size_t Tried = 0;
  for (size_t I = 0; I != Checksum; ++I) {
    char C = Text[I];
    char To = (C >= '0' && C <= '8')  ? char(C + 1)
              : C == '9'              ? '0'
              : (C >= 'a' && C < 'z') ? char(C + 1)
                                      : 0;
    if (!To)
      continue;
    std::string Changed = Text;
    Changed[I] = To;
    std::string Why;
    EXPECT_FALSE(CalibrationRecord::parse(Changed, Why)) << "changed at " << I << ": " << Changed;
    ++Tried;
  }
  EXPECT_GT(Tried, 200u);
}

TEST(CalibrationRecord, AFieldAddedOrRemovedIsRefused) {
  std::string Text = sample().serialize();
  std::string Why;
  std::string Added = Text;
  Added.insert(Added.find("\"facts\""), "\"extra\": 1, ");
  EXPECT_FALSE(CalibrationRecord::parse(Added, Why));
  EXPECT_NE(Why.find("checksum"), std::string::npos) << Why;
  std::string Removed = Text;
  size_t Note = Removed.find("\"note\": \"256 MiB buffers\"");
  ASSERT_NE(Note, std::string::npos);
  Removed.replace(Note, std::string("\"note\": \"256 MiB buffers\"").size(), "\"note\": \"\"");
  EXPECT_FALSE(CalibrationRecord::parse(Removed, Why));
}

TEST(CalibrationRecord, WhatIsNotARecordSaysSo) {
  std::string Why;
  EXPECT_FALSE(CalibrationRecord::parse("", Why));
  EXPECT_EQ(Why, "not JSON");
  EXPECT_FALSE(CalibrationRecord::parse("{\"format\": \"something else\"}", Why));
  EXPECT_NE(Why.find("cajeta-calibration 1"), std::string::npos) << Why;
  EXPECT_FALSE(CalibrationRecord::parse("{\"format\": \"cajeta-calibration 1\"}", Why));
  EXPECT_NE(Why.find("malformed"), std::string::npos) << Why;
  EXPECT_FALSE(CalibrationRecord::parse("[1, 2]", Why));
}

TEST(CalibrationRecord, KeysDifferInEveryFieldAndSoDoTheirDigests) {
  CalibrationKey K = sample().Key;
  std::vector<CalibrationKey> Others(5, K);
  Others[0].Subject = "3f2a";
  Others[1].Device += " ";
  Others[2].Driver = "cuda 13.0";
  Others[3].Compiler += "x";
  Others[4].Power = "";
  for (const CalibrationKey& O : Others) {
    EXPECT_FALSE(O == K);
    EXPECT_NE(O.digest(), K.digest());
  }
  EXPECT_EQ(K.digest().size(), 16u);
}
