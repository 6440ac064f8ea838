// The cuda backend on a real GPU: asynchronous launches and copies, CUDA events across streams,
// deferred release, bounds failures at sync, kernel footprints. Skips without a CUDA device.
#include "DeviceKernelsPtx.h"
#include "TestProgram.h"

#include "bundle/BundleWriter.h"

#include <chrono>
#include <cstring>

using namespace cajeta::xpu;
using namespace cajeta::xpu::test;
namespace bundle = cajeta::bundle;
using bundle::Access;
using bundle::ParamKind;
using bundle::ScalarType;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point Start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - Start).count();
}

/// A scalar or buffer parameter (brace-initialising four of ParamInfo's members leaves the POD
/// and function-table ones to -Wmissing-field-initializers).
bundle::ParamInfo param(const char* Name, ParamKind Kind, ScalarType Type, Access Mode) {
  bundle::ParamInfo P;
  P.Name = Name;
  P.Kind = Kind;
  P.Type = Type;
  P.Mode = Mode;
  return P;
}

bundle::KernelInfo ptxKernel(const char* Name, const char* Symbol,
                             std::vector<bundle::ParamInfo> Params) {
  bundle::KernelInfo K;
  K.Name = Name;
  K.SourceFile = "DeviceKernels.ptx";
  K.Params = std::move(Params);
  K.Targets["nvptx-sm_70"].Symbol = Symbol;
  return K;
}

Program loadDeviceProgram() {
  bundle::Program P;
  P.CompilerVersion = "hand-written PTX";
  P.Kernels.push_back(
      ptxKernel("T.spin", "t_spin",
                {param("out", ParamKind::Buffer, ScalarType::U64, Access::Write),
                 param("ns", ParamKind::Scalar, ScalarType::U64, Access::None),
                 param("value", ParamKind::Scalar, ScalarType::U64, Access::None)}));
  P.Kernels.push_back(ptxKernel("T.copy", "t_copy",
                                {param("dst", ParamKind::Buffer, ScalarType::U64, Access::Write),
                                 param("src", ParamKind::Buffer, ScalarType::U64, Access::Read)}));
  P.Kernels.push_back(
      ptxKernel("T.checked", "t_checked",
                {param("data", ParamKind::Buffer, ScalarType::F32, Access::Write),
                 param("index", ParamKind::Scalar, ScalarType::U64, Access::None)}));
  P.Kernels.push_back(ptxKernel("T.small", "t_small",
                                {param("out", ParamKind::Buffer, ScalarType::U32, Access::Write)}));
  bundle::Payload Ptx;
  Ptx.Target = "nvptx-sm_70";
  Ptx.Format = "ptx";
  Ptx.Attributes["gpu_abi"] = "1";
  Ptx.Bytes.assign(DeviceKernelsPtx, DeviceKernelsPtx + std::strlen(DeviceKernelsPtx));
  P.Payloads.push_back(std::move(Ptx));
  std::vector<uint8_t> Bytes = bundle::BundleWriter::write(P);
  return Program::loadMemory(Bytes.data(), Bytes.size());
}

class CudaRuntime : public testing::Test {
protected:
  void SetUp() override {
    bool Present = false;
    for (const Device& D : devices())
      Present |= D.backend() == "cuda";
    if (!Present)
      GTEST_SKIP() << "no CUDA device here";
    if (defaultDevice().backend() != "cuda")
      GTEST_SKIP() << "the default device is not a CUDA device (CAJETA_XPU_BACKEND?)";
    P.emplace(loadDeviceProgram());
    ASSERT_EQ(P->device().backend(), "cuda");
  }
  std::optional<Program> P;
};

constexpr uint64_t SpinNs = 300'000'000; // 300 ms on the GPU

} // namespace

TEST_F(CudaRuntime, LaunchReturnsBeforeALongKernelAndSyncWaits) {
  KernelBuffer<uint64_t> Out(1);
  Out.upload(std::vector<uint64_t>{0});
  KernelStream S;
  Kernel Spin = P->kernel("T.spin");
  Spin.launch(S, grid(1), block(1))(Out, uint64_t(1000), uint64_t(1)); // warm up the module
  S.sync();
  auto Start = Clock::now();
  Spin.launch(S, grid(1), block(1))(Out, SpinNs, uint64_t(7));
  double LaunchMs = msSince(Start);
  Event E = S.record();
  EXPECT_LT(LaunchMs, 50.0) << "the launch waited for the GPU";
  EXPECT_FALSE(E.done()) << "a 300 ms kernel finished before record() returned";
  S.sync();
  double TotalMs = msSince(Start);
  EXPECT_GE(TotalMs, 250.0) << "sync() returned before the kernel was done";
  EXPECT_TRUE(E.done());
  std::vector<uint64_t> H;
  Out.download(H);
  EXPECT_EQ(H, std::vector<uint64_t>{7});
}

