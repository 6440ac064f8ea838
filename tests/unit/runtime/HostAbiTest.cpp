// The host-code support ABI (cajeta_host.h): Java number printing, heap arrays, buffers, streams,
// launches by qualified name, and failures reported as the program's uncaught exceptions.
#include "TestBundle.h"

#include <cajeta/xpu/HostExceptions.hpp>
#include <cajeta/xpu/cajeta_host.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

using namespace cajeta::xpu::test;

namespace {

/// Runs Body, which raises, and ends the session as a program's entry point does: the pending
/// exception is reported and the process exits with cajeta_host_end()'s status (1).
template <class F> void endAfter(F Body) {
  Body();
  std::fflush(stdout);
  std::_Exit(cajeta_host_end());
}

/// What Print writes to stdout.
template <class Fn> std::string printed(Fn&& Print) {
  std::fflush(stdout);
  testing::internal::CaptureStdout();
  Print();
  std::fflush(stdout);
  return testing::internal::GetCapturedStdout();
}

template <class T> T* data(void* Array) {
  return reinterpret_cast<T*>(static_cast<char*>(Array) + CAJETA_HOST_ARRAY_DATA_OFFSET);
}

int64_t lengthOf(const void* Array) {
  int64_t Length;
  std::memcpy(&Length, Array, sizeof(Length));
  return Length;
}

cajeta_xpu_arg bufferArg(cajeta_xpu_buffer* B) {
  cajeta_xpu_arg A{};
  A.kind = CAJETA_XPU_ARG_BUFFER;
  A.value.buffer = B;
  return A;
}

cajeta_xpu_arg f32Arg(float V) {
  cajeta_xpu_arg A{};
  A.kind = CAJETA_XPU_ARG_SCALAR;
  A.type = CAJETA_XPU_FLOAT32;
  uint32_t Bits;
  std::memcpy(&Bits, &V, sizeof(Bits));
  A.value.bits = Bits;
  return A;
}

cajeta_xpu_arg u32Arg(uint32_t V) {
  cajeta_xpu_arg A{};
  A.kind = CAJETA_XPU_ARG_SCALAR;
  A.type = CAJETA_XPU_UINT32;
  A.value.bits = V;
  return A;
}

cajeta_xpu_arg u64Arg(uint64_t V) {
  cajeta_xpu_arg A{};
  A.kind = CAJETA_XPU_ARG_SCALAR;
  A.type = CAJETA_XPU_UINT64;
  A.value.bits = V;
  return A;
}

cajeta_xpu_program* loadProgram() {
  std::vector<uint8_t> Bytes = testBundleBytes();
  cajeta_xpu_program* P = nullptr;
  if (cajeta_xpu_program_load_memory(Bytes.data(), Bytes.size(), &P) != CAJETA_XPU_SUCCESS)
    ADD_FAILURE() << "cannot load the test bundle: " << cajeta_xpu_last_error();
  return P;
}

std::string readFile(const std::string& Path) {
  std::ifstream In(Path);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

/// A session over the test kernels, as `cajeta run` starts one for Main.cj. Death tests run
/// threadsafe: the child re-runs the test from the start (the runtime has worker threads).
class HostAbi : public testing::Test {
protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    cajeta_xpu_program* P = loadProgram();
    ASSERT_NE(P, nullptr);
    Device = cajeta_xpu_program_device(P);
    ASSERT_EQ(cajeta_host_begin("Main.cj", P), 0) << cajeta_xpu_last_error();
    cajeta_xpu_program_release(P); // the session holds it now
  }
  void TearDown() override { cajeta_host_end(); }

  cajeta_xpu_device* Device = nullptr;
};

struct FloatCase {
  float Value;
  const char* Java;
};

struct DoubleCase {
  double Value;
  const char* Java;
};

} // namespace

// ---- Number formatting ------------------------------------------------------------------

