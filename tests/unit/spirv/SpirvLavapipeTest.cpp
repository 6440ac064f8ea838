// Executes emitted SPIR-V on a real Vulkan device (lavapipe in CI) through VulkanHarness: saxpy,
// shared memory with barriers (static and dynamic), labeled jumps out of three loops, the
// language's integer/float edge semantics and a float atomic add by compare-exchange.
#include "SpirvTestSupport.h"
#include "VulkanHarness.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstring>

namespace cajeta::lowering::spirv::test {
namespace {

template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T>& V) {
  std::vector<uint8_t> B(V.size() * sizeof(T));
  std::memcpy(B.data(), V.data(), B.size());
  return B;
}

template <typename T> std::vector<T> valuesOf(const std::vector<uint8_t>& B) {
  std::vector<T> V(B.size() / sizeof(T));
  std::memcpy(V.data(), B.data(), V.size() * sizeof(T));
  return V;
}

template <typename T> void put(std::vector<uint8_t>& Block, size_t Offset, T V) {
  if (Block.size() < Offset + sizeof(T))
    Block.resize(Offset + sizeof(T));
  std::memcpy(Block.data() + Offset, &V, sizeof(T));
}

class SpirvLavapipe : public ::testing::Test {
protected:
  void SetUp() override {
    std::string Why;
    H = VulkanHarness::create(Why);
    if (!H)
      GTEST_SKIP() << "no Vulkan device: " << Why;
  }
  SpirvKernel kernel(const char* Source, const std::string& Name) {
    driver::FrontendResult F = frontend("T.cj", Source);
    EXPECT_TRUE(F.Ok) << F.Diagnostics;
    if (!F.Ok)
      return {};
    SpirvKernel K = emit(F, Name);
    EXPECT_TRUE(K.Ok) << K.Error;
    return K;
  }
  std::unique_ptr<VulkanHarness> H;
};

TEST_F(SpirvLavapipe, Saxpy) {
  SpirvKernel K = kernel(R"(import cajeta.xpu.*;
public final class K {
    @Kernel
    public static void saxpy(KernelBuffer<float32> y, KernelBuffer<float32> x, float32 a, uint32 n) {
        uint32 i = KernelThread.globalIdX();
        if (i < n) { y[i] = a * x[i] + y[i]; }
    }
}
)",
                         "K.saxpy");
  ASSERT_TRUE(K.Ok);
  const uint32_t N = 1000;
  std::vector<float> X(N), Y(N);
  for (uint32_t I = 0; I < N; ++I) {
    X[I] = 0.37f * float(I) - 11.0f;
    Y[I] = 1.0f / float(I + 1);
  }
  std::vector<std::vector<uint8_t>> Bufs = {bytesOf(Y), bytesOf(X)};
  std::vector<uint8_t> Params;
  put(Params, K.Slots[0].Offset, 3.25f);
  put(Params, K.Slots[1].Offset, N);
  std::string Error;
  ASSERT_TRUE(H->run(K, (N + 63) / 64, 64, Bufs, Params, 1, Error)) << Error;
  std::vector<float> Out = valuesOf<float>(Bufs[0]);
  for (uint32_t I = 0; I < N; ++I) {
    volatile float Product = 3.25f * X[I]; // no contraction: two roundings
    ASSERT_EQ(Out[I], Product + Y[I]) << I << " on " << H->deviceName();
  }
}

TEST_F(SpirvLavapipe, SharedMemoryAndBarriers) {
  SpirvKernel K = kernel(R"(import cajeta.xpu.*;
public final class T {
    @Kernel
    public static void run(KernelBuffer<float32> out, KernelBuffer<float32> in, uint32 n) {
        Shared<float32> tile = shared float32[64];
        Shared<float32> dyn = shared float32[];
        uint32 t = KernelThread.x();
        tile[t % 64] = in[KernelThread.globalIdX()];
        Barrier.sync();
        dyn[t] = tile[Workgroup.dimX() - 1 - t] * 2.0f;
        Barrier.sync();
        out[KernelThread.globalIdX()] = dyn[(t + 1) % Workgroup.dimX()];
    }
}
)",
                         "T.run");
  ASSERT_TRUE(K.Ok);
  const uint32_t Block = 64, Groups = 8, N = Block * Groups;
  std::vector<float> In(N), Zero(N, 0.0f);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = float(I) * 0.5f;
  std::vector<std::vector<uint8_t>> Bufs = {bytesOf(Zero), bytesOf(In)};
  std::vector<uint8_t> Params;
  put(Params, K.Slots[0].Offset, N);
  std::string Error;
  ASSERT_TRUE(H->run(K, Groups, Block, Bufs, Params, Block, Error)) << Error;
  std::vector<float> Out = valuesOf<float>(Bufs[0]);
  for (uint32_t G = 0; G < Groups; ++G)
    for (uint32_t T = 0; T < Block; ++T) {
      uint32_t U =
          (T + 1) % Block; // dyn[u] = tile[dim - 1 - u] * 2 = in[g * dim + dim - 1 - u] * 2
      ASSERT_EQ(Out[G * Block + T], In[G * Block + Block - 1 - U] * 2.0f) << G << "," << T;
    }
}

int32_t threeLoopsReference(int32_t N) {
  int32_t Count = 0;
  for (int32_t A = 0; A < 8; A++) {
    for (int32_t B = 0; B < 8; B++) {
      int32_t C = 0;
      while (C < 8) {
        C++;
        if (C == 3 && B == 2)
          goto ContinueOuter;
        if (A * B * C > N)
          goto BreakOuter;
        if (C == A)
          goto ContinueMiddle;
        if (C > B)
          goto BreakMiddle;
        Count++;
      }
    ContinueMiddle:;
    }
  BreakMiddle:;
  ContinueOuter:;
  }
BreakOuter:
  return Count;
}

