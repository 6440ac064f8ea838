// CAJETA_XPU_TRACE: the trace file of two streams ordered by a buffer they share. The ctest entry
// runtime_trace runs this with the variable set; without it the test skips.
#include "TestProgram.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace cajeta::xpu;
using namespace cajeta::xpu::test;

TEST(Trace, LaunchesCopiesStreamsAndOrderingEdges) {
  const char* Path = std::getenv("CAJETA_XPU_TRACE");
  if (!Path || !*Path)
    GTEST_SKIP() << "CAJETA_XPU_TRACE is not set (the ctest entry runtime_trace sets it)";
  Program P = loadTestProgram();
  const uint32_t N = 16;
  KernelBuffer<float> Slow(N), Y(N);
  Slow.upload(std::vector<float>(N, 0.0f));
  Y.upload(std::vector<float>(N, 0.0f));
  KernelStream A, B;
  P.kernel("K.sleepy").launch(A, grid(1), block(1))(Slow, 20u, 2.0f);
  P.kernel("K.saxpy").launch(B, grid(1), block(N))(Y, Slow, 5.0f, N); // ordered after A's
  B.sync();
  A.sync();
  ASSERT_EQ(cajeta_xpu_trace_flush(), CAJETA_XPU_SUCCESS);

  std::ifstream In(Path);
  ASSERT_TRUE(In) << Path;
  nlohmann::json J = nlohmann::json::parse(In); // throws on a malformed file
  ASSERT_TRUE(J["traceEvents"].is_array());
  std::map<int, std::string> Threads; // tid -> stream name
  int SleepyTid = -1, SaxpyTid = -1, Uploads = 0;
  int SleepyDeviceTid = -1, SaxpyDeviceTid = -1;
  uint64_t SleepyDeviceTs = 0, SleepyDeviceDur = 0, SaxpyDeviceTs = 0;
  std::map<uint64_t, int> FlowStart, FlowEnd; // id -> tid
  for (const auto& E : J["traceEvents"]) {
    std::string Ph = E["ph"];
    if (Ph == "M" && E["name"] == "thread_name")
      Threads[E["tid"]] = E["args"]["name"];
    if (Ph == "M" && E["name"] == "process_name") {
      EXPECT_NE(std::string(E["args"]["name"]).find("cpu '"), std::string::npos) << E.dump();
    }
    if (Ph == "X" && E.value("cat", "") == "launch" && E["name"] == "K.sleepy") {
      SleepyTid = E["tid"];
      EXPECT_EQ(E["args"]["geometry"], "grid [1,1,1] block [1,1,1]");
      EXPECT_EQ(E["args"]["policy"], "throughput"); // a plain launch: the default policy
    }
    if (Ph == "X" && E.value("cat", "") == "launch" && E["name"] == "K.saxpy")
      SaxpyTid = E["tid"];
    if (Ph == "X" && E["name"] == "upload")
      ++Uploads;
    if (Ph == "X" && E.value("cat", "") == "device" && E["name"] == "K.sleepy") {
      SleepyDeviceTid = E["tid"];
      SleepyDeviceTs = E["ts"];
      SleepyDeviceDur = E["dur"];
    }
    if (Ph == "X" && E.value("cat", "") == "device" && E["name"] == "K.saxpy") {
      SaxpyDeviceTid = E["tid"];
      SaxpyDeviceTs = E["ts"];
    }
    if (Ph == "s")
      FlowStart[E["id"]] = E["tid"];
    if (Ph == "f")
      FlowEnd[E["id"]] = E["tid"];
  }
  ASSERT_NE(SleepyTid, -1);
  ASSERT_NE(SaxpyTid, -1);
  EXPECT_NE(SleepyTid, SaxpyTid);
  EXPECT_EQ(Threads[SleepyTid], A.name());
  EXPECT_EQ(Threads[SaxpyTid], B.name());
  EXPECT_GE(Uploads, 2);
  // The arrow from A's launch to B's: B's saxpy read what A's sleepy wrote.
  bool Edge = false;
  for (const auto& [Id, Tid] : FlowStart)
    Edge |= Tid == SleepyTid && FlowEnd.count(Id) && FlowEnd[Id] == SaxpyTid;
  EXPECT_TRUE(Edge) << J.dump(1);
  // When each kernel ran, on a track of its own per stream: saxpy started after sleepy ended
  // (it was ordered after it), and sleepy ran for its 20 ms.
  ASSERT_NE(SleepyDeviceTid, -1) << J.dump(1);
  ASSERT_NE(SaxpyDeviceTid, -1) << J.dump(1);
  EXPECT_EQ(Threads[SleepyDeviceTid], A.name() + " on the device");
  EXPECT_EQ(Threads[SaxpyDeviceTid], B.name() + " on the device");
  EXPECT_GE(SleepyDeviceDur, 15000u);
  EXPECT_GE(SaxpyDeviceTs, SleepyDeviceTs + SleepyDeviceDur);
}