TEST(HostAbiFormat, FloatPrintsAsJavaFloatToString) {
  const FloatCase Cases[] = {
      {3.0f, "3.0"},
      {3.1f, "3.1"},
      {0.1f, "0.1"},
      {100.5f, "100.5"},
      {-1.5f, "-1.5"},
      {123456.7f, "123456.7"},
      {1234567.0f, "1234567.0"},
      {9999999.0f, "9999999.0"},
      {1.0e7f, "1.0E7"},
      {1.6777216e7f, "1.6777216E7"},
      {1.0e10f, "1.0E10"},
      {0.001f, "0.001"},
      {1.0e-4f, "1.0E-4"},
      {1.234e-5f, "1.234E-5"},
      {2.0f / 3.0f, "0.6666667"},
      {std::numeric_limits<float>::denorm_min(), "1.4E-45"},     // Float.MIN_VALUE
      {2 * std::numeric_limits<float>::denorm_min(), "2.8E-45"}, // two-digit rule
      // Float.MIN_NORMAL: JDK 19+ prints the shortest digits (its source literal, 1.17549435E-38f,
      // is what earlier JDKs printed).
      {std::numeric_limits<float>::min(), "1.1754944E-38"},
      {std::numeric_limits<float>::max(), "3.4028235E38"}, // Float.MAX_VALUE
      {0.0f, "0.0"},
      {-0.0f, "-0.0"},
      {std::numeric_limits<float>::quiet_NaN(), "NaN"},
      {std::numeric_limits<float>::infinity(), "Infinity"},
      {-std::numeric_limits<float>::infinity(), "-Infinity"},
  };
  for (const FloatCase& C : Cases)
    EXPECT_EQ(printed([&] { cajeta_host_print_f32(C.Value); }), C.Java) << "for " << C.Java;
}

TEST(HostAbiFormat, DoublePrintsAsJavaDoubleToString) {
  const DoubleCase Cases[] = {
      {3.0, "3.0"},
      {0.1, "0.1"},
      {0.1 + 0.2, "0.30000000000000004"},
      {100.5, "100.5"},
      {-2.25, "-2.25"},
      {1.0 / 3.0, "0.3333333333333333"},
      {2.0 / 3.0, "0.6666666666666666"},
      {1234567.0, "1234567.0"},
      {9999999.999999998, "9999999.999999998"},
      {1.0e7, "1.0E7"},
      {123456789.0, "1.23456789E8"},
      {1.0e10, "1.0E10"},
      {1.0e21, "1.0E21"},
      {1.0e23, "1.0E23"},
      {2.0e23, "2.0E23"}, // the closest of the one- and two-digit decimals (JDK 19)
      {0.001, "0.001"},
      {0.0009, "9.0E-4"},
      {1.0e-4, "1.0E-4"},
      {1.234e-5, "1.234E-5"},
      {std::numeric_limits<double>::denorm_min(), "4.9E-324"},         // Double.MIN_VALUE
      {2 * std::numeric_limits<double>::denorm_min(), "9.9E-324"},     // two-digit rule
      {std::numeric_limits<double>::min(), "2.2250738585072014E-308"}, // Double.MIN_NORMAL
      {std::numeric_limits<double>::max(), "1.7976931348623157E308"},  // Double.MAX_VALUE
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {std::numeric_limits<double>::quiet_NaN(), "NaN"},
      {std::numeric_limits<double>::infinity(), "Infinity"},
      {-std::numeric_limits<double>::infinity(), "-Infinity"},
  };
  for (const DoubleCase& C : Cases)
    EXPECT_EQ(printed([&] { cajeta_host_print_f64(C.Value); }), C.Java) << "for " << C.Java;
}

TEST(HostAbiFormat, FloatsPrintTheFloatsOwnDigitsNotTheWidenedDoubles) {
  EXPECT_EQ(printed([] { cajeta_host_print_f32(3.1f); }), "3.1");
  EXPECT_EQ(printed([] { cajeta_host_print_f64(double(3.1f)); }), "3.0999999046325684");
}

