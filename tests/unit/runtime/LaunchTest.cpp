// Launch results, geometry, scalar marshalling, and the checks made before a launch is enqueued.
#include "TestProgram.h"

#include <gtest/gtest.h>

using namespace cajeta::xpu;
using namespace cajeta::xpu::test;

TEST(Launch, SaxpyComputesOnTheCpuBackend) {
  Program P = loadTestProgram();
  EXPECT_EQ(P.device().backend(), "cpu");
  Kernel Saxpy = P.kernel("K.saxpy");
  const uint32_t N = 1000; // not a multiple of the block: the tail is guarded by n
  std::vector<float> Hx(N), Hy(N);
  for (uint32_t I = 0; I != N; ++I) {
    Hx[I] = float(I);
    Hy[I] = 1.0f + I % 7;
  }
  KernelBuffer<float> X(N), Y(N);
  X.upload(Hx);
  Y.upload(Hy);
  KernelStream& S = KernelStream::current();
  Saxpy.launch(S, grid((N + 255) / 256), block(256))(Y, X, 3.0f, N);
  S.sync();
  std::vector<float> Out;
  Y.download(Out);
  ASSERT_EQ(Out.size(), N);
  for (uint32_t I = 0; I != N; ++I)
    ASSERT_EQ(Out[I], 3.0f * Hx[I] + Hy[I]) << "at " << I;
}

TEST(Launch, ThreeDimensionalGeometryReachesEveryWorkItem) {
  Program P = loadTestProgram();
  Kernel Coords = P.kernel("K.coords");
  Dim3 G = grid(3, 2, 2), B = block(4, 3, 2);
  uint32_t W = G.x * B.x, H = G.y * B.y, D = G.z * B.z;
  KernelBuffer<uint32_t> Out(size_t(W) * H * D * 3);
  std::vector<uint32_t> Init(Out.size(), 0xffffffffu);
  Out.upload(Init);
  KernelStream S;
  Coords.launch(S, G, B)(Out);
  S.sync();
  std::vector<uint32_t> R;
  Out.download(R);
  for (uint32_t Z = 0; Z != D; ++Z)
    for (uint32_t Y = 0; Y != H; ++Y)
      for (uint32_t X = 0; X != W; ++X) {
        size_t I = 3 * (X + W * (Y + size_t(H) * Z));
        ASSERT_EQ(R[I], X);
        ASSERT_EQ(R[I + 1], Y);
        ASSERT_EQ(R[I + 2], Z);
      }
}

TEST(Launch, TwoDimensionalGridWithManyWorkgroups) {
  Program P = loadTestProgram();
  Dim3 G = grid(64, 32), B = block(8, 4);
  uint32_t W = G.x * B.x, H = G.y * B.y;
  KernelBuffer<uint32_t> Out(size_t(W) * H * 3);
  KernelStream S;
  P.kernel("K.coords").launch(S, G, B)(Out);
  S.sync();
  std::vector<uint32_t> R;
  Out.download(R);
  for (uint32_t Y = 0; Y != H; ++Y)
    for (uint32_t X = 0; X != W; ++X) {
      size_t I = 3 * (X + size_t(W) * Y);
      ASSERT_EQ(R[I], X);
      ASSERT_EQ(R[I + 1], Y);
      ASSERT_EQ(R[I + 2], 0u);
    }
}

TEST(Launch, ScalarsOfEveryWidthMarshal) {
  Program P = loadTestProgram();
  KernelBuffer<int64_t> Out(5);
  KernelStream S;
  P.kernel("K.scalars")
      .launch(S, grid(1), block(1))(Out, int8_t(-5), uint16_t(65000), int64_t(-1234567890123), 2.5,
                                    true);
  S.sync();
  std::vector<int64_t> R;
  Out.download(R);
  EXPECT_EQ(R, (std::vector<int64_t>{-5, 65000, -1234567890123, 10, 1}));
}

TEST(Launch, WrongScalarTypeNamesTheParameter) {
  Program P = loadTestProgram();
  KernelBuffer<float> X(4), Y(4);
  KernelStream S;
  std::string M = messageOf<LaunchError>(
      [&] { P.kernel("K.saxpy").launch(S, grid(1), block(4))(Y, X, 3.0, 4u); });
  EXPECT_EQ(M, "K.saxpy: argument 3 ('a') expects float32, got float64");
  // An integer of another type is taken when the parameter's type holds its value (a literal
  // 4 is an int in C++), and refused naming the value when it does not.
  M = messageOf<LaunchError>(
      [&] { P.kernel("K.saxpy").launch(S, grid(1), block(4))(Y, X, 3.0f, -1); });
  EXPECT_EQ(M, "K.saxpy: argument 4 ('n') expects uint32; the int32 value -1 does not fit");
  M = messageOf<LaunchError>(
      [&] { P.kernel("K.saxpy").launch(S, grid(1), block(4))(Y, X, 3.0f, int64_t(1) << 32); });
  EXPECT_EQ(M, "K.saxpy: argument 4 ('n') expects uint32; the int64 value 4294967296 does not fit");
  M = messageOf<LaunchError>(
      [&] { P.kernel("K.saxpy").launch(S, grid(1), block(4))(Y, X, 3, 4u); });
  EXPECT_EQ(M, "K.saxpy: argument 3 ('a') expects float32, got int32");
}

