// Launch marshalling of the device subset: PODs, function tags, float16, dynamic shared memory,
// large kernel stacks, shared-array bounds reports and @Backend restrictions.
#include "TestProgram.h"

#include "bundle/BundleWriter.h"
#include "hostcpu/HostAmx.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace cajeta::xpu;
using namespace cajeta::xpu::test;

namespace {

struct Params { // the C layout of K.pod's POD class "Params"
  float scale;
  double bias;
  uint32_t n;
};

struct WrongParams {
  float scale;
  uint32_t n;
};

} // namespace

TEST(DeviceSubset, PodArgumentArrivesAsAlignedBytes) {
  Program P = loadTestProgram();
  KernelBuffer<double> Out(5);
  KernelStream S;
  Params Prm{1.5f, -2.25, 77};
  P.kernel("K.pod").launch(S, grid(1), block(1))(Out, Prm);
  Prm.scale = 99.0f; // the launch copied the bytes: changing the struct now has no effect
  S.sync();
  std::vector<double> R;
  Out.download(R);
  EXPECT_EQ(R[0], 1.5);
  EXPECT_EQ(R[1], -2.25);
  EXPECT_EQ(R[2], 77.0);
  EXPECT_EQ(R[3], 0.0) << "POD bytes are not aligned to the POD's alignment (8)";
  EXPECT_EQ(R[4], 24.0) << "Length is the POD size";
}

TEST(DeviceSubset, PodSizeMismatchNamesParameterClassAndSizes) {
  Program P = loadTestProgram();
  KernelBuffer<double> Out(5);
  KernelStream S;
  std::string M = messageOf<LaunchError>([&] {
    P.kernel("K.pod").launch(S, grid(1), block(1))(Out, WrongParams{1.0f, 2});
  });
  EXPECT_EQ(M, "K.pod: argument 2 ('p') expects the POD Params of 24 bytes, got 8 bytes");
  M = messageOf<LaunchError>([&] { P.kernel("K.pod").launch(S, grid(1), block(1))(Out, 3.0f); });
  EXPECT_EQ(M, "K.pod: argument 2 ('p') expects the POD Params, got a scalar float32");
  M = messageOf<LaunchError>(
      [&] { P.kernel("K.saxpy").launch(S, grid(1), block(1))(Out, Params{}, 1.0f, 1u); });
  EXPECT_EQ(M, "K.saxpy: argument 1 ('y') expects a buffer of float32, got a buffer of float64");
  KernelBuffer<float> Y(4);
  M = messageOf<LaunchError>(
      [&] { P.kernel("K.saxpy").launch(S, grid(1), block(1))(Y, Params{}, 1.0f, 1u); });
  EXPECT_EQ(M, "K.saxpy: argument 2 ('x') expects a buffer of float32, got a POD");
}

TEST(DeviceSubset, FunctionParameterByNameOrTag) {
  Program P = loadTestProgram();
  Kernel Apply = P.kernel("K.apply");
  KernelBuffer<float> D(4);
  KernelStream S;
  auto run = [&](auto Op) {
    std::vector<float> In = {1.0f, -2.0f, 3.0f, 4.5f};
    D.upload(In);
    Apply.launch(S, grid(1), block(4))(D, Op);
    S.sync();
    std::vector<float> R;
    D.download(R);
    return R;
  };
  EXPECT_EQ(run(deviceFunction("Ops.square")), (std::vector<float>{1.0f, 4.0f, 9.0f, 20.25f}));
  EXPECT_EQ(run(deviceFunction("Ops.negate")), (std::vector<float>{-1.0f, 2.0f, -3.0f, -4.5f}));
  EXPECT_EQ(run(uint32_t(1)), (std::vector<float>{-1.0f, 2.0f, -3.0f, -4.5f}));
  // A tag outside the table is the kernel's defined no-op (the call yields zero).
  EXPECT_EQ(run(uint32_t(7)), (std::vector<float>{0.0f, 0.0f, 0.0f, 0.0f}));

  std::string M = messageOf<LaunchError>(
      [&] { Apply.launch(S, grid(1), block(4))(D, deviceFunction("Ops.cube")); });
  EXPECT_EQ(M, "K.apply: argument 2 ('op'): 'Ops.cube' is not a device function this parameter "
               "can take (its table: Ops.square, Ops.negate)");
  M = messageOf<LaunchError>([&] { Apply.launch(S, grid(1), block(4))(D, 1.0f); });
  EXPECT_EQ(M, "K.apply: argument 2 ('op') expects a device function (one of: Ops.square, "
               "Ops.negate) or a uint32 tag, got a scalar float32");
  M = messageOf<LaunchError>(
      [&] { P.kernel("K.saxpy").launch(S, grid(1), block(1))(D, D, deviceFunction("x"), 1u); });
  EXPECT_EQ(M, "K.saxpy: argument 3 ('a') expects float32, got a device function");
}

