// Conformance of function values: local Fn variables, and an Fn kernel parameter chosen from the
// host by name (xpu::deviceFunction) or by raw tag, with out-of-range tags a no-op yielding zero.
#include "ConformanceSupport.h"

namespace conformance {
namespace {

TEST(FunctionValue, LocalFnChosenPerElement) {
  xpu::Program P = compileProgram("FnLocal");
  const uint32_t N = 400;
  std::vector<float> In = floatData<float>(N, 1500, -100, 100);
  std::vector<int32_t> Sel(N);
  for (uint32_t I = 0; I < N; ++I)
    Sel[I] = int32_t((I * 7) % 4); // 3 keeps the initial square
  auto DIn = toDevice(In);
  auto DSel = toDevice(Sel);
  auto OutF = filledBuffer<float>(N, 0.0f);
  auto OutI = filledBuffer<int32_t>(N, 0);
  run1D(P.kernel("FnLocal.run"), N, 64, OutF, OutI, DIn, DSel, N);
  std::vector<float> WantF(N);
  std::vector<int32_t> WantI(N);
  for (uint32_t I = 0; I < N; ++I) {
    float X = In[I];
    WantF[I] = Sel[I] == 1 ? -X : Sel[I] == 2 ? X * 0.5f : X * X;
    WantI[I] = Sel[I] == 0 ? wrapAdd(wrapMul(Sel[I], 31), int32_t(I)) : Sel[I] - int32_t(I);
  }
  expectSame(fromDevice(OutF), WantF, "FnLocal float32(float32)");
  expectSame(fromDevice(OutI), WantI, "FnLocal int32(int32, int32)");
}

/// Ops' float32(float32) statics in declaration order: square, negate, twice (wider is float64).
float applyTag(uint32_t Tag, float X) {
  switch (Tag) {
  case 0:
    return X * X;
  case 1:
    return -X;
  case 2:
    return X + X;
  default:
    return 0.0f; // out of range: the call is a no-op yielding zero
  }
}

template <class FnArg>
void checkFnParam(const xpu::Program& P, FnArg F, uint32_t Tag, const std::string& What) {
  const uint32_t N = 300;
  std::vector<float> In = floatData<float>(N, 1510, -1e3, 1e3);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<float>(N, -77.0f);
  run1D(P.kernel("FnParam.run"), N, 128, Out, DIn, F, N);
  std::vector<float> Want(N);
  for (uint32_t I = 0; I < N; ++I)
    Want[I] = applyTag(Tag, In[I]) + 1.0f;
  expectSame(fromDevice(Out), Want, What);
}

TEST(FunctionValue, KernelParameterByName) {
  xpu::Program P = compileProgram("FnParam");
  checkFnParam(P, xpu::deviceFunction("Ops.square"), 0, "FnParam Ops.square");
  checkFnParam(P, xpu::deviceFunction("Ops.negate"), 1, "FnParam Ops.negate");
  checkFnParam(P, xpu::deviceFunction("Ops.twice"), 2, "FnParam Ops.twice");
}

TEST(FunctionValue, KernelParameterByRawTag) {
  xpu::Program P = compileProgram("FnParam");
  for (uint32_t Tag : {0u, 1u, 2u})
    checkFnParam(P, Tag, Tag, "FnParam tag " + std::to_string(Tag));
}

TEST(FunctionValue, OutOfRangeTagIsNoOp) {
  xpu::Program P = compileProgram("FnParam");
  for (uint32_t Tag : {3u, 4u, 0xFFFFFFFFu})
    checkFnParam(P, Tag, Tag, "FnParam tag " + std::to_string(Tag));
}

TEST(FunctionValue, NameOutsideTheSetIsAnError) {
  xpu::Program P = compileProgram("FnParam");
  const uint32_t N = 10;
  auto In = filledBuffer<float>(N, 1.0f);
  auto Out = filledBuffer<float>(N, -77.0f);
  // Ops.wider has another signature; Ops.cube does not exist.
  for (const char* Name : {"Ops.wider", "Ops.cube"}) {
    try {
      run1D(P.kernel("FnParam.run"), N, 32, Out, In, xpu::deviceFunction(Name), N);
      ADD_FAILURE() << "launching FnParam.run with " << Name << " succeeded";
    } catch (const xpu::Error& E) {
      EXPECT_NE(std::string(E.what()).find(Name), std::string::npos) << E.what();
    }
  }
  expectSame(fromDevice(Out), std::vector<float>(N, -77.0f), "FnParam after rejected launches");
}

} // namespace
} // namespace conformance
