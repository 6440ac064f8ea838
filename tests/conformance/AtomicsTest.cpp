// Conformance of Atomics: every operation on every element type, on buffers and shared arrays, with
// every memory order; contended folds; compareExchange loops; float min/max with NaN and -0.
#include "ConformanceSupport.h"

#include <algorithm>

namespace conformance {
namespace {

template <class T> const char* atomicsProgram();
template <> const char* atomicsProgram<int32_t>() {
  return "AtomicsInt32";
}
template <> const char* atomicsProgram<uint32_t>() {
  return "AtomicsUInt32";
}
template <> const char* atomicsProgram<int64_t>() {
  return "AtomicsInt64";
}
template <> const char* atomicsProgram<uint64_t>() {
  return "AtomicsUInt64";
}
template <> const char* atomicsProgram<float>() {
  return "AtomicsFloat32";
}
template <> const char* atomicsProgram<double>() {
  return "AtomicsFloat64";
}

template <class T> bool sameBits(T A, T B) {
  return std::memcmp(&A, &B, sizeof(T)) == 0;
}

template <class T> class AtomicsInt : public ::testing::Test {};
using IntTypes = ::testing::Types<int32_t, uint32_t, int64_t, uint64_t>;
TYPED_TEST_SUITE(AtomicsInt, IntTypes);

/// Slots per work-item in the "each" kernels: add sub min max and or xor exchange cas load store.
constexpr uint32_t IntOps = 11;

/// The state after work-item i applied operation k to A[i * 11 + k], and what it returned.
template <class T>
void intEachReference(const std::vector<T>& A, const std::vector<T>& V, const std::vector<T>& E,
                      std::vector<T>& After, std::vector<T>& Old) {
  After = A;
  Old.assign(A.size(), T(0));
  for (size_t I = 0; I < V.size(); ++I) {
    size_t B = I * IntOps;
    T X = V[I];
    for (uint32_t K = 0; K < IntOps; ++K)
      Old[B + K] = A[B + K];
    After[B + 0] = wrapAdd(A[B + 0], X);
    After[B + 1] = wrapSub(A[B + 1], X);
    After[B + 2] = std::min(A[B + 2], X);
    After[B + 3] = std::max(A[B + 3], X);
    After[B + 4] = A[B + 4] & X;
    After[B + 5] = A[B + 5] | X;
    After[B + 6] = A[B + 6] ^ X;
    After[B + 7] = X;
    After[B + 8] = A[B + 8] == E[I] ? X : A[B + 8];
    Old[B + 10] = X; // store returns the stored value
    After[B + 10] = X;
  }
}

TYPED_TEST(AtomicsInt, EveryOperationUncontended) {
  using T = TypeParam;
  std::string Name = atomicsProgram<T>();
  xpu::Program P = compileProgram(Name);
  if constexpr (sizeof(T) == 8)
    CONFORMANCE_REQUIRE(P, Int64Atomics);
  const uint32_t N = 300, Block = 64; // the shared kernel needs blocks of at most 64
  std::vector<T> A = intData<T>(N * IntOps, 1300);
  std::vector<T> V = intData<T>(N, 1301);
  std::rotate(V.begin(), V.begin() + 5, V.end()); // pair the edge values differently
  std::vector<T> E(N);
  for (uint32_t I = 0; I < N; ++I) // even: expected matches (exchange happens), odd: it does not
    E[I] = I % 2 == 0 ? A[I * IntOps + 8] : wrapAdd(A[I * IntOps + 8], T(1));
  std::vector<T> WantA, WantOld;
  intEachReference(A, V, E, WantA, WantOld);
  auto DV = toDevice(V), DE = toDevice(E);
  for (const char* Kernel : {"each", "eachShared"}) {
    auto DA = toDevice(A);
    auto Old = filledBuffer<T>(N * IntOps, T(99));
    run1D(P.kernel(Name + "." + Kernel), N, Block, DA, Old, DV, DE, N);
    expectSame(fromDevice(DA), WantA, Name + "." + Kernel + " elements");
    expectSame(fromDevice(Old), WantOld, Name + "." + Kernel + " returned values");
  }
}

template <class T> std::vector<T> intContendedStart() {
  using L = std::numeric_limits<T>;
  return {T(100), T(100), L::max(), L::min(), T(~T(0)), T(0), T(0x5A5A5A5A)};
}

template <class T> void intFold(std::vector<T>& Acc, size_t At, T X) {
  Acc[At + 0] = wrapAdd(Acc[At + 0], X);
  Acc[At + 1] = wrapSub(Acc[At + 1], X);
  Acc[At + 2] = std::min(Acc[At + 2], X);
  Acc[At + 3] = std::max(Acc[At + 3], X);
  Acc[At + 4] &= X;
  Acc[At + 5] |= X;
  Acc[At + 6] ^= X;
}

TYPED_TEST(AtomicsInt, ContendedOnBufferAndShared) {
  using T = TypeParam;
  std::string Name = atomicsProgram<T>();
  xpu::Program P = compileProgram(Name);
  if constexpr (sizeof(T) == 8)
    CONFORMANCE_REQUIRE(P, Int64Atomics);
  const uint32_t N = 2001, Block = 128, Groups = groupsFor(N, Block);
  std::vector<T> V = intData<T>(N, 1310);
  for (uint32_t I = 12; I < N;
       I += 3) // keep some bits set in most values so and/or stay informative
    V[I] |= T(0x11);
  auto DV = toDevice(V);

  std::vector<T> Start = intContendedStart<T>();
  auto Acc = toDevice(Start);
  run1D(P.kernel(Name + ".contended"), N, Block, Acc, DV, N);
  std::vector<T> Want = Start;
  for (T X : V)
    intFold(Want, 0, X);
  expectSame(fromDevice(Acc), Want, Name + ".contended");

  std::vector<T> StartShared;
  for (uint32_t G = 0; G < Groups; ++G)
    for (T S : Start)
      StartShared.push_back(wrapAdd(S, T(G)));
  auto AccShared = toDevice(StartShared);
  run1D(P.kernel(Name + ".contendedShared"), N, Block, AccShared, DV, N);
  std::vector<T> WantShared = StartShared;
  for (uint32_t I = 0; I < N; ++I)
    intFold(WantShared, size_t(I / Block) * 7, V[I]);
  expectSame(fromDevice(AccShared), WantShared, Name + ".contendedShared");
}

TYPED_TEST(AtomicsInt, TicketsArePermutation) {
  using T = TypeParam;
  std::string Name = atomicsProgram<T>();
  xpu::Program P = compileProgram(Name);
  if constexpr (sizeof(T) == 8)
    CONFORMANCE_REQUIRE(P, Int64Atomics);
  const uint32_t N = 1500;
  const T Start = wrapSub(std::numeric_limits<T>::max(), T(700)); // the counter wraps on the way
  auto Counter = toDevice(std::vector<T>{Start});
  auto Got = filledBuffer<T>(N, T(0));
  run1D(P.kernel(Name + ".ticket"), N, 96, Counter, Got, N);
  std::vector<T> Taken = fromDevice(Got), Want(N);
  for (uint32_t I = 0; I < N; ++I)
    Want[I] = wrapAdd(Start, T(I));
  std::sort(Taken.begin(), Taken.end());
  std::sort(Want.begin(), Want.end());
  expectSame(Taken, Want, Name + ".ticket values");
  expectSame(fromDevice(Counter), std::vector<T>{wrapAdd(Start, T(N))}, Name + ".ticket counter");
}

template <class F> class AtomicsFloat : public ::testing::Test {};
using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(AtomicsFloat, FloatTypes);

/// Slots per work-item in the float "each" kernels: add min max exchange cas load store.
constexpr uint32_t FloatOps = 7;

TYPED_TEST(AtomicsFloat, EveryOperationUncontended) {
  using F = TypeParam;
  std::string Name = atomicsProgram<F>();
  xpu::Program P = compileProgram(Name);
  CONFORMANCE_REQUIRE(P, FloatAtomics);
  if constexpr (sizeof(F) == 8)
    CONFORMANCE_REQUIRE(P, Float64);
  const uint32_t N = 300, Block = 64;
  std::vector<F> A = floatData<F>(N * FloatOps, 1320, -1e3, 1e3);
  std::vector<F> V = floatData<F>(N, 1321, -1e3, 1e3);
  std::rotate(V.begin(), V.begin() + 3, V.end());
  // compareExchange compares bits: equal bits succeed (NaN included); -0 vs +0 and neighbours fail.
  std::vector<F> E(N);
  for (uint32_t I = 0; I < N; ++I) {
    F Cur = A[I * FloatOps + 4];
    if (I % 3 == 0)
      E[I] = Cur;
    else if (I % 3 == 1)
      E[I] = Cur == 0 ? -Cur : std::nextafter(Cur, std::numeric_limits<F>::infinity());
    else
      E[I] = V[I];
  }
  for (uint32_t I = 0; I < 12; ++I) // make sure zeros and NaN meet the compare as well
    A[(I * 5) * FloatOps + 4] = A[I];
  for (uint32_t I = 0; I < 12; ++I)
    if ((I * 5) % 3 == 0)
      E[I * 5] = A[(I * 5) * FloatOps + 4];
  std::vector<F> WantA = A, WantOld = A;
  for (uint32_t I = 0; I < N; ++I) {
    size_t B = size_t(I) * FloatOps;
    F X = V[I];
    WantA[B + 0] = A[B + 0] + X;
    WantA[B + 1] = ieeeMin(A[B + 1], X);
    WantA[B + 2] = ieeeMax(A[B + 2], X);
    WantA[B + 3] = X;
    WantA[B + 4] = sameBits(A[B + 4], E[I]) ? X : A[B + 4];
    WantA[B + 6] = X;
    WantOld[B + 6] = X;
  }
  auto DV = toDevice(V), DE = toDevice(E);
  for (const char* Kernel : {"each", "eachShared"}) {
    auto DA = toDevice(A);
    auto Old = filledBuffer<F>(N * FloatOps, F(99));
    run1D(P.kernel(Name + "." + Kernel), N, Block, DA, Old, DV, DE, N);
    expectSame(fromDevice(DA), WantA, Name + "." + Kernel + " elements");
    expectSame(fromDevice(Old), WantOld, Name + "." + Kernel + " returned values");
  }
}

TYPED_TEST(AtomicsFloat, ContendedExactSums) {
  using F = TypeParam;
  std::string Name = atomicsProgram<F>();
  xpu::Program P = compileProgram(Name);
  CONFORMANCE_REQUIRE(P, FloatAtomics);
  if constexpr (sizeof(F) == 8)
    CONFORMANCE_REQUIRE(P, Float64);
  const uint32_t N = 3001, Block = 256, Groups = groupsFor(N, Block);
  std::vector<F> V(N);
  for (uint32_t I = 0; I < N; ++I) // quarters of small integers: every partial sum is exact
    V[I] = F(int32_t((I * 7) % 33) - 16) * F(0.25);
  auto DV = toDevice(V);
  std::vector<F> Start = {F(0.5), F(1e30), F(-1e30)};
  auto Acc = toDevice(Start);
  run1D(P.kernel(Name + ".contended"), N, Block, Acc, DV, N);
  std::vector<F> Want = Start;
  for (F X : V) {
    Want[0] += X;
    Want[1] = ieeeMin(Want[1], X);
    Want[2] = ieeeMax(Want[2], X);
  }
  expectSame(fromDevice(Acc), Want, Name + ".contended");

  std::vector<F> StartShared;
  for (uint32_t G = 0; G < Groups; ++G)
    StartShared.insert(StartShared.end(), {F(G), F(G) - F(2), F(G) + F(2)});
  auto AccShared = toDevice(StartShared);
  run1D(P.kernel(Name + ".contendedShared"), N, Block, AccShared, DV, N);
  std::vector<F> WantShared = StartShared;
  for (uint32_t I = 0; I < N; ++I) {
    size_t At = size_t(I / Block) * 3;
    WantShared[At] += V[I];
    WantShared[At + 1] = ieeeMin(WantShared[At + 1], V[I]);
    WantShared[At + 2] = ieeeMax(WantShared[At + 2], V[I]);
  }
  expectSame(fromDevice(AccShared), WantShared, Name + ".contendedShared");
}

TEST(Atomics, CompareExchangeLoops) {
  xpu::Program P = compileProgram("AtomicCasLoop");
  CONFORMANCE_REQUIRE(P, Int64Atomics);
  const uint32_t N = 1000, Slots = 8;
  std::vector<float> StartF = {1.0f, -3.0f, 0.75f, 0x1p-10f, 5.0f, -1.0f, 1.5f, 100.0f};
  std::vector<float> FactorsF(N);
  for (uint32_t I = 0; I < N; ++I) // powers of two and -1: every product is exact in any order
    FactorsF[I] = I % 3 == 0 ? 2.0f : I % 3 == 1 ? 0.5f : (I % 7 == 0 ? -1.0f : 4.0f);
  std::vector<uint64_t> StartI = intData<uint64_t>(Slots, 1330);
  std::vector<uint64_t> FactorsI = intData<uint64_t>(N, 1331);
  for (uint64_t& X : FactorsI) // odd factors: no slot collapses to zero
    X |= 1;
  auto ProdF = toDevice(StartF), DFactorsF = toDevice(FactorsF);
  auto ProdI = toDevice(StartI), DFactorsI = toDevice(FactorsI);
  run1D(P.kernel("AtomicCasLoop.run"), N, 64, ProdF, DFactorsF, ProdI, DFactorsI, Slots, N);
  std::vector<float> WantF = StartF;
  std::vector<uint64_t> WantI = StartI;
  for (uint32_t I = 0; I < N; ++I) {
    WantF[I % Slots] *= FactorsF[I];
    WantI[I % Slots] *= FactorsI[I];
  }
  expectSame(fromDevice(ProdF), WantF, "AtomicCasLoop float32 multiply");
  expectSame(fromDevice(ProdI), WantI, "AtomicCasLoop uint64 multiply");
}

TEST(Atomics, FloatMinMaxNaNAndSignedZero) {
  xpu::Program P = compileProgram("AtomicFloatMinMax");
  CONFORMANCE_REQUIRE(P, FloatAtomics);
  CONFORMANCE_REQUIRE(P, Float64);
  const float Inf = std::numeric_limits<float>::infinity(), NaN = std::nanf("");
  struct Case32 {
    const char* What;
    std::vector<float> Values;
    float Min, Max;
  };
  // acc starts at {+0, -0}: min must end at -0 when only zeros and positives meet it, max at +0
  // when only zeros and negatives do; one NaN anywhere makes both NaN.
  for (const Case32& C :
       {Case32{"zeros and positives", {0.0f, -0.0f, 3.0f, 0.0f, Inf, 2.5f, -0.0f}, -0.0f, Inf},
        Case32{"zeros and negatives", {-0.0f, 0.0f, -3.0f, -Inf, 0.0f, -0.0f}, -Inf, 0.0f},
        Case32{"only +0", {0.0f, 0.0f, 0.0f}, 0.0f, 0.0f},
        Case32{"a NaN", {1.0f, -2.0f, NaN, 7.0f, -0.0f}, NaN, NaN}}) {
    std::vector<float> Values;
    for (int Repeat = 0; Repeat < 40; ++Repeat) // contention: many work-items on the same element
      Values.insert(Values.end(), C.Values.begin(), C.Values.end());
    uint32_t N = uint32_t(Values.size());
    auto Acc = toDevice(std::vector<float>{0.0f, -0.0f});
    auto DV = toDevice(Values);
    run1D(P.kernel("AtomicFloatMinMax.buffer32"), N, 32, Acc, DV, N);
    expectSame(fromDevice(Acc), std::vector<float>{C.Min, C.Max},
               std::string("AtomicFloatMinMax.buffer32 ") + C.What);
  }

  // float64 in shared memory: workgroup g of 64 sees one of the patterns below.
  const double DNaN = std::nan("");
  std::vector<std::vector<double>> Groups = {{0.0, -0.0, 0.0, 5.0},
                                             {-0.0, 0.0, -1e300, -0.0},
                                             {2.0, DNaN, -2.0, 0.0},
                                             {-0.0, -0.0, 0.0, 0.0}};
  const uint32_t Block = 64, N = uint32_t(Groups.size()) * Block - 10;
  std::vector<double> Values(N);
  std::vector<double> Start, Want;
  for (uint32_t G = 0; G < Groups.size(); ++G) {
    double Lo = 0.0, Hi = -0.0; // start at {+0, -0}
    Start.insert(Start.end(), {Lo, Hi});
    for (uint32_t T = 0; T < Block && G * Block + T < N; ++T) {
      double X = Groups[G][T % Groups[G].size()];
      Values[G * Block + T] = X;
      Lo = ieeeMin(Lo, X);
      Hi = ieeeMax(Hi, X);
    }
    Want.insert(Want.end(), {Lo, Hi});
  }
  auto Acc = toDevice(Start);
  auto DV = toDevice(Values);
  run1D(P.kernel("AtomicFloatMinMax.shared64"), N, Block, Acc, DV, N);
  expectSame(fromDevice(Acc), Want, "AtomicFloatMinMax.shared64");
}

TEST(Atomics, WorkgroupVotes) {
  xpu::Program P = compileProgram("WorkgroupVote");
  const uint32_t N = 610, Block = 64, Groups = groupsFor(N, Block);
  std::vector<int32_t> In(N);
  for (uint32_t I = 0; I < N; ++I) { // group 0: all above, group 1: none, others: some
    uint32_t G = I / Block;
    In[I] = G == 0 ? 100 : G == 1 ? -5 : int32_t((I * 37) % 23) - 3;
  }
  auto DIn = toDevice(In);
  auto Votes = filledBuffer<uint32_t>(Groups * 3, 0xAAu);
  run1D(P.kernel("WorkgroupVote.run"), N, Block, Votes, DIn, int32_t(10), N);
  std::vector<uint32_t> Want;
  for (uint32_t G = 0; G < Groups; ++G) {
    uint32_t Any = 0, All = 1, Count = 0;
    for (uint32_t I = G * Block; I < std::min(N, (G + 1) * Block); ++I) {
      uint32_t Above = In[I] > 10 ? 1 : 0;
      Any |= Above;
      All &= Above;
      Count += Above;
    }
    Want.insert(Want.end(), {Any, All, Count});
  }
  expectSame(fromDevice(Votes), Want, "WorkgroupVote");
}

} // namespace
} // namespace conformance
