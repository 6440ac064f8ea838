// Shared helpers of the conformance tests: loading programs, launching, test data and comparisons.
#pragma once

#include <cajeta/xpu.hpp>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace conformance {

namespace xpu = cajeta::xpu;

/// Absolute path of tests/conformance/programs/<Name>.cj ($CAJETA_CONFORMANCE_PROGRAMS/<Name>.cj
/// when set).
std::string programPath(const std::string& Name);

/// Compiles programs/<Name>.cj (JIT, cached). A CompileError is recorded as a test failure with
/// the compiler's diagnostics and then rethrown, so the test stops there.
xpu::Program compileProgram(const std::string& Name);
/// The same with explicit options (e.g. checkBounds); never served from another option set's cache.
xpu::Program compileProgram(const std::string& Name, const xpu::CompileOptions& Options);

/// Skips the current test, naming the capability, when the device that runs Program lacks it (an
/// optional feature: float16, int64 or float atomics, dynamic shared memory). The CPU and CUDA
/// backends have every capability the suite uses, so nothing is skipped there.
#define CONFORMANCE_REQUIRE(Program, Cap)                                                          \
  do {                                                                                             \
    if (!(Program).device().supports(::cajeta::xpu::Capability::Cap))                              \
      GTEST_SKIP() << (Program).device().name() << " (" << (Program).device().backend()            \
                   << ") lacks " << ::cajeta::xpu::capabilityName(::cajeta::xpu::Capability::Cap); \
  } while (false)

/// The same for tests whose programs are made inside helpers: they run on the default device.
#define CONFORMANCE_REQUIRE_DEVICE(Cap)                                                            \
  do {                                                                                             \
    ::cajeta::xpu::Device D_ = ::cajeta::xpu::defaultDevice();                                     \
    if (!D_.supports(::cajeta::xpu::Capability::Cap))                                              \
      GTEST_SKIP() << D_.name() << " (" << D_.backend() << ") lacks "                              \
                   << ::cajeta::xpu::capabilityName(::cajeta::xpu::Capability::Cap);               \
  } while (false)