TEST(HostAbiPrint, EveryKindPrintsAsJavaDoes) {
  std::string Out = printed([] {
    cajeta_host_print_str("n=");
    cajeta_host_print_i64(-42);
    cajeta_host_print_str(" u=");
    cajeta_host_print_u64(std::numeric_limits<uint64_t>::max());
    cajeta_host_print_str(" min=");
    cajeta_host_print_i64(std::numeric_limits<int64_t>::min());
    cajeta_host_print_str(" ");
    cajeta_host_print_bool(1);
    cajeta_host_print_str(" ");
    cajeta_host_print_bool(0);
    cajeta_host_print_str(" ");
    cajeta_host_print_str(nullptr);
    cajeta_host_print_newline();
    cajeta_host_print_f32(0.5f);
    cajeta_host_print_str(" ");
    cajeta_host_print_f64(1.0e-5);
    cajeta_host_print_newline();
  });
  EXPECT_EQ(Out, "n=-42 u=18446744073709551615 min=-9223372036854775808 true false null\n"
                 "0.5 1.0E-5\n");
}

// ---- Heap arrays --------------------------------------------------------------------------

TEST_F(HostAbi, ArraysAreZeroedAlignedAndCarryTheirCount) {
  void* A = cajeta_host_array_new(37, sizeof(double), 3);
  ASSERT_NE(A, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(A) % 16, 0u);
  EXPECT_EQ(lengthOf(A), 37);
  for (int I = 0; I != 37; ++I)
    EXPECT_EQ(data<double>(A)[I], 0.0);
  data<double>(A)[36] = 1.5; // the last element is inside the allocation
  void* Bytes = cajeta_host_array_new(3, 1, 4);
  EXPECT_EQ(lengthOf(Bytes), 3);
  EXPECT_EQ(data<uint8_t>(Bytes)[2], 0u);
  void* Empty = cajeta_host_array_new(0, sizeof(int32_t), 5);
  ASSERT_NE(Empty, nullptr);
  EXPECT_EQ(lengthOf(Empty), 0);
}

TEST_F(HostAbi, ARaisedExceptionIsPendingUntilAClauseOfItsClassOrAParentCatchesIt) {
  EXPECT_EQ(cajeta_host_pending(), 0);
  cajeta_host_index_fail(5, 4, 12); // returns: compiled code checks pending and unwinds
  EXPECT_EQ(cajeta_host_pending(), 1);
  EXPECT_EQ(cajeta_host_catch("NullPointerException,XpuException"), 0);
  EXPECT_EQ(cajeta_host_pending(), 1);
  EXPECT_EQ(cajeta_host_catch("XpuLaunchException,IndexOutOfBoundsException"), 1);
  EXPECT_EQ(cajeta_host_pending(), 0);
  testing::internal::CaptureStdout();
  cajeta_host_print_caught();
  std::fflush(stdout);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "Index 5 out of bounds for length 4");
  // The first exception wins until it is caught; a runtime error is an XpuException.
  const uint32_t Geometry[6] = {1, 1, 1, 1, 1, 1};
  cajeta_host_launch("K.nope", nullptr, Geometry, nullptr, 0, 30);
  cajeta_host_array_new(-1, 4, 31);
  EXPECT_EQ(cajeta_host_catch("Error"), 0);
  EXPECT_EQ(cajeta_host_catch("XpuException"), 1);
  EXPECT_EQ(cajeta_host_pending(), 0);
  EXPECT_TRUE(cajeta::xpu::hostExceptionIsA("DeadlineMissed", "XpuLaunchException"));
  EXPECT_TRUE(cajeta::xpu::hostExceptionIsA("OutOfMemoryError", "Throwable"));
  EXPECT_FALSE(cajeta::xpu::hostExceptionIsA("OutOfMemoryError", "Exception"));
}