TEST(DeviceSubset, Float16ConversionsRoundToNearestEven) {
  EXPECT_EQ(float16(1.0f).bits(), 0x3c00);
  EXPECT_EQ(float16(-2.0f).bits(), 0xc000);
  EXPECT_EQ(float16(65504.0f).bits(), 0x7bff);
  EXPECT_EQ(float16(65520.0f).bits(), 0x7c00); // halfway to 2^16 rounds to even: infinity
  EXPECT_EQ(float16(65519.0f).bits(), 0x7bff);
  EXPECT_EQ(float16(std::numeric_limits<float>::infinity()).bits(), 0x7c00);
  EXPECT_TRUE(std::isnan(float(float16(std::numeric_limits<float>::quiet_NaN()))));
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1.0).
  EXPECT_EQ(float16(1.0f + std::ldexp(1.0f, -11)).bits(), 0x3c00);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even).
  EXPECT_EQ(float16(1.0f + 3 * std::ldexp(1.0f, -11)).bits(), 0x3c02);
  EXPECT_EQ(float16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)).bits(), 0x3c01);
  // Subnormals: the smallest is 2^-24; half of it ties to zero, a bit more rounds up.
  EXPECT_EQ(float16(std::ldexp(1.0f, -24)).bits(), 0x0001);
  EXPECT_EQ(float16(std::ldexp(1.0f, -25)).bits(), 0x0000);
  EXPECT_EQ(float16(std::ldexp(1.5f, -25)).bits(), 0x0001);
  EXPECT_EQ(float16(std::ldexp(3.0f, -25)).bits(), 0x0002); // 1.5 ulp: tie to even (2)
  EXPECT_EQ(float16(-0.0f).bits(), 0x8000);
  // Every finite half converts to float and back unchanged.
  for (uint32_t B = 0; B != 0x10000; ++B) {
    if ((B & 0x7c00) == 0x7c00 && (B & 0x3ff))
      continue; // NaN payloads are not required to survive
    float16 H = float16::fromBits(uint16_t(B));
    ASSERT_EQ(float16(float(H)).bits(), B) << std::hex << B;
  }
  EXPECT_EQ(float(float16::fromBits(0x0001)), std::ldexp(1.0f, -24));
  EXPECT_EQ(float(float16::fromBits(0x3555)), 0.333251953125f);
}

TEST(DeviceSubset, Float16BufferAndScalar) {
  Program P = loadTestProgram();
  KernelBuffer<float16> D(5);
  std::vector<float16> In(5, float16(0.0f));
  D.upload(In);
  KernelStream S;
  P.kernel("K.half").launch(S, grid(1), block(8))(D, float16(0.1f));
  S.sync();
  std::vector<float16> R;
  D.download(R);
  ASSERT_EQ(R.size(), 5u);
  for (float16 H : R)
    EXPECT_EQ(H.bits(), 0x2e66); // 0.1 rounded to binary16
  std::string M =
      messageOf<LaunchError>([&] { P.kernel("K.half").launch(S, grid(1), block(8))(D, 0.1f); });
  EXPECT_EQ(M, "K.half: argument 2 ('h') expects float16, got float32");
}

TEST(DeviceSubset, DynamicSharedBytesReachTheKernel) {
  Program P = loadTestProgram();
  const uint32_t Groups = 6, Bytes = 1u << 20; // the CPU limit itself
  KernelBuffer<uint32_t> Out(2 * Groups);
  KernelStream S;
  P.kernel("K.dynamic").launch(S, grid(Groups), block(1), Bytes)(Out);
  S.sync();
  std::vector<uint32_t> R;
  Out.download(R);
  for (uint32_t G = 0; G != Groups; ++G) {
    uint32_t Sum = 0;
    for (uint32_t I = 0; I != Bytes; ++I)
      Sum += uint8_t(I + G);
    EXPECT_EQ(R[2 * G], Bytes);
    EXPECT_EQ(R[2 * G + 1], Sum) << "group " << G;
  }
}