/// Sets an environment variable for a scope (a compiler override such as CAJETA_CPU_AMX, which
/// is part of the JIT cache's key) and restores it after.
class ScopedEnv {
public:
  ScopedEnv(const char* Name, const char* Value) : Name(Name) {
    if (const char* Old = std::getenv(Name))
      Saved = Old, Had = true;
    setenv(Name, Value, 1);
  }
  ~ScopedEnv() {
    if (Had)
      setenv(Name, Saved.c_str(), 1);
    else
      unsetenv(Name);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  const char* Name;
  std::string Saved;
  bool Had = false;
};

/// Whether the default device is the CPU backend and lists Shape among its native tile products
/// (an AMX tile there: "16x16x32:bf16:bf16:f32:f32").
bool cpuListsTileProduct(const std::string& Shape);

/// Grid size (workgroups) covering N work-items with blocks of Block; the last one is partial
/// whenever N is not a multiple of Block.
inline uint32_t groupsFor(size_t N, uint32_t Block) {
  return static_cast<uint32_t>((N + Block - 1) / Block);
}

/// Launches on the current stream and waits; a launch or kernel error throws.
template <class... Args>
void runKernel(const xpu::Kernel& K, xpu::Dim3 Grid, xpu::Dim3 Block, Args&&... A) {
  xpu::KernelStream& S = xpu::KernelStream::current();
  K.launch(S, Grid, Block)(std::forward<Args>(A)...);
  S.sync();
}

/// Launches with DynamicSharedBytes for the kernel's dynamic shared array, and waits.
template <class KernelT, class... Args>
void runKernelShared(const KernelT& K, xpu::Dim3 Grid, xpu::Dim3 Block, uint32_t DynamicSharedBytes,
                     Args&&... A) {
  xpu::KernelStream& S = xpu::KernelStream::current();
  K.launch(S, Grid, Block, DynamicSharedBytes)(std::forward<Args>(A)...);
  S.sync();
}

/// Launches a 1D kernel over N work-items with workgroups of Block (partial last group).
template <class... Args> void run1D(const xpu::Kernel& K, size_t N, uint32_t Block, Args&&... A) {
  runKernel(K, xpu::grid(groupsFor(N, Block)), xpu::block(Block), std::forward<Args>(A)...);
}

/// Spin rounds that keep StreamOrder.slowFill over Data (a work-item per element, blocks of 128)
/// busy for at least 20 ms on the device of P (growing from a guess, and never past the
/// device's loop limit, Device::maxLoopIterations).
uint32_t slowFillRounds(const xpu::Program& P, xpu::KernelBuffer<int32_t>& Data);

/// Rounds from Start up for which RunAndSync(rounds) (a filler launched and waited for) takes at
/// least MinMs, at most 2^30; TookMs is what the last run took.
uint32_t roundsLasting(double MinMs, uint32_t Start,
                       const std::function<void(uint32_t)>& RunAndSync, double& TookMs);

template <class T> xpu::KernelBuffer<T> toDevice(const std::vector<T>& Host) {
  xpu::KernelBuffer<T> B(Host.size());
  B.upload(Host);
  return B;
}

/// A device buffer of N elements, every element set to Fill (kernels that write only part of it
/// leave the fill visible, so the test can check what was not written).
template <class T> xpu::KernelBuffer<T> filledBuffer(size_t N, T Fill) {
  return toDevice(std::vector<T>(N, Fill));
}

template <class T> std::vector<T> fromDevice(xpu::KernelBuffer<T>& B) {
  std::vector<T> Host(B.size());
  B.download(Host);
  return Host;
}

/// bool buffers travel as bytes on the host (std::vector<bool> is packed); values must be 0/1.
xpu::KernelBuffer<bool> boolsToDevice(const std::vector<uint8_t>& Host);
std::vector<uint8_t> boolsFromDevice(xpu::KernelBuffer<bool>& B);

/// Deterministic pseudo-random numbers (splitmix64).
class Rng {
public:
  explicit Rng(uint64_t Seed) : State(Seed) {}
  uint64_t next() {
    uint64_t Z = (State += 0x9E3779B97F4A7C15ull);
    Z = (Z ^ (Z >> 30)) * 0xBF58476D1CE4E5B9ull;
    Z = (Z ^ (Z >> 27)) * 0x94D049BB133111EBull;
    return Z ^ (Z >> 31);
  }
  /// Uniform in [Lo, Hi).
  double uniform(double Lo, double Hi) {
    return Lo + (Hi - Lo) * static_cast<double>(next() >> 11) * 0x1.0p-53;
  }

private:
  uint64_t State;
};

/// N integers: the edge values (0, 1, -1, MIN, MAX, MIN+1, MAX-1, small ones) first, then
/// pseudo-random bit patterns.
template <class T> std::vector<T> intData(size_t N, uint64_t Seed) {
  static_assert(std::is_integral_v<T>);
  using L = std::numeric_limits<T>;
  std::vector<T> Edges = {T(0), T(1),  T(-1), L::min(), L::max(), T(L::min() + 1), T(L::max() - 1),
                          T(2), T(-2), T(7),  T(-7),    T(100)};
  std::vector<T> V;
  Rng R(Seed);
  for (size_t I = 0; I < N; ++I)
    V.push_back(I < Edges.size() ? Edges[I] : static_cast<T>(R.next()));
  return V;
}

/// N floats: edge values (0, -0, 1, -1, +-inf, NaN, max, smallest normal, a denormal, 0.5, 1e-3)
/// first, then values uniform in [Lo, Hi).
template <class F> std::vector<F> floatData(size_t N, uint64_t Seed, double Lo, double Hi) {
  using L = std::numeric_limits<F>;
  std::vector<F> Edges = {F(0),          F(-0.0),         F(1),           F(-1),
                          L::infinity(), -L::infinity(),  L::quiet_NaN(), L::max(),
                          L::min(),      L::denorm_min(), F(0.5),         F(1e-3)};
  std::vector<F> V;
  Rng R(Seed);
  for (size_t I = 0; I < N; ++I)
    V.push_back(I < Edges.size() ? Edges[I] : static_cast<F>(R.uniform(Lo, Hi)));
  return V;
}

/// N finite floats uniform in [Lo, Hi) (for functions whose edge behaviour is tested apart).
template <class F> std::vector<F> uniformData(size_t N, uint64_t Seed, double Lo, double Hi) {
  std::vector<F> V;
  Rng R(Seed);
  for (size_t I = 0; I < N; ++I)
    V.push_back(static_cast<F>(R.uniform(Lo, Hi)));
  return V;
}

/// Two floats are "the same" when both are NaN (any payload) or their bits are equal (so -0 != +0).
template <class F> bool sameFloat(F A, F B) {
  if (std::isnan(A) || std::isnan(B))
    return std::isnan(A) && std::isnan(B);
  return std::memcmp(&A, &B, sizeof(F)) == 0;
}

/// IEEE 754-2019 minimum/maximum, the documented semantics of float Math.min/max: a NaN operand
/// gives NaN, and -0 is less than +0.
template <class F> F ieeeMin(F A, F B) {
  if (std::isnan(A) || std::isnan(B))
    return std::numeric_limits<F>::quiet_NaN();
  if (A == B)
    return std::signbit(A) ? A : B;
  return A < B ? A : B;
}
template <class F> F ieeeMax(F A, F B) {
  if (std::isnan(A) || std::isnan(B))
    return std::numeric_limits<F>::quiet_NaN();
  if (A == B)
    return std::signbit(A) ? B : A;
  return A > B ? A : B;
}

/// Distance in units in the last place between two finite-or-infinite floats of one type.
uint64_t ulpDistance(float A, float B);
uint64_t ulpDistance(double A, double B);

/// Expects Got within MaxUlp of Want; NaN must match NaN and an infinity must match exactly.
void expectUlpNear(float Got, float Want, uint64_t MaxUlp, const std::string& What = "");
void expectUlpNear(double Got, double Want, uint64_t MaxUlp, const std::string& What = "");

/// Element-wise comparison: integers and bool exact, floats with sameFloat. Reports at most a
/// few mismatches (index, got, want) under the label What.
template <class T>
void expectSame(const std::vector<T>& Got, const std::vector<T>& Want, const std::string& What) {
  ASSERT_EQ(Got.size(), Want.size()) << What << ": element count";
  int Reported = 0;
  size_t Bad = 0;
  for (size_t I = 0; I < Got.size(); ++I) {
    bool Ok;
    if constexpr (std::is_floating_point_v<T>)
      Ok = sameFloat(Got[I], Want[I]);
    else
      Ok = Got[I] == Want[I];
    if (Ok)
      continue;
    ++Bad;
    if (Reported++ < 8) {
      if constexpr (sizeof(T) == 1)
        ADD_FAILURE() << What << "[" << I << "]: got " << int(Got[I]) << ", want " << int(Want[I]);
      else
        ADD_FAILURE() << What << "[" << I << "]: got " << ::testing::PrintToString(Got[I])
                      << ", want " << ::testing::PrintToString(Want[I]);
    }
  }
  if (Bad > 8)
    ADD_FAILURE() << What << ": " << Bad << " mismatches in total";
}

/// Element-wise ULP comparison (bound stated by the caller).
template <class F>
void expectAllUlpNear(const std::vector<F>& Got, const std::vector<F>& Want, uint64_t MaxUlp,
                      const std::string& What) {
  ASSERT_EQ(Got.size(), Want.size()) << What << ": element count";
  for (size_t I = 0; I < Got.size(); ++I)
    expectUlpNear(Got[I], Want[I], MaxUlp, What + "[" + std::to_string(I) + "]");
}

/// Two's-complement wrapping arithmetic for references (no signed-overflow UB in the test).
template <class T> T wrapAdd(T A, T B) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(A) + static_cast<U>(B)));
}
template <class T> T wrapSub(T A, T B) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(A) - static_cast<U>(B)));
}
template <class T> T wrapMul(T A, T B) {
  using U = std::make_unsigned_t<T>;
  // Promote to at least unsigned int so uint16 * uint16 does not become a signed int overflow.
  using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
  return static_cast<T>(
      static_cast<U>(static_cast<W>(static_cast<U>(A)) * static_cast<W>(static_cast<U>(B))));
}
template <class T> T wrapNeg(T A) {
  return wrapSub(T(0), A);
}

/// The language's integer division: x / 0 == 0, MIN / -1 == MIN, otherwise truncation.
template <class T> T cjDiv(T A, T B) {
  if (B == 0)
    return 0;
  if constexpr (std::is_signed_v<T>)
    if (A == std::numeric_limits<T>::min() && B == T(-1))
      return A;
  return static_cast<T>(A / B);
}
/// x % 0 == 0, MIN % -1 == 0, otherwise C's truncated remainder.
template <class T> T cjRem(T A, T B) {
  if (B == 0)
    return 0;
  if constexpr (std::is_signed_v<T>)
    if (B == T(-1))
      return 0;
  return static_cast<T>(A % B);
}

/// float -> integer cast of the language: toward zero, saturating, NaN -> 0.
template <class I, class F> I cjFloatToInt(F X) {
  using L = std::numeric_limits<I>;
  if (std::isnan(X))
    return 0;
  if (X <= static_cast<F>(L::min()))
    return L::min();
  // max() may round up when converted to F (2^31-1 -> 2^31 in float32): compare with >=.
  if (X >= static_cast<F>(L::max()))
    return L::max();
  return static_cast<I>(X);
}

} // namespace conformance