TEST_F(CudaRuntime, EventsOrderTwoStreams) {
  KernelBuffer<uint64_t> Src(1), Dst(1);
  Src.upload(std::vector<uint64_t>{0});
  Dst.upload(std::vector<uint64_t>{0});
  KernelStream A, B;
  P->kernel("T.spin").launch(A, grid(1), block(1))(Src, SpinNs, uint64_t(42));
  Event E = A.record();
  B.wait(E); // without it T.copy would read 0 long before T.spin writes 42
  P->kernel("T.copy").launch(B, grid(1), block(1))(Dst, Src);
  Event Copied = B.record();
  EXPECT_FALSE(Copied.done()) << "B ran ahead of the event it waits for";
  Copied.sync();
  EXPECT_TRUE(E.done());
  B.sync();
  A.sync();
  std::vector<uint64_t> H;
  Dst.download(H);
  EXPECT_EQ(H, std::vector<uint64_t>{42});
}

TEST_F(CudaRuntime, AsyncCopiesAreOrderedAndDoNotWait) {
  constexpr size_t N = 1 << 20;
  KernelBuffer<uint64_t> Flag(1);
  KernelBuffer<float> Data(N);
  std::vector<float> Up(N), Down(N, -1.0f);
  for (size_t I = 0; I != N; ++I)
    Up[I] = float(I) * 0.5f;
  KernelStream S;
  P->kernel("T.spin").launch(S, grid(1), block(1))(Flag, SpinNs, uint64_t(1));
  auto Start = Clock::now();
  Data.uploadAsync(S, Up.data(), N);
  std::fill(Up.begin(), Up.end(), 0.0f); // staged: the source may change once the call returns
  Data.downloadAsync(S, Down.data(), N);
  double IssueMs = msSince(Start);
  EXPECT_LT(IssueMs, 100.0) << "the Async copies waited for the GPU";
  EXPECT_EQ(Down[12345], -1.0f) << "the download landed before the kernel ahead of it finished";
  S.sync();
  for (size_t I = 0; I < N; I += 4097) // `<`: a stride that does not divide N steps past it
    ASSERT_EQ(Down[I], float(I) * 0.5f) << "element " << I;
  EXPECT_EQ(Down[N - 1], float(N - 1) * 0.5f);
}

TEST_F(CudaRuntime, DroppedBorrowedBufferIsReleasedAfterTheKernel) {
  Device D = P->device();
  KernelStream S;
  uint64_t Before = D.allocatedBytes();
  {
    KernelBuffer<uint64_t> Doomed(D, 1 << 20);
    P->kernel("T.spin").launch(S, grid(1), block(1))(Doomed, SpinNs, uint64_t(3));
  } // the handle goes while the kernel still runs
  EXPECT_GE(D.allocatedBytes(), Before + (8u << 20)) << "released while a kernel used it";
  S.sync();
  EXPECT_EQ(D.allocatedBytes(), Before);
}

TEST_F(CudaRuntime, BoundsFailureSurfacesAtSync) {
  KernelBuffer<float> Data(4);
  KernelStream S;
  Kernel Checked = P->kernel("T.checked");
  EXPECT_NO_THROW(Checked.launch(S, grid(1), block(1))(Data, uint64_t(10)));
  std::string M = messageOf<LaunchError>([&] { S.sync(); });
  EXPECT_EQ(M, "T.checked: index 10 is out of range for buffer argument 1 ('data') of length 4");
  EXPECT_NO_THROW(S.sync()) << "the failure is reported once";
  Checked.launch(S, grid(1), block(1))(Data, uint64_t(2));
  EXPECT_NO_THROW(S.sync()) << "the status record was not reset";
}

TEST_F(CudaRuntime, BoundsFailureAmongMoreLaunchesThanStatusRecords) {
  KernelBuffer<float> Data(8);
  KernelStream S;
  Kernel Checked = P->kernel("T.checked");
  for (uint64_t I = 0; I != 2500; ++I) // more than a queue's 1024 records: harvested on the way
    Checked.launch(S, grid(1), block(1))(Data, I == 1700 ? uint64_t(1700) : I % 8);
  std::string M = messageOf<LaunchError>([&] { S.sync(); });
  EXPECT_EQ(M, "T.checked: index 1700 is out of range for buffer argument 1 ('data') of length 8");
  std::vector<float> H;
  Data.download(H);
  EXPECT_EQ(H, std::vector<float>(8, 1.0f));
}

TEST_F(CudaRuntime, FootprintIsReadFromTheLoadedCode) {
  KernelFootprint F = P->kernel("T.checked").footprint();
  EXPECT_GT(F.registers, 0u);
  EXPECT_GT(F.maxThreads, 0u);
  EXPECT_EQ(F.sharedBytes, 0u);
  KernelFootprint Small = P->kernel("T.small").footprint();
  EXPECT_GT(Small.registers, 0u);
  EXPECT_EQ(Small.maxThreads, 128u) << ".maxntid 128 in the PTX";
}

TEST_F(CudaRuntime, LaunchOverTheKernelsMaxThreadsIsALaunchError) {
  KernelBuffer<uint32_t> Out(256);
  KernelStream S;
  Kernel Small = P->kernel("T.small");
  std::string M = messageOf<LaunchError>([&] { Small.launch(S, grid(1), block(256))(Out); });
  EXPECT_TRUE(contains(M, "T.small: block (256, 1, 1) has 256 work-items but the kernel's code "
                          "allows at most 128 per workgroup on the cuda device"));
  Small.launch(S, grid(1), block(128))(Out);
  S.sync();
  std::vector<uint32_t> H;
  Out.download(H);
  for (uint32_t I = 0; I != 128; ++I)
    ASSERT_EQ(H[I], I);
}
