// The vulkan runtime backend on a real Vulkan device (lavapipe in CI): dispatch policy, launches
// through push constants and a uniform parameter block, the pipeline cache across block sizes,
// --check-bounds reports, capability checks at load. Skips when no Vulkan device exists.
#include "bundle/BundleWriter.h"
#include "bundle/VulkanKernelAbi.h"

#include "VulkanDeviceTest.h"

#include <cajeta/xpu.hpp>
#include <gtest/gtest.h>

#include <cstring>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace {

namespace xpu = cajeta::xpu;

const char* const Source = R"(
import cajeta.xpu.*;

final class Big {
    float64 a0; float64 a1; float64 a2; float64 a3; float64 a4;
    float64 a5; float64 a6; float64 a7; float64 a8; float64 a9;
    float64 b0; float64 b1; float64 b2; float64 b3; float64 b4;
    float64 b5; float64 b6; float64 b7; float64 b8; float64 b9;
}

public final class V {
    @Kernel
    public static void saxpy(KernelBuffer<float32> y, KernelBuffer<float32> x, float32 a, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { y[i] = a * x[i] + y[i]; }
    }
    @Kernel
    public static void wide(KernelBuffer<float64> out, Big b, int64 k, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { out[i] = b.a0 + b.b9 * (float64) i + (float64) k; }
    }
    @Kernel
    public static void fold(KernelBuffer<float32> acc, KernelBuffer<float32> st, KernelBuffer<float32> v, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) {
            float32 x = v[i];
            Atomics.add(acc, 0, x, MemoryOrder.SEQ_CST);
            Atomics.min(acc, 1, x, MemoryOrder.ACQ_REL);
            Atomics.max(acc, 2, x);
            Atomics.store(st, i, x, MemoryOrder.RELEASE);
        }
    }
    @Kernel
    public static void poke(KernelBuffer<int32> out, uint32 at) {
        out[at] = 7;
    }
}
)";

using vulkantest::Big;
using vulkantest::vulkanDevice;

class VulkanBackend : public vulkantest::VulkanDeviceTest {};

TEST_F(VulkanBackend, ForcedBackendRunsSaxpyBitExactAcrossBlockSizes) {
  xpu::Program P = xpu::Program::compileSource(Source, "V.cj");
  ASSERT_EQ(P.device().backend(), "vulkan");
  const uint32_t N = 1000;
  std::vector<float> X(N), Y(N);
  for (uint32_t I = 0; I < N; ++I) {
    X[I] = 0.37f * float(I) - 11.0f;
    Y[I] = 1.0f / float(I + 1);
  }
  for (uint32_t Block : {64u, 256u, 64u}) { // the third reuses the first pipeline
    xpu::KernelBuffer<float> DX(N), DY(N);
    DX.upload(X);
    DY.upload(Y);
    xpu::KernelStream S(P.device());
    P.kernel("V.saxpy").launch(S, xpu::grid((N + Block - 1) / Block), xpu::block(Block))(DY, DX,
                                                                                         2.5f, N);
    S.sync();
    std::vector<float> Got(N);
    DY.download(Got);
    for (uint32_t I = 0; I < N; ++I) {
      volatile float Product = 2.5f * X[I]; // no contraction, like the kernel
      ASSERT_EQ(Got[I], Product + Y[I]) << "block " << Block << " element " << I;
    }
  }
}

TEST_F(VulkanBackend, LargePodTravelsInTheUniformBlock) {
  xpu::Program P = xpu::Program::compileSource(Source, "V.cj");
  const uint32_t N = 300;
  Big B{};
  for (int I = 0; I < 10; ++I) {
    B.A[I] = 1000.0 + I;
    B.B[I] = -0.5 * I;
  }
  xpu::KernelBuffer<double> Out(N);
  Out.upload(std::vector<double>(N, -1.0));
  xpu::KernelStream S(P.device());
  P.kernel("V.wide").launch(S, xpu::grid(5), xpu::block(64))(Out, B, int64_t(-(1LL << 40)), N);
  S.sync();
  std::vector<double> Got(N);
  Out.download(Got);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(Got[I], B.A[0] + B.B[9] * double(I) + double(-(1LL << 40))) << "element " << I;
}