TEST_F(HostAbi, IndexFailureIsAnUncaughtArrayIndexOutOfBoundsException) {
  EXPECT_EXIT(endAfter([&] { cajeta_host_index_fail(5, 4, 12); }), testing::ExitedWithCode(1),
              "\nMain\\.cj:12: error: ArrayIndexOutOfBoundsException: Index 5 out of bounds for "
              "length 4\n$");
  EXPECT_EXIT(endAfter([&] { cajeta_host_index_fail(-1, 0, 7); }), testing::ExitedWithCode(1),
              "Main\\.cj:7: error: ArrayIndexOutOfBoundsException: Index -1 out of bounds for "
              "length 0");
}

TEST_F(HostAbi, NegativeSizeIsANegativeArraySizeException) {
  EXPECT_EXIT(endAfter([&] { cajeta_host_array_new(-3, 4, 9); }), testing::ExitedWithCode(1),
              "Main\\.cj:9: error: NegativeArraySizeException: -3");
  EXPECT_EXIT(endAfter([&] { cajeta_host_buffer_new(-1, CAJETA_XPU_FLOAT32, 10); }),
              testing::ExitedWithCode(1), "Main\\.cj:10: error: NegativeArraySizeException: -1");
}

TEST_F(HostAbi, AFailureFlushesStdoutFirst) {
  std::string Path = testing::TempDir() + "cajeta_host_abi_flush.txt";
  std::remove(Path.c_str());
  EXPECT_EXIT(
      {
        if (!std::freopen(Path.c_str(), "w", stdout))
          std::_Exit(2);
        cajeta_host_print_str("printed before the failure");
        cajeta_host_index_fail(1, 1, 2);
        endAfter([] {});
      },
      testing::ExitedWithCode(1), "Main\\.cj:2: error: ArrayIndexOutOfBoundsException");
  EXPECT_EQ(readFile(Path), "printed before the failure");
  std::remove(Path.c_str());
}

TEST_F(HostAbi, ExitFlushesStdoutAndEndsWithTheStatus) {
  std::string Path = testing::TempDir() + "cajeta_host_abi_exit.txt";
  std::remove(Path.c_str());
  EXPECT_EXIT(
      {
        if (!std::freopen(Path.c_str(), "w", stdout))
          std::_Exit(2);
        cajeta_host_print_str("bye");
        cajeta_host_exit(3);
      },
      testing::ExitedWithCode(3), "");
  EXPECT_EQ(readFile(Path), "bye");
  std::remove(Path.c_str());
}

// ---- Session --------------------------------------------------------------------------------

TEST_F(HostAbi, ASecondBeginOrANullProgramIsRefused) {
  cajeta_xpu_program* P = loadProgram();
  ASSERT_NE(P, nullptr);
  EXPECT_NE(cajeta_host_begin("Other.cj", P), 0);
  EXPECT_NE(std::string(cajeta_xpu_last_error()).find("already active"), std::string::npos)
      << cajeta_xpu_last_error();
  cajeta_xpu_program_release(P);
  EXPECT_NE(cajeta_host_begin("Other.cj", nullptr), 0);
}

TEST(HostAbiSession, EndReleasesEveryBufferStreamEventAndArray) {
  cajeta_xpu_program* P = loadProgram();
  ASSERT_NE(P, nullptr);
  cajeta_xpu_device* D = cajeta_xpu_program_device(P);
  uint64_t Before = cajeta_xpu_device_allocated_bytes(D);
  ASSERT_EQ(cajeta_host_begin("Main.cj", P), 0);
  cajeta_xpu_buffer* B = cajeta_host_buffer_new(1024, CAJETA_XPU_FLOAT32, 1);
  EXPECT_EQ(cajeta_host_buffer_length(B), 1024);
  EXPECT_GE(cajeta_xpu_device_allocated_bytes(D), Before + 4096);
  cajeta_xpu_stream* S = cajeta_host_stream_new(2);
  void* A = cajeta_host_array_new(1024, 4, 3);
  cajeta_host_buffer_upload(B, A, S, 4); // in flight at end: end syncs first
  cajeta_host_stream_record(S, 5);
  cajeta_host_end();
  EXPECT_EQ(cajeta_xpu_device_allocated_bytes(D), Before);
  // The program is released; the session can start again.
  EXPECT_EQ(cajeta_xpu_program_kernel_count(P), 13u);
  ASSERT_EQ(cajeta_host_begin("Again.cj", P), 0);
  cajeta_xpu_program_release(P);
  cajeta_host_end();
}