TEST(DeviceSubset, DynamicSharedLimits) {
  Program P = loadTestProgram();
  EXPECT_EQ(P.device().maxDynamicSharedBytes(), 1u << 20);
  KernelBuffer<uint32_t> Out(2);
  KernelStream S;
  std::string M = messageOf<LaunchError>(
      [&] { P.kernel("K.dynamic").launch(S, grid(1), block(1), (1u << 20) + 1)(Out); });
  EXPECT_TRUE(contains(M, "K.dynamic: asks for 1048577 bytes of dynamic shared memory; the cpu "
                          "device '"));
  EXPECT_TRUE(contains(M, "' allows at most 1048576 per workgroup"));
  M = messageOf<LaunchError>([&] { P.kernel("K.coords").launch(S, grid(1), block(1), 64)(Out); });
  EXPECT_EQ(M, "K.coords: asks for 64 bytes of dynamic shared memory but the kernel has no "
               "dynamic shared array");
}

// A manifest's dynamicSharedPrefix (static arrays its code keeps at the start of the dynamic
// shared memory: NVIDIA's past 48 KiB) is added to the launch's dynamic bytes, and a launch whose
// sum the device cannot hold is refused with both numbers. Here on the CPU, whose kernels have
// none, through a manifest that says so: K.dynamic reports the bytes it was given.
TEST(DeviceSubset, TheManifestsSharedPrefixIsAddedToTheLaunch) {
  cajeta::bundle::Program Prog = makeTestProgram();
  for (cajeta::bundle::KernelInfo& K : Prog.Kernels)
    if (K.Name == "K.dynamic")
      K.Targets.at("cpu-x86_64").DynamicSharedPrefix = (1u << 20) - 100;
  std::vector<uint8_t> Bytes = cajeta::bundle::BundleWriter::write(Prog);
  Program P = Program::loadMemory(Bytes.data(), Bytes.size());
  KernelBuffer<uint32_t> Out(2);
  KernelStream S;
  P.kernel("K.dynamic").launch(S, grid(1), block(1), 60)(Out);
  S.sync();
  std::vector<uint32_t> R;
  Out.download(R);
  EXPECT_EQ(R[0], (1u << 20) - 40);
  std::string M =
      messageOf<LaunchError>([&] { P.kernel("K.dynamic").launch(S, grid(1), block(1), 200)(Out); });
  EXPECT_TRUE(contains(M, "K.dynamic: its 1048476 bytes of static shared arrays and the launch's "
                          "200 dynamic ones pass the 1048576 bytes a workgroup has on the cpu "
                          "device '"));
}

TEST(DeviceSubset, KernelsRunOnLargeStacks) {
  // 32 MiB of stack per running thread: more than a default 8 MiB thread has.
  Program P = loadTestProgram();
  const uint32_t Groups = 8;
  KernelBuffer<uint32_t> Out(Groups);
  KernelStream S;
  P.kernel("K.deep").launch(S, grid(Groups), block(1))(Out, 32u);
  S.sync();
  std::vector<uint32_t> R;
  Out.download(R);
  EXPECT_EQ(R, std::vector<uint32_t>(Groups, 1u));
}

TEST(DeviceSubset, SharedArrayBoundsFailureNamesTheArray) {
  Program P = loadTestProgram();
  KernelBuffer<float> D(4);
  KernelStream S;
  P.kernel("K.sharedOob").launch(S, grid(2), block(1))(D);
  std::string M = messageOf<LaunchError>([&] { S.sync(); });
  EXPECT_EQ(M, "K.sharedOob: index 300 is out of range for shared array 'tile' of length 256");
}

TEST(DeviceSubset, BackendRestrictionNamedAtLaunch) {
  Program P = loadTestProgram();
  Kernel Fast = P.kernel("K.fast"); // listed: the restriction is reported when it is launched
  KernelBuffer<float> D(4);
  KernelStream S;
  std::string M = messageOf<LaunchError>([&] { Fast.launch(S, grid(1), block(1))(D); });
  EXPECT_EQ(M, "K.fast is restricted to @Backend(cuda) and has no code for cpu");
}

