// Conformance of @Device helpers (scalar and buffer parameters, nesting, other classes) and
// @FastMath.
#include "ConformanceSupport.h"

namespace conformance {
namespace {

constexpr size_t N = 613;
constexpr uint32_t Block = 128;

TEST(Helpers, ScalarParameters) {
  xpu::Program P = compileProgram("DeviceScalar");
  std::vector<int32_t> Xs = intData<int32_t>(N, 600);
  Rng R(601);
  for (size_t I = 12; I < N; I += 2)
    Xs[I] = static_cast<int32_t>(R.next() % 4001) - 2000;
  Xs[12] = 0;
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<int64_t>(N * 4, 0x55);
  auto Polys = filledBuffer<double>(N, 0.0);
  run1D(P.kernel("DeviceScalar.run"), N, Block, Out, Polys, DX, uint32_t(N));
  std::vector<int64_t> Want(N * 4);
  std::vector<double> WantPoly(N);
  auto Clamp = [](int32_t V, int32_t Lo, int32_t Hi) { return V < Lo ? Lo : (V > Hi ? Hi : V); };
  for (size_t I = 0; I < N; ++I) {
    int32_t x = Xs[I];
    Want[I * 4] = Clamp(x, -1000, 1000);
    Want[I * 4 + 1] = static_cast<uint8_t>(static_cast<uint64_t>(int64_t(x)) * 3);
    Want[I * 4 + 2] = (x & 1) != 0 ? 1 : 0;
    int32_t First = -1;
    for (int32_t J = 0; J < 32; ++J)
      if ((static_cast<uint32_t>(x) >> J) & 1) {
        First = J;
        break;
      }
    Want[I * 4 + 3] = First;
    double p = static_cast<double>(Clamp(x, -50, 50)) / 8.0;
    WantPoly[I] = ((2.0 * p - 3.0) * p + 0.5) * p - 7.25;
  }
  expectSame(fromDevice(Out), Want, "DeviceScalar.run");
  expectSame(fromDevice(Polys), WantPoly, "DeviceScalar poly");
}

TEST(Helpers, BufferParameters) {
  CONFORMANCE_REQUIRE_DEVICE(Float32Denormals); // the data include subnormals
  xpu::Program P = compileProgram("DeviceBuffer");
  std::vector<float> Y = floatData<float>(N, 610, -10, 10), X = floatData<float>(N, 611, -10, 10);
  auto DY = toDevice(Y), DX = toDevice(X);
  auto Sums = filledBuffer<float>(N, 0.0f);
  auto Tags = filledBuffer<int16_t>(77, 0);
  auto Lens = filledBuffer<uint64_t>(N, 0);
  const float A = -2.5f;
  run1D(P.kernel("DeviceBuffer.run"), N, Block, DY, Sums, DX, Tags, Lens, A, uint32_t(N));
  std::vector<float> WantY(N), WantSums(N);
  std::vector<uint64_t> WantLens(N);
  for (size_t I = 0; I < N; ++I) {
    float s = X[I];
    if (I > 0)
      s += X[I - 1];
    if (I + 1 < N)
      s += X[I + 1];
    WantSums[I] = s;
    WantY[I] = A * X[I] + Y[I];
    WantLens[I] = 77 + I;
  }
  expectSame(fromDevice(Sums), WantSums, "DeviceBuffer sums");
  expectSame(fromDevice(DY), WantY, "DeviceBuffer axpy");
  expectSame(fromDevice(Lens), WantLens, "DeviceBuffer lengths");
}

TEST(Helpers, NestedCalls) {
  xpu::Program P = compileProgram("DeviceNested");
  std::vector<int32_t> In = intData<int32_t>(N, 620);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<int32_t>(N, 0x55);
  run1D(P.kernel("DeviceNested.first"), N, Block, Out, DIn, uint32_t(N));
  std::vector<int32_t> Want(N);
  for (size_t I = 0; I < N; ++I) {
    int32_t i = static_cast<int32_t>(I);
    Want[I] = wrapSub(wrapAdd(wrapMul(In[I], In[I]), i * i), 9);
  }
  expectSame(fromDevice(Out), Want, "DeviceNested.first");

  auto Out2 = filledBuffer<int32_t>(N, 0x55);
  run1D(P.kernel("DeviceNested.second"), N, Block, Out2, DIn, uint32_t(N));
  for (size_t I = 0; I < N; ++I)
    Want[I] = wrapAdd(wrapMul(In[I], In[I]), 5);
  expectSame(fromDevice(Out2), Want, "DeviceNested.second");
}

TEST(Helpers, HelpersInAnotherClass) {
  xpu::Program P = compileProgram("DeviceOtherClass");
  std::vector<uint64_t> As(N), Bs(N);
  Rng R(630);
  for (size_t I = 0; I < N; ++I) {
    uint64_t Common = 1 + R.next() % 1000;
    As[I] = Common * (R.next() % 100000);
    Bs[I] = Common * (R.next() % 100000);
  }
  As[0] = 0;
  Bs[1] = 0;
  auto DA = toDevice(As), DB = toDevice(Bs);
  auto Out = filledBuffer<uint64_t>(N * 2, 0x55);
  run1D(P.kernel("DeviceOtherClass.run"), N, Block, Out, DA, DB, uint32_t(N));
  std::vector<uint64_t> Want(N * 2);
  for (size_t I = 0; I < N; ++I) {
    uint64_t x = As[I], y = Bs[I];
    while (y != 0) {
      uint64_t t = x % y;
      x = y;
      y = t;
    }
    Want[I * 2] = x;
    Want[I * 2 + 1] = (As[I] == 0 || Bs[I] == 0) ? 0 : As[I] / x * Bs[I];
  }
  expectSame(fromDevice(Out), Want, "DeviceOtherClass.run");
}

TEST(Helpers, FastMathIsAccepted) {
  xpu::Program P = compileProgram("FastMath");
  // Positive operands: a fused and an unfused a*b+c then differ by at most 2 ULP of the result.
  std::vector<float> A = uniformData<float>(N, 640, 0.5, 2), B = uniformData<float>(N, 641, 0.5, 2),
                     C = uniformData<float>(N, 642, 0.5, 2);
  auto DA = toDevice(A), DB = toDevice(B), DC = toDevice(C);
  auto Out = filledBuffer<float>(N * 2, 0.0f);
  auto Out64 = filledBuffer<double>(N, 0.0);
  run1D(P.kernel("FastMath.run"), N, Block, Out, Out64, DA, DB, DC, uint32_t(N));
  std::vector<float> Got = fromDevice(Out);
  std::vector<double> Got64 = fromDevice(Out64);
  for (size_t I = 0; I < N; ++I) {
    expectUlpNear(Got[I * 2], A[I] * B[I] + C[I], 2, "FastMath a*b+c");
    expectUlpNear(Got[I * 2 + 1], C[I] * A[I] + B[I], 2, "FastMath helper");
    expectUlpNear(Got64[I], double(A[I]) * double(B[I]) + double(C[I]), 2, "FastMath float64");
  }
}

} // namespace
} // namespace conformance