TEST_F(HostAbi, SupportsAsksTheProgramsDevice) {
  for (uint32_t C = 0; C != CAJETA_XPU_CAP_COUNT; ++C)
    EXPECT_EQ(cajeta_host_supports(C), cajeta_xpu_device_supports(Device, cajeta_xpu_capability(C)))
        << cajeta_xpu_capability_name(cajeta_xpu_capability(C));
  EXPECT_EQ(cajeta_host_supports(CAJETA_XPU_CAP_COUNT), 0);
}

// ---- Buffers --------------------------------------------------------------------------------

TEST_F(HostAbi, UploadAndDownloadRoundTripThroughABuffer) {
  const int64_t N = 100;
  cajeta_xpu_buffer* B = cajeta_host_buffer_new(N, CAJETA_XPU_INT32, 1);
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(cajeta_xpu_buffer_device(B), Device);
  EXPECT_EQ(cajeta_host_buffer_length(B), N);
  void* In = cajeta_host_array_new(N, sizeof(int32_t), 2);
  for (int32_t I = 0; I != N; ++I)
    data<int32_t>(In)[I] = I * I - 7;
  cajeta_host_buffer_upload(B, In, nullptr, 3);
  void* Out = cajeta_host_array_new(N, sizeof(int32_t), 4);
  cajeta_host_buffer_download(B, Out, nullptr, 5);
  for (int32_t I = 0; I != N; ++I)
    ASSERT_EQ(data<int32_t>(Out)[I], I * I - 7) << "at " << I;

  // The async forms on a stream of the program's, filled once the stream is synced.
  cajeta_xpu_stream* S = cajeta_host_stream_new(6);
  for (int32_t I = 0; I != N; ++I)
    data<int32_t>(In)[I] = -I;
  cajeta_host_buffer_upload(B, In, S, 7);
  cajeta_host_buffer_download(B, Out, S, 8);
  cajeta_host_stream_sync(S, 9);
  for (int32_t I = 0; I != N; ++I)
    ASSERT_EQ(data<int32_t>(Out)[I], -I) << "at " << I;
}

TEST_F(HostAbi, ALengthMismatchNamesBothLengths) {
  cajeta_xpu_buffer* B = cajeta_host_buffer_new(4, CAJETA_XPU_FLOAT32, 1);
  void* Short = cajeta_host_array_new(3, sizeof(float), 2);
  EXPECT_EXIT(endAfter([&] { cajeta_host_buffer_upload(B, Short, nullptr, 21); }),
              testing::ExitedWithCode(1),
              "Main\\.cj:21: error: IllegalArgumentException: upload of an array of length 3 into "
              "a buffer of length 4");
  EXPECT_EXIT(endAfter([&] { cajeta_host_buffer_download(B, Short, nullptr, 22); }),
              testing::ExitedWithCode(1),
              "Main\\.cj:22: error: IllegalArgumentException: download of a buffer of length 4 "
              "into an array of length 3");
}

// ---- Launch -----------------------------------------------------------------------------------