// Ordered float atomics are compare-exchange loops; lavapipe (Mesa 22.3) lost updates from them in
// workgroups wider than its SIMD width, and the store after them in a partial workgroup, until
// the emitter fenced relaxed compare-exchanges and left the loop from its body.
TEST_F(VulkanBackend, OrderedFloatAtomicLoopsInWideAndPartialWorkgroups) {
  xpu::Program P = xpu::Program::compileSource(Source, "V.cj");
  for (auto [N, Block] : {std::pair<uint32_t, uint32_t>{3001, 256}, {300, 64}, {256, 256}}) {
    std::vector<float> V(N);
    for (uint32_t I = 0; I < N; ++I) // quarters of small integers: every partial sum is exact
      V[I] = float(int32_t((I * 7) % 33) - 16) * 0.25f;
    std::vector<float> Want = {0.5f, 1e30f, -1e30f};
    for (float X : V) {
      Want[0] += X;
      Want[1] = std::min(Want[1], X);
      Want[2] = std::max(Want[2], X);
    }
    xpu::KernelBuffer<float> Acc(3), St(N), DV(N);
    Acc.upload(std::vector<float>{0.5f, 1e30f, -1e30f});
    St.upload(std::vector<float>(N, 99.0f));
    DV.upload(V);
    xpu::KernelStream S(P.device());
    P.kernel("V.fold").launch(S, xpu::grid((N + Block - 1) / Block), xpu::block(Block))(Acc, St, DV,
                                                                                        N);
    S.sync();
    std::vector<float> Got(3), Stored(N);
    Acc.download(Got);
    St.download(Stored);
    EXPECT_EQ(Got, Want) << "n " << N << ", block " << Block;
    EXPECT_EQ(Stored, V) << "n " << N << ", block " << Block;
  }
}

TEST_F(VulkanBackend, CheckBoundsReportsIndexAndLengthThenRunsAgain) {
  xpu::CompileOptions O;
  O.checkBounds = true;
  xpu::Program P = xpu::Program::compileSource(Source, "V.cj", O);
  xpu::KernelBuffer<int32_t> Out(4);
  Out.upload(std::vector<int32_t>(4, 0));
  xpu::KernelStream S(P.device());
  P.kernel("V.poke").launch(S, xpu::grid(1), xpu::block(1))(Out, uint32_t(10));
  try {
    S.sync();
    FAIL() << "an out-of-range store was not reported";
  } catch (const xpu::LaunchError& E) {
    std::string M = E.what();
    EXPECT_NE(M.find("index 10 is out of range"), std::string::npos) << M;
    EXPECT_NE(M.find("of length 4"), std::string::npos) << M;
  }
  P.kernel("V.poke").launch(S, xpu::grid(1), xpu::block(1))(Out, uint32_t(2));
  S.sync(); // the status record was reset
  std::vector<int32_t> Got(4);
  Out.download(Got);
  EXPECT_EQ(Got, (std::vector<int32_t>{0, 0, 7, 0}));
}

TEST_F(VulkanBackend, CapabilitiesComeFromTheDevice) {
  EXPECT_TRUE(Device->supports(xpu::Capability::SharedMemory));
  EXPECT_TRUE(Device->supports(xpu::Capability::FloatAtomics));
  EXPECT_FALSE(Device->supports(xpu::Capability::RayQuery));
  EXPECT_GE(Device->maxWorkgroupSize(), 128u); // Vulkan's guaranteed minimum
  EXPECT_GE(Device->maxDynamicSharedBytes(), 16384u);
}