// Without a restriction, a kernel without code for the target (the compiler could not fit it
// there) leaves the program's other kernels running; launching it names the target.
TEST(DeviceSubset, KernelWithoutCodeAndWithoutRestrictionIsNamedAtLaunch) {
  cajeta::bundle::Program Desc = makeTestProgram();
  for (cajeta::bundle::KernelInfo& K : Desc.Kernels)
    if (K.Name == "K.fast")
      K.Backends.clear();
  std::vector<uint8_t> Bytes = cajeta::bundle::BundleWriter::write(Desc);
  Program P = Program::loadMemory(Bytes.data(), Bytes.size());
  KernelBuffer<float> D(4);
  KernelStream S;
  std::string M =
      messageOf<LaunchError>([&] { P.kernel("K.fast").launch(S, grid(1), block(1))(D); });
  EXPECT_TRUE(contains(M, "K.fast has no code in its bundle for target 'cpu-x86_64'")) << M;
  std::vector<float> Hx(4, 1.0f), Hy(4, 2.0f), Out;
  KernelBuffer<float> X(4), Y(4);
  X.upload(Hx);
  Y.upload(Hy);
  P.kernel("K.saxpy").launch(S, grid(1), block(4))(Y, X, 3.0f, 4u);
  S.sync();
  Y.download(Out);
  EXPECT_EQ(Out, std::vector<float>(4, 5.0f));
}

TEST(DeviceSubset, CpuCapabilities) {
  Device D = defaultDevice();
  ASSERT_EQ(D.backend(), "cpu");
  EXPECT_TRUE(D.supports(Capability::Float16));
  EXPECT_TRUE(D.supports(Capability::Float64));
  EXPECT_TRUE(D.supports(Capability::Int64Atomics));
  EXPECT_TRUE(D.supports(Capability::FloatAtomics));
  EXPECT_TRUE(D.supports(Capability::SharedMemory));
  EXPECT_TRUE(D.supports(Capability::DynamicSharedMemory));
  EXPECT_TRUE(D.supports(Capability::WaveOps)); // the portable tier
  unsigned W = D.waveWidth();                   // the host SIMD vector in 32-bit lanes
  EXPECT_TRUE(W == 4 || W == 8 || W == 16) << W;
  EXPECT_EQ(cajeta_xpu_device_wave_width(nullptr), 0u);
  EXPECT_TRUE(D.runsOnHostCpu());
  EXPECT_EQ(cajeta_xpu_device_runs_on_host_cpu(nullptr), 0);
  // The native tile tier: AMX's tiles (where the OS grants their state) and AVX512-BF16 and
  // AVX512-VNNI dot products, where the host CPU has them.
  const bool Bf16 = __builtin_cpu_supports("avx512bf16") != 0;
  const bool Vnni = __builtin_cpu_supports("avx512vnni") != 0;
  const cajeta::hostcpu::HostAmx Amx = cajeta::hostcpu::hostAmx();
  EXPECT_EQ(D.supports(Capability::CooperativeMatrix), Bf16 || Vnni);
  std::vector<std::string> Shapes;
  if (Amx.Bf16)
    Shapes.push_back("16x16x32:bf16:bf16:f32:f32");
  if (Amx.Int8)
    Shapes.insert(Shapes.end(), {"16x16x64:s8:s8:s32:s32", "16x16x64:u8:u8:s32:s32"});
  if (Bf16)
    Shapes.push_back("4x16x2:bf16:bf16:f32:f32");
  if (Vnni)
    Shapes.insert(Shapes.end(), {"4x16x4:s8:s8:s32:s32", "4x16x4:u8:u8:s32:s32"});
  EXPECT_EQ(D.matrixShapes(), Shapes);
  EXPECT_FALSE(D.supports(Capability::Textures));
  EXPECT_FALSE(D.supports(Capability::RayQuery));
  EXPECT_EQ(capabilityName(Capability::DynamicSharedMemory), "dynamic-shared-memory");
  EXPECT_EQ(allCapabilities().size(), size_t(CAJETA_XPU_CAP_COUNT));
  EXPECT_EQ(cajeta_xpu_device_supports(D.handle(), CAJETA_XPU_CAP_COUNT), 0);
  EXPECT_EQ(cajeta_xpu_device_supports(nullptr, CAJETA_XPU_CAP_FLOAT16), 0);
  EXPECT_STREQ(cajeta_xpu_capability_name(cajeta_xpu_capability(99)), "");
}