TEST_F(HostAbi, LaunchFindsTheKernelByItsQualifiedName) {
  const uint32_t N = 1000; // not a multiple of the block: the kernel guards the tail
  void* X = cajeta_host_array_new(N, sizeof(float), 1);
  void* Y = cajeta_host_array_new(N, sizeof(float), 2);
  for (uint32_t I = 0; I != N; ++I) {
    data<float>(X)[I] = float(I);
    data<float>(Y)[I] = 1.0f + float(I % 7);
  }
  cajeta_xpu_buffer* Bx = cajeta_host_buffer_new(N, CAJETA_XPU_FLOAT32, 3);
  cajeta_xpu_buffer* By = cajeta_host_buffer_new(N, CAJETA_XPU_FLOAT32, 4);
  cajeta_host_buffer_upload(Bx, X, nullptr, 5);
  cajeta_host_buffer_upload(By, Y, nullptr, 6);
  const uint32_t Geometry[6] = {(N + 255) / 256, 1, 1, 256, 1, 1};
  const cajeta_xpu_arg Args[] = {bufferArg(By), bufferArg(Bx), f32Arg(3.0f), u32Arg(N)};
  // A null stream is the current stream: the download after it on that stream sees its result.
  cajeta_host_launch("K.saxpy", nullptr, Geometry, Args, 4, 7);
  void* Out = cajeta_host_array_new(N, sizeof(float), 8);
  cajeta_host_buffer_download(By, Out, nullptr, 9);
  for (uint32_t I = 0; I != N; ++I)
    ASSERT_EQ(data<float>(Out)[I], 3.0f * float(I) + 1.0f + float(I % 7)) << "at " << I;

  // Again on the explicit current stream (the cached kernel).
  cajeta_xpu_stream* Current = cajeta_host_stream_current(10);
  cajeta_xpu_stream* Plain = nullptr;
  ASSERT_EQ(cajeta_xpu_stream_current(&Plain), 0);
  EXPECT_EQ(Current, Plain); // the program is on the default device
  cajeta_host_launch("K.saxpy", Current, Geometry, Args, 4, 11);
  cajeta_host_stream_sync(Current, 12);
  cajeta_host_buffer_download(By, Out, nullptr, 13);
  for (uint32_t I = 0; I != N; ++I)
    ASSERT_EQ(data<float>(Out)[I], 6.0f * float(I) + 1.0f + float(I % 7)) << "at " << I;
}

TEST_F(HostAbi, AnUnknownKernelIsNotFound) {
  const uint32_t Geometry[6] = {1, 1, 1, 1, 1, 1};
  EXPECT_EXIT(endAfter([&] { cajeta_host_launch("K.nope", nullptr, Geometry, nullptr, 0, 30); }),
              testing::ExitedWithCode(1),
              "Main\\.cj:30: error: NotFound: no kernel 'K\\.nope' in the program \\(available: "
              "K\\.saxpy, ");
}

TEST_F(HostAbi, ARefusedLaunchIsAnXpuLaunchException) {
  cajeta_xpu_buffer* B = cajeta_host_buffer_new(4, CAJETA_XPU_FLOAT32, 1);
  const uint32_t Geometry[6] = {1, 1, 1, 4, 1, 1};
  const cajeta_xpu_arg Args[] = {bufferArg(B), bufferArg(B), f32Arg(1.0f)};
  EXPECT_EXIT(endAfter([&] { cajeta_host_launch("K.saxpy", nullptr, Geometry, Args, 3, 31); }),
              testing::ExitedWithCode(1),
              "Main\\.cj:31: error: XpuLaunchException: K\\.saxpy: expects 4 arguments, got 3");
  const uint32_t ZeroGrid[6] = {0, 1, 1, 4, 1, 1};
  const cajeta_xpu_arg Four[] = {bufferArg(B), bufferArg(B), f32Arg(1.0f), u32Arg(4)};
  EXPECT_EXIT(endAfter([&] { cajeta_host_launch("K.saxpy", nullptr, ZeroGrid, Four, 4, 32); }),
              testing::ExitedWithCode(1),
              "Main\\.cj:32: error: XpuLaunchException: K\\.saxpy: grid \\(0, 1, 1\\) has a zero "
              "dimension");
}

