// `cajeta calibrate <program>` and `cajeta build --with-calibration`: a program's launches
// measured alone, the snapshot built into a bundle, and its records served from the bundle on
// the device they were measured on, and only there.
#include "runtime/calibration/CalibrationRecord.h"

#include <cajeta/xpu.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace xpu = cajeta::xpu;
namespace fs = std::filesystem;
using cajeta::xpu::rt::CalibrationRecord;

namespace {

std::string Scratch;

void freshScratch() {
  Scratch = std::string(CAJETA_TEST_SCRATCH_DIR) + "/" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::remove_all(Scratch);
  fs::create_directories(Scratch);
  ::setenv("XDG_CACHE_HOME", (Scratch + "/cache").c_str(), 1);
  ::setenv("HOME", Scratch.c_str(), 1);
}

int run(const std::string& Cmd) {
  return std::system((Cmd + " > " + Scratch + "/out.txt 2>&1").c_str());
}

std::string output() {
  std::ifstream In(Scratch + "/out.txt");
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// The saxpy example calibrated into a snapshot, built into a bundle of its source.
std::string calibratedBundle(const std::string& Snapshot) {
  EXPECT_EQ(run(std::string(CAJETA_CLI_PATH) + " calibrate " + CAJETA_SAXPY_EXAMPLE + " --out " +
                Snapshot),
            0)
      << output();
  std::string Bundle = Scratch + "/saxpy.cjx";
  EXPECT_EQ(run(std::string(CAJETA_CLI_PATH) + " build --with-calibration=" + Snapshot + " " +
                CAJETA_SAXPY_SOURCE + " -o " + Bundle),
            0)
      << output();
  return Bundle;
}

} // namespace

TEST(ProgramCalibration, ASnapshotBuiltIntoABundleIsServedForItsKernelsAndDevice) {
  freshScratch();
  std::string Bundle = calibratedBundle(Scratch + "/saxpy.calibration.json");
  // The calibration runs measured the device into this test's cache; a new cache shows that
  // what follows comes from the bundle.
  ::setenv("XDG_CACHE_HOME", (Scratch + "/empty-cache").c_str(), 1);
  xpu::Program P = xpu::Program::load(Bundle);
  std::optional<xpu::DeviceCalibration> K = xpu::DeviceCalibration::ofKernel(P.kernel("K.saxpy"));
  ASSERT_TRUE(K);
  EXPECT_EQ(K->source(), "built into " + Bundle);
  EXPECT_EQ(K->fact("launches"), 1.0);
  ASSERT_TRUE(K->fact("solo-seconds"));
  EXPECT_GT(*K->fact("solo-seconds"), 0.0);
  ASSERT_TRUE(K->fact("achieved-bandwidth") && K->fact("intensity"));
  EXPECT_GT(*K->fact("achieved-bandwidth"), 0.0);
  EXPECT_DOUBLE_EQ(*K->fact("intensity"), 2.0 / 12.0); // y = a*x + y: 2 operations, 12 bytes
  xpu::DeviceCalibration D = xpu::DeviceCalibration::current(P.device());
  EXPECT_EQ(D.source(), "built into " + Bundle); // not measured again
  EXPECT_FALSE(fs::exists(Scratch + "/empty-cache/cajeta/calibration"));
  // `cajeta inspect` names the records built in.
  ASSERT_EQ(run(std::string(CAJETA_CLI_PATH) + " inspect " + Bundle), 0) << output();
  std::string Shown = output();
  EXPECT_NE(Shown.find("calibration: 2 records\n  device on "), std::string::npos) << Shown;
  EXPECT_NE(Shown.find("\n  kernel "), std::string::npos) << Shown;
}

TEST(ProgramCalibration, RecordsOfAnotherDeviceAreNotServed) {
  freshScratch();
  std::string Snapshot = Scratch + "/saxpy.calibration.json";
  calibratedBundle(Snapshot);
  // The same snapshot with every record's device changed (and checksummed anew): as if
  // measured on another machine.
  std::ifstream In(Snapshot);
  nlohmann::json J = nlohmann::json::parse(In);
  for (auto& R : J["records"]) {
    std::string Why;
    std::optional<CalibrationRecord> Rec = CalibrationRecord::parse(R.get<std::string>(), Why);
    ASSERT_TRUE(Rec) << Why;
    Rec->Key.Device = "cpu 'Another CPU' 64 threads";
    R = Rec->serialize();
  }
  std::string Other = Scratch + "/other.calibration.json";
  std::ofstream(Other) << J.dump(2);
  std::string Bundle = Scratch + "/other.cjx";
  ASSERT_EQ(run(std::string(CAJETA_CLI_PATH) + " build --with-calibration=" + Other + " " +
                CAJETA_SAXPY_SOURCE + " -o " + Bundle),
            0)
      << output();
  ::setenv("XDG_CACHE_HOME", (Scratch + "/empty-cache").c_str(), 1);
  xpu::Program P = xpu::Program::load(Bundle);
  EXPECT_FALSE(xpu::DeviceCalibration::ofKernel(P.kernel("K.saxpy")));
  EXPECT_EQ(xpu::DeviceCalibration::current(P.device()).source().rfind("measured now", 0), 0u);
}

TEST(ProgramCalibration, AKernelWithoutRecordsHasNone) {
  freshScratch();
  xpu::Program P = xpu::Program::compileFile(CAJETA_SAXPY_SOURCE);
  EXPECT_FALSE(xpu::DeviceCalibration::ofKernel(P.kernel("K.saxpy")));
}

TEST(ProgramCalibration, ASnapshotThatIsNotOneIsRefusedByTheBuild) {
  freshScratch();
  std::string Bad = Scratch + "/bad.json";
  std::ofstream(Bad) << R"({"format": "cajeta-calibration-snapshot 1", "records": ["{}"]})";
  EXPECT_NE(run(std::string(CAJETA_CLI_PATH) + " build --with-calibration=" + Bad + " " +
                CAJETA_SAXPY_SOURCE + " -o " + Scratch + "/x.cjx"),
            0);
  EXPECT_NE(output().find("record 0 is refused: not a 'cajeta-calibration 1' record"),
            std::string::npos)
      << output();
  EXPECT_FALSE(fs::exists(Scratch + "/x.cjx"));
}
