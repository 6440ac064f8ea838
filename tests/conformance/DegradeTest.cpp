// Conformance of Device.supports(Capability.X) in kernels (the degradation rule): every
// capability answers in the kernel as the device answers on the host, and a kernel branching on
// CooperativeMatrix takes the tile path exactly where the device has native tiles, with the same
// product either way.
#include "ConformanceSupport.h"
#include "MatrixReference.h"

#include <cmath>

namespace conformance {
namespace {

TEST(Degrade, KernelAnswersAsTheDevice) {
  xpu::Program P = compileProgram("Degrade");
  auto Out = filledBuffer<int32_t>(16, 7);
  runKernel(P.kernel("Degrade.answers"), xpu::grid(1), xpu::block(32), Out);
  std::vector<int32_t> Got = fromDevice(Out);
  for (xpu::Capability C : xpu::allCapabilities())
    EXPECT_EQ(Got[uint32_t(C)], P.device().supports(C) ? 1 : 0)
        << xpu::capabilityName(C) << " on " << P.device().name();
  EXPECT_EQ(Got[13], 7);
}

TEST(Degrade, TilePathOnlyWhereTilesAreNative) {
  xpu::Program P = compileProgram("Degrade");
  CONFORMANCE_REQUIRE(P, Float16);
  const uint32_t Groups = 3;
  std::vector<xpu::float16> A = halfData(Groups * 256, 77), B = halfData(Groups * 256, 78);
  auto DA = toDevice(A), DB = toDevice(B);
  auto C = filledBuffer<float>(Groups * 256, -1.0f);
  auto Path = filledBuffer<int32_t>(Groups, 0);
  runKernel(P.kernel("Degrade.gemm16"), xpu::grid(Groups), xpu::block(64), C, DA, DB, Path);
  int32_t Want = P.device().supports(xpu::Capability::CooperativeMatrix) ? 1 : 2;
  expectSame(fromDevice(Path), std::vector<int32_t>(Groups, Want), "Degrade.gemm16 path");
  std::vector<float> Got = fromDevice(C);
  for (uint32_t G = 0; G < Groups; ++G)
    for (uint32_t I = 0; I < 16; ++I)
      for (uint32_t J = 0; J < 16; ++J) {
        DotRef R = dot(
            16, [&](uint32_t K) { return float(A[G * 256 + I * 16 + K]); },
            [&](uint32_t K) { return float(B[G * 256 + K * 16 + J]); });
        double Sum = R.Sum, Scale = R.Scale;
        EXPECT_NEAR(Got[G * 256 + I * 16 + J], Sum, 1e-6 * Scale + 1e-30)
            << "Degrade.gemm16 group " << G << " (" << I << ", " << J << ")";
      }
}

} // namespace
} // namespace conformance