TEST_F(HostAbi, AKernelFailureSurfacesAtSync) {
  cajeta_xpu_buffer* B = cajeta_host_buffer_new(16, CAJETA_XPU_FLOAT32, 1);
  cajeta_xpu_stream* S = cajeta_host_stream_new(2);
  const uint32_t Geometry[6] = {1, 1, 1, 1, 1, 1};
  const cajeta_xpu_arg Args[] = {bufferArg(B), u64Arg(17)};
  EXPECT_EXIT(
      {
        cajeta_host_launch("K.checked", S, Geometry, Args, 2, 40);
        cajeta_host_stream_sync(S, 41);
        endAfter([] {});
      },
      testing::ExitedWithCode(1),
      "Main\\.cj:41: error: XpuLaunchException: K\\.checked: index 17 is out of range for buffer "
      "argument 1 \\('data'\\) of length 16");
  // Never synced by host code: the end of the session reports it, without a line.
  EXPECT_EXIT(
      {
        cajeta_host_launch("K.checked", S, Geometry, Args, 2, 42);
        std::_Exit(cajeta_host_end());
      },
      testing::ExitedWithCode(1),
      "\nMain\\.cj: error: XpuLaunchException: K\\.checked: index 17 is out of range");
}

// ---- Streams and events -----------------------------------------------------------------------

TEST_F(HostAbi, AnEventOrdersWorkAcrossTwoStreams) {
  const uint32_t N = 16;
  cajeta_xpu_buffer* Slow = cajeta_host_buffer_new(N, CAJETA_XPU_FLOAT32, 1);
  cajeta_xpu_buffer* Y = cajeta_host_buffer_new(N, CAJETA_XPU_FLOAT32, 2);
  void* Zero = cajeta_host_array_new(N, sizeof(float), 3);
  cajeta_host_buffer_upload(Slow, Zero, nullptr, 4);
  cajeta_host_buffer_upload(Y, Zero, nullptr, 5);
  cajeta_xpu_stream* A = cajeta_host_stream_new(6);
  cajeta_xpu_stream* B = cajeta_host_stream_new(7);
  ASSERT_NE(A, B);
  const uint32_t One[6] = {1, 1, 1, 1, 1, 1};
  const cajeta_xpu_arg SleepyArgs[] = {bufferArg(Slow), u32Arg(50), f32Arg(2.0f)};
  cajeta_host_launch("K.sleepy", A, One, SleepyArgs, 3, 8);
  cajeta_xpu_event* Ready = cajeta_host_stream_record(A, 9);
  ASSERT_NE(Ready, nullptr);
  cajeta_host_stream_wait(B, Ready, 10);
  // y = 5 * slow + y reads what the slow kernel wrote only if B waited for it.
  const uint32_t Block[6] = {1, 1, 1, N, 1, 1};
  const cajeta_xpu_arg SaxpyArgs[] = {bufferArg(Y), bufferArg(Slow), f32Arg(5.0f), u32Arg(N)};
  cajeta_host_launch("K.saxpy", B, Block, SaxpyArgs, 4, 11);
  cajeta_xpu_event* Done = cajeta_host_stream_record(B, 12);
  cajeta_host_event_sync(Done, 13);
  EXPECT_EQ(cajeta_xpu_event_done(Ready), 1);
  cajeta_host_stream_sync(B, 14);
  cajeta_host_stream_sync(A, 15);
  void* Out = cajeta_host_array_new(N, sizeof(float), 16);
  cajeta_host_buffer_download(Y, Out, nullptr, 17);
  for (uint32_t I = 0; I != N; ++I)
    EXPECT_EQ(data<float>(Out)[I], 10.0f) << "at " << I;
}

TEST_F(HostAbi, NullStreamsAndEventsAreNullPointerExceptions) {
  EXPECT_EXIT(endAfter([&] { cajeta_host_stream_sync(nullptr, 50); }), testing::ExitedWithCode(1),
              "Main\\.cj:50: error: NullPointerException: the stream is null");
  EXPECT_EXIT(endAfter([&] { cajeta_host_event_sync(nullptr, 51); }), testing::ExitedWithCode(1),
              "Main\\.cj:51: error: NullPointerException: the event is null");
}
