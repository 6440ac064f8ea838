// Conformance of every scalar type in buffers and as scalar parameters (programs/Buf*.cj).
#include "ConformanceSupport.h"

namespace conformance {
namespace {

constexpr size_t N = 1000; // not a multiple of the block: the last workgroup is partial
constexpr uint32_t Block = 128;

template <class T> T mixRef(T In, T K) {
  if constexpr (std::is_floating_point_v<T>)
    return In * T(3) + K;
  else if constexpr (sizeof(T) < 4)
    return static_cast<T>(int32_t(In) * 3 + int32_t(K));
  else
    return wrapAdd(wrapMul(In, T(3)), K);
}

template <class T> std::vector<T> typeData() {
  if constexpr (std::is_floating_point_v<T>)
    return floatData<T>(N, 11, -1e3, 1e3);
  else
    return intData<T>(N, 11);
}

// Runs fill (twice, with both scalar parameter values), mix and less of programs/<Name>.cj.
template <class T> void checkTypeProgram(const std::string& Name, T K1, T K2) {
  xpu::Program P = compileProgram(Name);
  std::vector<T> In = typeData<T>();

  for (T K : {K1, K2}) {
    xpu::KernelBuffer<T> Out = filledBuffer<T>(N, T(0));
    run1D(P.kernel(Name + ".fill"), N, Block, Out, K, uint32_t(N));
    expectSame(fromDevice(Out), std::vector<T>(N, K), Name + ".fill");
  }

  for (T K : {K1, K2}) {
    xpu::KernelBuffer<T> DIn = toDevice(In);
    xpu::KernelBuffer<T> Out = filledBuffer<T>(N, T(0));
    run1D(P.kernel(Name + ".mix"), N, Block, Out, DIn, K, uint32_t(N));
    std::vector<T> Want(N);
    for (size_t I = 0; I < N; ++I)
      Want[I] = mixRef(In[I], K);
    expectSame(fromDevice(Out), Want, Name + ".mix");

    xpu::KernelBuffer<bool> Less = boolsToDevice(std::vector<uint8_t>(N, 0));
    run1D(P.kernel(Name + ".less"), N, Block, Less, DIn, K, uint32_t(N));
    std::vector<uint8_t> WantLess(N);
    for (size_t I = 0; I < N; ++I)
      WantLess[I] = In[I] < K;
    expectSame(boolsFromDevice(Less), WantLess, Name + ".less");
  }
}

TEST(Types, Int8) {
  checkTypeProgram<int8_t>("BufInt8", INT8_MIN, 0x5A);
}
TEST(Types, Int16) {
  checkTypeProgram<int16_t>("BufInt16", INT16_MAX, -1234);
}
TEST(Types, Int32) {
  checkTypeProgram<int32_t>("BufInt32", INT32_MIN, 0x7FFFFFF0);
}
TEST(Types, Int64) {
  checkTypeProgram<int64_t>("BufInt64", INT64_MAX, -0x123456789ABLL);
}
TEST(Types, UInt8) {
  checkTypeProgram<uint8_t>("BufUInt8", 0xFF, 0x81);
}
TEST(Types, UInt16) {
  checkTypeProgram<uint16_t>("BufUInt16", 0xFFFF, 0x8001);
}
TEST(Types, UInt32) {
  checkTypeProgram<uint32_t>("BufUInt32", 0xFFFFFFFFu, 0x80000001u);
}
TEST(Types, UInt64) {
  checkTypeProgram<uint64_t>("BufUInt64", 0xFFFFFFFFFFFFFFFFull, 0x8000000000000001ull);
}
TEST(Types, Float32) {
  CONFORMANCE_REQUIRE_DEVICE(Float32Denormals); // the data include subnormals
  checkTypeProgram<float>("BufFloat32", -0.0f, 3.25e7f);
}
TEST(Types, Float64) {
  checkTypeProgram<double>("BufFloat64", -0.0, 1.0000000000000002);
}

TEST(Types, Bool) {
  xpu::Program P = compileProgram("BufBool");
  std::vector<uint8_t> In(N), Other(N);
  Rng R(5);
  for (size_t I = 0; I < N; ++I) {
    In[I] = R.next() & 1;
    Other[I] = (R.next() >> 7) & 1;
  }
  for (bool K : {false, true}) {
    xpu::KernelBuffer<bool> Out = boolsToDevice(std::vector<uint8_t>(N, !K));
    run1D(P.kernel("BufBool.fill"), N, Block, Out, K, uint32_t(N));
    expectSame(boolsFromDevice(Out), std::vector<uint8_t>(N, K), "BufBool.fill");

    xpu::KernelBuffer<bool> DIn = boolsToDevice(In), DOther = boolsToDevice(Other);
    xpu::KernelBuffer<bool> Mix = boolsToDevice(std::vector<uint8_t>(N, 0));
    run1D(P.kernel("BufBool.mix"), N, Block, Mix, DIn, DOther, K, uint32_t(N));
    std::vector<uint8_t> WantMix(N);
    for (size_t I = 0; I < N; ++I)
      WantMix[I] = (bool(In[I]) != K) | (bool(Other[I]) & !K);
    expectSame(boolsFromDevice(Mix), WantMix, "BufBool.mix");

    xpu::KernelBuffer<int32_t> Count = filledBuffer<int32_t>(N, -1);
    run1D(P.kernel("BufBool.count"), N, Block, Count, DIn, K, uint32_t(N));
    std::vector<int32_t> WantCount(N);
    for (size_t I = 0; I < N; ++I)
      WantCount[I] = bool(In[I]) == K ? 10 : 20 + int32_t(In[I]);
    expectSame(fromDevice(Count), WantCount, "BufBool.count");
  }
}

} // namespace
} // namespace conformance