TEST_F(SpirvLavapipe, LabeledJumpsOutOfThreeLoops) {
  SpirvKernel K = kernel(R"(import cajeta.xpu.*;
public final class T {
    @Kernel
    public static void run(KernelBuffer<int32> out, KernelBuffer<int32> lims) {
        uint32 i = KernelThread.globalIdX();
        int32 n = lims[i];
        int32 count = 0;
        outer:
        for (int32 a = 0; a < 8; a++) {
            middle:
            for (int32 b = 0; b < 8; b++) {
                int32 c = 0;
                while (c < 8) {
                    c++;
                    if (c == 3 && b == 2) {
                        continue outer;
                    }
                    if (a * b * c > n) {
                        break outer;
                    }
                    if (c == a) {
                        continue middle;
                    }
                    if (c > b) {
                        break middle;
                    }
                    count++;
                }
            }
        }
        out[i] = count;
    }
}
)",
                         "T.run");
  ASSERT_TRUE(K.Ok);
  const uint32_t N = 64;
  std::vector<int32_t> Lims(N), Zero(N, -1);
  for (uint32_t I = 0; I < N; ++I)
    Lims[I] = int32_t(I * 7) - 3;
  std::vector<std::vector<uint8_t>> Bufs = {bytesOf(Zero), bytesOf(Lims)};
  std::string Error;
  ASSERT_TRUE(H->run(K, 2, 32, Bufs, {}, 1, Error)) << Error;
  std::vector<int32_t> Out = valuesOf<int32_t>(Bufs[0]);
  for (uint32_t I = 0; I < N; ++I)
    EXPECT_EQ(Out[I], threeLoopsReference(Lims[I])) << "lim " << Lims[I];
}

TEST_F(SpirvLavapipe, DefinedIntegerAndFloatSemantics) {
  SpirvKernel K = kernel(R"(import cajeta.xpu.*;
public final class T {
    @Kernel
    public static void run(KernelBuffer<int32> out, KernelBuffer<float32> f, int32 z, int32 m1, int32 big) {
        if (KernelThread.globalIdX() == 0) {
            out[0] = 7 / z;
            out[1] = big / m1;
            out[2] = big % m1;
            out[3] = 1 << (z + 33);
            out[4] = (int32) f[0];
            out[5] = (int32) f[1];
            out[6] = (int32) f[2];
            out[7] = -7 % z;
            f[3] = Math.min(f[4], f[5]);
            f[6] = Math.max(f[0], f[7]);
            f[8] = Math.max(f[5], f[4]);
        }
    }
}
)",
                         "T.run");
  ASSERT_TRUE(K.Ok);
  std::vector<int32_t> Out(8, 12345);
  std::vector<float> F = {NAN, 1e20f, -1e20f, 9.0f, 0.0f, -0.0f, 9.0f, 1.0f, 9.0f};
  std::vector<std::vector<uint8_t>> Bufs = {bytesOf(Out), bytesOf(F)};
  std::vector<uint8_t> Params;
  put(Params, K.Slots[0].Offset, int32_t(0));
  put(Params, K.Slots[1].Offset, int32_t(-1));
  put(Params, K.Slots[2].Offset, int32_t(INT_MIN));
  std::string Error;
  ASSERT_TRUE(H->run(K, 1, 1, Bufs, Params, 1, Error)) << Error;
  Out = valuesOf<int32_t>(Bufs[0]);
  F = valuesOf<float>(Bufs[1]);
  EXPECT_EQ(Out[0], 0);       // x / 0 == 0
  EXPECT_EQ(Out[1], INT_MIN); // MIN / -1 == MIN
  EXPECT_EQ(Out[2], 0);       // MIN % -1 == 0
  EXPECT_EQ(Out[3], 2);       // shift count masked: 33 & 31 == 1
  EXPECT_EQ(Out[4], 0);       // NaN -> 0
  EXPECT_EQ(Out[5], INT_MAX); // saturating
  EXPECT_EQ(Out[6], INT_MIN);
  EXPECT_EQ(Out[7], 0);                                     // x % 0 == 0
  EXPECT_TRUE(F[3] == 0.0f && std::signbit(F[3])) << F[3];  // min(+0, -0) == -0
  EXPECT_TRUE(std::isnan(F[6])) << F[6];                    // max(NaN, 1) == NaN
  EXPECT_TRUE(F[8] == 0.0f && !std::signbit(F[8])) << F[8]; // max(-0, +0) == +0
}

TEST_F(SpirvLavapipe, FloatAtomicAddByCompareExchange) {
  SpirvKernel K = kernel(R"(import cajeta.xpu.*;
public final class T {
    @Kernel
    public static void run(KernelBuffer<float32> sum, KernelBuffer<int32> count) {
        Atomics.add(sum, 0, 0.5f);
        Atomics.add(count, 0, 1);
    }
}
)",
                         "T.run");
  ASSERT_TRUE(K.Ok);
  std::vector<std::vector<uint8_t>> Bufs = {bytesOf(std::vector<float>{1.0f}),
                                            bytesOf(std::vector<int32_t>{0})};
  std::string Error;
  ASSERT_TRUE(H->run(K, 16, 64, Bufs, {}, 1, Error)) << Error;
  EXPECT_EQ(valuesOf<float>(Bufs[0])[0], 1.0f + 0.5f * 1024);
  EXPECT_EQ(valuesOf<int32_t>(Bufs[1])[0], 1024);
}

} // namespace
} // namespace cajeta::lowering::spirv::test