namespace {

/// A bundle of one kernel T.k(KernelBuffer<int32> out) whose SPIR-V is only what the loader
/// reads before the driver: an entry point "main" and the parameter record of `out` (no
/// capabilities, no memory model: invalid SPIR-V), declaring the capabilities Capabilities.
std::vector<uint8_t> skeletonBundle(const std::string& Capabilities) {
  using namespace cajeta::bundle;
  Program Desc;
  Desc.CompilerVersion = "test";
  KernelInfo K;
  K.Name = "T.k";
  ParamInfo Buf;
  Buf.Name = "out";
  Buf.Kind = ParamKind::Buffer;
  Buf.Type = ScalarType::I32;
  K.Params.push_back(Buf);
  K.Targets["spirv"].Symbol = "main";
  Desc.Kernels.push_back(K);
  Payload Pl;
  Pl.Target = "spirv:T.k";
  Pl.Format = "spirv";
  const uint32_t Words[] = {
      0x07230203,       0x00010300, 0,          2,          0,
      (5u << 16) | 15,  5,          1,          0x6e69616d, 0, // OpEntryPoint GLCompute "main"
      (5u << 16) | 330, 0x656a6163, 0x612d6174, 0x62206962, 0x00000034}; // OpModuleProcessed
                                                                         // "cajeta-abi b4"
  Pl.Bytes.resize(sizeof Words);
  std::memcpy(Pl.Bytes.data(), Words, sizeof Words);
  Pl.Attributes = {{"kernel", "T.k"},
                   {"entry", "main"},
                   {"vulkan_abi", std::to_string(CAJETA_VULKAN_KERNEL_ABI_VERSION)},
                   {"capabilities", Capabilities},
                   {"extensions", ""},
                   {"param_block", "none"},
                   {"param_block_bytes", "0"},
                   {"param_slots", ""},
                   {"check_bounds", "0"},
                   {"dynamic_shared_element_bytes", "0"}};
  Desc.Payloads.push_back(Pl);
  return BundleWriter::write(Desc);
}

std::string loadError(const std::vector<uint8_t>& Bytes) {
  try {
    xpu::Program::loadMemory(Bytes.data(), Bytes.size());
  } catch (const xpu::Error& E) {
    return E.what();
  }
  return "<loaded>";
}

} // namespace

TEST_F(VulkanBackend, UnknownCapabilityFailsAtLoadNamingIt) {
  // The requirement check comes before the module is validated or reaches the driver.
  std::string M = loadError(skeletonBundle("Shader,Kernel"));
  EXPECT_NE(M.find("kernel 'T.k' needs the SPIR-V capability Kernel"), std::string::npos) << M;
}

TEST_F(VulkanBackend, AModuleNeedingExplicitWorkgroupLayoutsNamesTheFeature) {
  // The shared pool's capability (the cooperative-matrix variant of a kernel with staged copies):
  // a device without VK_KHR_workgroup_memory_explicit_layout names it; one with it goes on to
  // validate the (skeleton, invalid) module.
  std::string M = loadError(skeletonBundle("Shader,WorkgroupMemoryExplicitLayoutKHR"));
  if (M.find("needs") != std::string::npos)
    EXPECT_NE(M.find("kernel 'T.k' needs the SPIR-V capability WorkgroupMemoryExplicitLayoutKHR "
                     "(workgroupMemoryExplicitLayout (VK_KHR_workgroup_memory_explicit_layout))"),
              std::string::npos)
        << M;
  else
    EXPECT_NE(M.find("is not valid SPIR-V"), std::string::npos) << M;
}

TEST_F(VulkanBackend, InvalidSpirvIsRefusedBeforeTheDriverSeesIt) {
  std::string M = loadError(skeletonBundle("Shader"));
  EXPECT_NE(M.find("kernel 'T.k': the spirv:T.k payload is not valid SPIR-V for Vulkan 1.1: "),
            std::string::npos)
      << M;
}

TEST_F(VulkanBackend, AHostEmulatedDeviceIsNotTheDefault) {
  EXPECT_EQ(Device->runsOnHostCpu(), Device->name().find("llvmpipe") != std::string::npos);
  if (!Device->runsOnHostCpu())
    GTEST_SKIP() << "the Vulkan device '" << Device->name() << "' is an accelerator";
  unsetenv("CAJETA_XPU_BACKEND");
  xpu::Program P = xpu::Program::compileSource(Source, "V.cj");
  setenv("CAJETA_XPU_BACKEND", "vulkan", 1);
  EXPECT_EQ(P.device().backend(), "cpu");
}

} // namespace