TEST(Launch, AnIntegerOfAnotherTypeThatFitsIsTaken) {
  Program P = loadTestProgram();
  KernelBuffer<float> X(4), Y(4);
  X.upload(std::vector<float>{1, 2, 3, 4});
  Y.upload(std::vector<float>{0, 0, 0, 0});
  KernelStream S;
  P.kernel("K.saxpy").launch(S, grid(1), block(4))(Y, X, 2.0f, 3); // int 3 for uint32 n
  S.sync();
  std::vector<float> Got;
  Y.download(Got);
  EXPECT_EQ(Got, (std::vector<float>{2, 4, 6, 0}));
}

TEST(Launch, WrongArityAndKindAreRejected) {
  Program P = loadTestProgram();
  KernelBuffer<float> X(4), Y(4);
  KernelStream S;
  Kernel Saxpy = P.kernel("K.saxpy");
  EXPECT_TRUE(
      contains(messageOf<LaunchError>([&] { Saxpy.launch(S, grid(1), block(4))(Y, X, 3.0f); }),
               "K.saxpy: expects 4 arguments, got 3"));
  EXPECT_EQ(messageOf<LaunchError>([&] { Saxpy.launch(S, grid(1), block(4))(Y, 1.0f, 3.0f, 4u); }),
            "K.saxpy: argument 2 ('x') expects a buffer of float32, got a scalar float32");
  EXPECT_EQ(messageOf<LaunchError>([&] { Saxpy.launch(S, grid(1), block(4))(Y, X, X, 4u); }),
            "K.saxpy: argument 3 ('a') expects float32, got a buffer");
  KernelBuffer<int32_t> I(4);
  EXPECT_EQ(messageOf<LaunchError>([&] { Saxpy.launch(S, grid(1), block(4))(I, X, 1.0f, 4u); }),
            "K.saxpy: argument 1 ('y') expects a buffer of float32, got a buffer of int32");
  S.sync(); // nothing was enqueued, nothing failed
}

TEST(Launch, AnArgumentKindOrScalarTypeOutsideTheEnumsIsRefused) {
  // A C caller may write any number into kind and type; the launch names it and goes on.
  Program P = loadTestProgram();
  KernelBuffer<float> X(4), Y(4);
  KernelStream S;
  Kernel Saxpy = P.kernel("K.saxpy");
  const uint32_t Grid[3] = {1, 1, 1}, Block[3] = {4, 1, 1};
  cajeta_xpu_arg Args[4] = {};
  Args[0].kind = CAJETA_XPU_ARG_BUFFER;
  Args[0].value.buffer = Y.handle();
  Args[1].kind = 99; // no such kind
  Args[1].value.buffer = X.handle();
  Args[2].kind = CAJETA_XPU_ARG_SCALAR;
  Args[2].type = 99; // no such scalar type
  Args[3].kind = CAJETA_XPU_ARG_SCALAR;
  Args[3].type = CAJETA_XPU_UINT32;
  Args[3].value.bits = 4;
  EXPECT_EQ(cajeta_xpu_kernel_launch(Saxpy.handle(), S.handle(), Grid, Block, Args, 4),
            CAJETA_XPU_LAUNCH_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "argument 2 ('x')")) << cajeta_xpu_last_error();
  Args[1].kind = CAJETA_XPU_ARG_BUFFER;
  EXPECT_EQ(cajeta_xpu_kernel_launch(Saxpy.handle(), S.handle(), Grid, Block, Args, 4),
            CAJETA_XPU_LAUNCH_ERROR);
  EXPECT_TRUE(contains(cajeta_xpu_last_error(), "argument 3 ('a')")) << cajeta_xpu_last_error();
  S.sync(); // nothing was enqueued
}

TEST(Launch, BadGeometryIsRejected) {
  Program P = loadTestProgram();
  KernelBuffer<float> X(4), Y(4);
  KernelStream S;
  Kernel Saxpy = P.kernel("K.saxpy");
  EXPECT_TRUE(
      contains(messageOf<LaunchError>([&] { Saxpy.launch(S, grid(0), block(4))(Y, X, 1.0f, 4u); }),
               "K.saxpy: grid (0, 1, 1) has a zero dimension"));
  EXPECT_TRUE(contains(
      messageOf<LaunchError>([&] { Saxpy.launch(S, grid(1), block(4, 0))(Y, X, 1.0f, 4u); }),
      "block (4, 0, 1) has a zero dimension"));
  EXPECT_TRUE(contains(
      messageOf<LaunchError>([&] { Saxpy.launch(S, grid(1), block(64, 32))(Y, X, 1.0f, 4u); }),
      "allows in a workgroup (1024)"));
  // Exactly the limit is fine.
  Saxpy.launch(S, grid(1), block(32, 32))(Y, X, 1.0f, 4u);
  S.sync();
}

TEST(Launch, UnknownKernelListsTheAvailableOnes) {
  Program P = loadTestProgram();
  std::string M = messageOf<NotFound>([&] { P.kernel("K.nope"); });
  EXPECT_TRUE(contains(M, "no kernel 'K.nope'"));
  EXPECT_TRUE(contains(M, "K.saxpy, K.coords, K.sleepy, K.checked, K.scalars, K.align"));
  EXPECT_EQ(P.kernelNames(),
            (std::vector<std::string>{"K.saxpy", "K.coords", "K.sleepy", "K.checked", "K.scalars",
                                      "K.align", "K.pod", "K.apply", "K.half", "K.dynamic",
                                      "K.deep", "K.sharedOob", "K.fast"}));
}
