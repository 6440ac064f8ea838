// DeviceCalibration and its stores through the public API, on the CPU device: measured once and
// served after that, by the user cache or a program's own store; refused records; stores that
// fail or cannot keep anything. Each test runs in a process of its own (a new calibration set).
#include "runtime/calibration/CalibrationRecord.h"

#include <cajeta/xpu.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace xpu = cajeta::xpu;
namespace fs = std::filesystem;
using cajeta::xpu::rt::CalibrationRecord;

namespace {

/// A fresh XDG_CACHE_HOME for this test (HOME too, so nothing falls back to the real one).
std::string freshCache() {
  std::string Dir = std::string(CAJETA_TEST_SCRATCH_DIR) + "/" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name();
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  ::setenv("XDG_CACHE_HOME", Dir.c_str(), 1);
  ::setenv("HOME", Dir.c_str(), 1);
  return Dir;
}

std::string readFile(const fs::path& P) {
  std::ifstream In(P);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

/// The one record file in the user cache under Cache.
fs::path recordFile(const std::string& Cache) {
  fs::path Dir = fs::path(Cache) / "cajeta" / "calibration";
  std::vector<fs::path> Found;
  for (const auto& E : fs::directory_iterator(Dir))
    Found.push_back(E.path());
  EXPECT_EQ(Found.size(), 1u);
  return Found.empty() ? fs::path() : Found[0];
}

/// Runs `cajeta calibrate` (another process) with this test's environment.
void calibrateInAnotherProcess() {
  std::string Cmd = std::string(CAJETA_CLI_PATH) + " calibrate > /dev/null 2>&1";
  ASSERT_EQ(std::system(Cmd.c_str()), 0) << Cmd;
}

/// A program's own store: a map, with counts of its calls.
struct MapStore : xpu::CalibrationStore {
  std::map<std::string, std::string> Records;
  int Loads = 0, Stores = 0;
  bool Writable = true;
  std::optional<std::string> load(const std::string& Digest) override {
    ++Loads;
    auto It = Records.find(Digest);
    return It == Records.end() ? std::nullopt : std::optional<std::string>(It->second);
  }
  void store(const std::string& Digest, const std::string& Text) override {
    ++Stores;
    Records[Digest] = Text;
  }
  bool writable() override { return Writable; }
};

struct ThrowingStore : xpu::CalibrationStore {
  std::optional<std::string> load(const std::string&) override {
    throw std::runtime_error("the disk is on fire");
  }
  void store(const std::string&, const std::string&) override {
    throw std::runtime_error("still on fire");
  }
  bool writable() override { return true; }
};

} // namespace

TEST(DeviceCalibration, MeasuresEveryFactOrSaysWhyNot) {
  freshCache();
  xpu::Device D = xpu::defaultDevice();
  xpu::DeviceCalibration C = xpu::DeviceCalibration::current(D);
  EXPECT_EQ(C.source().rfind("measured now, stored in the user cache", 0), 0u) << C.source();
  std::vector<std::string> Names = C.factNames();
  EXPECT_GE(Names.size(), 16u);
  for (const std::string& N : Names) {
    std::optional<double> V = C.fact(N);
    EXPECT_FALSE(C.unit(N).empty()) << N;
    if (V) {
      EXPECT_TRUE(std::isfinite(*V) && *V >= 0) << N << " = " << *V;
      EXPECT_TRUE(C.absentReason(N).empty()) << N;
    } else {
      EXPECT_FALSE(C.absentReason(N).empty()) << N;
    }
  }
  // What the CPU device can measure, it measures.
  for (const char* N :
       {"fp32-fma-flops", "read-bandwidth", "write-bandwidth", "copy-bandwidth", "memory-latency",
        "bytes-in-flight", "launch-cost", "launch-round-trip", "event-cost", "inter-queue-cost",
        "scheduling-delay", "resident-workgroups", "ridge"})
    EXPECT_TRUE(C.fact(N)) << N << ": " << C.absentReason(N);
  ASSERT_TRUE(C.fp32Flops() && C.readBandwidth() && C.ridge());
  EXPECT_GT(*C.fp32Flops(), 1e8); // a 2-core machine under load does tens of GFLOP/s
  EXPECT_GT(*C.copyBandwidth(), 1e8);
  EXPECT_LT(*C.memoryLatency(), 1e-3);
  EXPECT_GE(*C.residentWorkgroups(), 1.0);
  EXPECT_LE(*C.residentWorkgroups(), double(D.computeUnits()));
  EXPECT_DOUBLE_EQ(*C.ridge(), *C.fp32Flops() / *C.readBandwidth());
  EXPECT_FALSE(C.fp32Flops() == std::nullopt);
  // Absent facts say why, and no other device's number stands in.
  // Each tile type is measured by a program of its own, so each on its own best tier: the
  // native one exactly where the device lists a product of that type (on a CPU with
  // AVX512-BF16 and AVX512-VNNI the bfloat16 and int8 tiles, beside float16 ones on the
  // software tile).
  for (const char* N : {"fp16-tile-flops", "bf16-tile-flops", "int8-tile-ops"})
    EXPECT_TRUE(C.fact(N)) << N << ": " << C.absentReason(N);
  auto Lists = [&](const char* Type) {
    for (const std::string& Shape : D.matrixShapes())
      if (Shape.find(Type) != std::string::npos)
        return true;
    return false;
  };
  EXPECT_EQ(C.note("bf16-tile-flops").find("the native tile tier") != std::string::npos,
            Lists(":bf16:"))
      << C.note("bf16-tile-flops");
  EXPECT_EQ(C.note("int8-tile-ops").find("the native tile tier") != std::string::npos,
            Lists(":s8:"))
      << C.note("int8-tile-ops");
  EXPECT_NE(C.note("int8-tile-ops").find("int8 into int32"), std::string::npos)
      << C.note("int8-tile-ops");
  EXPECT_THROW(C.fact("warp-speed"), xpu::NotFound);
  // The same process asks again: the record in memory, not measured again.
  xpu::DeviceCalibration Again = xpu::DeviceCalibration::current(D);
  EXPECT_EQ(Again.recordText(), C.recordText());
}

TEST(DeviceCalibration, ReportsProgressFromZeroToOne) {
  freshCache();
  std::vector<double> Seen;
  std::vector<std::string> Steps;
  xpu::DeviceCalibration::measure(xpu::defaultDevice(), [&](double F, const std::string& Step) {
    Seen.push_back(F);
    Steps.push_back(Step);
  });
  ASSERT_GE(Seen.size(), 3u);
  EXPECT_EQ(Seen.front(), 0.0);
  EXPECT_EQ(Seen.back(), 1.0);
  EXPECT_TRUE(std::is_sorted(Seen.begin(), Seen.end()));
  EXPECT_EQ(Steps.back(), "done");
}

TEST(CalibrationStore, ARecordMeasuredByOneProcessIsServedToTheNext) {
  std::string Cache = freshCache();
  calibrateInAnotherProcess();
  fs::path File = recordFile(Cache);
  std::string Before = readFile(File);
  xpu::DeviceCalibration C = xpu::DeviceCalibration::current(xpu::defaultDevice());
  EXPECT_EQ(C.source(), "the user cache " + Cache + "/cajeta/calibration");
  EXPECT_EQ(C.recordText(), Before);
  EXPECT_EQ(readFile(File), Before); // served, not rewritten
}

TEST(CalibrationStore, ARecordWhoseChecksumFailsIsIgnoredAndMeasuredAgain) {
  std::string Cache = freshCache();
  calibrateInAnotherProcess();
  fs::path File = recordFile(Cache);
  std::string Text = readFile(File);
  size_t At = Text.find("\"value\": ");
  ASSERT_NE(At, std::string::npos);
  At += 9;
  Text[At] = Text[At] == '9' ? '8' : '9'; // another number, the checksum as it was
  std::ofstream(File) << Text;
  xpu::DeviceCalibration C = xpu::DeviceCalibration::current(xpu::defaultDevice());
  EXPECT_NE(C.source().find("measured now (the record in the user cache"), std::string::npos)
      << C.source();
  EXPECT_NE(C.source().find("its checksum does not match its contents"), std::string::npos)
      << C.source();
  EXPECT_NE(readFile(File), Text); // replaced by the new measurement
}

TEST(CalibrationStore, ARecordOfAnotherKeyUnderThisDigestIsIgnored) {
  std::string Cache = freshCache();
  calibrateInAnotherProcess();
  fs::path File = recordFile(Cache);
  // A record that is whole and checksummed but of another device, under the live key's file
  // name (as if copied from another machine).
  std::string Why;
  std::optional<CalibrationRecord> R = CalibrationRecord::parse(readFile(File), Why);
  ASSERT_TRUE(R) << Why;
  R->Key.Device = "cpu 'Another CPU' 64 threads";
  std::ofstream(File) << R->serialize();
  xpu::DeviceCalibration C = xpu::DeviceCalibration::current(xpu::defaultDevice());
  EXPECT_EQ(C.source(), "measured now (the record in the user cache " + Cache +
                            "/cajeta/calibration was ignored: it is for another key), stored in "
                            "the user cache " +
                            Cache + "/cajeta/calibration");
  EXPECT_EQ(readFile(File), C.recordText());
}

TEST(CalibrationStore, AProgramsOwnStoreKeepsAndServesRecords) {
  freshCache();
  auto Store = std::make_shared<MapStore>();
  xpu::Scheduler::calibrationStore(Store);
  EXPECT_TRUE(xpu::Scheduler::calibrationStoreWritable());
  xpu::DeviceCalibration C = xpu::DeviceCalibration::current(xpu::defaultDevice());
  EXPECT_EQ(C.source(), "measured now, stored in the program's calibration store");
  ASSERT_EQ(Store->Records.size(), 1u);
  EXPECT_EQ(Store->Records.begin()->second, C.recordText());
  EXPECT_EQ(Store->Loads, 1);
  // Nothing went to the user cache.
  EXPECT_FALSE(fs::exists(std::string(std::getenv("XDG_CACHE_HOME")) + "/cajeta/calibration"));
  // Asked again in this process: from memory, the store not asked again.
  xpu::DeviceCalibration::current(xpu::defaultDevice());
  EXPECT_EQ(Store->Loads, 1);
}

TEST(CalibrationStore, AReadOnlyStoreServesAndTheRunContinuesFromMemory) {
  freshCache();
  auto Store = std::make_shared<MapStore>();
  Store->Writable = false;
  xpu::Scheduler::calibrationStore(Store);
  EXPECT_FALSE(xpu::Scheduler::calibrationStoreWritable());
  xpu::DeviceCalibration C = xpu::DeviceCalibration::current(xpu::defaultDevice());
  EXPECT_EQ(C.source(),
            "measured now, kept in memory (the program's calibration store is read-only)");
  EXPECT_EQ(Store->Stores, 0);
  EXPECT_TRUE(C.fp32Flops());
}

TEST(CalibrationStore, NoWritableCacheDirectoryKeepsRecordsInMemory) {
  freshCache();
  // XDG_CACHE_HOME under a regular file: the cache directory cannot be made.
  std::string Blocker = std::string(std::getenv("XDG_CACHE_HOME")) + "/file";
  std::ofstream(Blocker) << "x";
  ::setenv("XDG_CACHE_HOME", (Blocker + "/cache").c_str(), 1);
  EXPECT_FALSE(xpu::Scheduler::calibrationStoreWritable());
  xpu::DeviceCalibration C = xpu::DeviceCalibration::current(xpu::defaultDevice());
  EXPECT_NE(C.source().find("kept in memory (the user cache " + Blocker +
                            "/cache/cajeta/calibration is read-only)"),
            std::string::npos)
      << C.source();
  EXPECT_TRUE(C.copyBandwidth());
}

TEST(CalibrationStore, AStoreThatThrowsIsReportedOnceAndDisabled) {
  freshCache();
  xpu::Scheduler::calibrationStore(std::make_shared<ThrowingStore>());
  ::testing::internal::CaptureStderr();
  xpu::DeviceCalibration C = xpu::DeviceCalibration::current(xpu::defaultDevice());
  xpu::DeviceCalibration::measure(xpu::defaultDevice());
  std::string Err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(Err.find("the calibration store (the program's calibration store) failed to load a "
                     "record: its load callback failed: the disk is on fire; it is disabled"),
            std::string::npos)
      << Err;
  EXPECT_EQ(Err.find("warning", Err.find("warning") + 1), std::string::npos) << Err; // once
  EXPECT_EQ(C.source(), "measured now");
  EXPECT_TRUE(C.fp32Flops());
}

TEST(CalibrationStore, TheStoreCannotBeReplacedOnceARecordWasRead) {
  freshCache();
  xpu::DeviceCalibration::current(xpu::defaultDevice());
  auto Store = std::make_shared<MapStore>();
  try {
    xpu::Scheduler::calibrationStore(Store);
    FAIL() << "replaced after a record was read";
  } catch (const xpu::Error& E) {
    EXPECT_NE(std::string(E.what()).find("only before the first calibration record is read"),
              std::string::npos)
        << E.what();
  }
  EXPECT_EQ(Store.use_count(), 1);                         // the runtime let it go
  EXPECT_TRUE(xpu::Scheduler::calibrationStoreWritable()); // the user cache stays
}

TEST(DeviceCalibration, WithoutTheCompilerTheInstalledBundleMeasures) {
  freshCache();
  // As on a machine with the runtime only: the kernels come from cajeta-calibration.cjx beside
  // libcajeta_xpu.so, and the key says so.
  ::setenv("CAJETA_COMPILER_LIB", "/nonexistent/libcajeta_compiler.so", 1);
  xpu::DeviceCalibration C = xpu::DeviceCalibration::current(xpu::defaultDevice());
  EXPECT_NE(C.recordText().find("cajeta-calibration.cjx, probe"), std::string::npos)
      << C.recordText();
  EXPECT_TRUE(C.fp32Flops() && C.copyBandwidth() && C.ridge());
}
