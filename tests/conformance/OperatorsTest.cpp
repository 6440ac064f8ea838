// Conformance of the operators: precedence, unary, wrap-around, / and %, shifts, float arithmetic
// and comparisons (programs Precedence*, UnaryOps, IntWrap, DivRem*, Shifts*, Float*).
#include "ConformanceSupport.h"

namespace conformance {
namespace {

constexpr size_t N = 777;
constexpr uint32_t Block = 64;

// Divisor data: the awkward pairs first, then a third small divisors (incl. 0 and -1), the rest
// random.
template <class T> void divData(std::vector<T>& A, std::vector<T>& B) {
  using L = std::numeric_limits<T>;
  A = intData<T>(N, 21);
  B = intData<T>(N, 22);
  std::vector<std::pair<T, T>> Pairs = {
      {L::min(), T(-1)}, {L::min(), T(0)},  {T(5), T(0)}, {T(-7), T(2)},    {T(7), T(-2)},
      {T(-7), T(-2)},    {L::max(), T(-1)}, {T(0), T(0)}, {L::min(), T(1)}, {L::max(), L::min()}};
  for (size_t I = 0; I < Pairs.size(); ++I) {
    A[I] = Pairs[I].first;
    B[I] = Pairs[I].second;
  }
  Rng R(23);
  for (size_t I = Pairs.size(); I < N; I += 3)
    B[I] = static_cast<T>(static_cast<int>(R.next() % 17) - 8);
}

// Shift-count data: counts at and past the width, negative ones, then random.
template <class T> std::vector<T> countData() {
  std::vector<T> C = intData<T>(N, 31);
  std::vector<T> Edges = {T(0),  T(1),  T(31),  T(32), T(33), T(63),
                          T(64), T(-1), T(100), T(7),  T(65)};
  for (size_t I = 0; I < Edges.size(); ++I)
    C[I] = Edges[I];
  return C;
}

template <class T> T shl(T X, unsigned C) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(X) << C));
}
template <class T> T ushr(T X, unsigned C) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(X) >> C);
}

TEST(Operators, PrecedenceInt) {
  xpu::Program P = compileProgram("Precedence");
  std::vector<int32_t> X = intData<int32_t>(N, 1), Y = intData<int32_t>(N, 2),
                       Z = intData<int32_t>(N, 3);
  Rng R(4);
  for (size_t I = 20; I < N;
       I += 2) // small values too, so the shifts and divisions are not all noise
    Z[I] = static_cast<int32_t>(R.next() % 64) - 32;
  auto DX = toDevice(X), DY = toDevice(Y), DZ = toDevice(Z);
  auto Out = filledBuffer<int32_t>(N * 10, 0);
  run1D(P.kernel("Precedence.ints"), N, Block, Out, DX, DY, DZ, uint32_t(N));
  std::vector<int32_t> Want(N * 10);
  for (size_t I = 0; I < N; ++I) {
    int32_t A = X[I], B = Y[I], C = Z[I], D = A ^ 0x5555, E = wrapSub(B, C), F = 0x0F0F;
    int32_t* W = &Want[I * 10];
    W[0] = (shl(wrapAdd(A, wrapMul(B, C)), 2) & D) | (E ^ F);
    W[1] = wrapSub(wrapSub(A, B), C);
    W[2] = shl(A, 2);
    W[3] = cjDiv(cjRem(wrapMul(A, B), C), 3);
    W[4] = A | (B ^ (C & D));
    W[5] = wrapSub(wrapAdd(~A, wrapNeg(B)), C);
    W[6] = wrapSub(A, wrapNeg(B));
    W[7] = ushr(A >> 3, 1);
    W[8] = (A & (0xFF << 4)) | (B & 0xF);
    W[9] = (wrapNeg(A) >> 1) ^ shl(B, 3);
  }
  expectSame(fromDevice(Out), Want, "Precedence.ints");
}

TEST(Operators, PrecedenceUInt64) {
  xpu::Program P = compileProgram("Precedence");
  std::vector<uint64_t> X = intData<uint64_t>(N, 5), Y = intData<uint64_t>(N, 6);
  auto DX = toDevice(X), DY = toDevice(Y);
  auto Out = filledBuffer<uint64_t>(N * 2, 0);
  run1D(P.kernel("Precedence.wide"), N, Block, Out, DX, DY, uint32_t(N));
  std::vector<uint64_t> Want(N * 2);
  for (size_t I = 0; I < N; ++I) {
    uint64_t A = X[I], B = Y[I];
    Want[I * 2] = (A & B) | (A ^ ~B);
    Want[I * 2 + 1] = ((A * 3 + B) >> 7) ^ A;
  }
  expectSame(fromDevice(Out), Want, "Precedence.wide");
}

TEST(Operators, PrecedenceBool) {
  xpu::Program P = compileProgram("PrecedenceBool");
  std::vector<int32_t> X(N), Y(N), Z(N);
  Rng R(7);
  for (size_t I = 0; I < N; ++I) { // small values so that ties (x == z) happen
    X[I] = static_cast<int32_t>(R.next() % 7) - 3;
    Y[I] = static_cast<int32_t>(R.next() % 7) - 3;
    Z[I] = static_cast<int32_t>(R.next() % 7) - 3;
  }
  auto DX = toDevice(X), DY = toDevice(Y), DZ = toDevice(Z);
  auto Out = boolsToDevice(std::vector<uint8_t>(N * 8, 0));
  run1D(P.kernel("PrecedenceBool.logic"), N, Block, Out, DX, DY, DZ, uint32_t(N));
  std::vector<uint8_t> Want(N * 8);
  for (size_t I = 0; I < N; ++I) {
    int32_t x = X[I], y = Y[I], z = Z[I];
    bool p = x < y, q = y < z, r = x == z, s = (x & 1) != 0;
    uint8_t* W = &Want[I * 8];
    W[0] = p || (q && r);
    W[1] = p | (q & r);
    W[2] = (p ^ q) | (r & s);
    W[3] = (!p) == q;
    W[4] = (x < y) == (y < z);
    W[5] = (p && q) || (r && s);
    W[6] = (p != q) ^ r;
    W[7] = (x + 1) > (y * 2);
  }
  expectSame(boolsFromDevice(Out), Want, "PrecedenceBool.logic");
}

TEST(Operators, Unary) {
  xpu::Program P = compileProgram("UnaryOps");
  std::vector<int32_t> In = intData<int32_t>(N, 8);
  In[20] = 128; // (int8) 128 == -128, whose negation in int32 is 128
  auto DIn = toDevice(In);
  auto Out = filledBuffer<int32_t>(N * 5, 0);
  auto Flags = boolsToDevice(std::vector<uint8_t>(N, 0));
  run1D(P.kernel("UnaryOps.i32"), N, Block, Out, Flags, DIn, uint32_t(N));
  std::vector<int32_t> Want(N * 5);
  std::vector<uint8_t> WantFlags(N);
  for (size_t I = 0; I < N; ++I) {
    int32_t X = In[I];
    Want[I * 5] = wrapNeg(X);
    Want[I * 5 + 1] = ~X;
    Want[I * 5 + 2] = X;
    Want[I * 5 + 3] = ~X;
    Want[I * 5 + 4] = -int32_t(static_cast<int8_t>(X));
    WantFlags[I] = !(X > 0);
  }
  expectSame(fromDevice(Out), Want, "UnaryOps.i32");
  expectSame(boolsFromDevice(Flags), WantFlags, "UnaryOps.i32 flags");

  std::vector<int64_t> In64 = intData<int64_t>(N, 9);
  auto DIn64 = toDevice(In64);
  auto Out64 = filledBuffer<int64_t>(N * 2, 0);
  run1D(P.kernel("UnaryOps.i64"), N, Block, Out64, DIn64, uint32_t(N));
  std::vector<int64_t> Want64(N * 2);
  for (size_t I = 0; I < N; ++I) {
    Want64[I * 2] = wrapNeg(In64[I]);
    Want64[I * 2 + 1] = ~In64[I];
  }
  expectSame(fromDevice(Out64), Want64, "UnaryOps.i64");
}

template <class T> void checkWrap(xpu::Program& P, const std::string& Kernel, uint64_t Seed) {
  std::vector<T> A = intData<T>(N, Seed), B = intData<T>(N, Seed + 1);
  auto DA = toDevice(A), DB = toDevice(B);
  auto Out = filledBuffer<T>(N * 3, T(0));
  run1D(P.kernel(Kernel), N, Block, Out, DA, DB, uint32_t(N));
  std::vector<T> Want(N * 3);
  for (size_t I = 0; I < N; ++I) {
    Want[I * 3] = wrapAdd(A[I], B[I]);
    Want[I * 3 + 1] = wrapSub(A[I], B[I]);
    Want[I * 3 + 2] = wrapMul(A[I], B[I]);
  }
  expectSame(fromDevice(Out), Want, Kernel);
}

TEST(Operators, WrapAround) {
  xpu::Program P = compileProgram("IntWrap");
  checkWrap<int32_t>(P, "IntWrap.i32", 40);
  checkWrap<uint32_t>(P, "IntWrap.u32", 42);
  checkWrap<int64_t>(P, "IntWrap.i64", 44);
  checkWrap<uint64_t>(P, "IntWrap.u64", 46);
}

template <class T> void checkDivRem(xpu::Program& P, const std::string& Kernel) {
  std::vector<T> A, B;
  divData(A, B);
  auto DA = toDevice(A), DB = toDevice(B);
  auto Out = filledBuffer<T>(N * 2, T(0x55));
  run1D(P.kernel(Kernel), N, Block, Out, DA, DB, uint32_t(N));
  std::vector<T> Want(N * 2);
  for (size_t I = 0; I < N; ++I) {
    Want[I * 2] = cjDiv(A[I], B[I]);
    Want[I * 2 + 1] = cjRem(A[I], B[I]);
  }
  expectSame(fromDevice(Out), Want, Kernel);
}

TEST(Operators, DivRem) {
  xpu::Program P = compileProgram("DivRem");
  checkDivRem<int32_t>(P, "DivRem.i32");
  checkDivRem<uint32_t>(P, "DivRem.u32");
  checkDivRem<int64_t>(P, "DivRem.i64");
  checkDivRem<uint64_t>(P, "DivRem.u64");
}

TEST(Operators, DivRemConstantDivisors) {
  xpu::Program P = compileProgram("DivRem");
  std::vector<int32_t> A = intData<int32_t>(N, 50);
  auto DA = toDevice(A);
  auto Out = filledBuffer<int32_t>(N * 4, 0x55);
  run1D(P.kernel("DivRem.constants"), N, Block, Out, DA, uint32_t(N));
  std::vector<int32_t> Want(N * 4);
  for (size_t I = 0; I < N; ++I) {
    Want[I * 4] = 0;
    Want[I * 4 + 1] = 0;
    Want[I * 4 + 2] = cjDiv(A[I], -1);
    Want[I * 4 + 3] = 0;
  }
  expectSame(fromDevice(Out), Want, "DivRem.constants");
}

TEST(Operators, DivRemNarrowPromotes) {
  xpu::Program P = compileProgram("DivRemNarrow");
  std::vector<int8_t> A, B;
  divData(A, B);
  std::vector<uint8_t> C = intData<uint8_t>(N, 60);
  std::vector<int16_t> D = intData<int16_t>(N, 61);
  auto DA = toDevice(A), DB = toDevice(B);
  auto DC = toDevice(C);
  auto DD = toDevice(D);
  auto Out = filledBuffer<int32_t>(N * 5, 0x55);
  run1D(P.kernel("DivRemNarrow.run"), N, Block, Out, DA, DB, DC, DD, uint32_t(N));
  std::vector<int32_t> Want(N * 5);
  for (size_t I = 0; I < N; ++I) {
    int32_t a = A[I], b = B[I], c = C[I], d = D[I];
    Want[I * 5] = cjDiv(a, b); // in int32: -128 / -1 == 128
    Want[I * 5 + 1] = cjRem(a, b);
    Want[I * 5 + 2] = cjDiv(c, a);
    Want[I * 5 + 3] = cjDiv(d, b);
    Want[I * 5 + 4] = static_cast<int8_t>(cjDiv(a, b));
  }
  expectSame(fromDevice(Out), Want, "DivRemNarrow.run");
}

TEST(Operators, ShiftsInt32) {
  xpu::Program P = compileProgram("Shifts");
  std::vector<int32_t> X = intData<int32_t>(N, 70), C = countData<int32_t>();
  auto DX = toDevice(X), DC = toDevice(C);
  auto Out = filledBuffer<int32_t>(N * 6, 0);
  run1D(P.kernel("Shifts.i32"), N, Block, Out, DX, DC, uint32_t(N));
  std::vector<int32_t> Want(N * 6);
  for (size_t I = 0; I < N; ++I) {
    unsigned M = static_cast<unsigned>(C[I]) & 31;
    Want[I * 6] = shl(X[I], M);
    Want[I * 6 + 1] = X[I] >> M;
    Want[I * 6 + 2] = ushr(X[I], M);
    Want[I * 6 + 3] = shl(X[I], 1);
    Want[I * 6 + 4] = X[I];
    Want[I * 6 + 5] = ushr(X[I], 3);
  }
  expectSame(fromDevice(Out), Want, "Shifts.i32");
}

TEST(Operators, ShiftsUInt32) {
  xpu::Program P = compileProgram("Shifts");
  std::vector<uint32_t> X = intData<uint32_t>(N, 71), C = countData<uint32_t>();
  auto DX = toDevice(X), DC = toDevice(C);
  auto Out = filledBuffer<uint32_t>(N * 4, 0);
  run1D(P.kernel("Shifts.u32"), N, Block, Out, DX, DC, uint32_t(N));
  std::vector<uint32_t> Want(N * 4);
  for (size_t I = 0; I < N; ++I) {
    unsigned M = C[I] & 31;
    Want[I * 4] = X[I] << M;
    Want[I * 4 + 1] = X[I] >> M;
    Want[I * 4 + 2] = X[I] >> M;
    Want[I * 4 + 3] = X[I] >> 4;
  }
  expectSame(fromDevice(Out), Want, "Shifts.u32");
}

TEST(Operators, ShiftsInt64) {
  xpu::Program P = compileProgram("Shifts");
  std::vector<int64_t> X = intData<int64_t>(N, 72), C = countData<int64_t>();
  auto DX = toDevice(X), DC = toDevice(C);
  auto Out = filledBuffer<int64_t>(N * 4, 0);
  run1D(P.kernel("Shifts.i64"), N, Block, Out, DX, DC, uint32_t(N));
  std::vector<int64_t> Want(N * 4);
  for (size_t I = 0; I < N; ++I) {
    unsigned M = static_cast<unsigned>(C[I]) & 63;
    Want[I * 4] = shl(X[I], M);
    Want[I * 4 + 1] = X[I] >> M;
    Want[I * 4 + 2] = ushr(X[I], M);
    Want[I * 4 + 3] = shl(X[I], 1);
  }
  expectSame(fromDevice(Out), Want, "Shifts.i64");
}

TEST(Operators, ShiftsUInt64) {
  xpu::Program P = compileProgram("Shifts");
  std::vector<uint64_t> X = intData<uint64_t>(N, 73), C = countData<uint64_t>();
  auto DX = toDevice(X), DC = toDevice(C);
  auto Out = filledBuffer<uint64_t>(N * 3, 0);
  run1D(P.kernel("Shifts.u64"), N, Block, Out, DX, DC, uint32_t(N));
  std::vector<uint64_t> Want(N * 3);
  for (size_t I = 0; I < N; ++I) {
    unsigned M = static_cast<unsigned>(C[I] & 63);
    Want[I * 3] = X[I] << M;
    Want[I * 3 + 1] = X[I] >> M;
    Want[I * 3 + 2] = X[I] >> M;
  }
  expectSame(fromDevice(Out), Want, "Shifts.u64");
}

TEST(Operators, ShiftsNarrowPromote) {
  xpu::Program P = compileProgram("ShiftsNarrow");
  std::vector<int8_t> A = intData<int8_t>(N, 80);
  A[30] = -16;
  std::vector<uint8_t> B = intData<uint8_t>(N, 81);
  std::vector<int16_t> H = intData<int16_t>(N, 82);
  auto DA = toDevice(A);
  auto DB = toDevice(B);
  auto DH = toDevice(H);
  auto Out = filledBuffer<int32_t>(N * 6, 0);
  run1D(P.kernel("ShiftsNarrow.run"), N, Block, Out, DA, DB, DH, uint32_t(N));
  std::vector<int32_t> Want(N * 6);
  for (size_t I = 0; I < N; ++I) {
    int32_t a = A[I], b = B[I], h = H[I];
    Want[I * 6] = ushr(a, 2);
    Want[I * 6 + 1] = a >> 1;
    Want[I * 6 + 2] = shl(a, 9);
    Want[I * 6 + 3] = b >> 1;
    Want[I * 6 + 4] = shl(b, 25);
    Want[I * 6 + 5] = ushr(h, 4);
  }
  EXPECT_EQ(Want[30 * 6], 0x3FFFFFFC); // the reference itself: Java's promoted >>>
  expectSame(fromDevice(Out), Want, "ShiftsNarrow.run");
}

template <class F> void checkFloatArith(const std::string& Name) {
  xpu::Program P = compileProgram(Name);
  std::vector<F> A = floatData<F>(N, 90, -100, 100), B = floatData<F>(N, 91, -100, 100);
  // Pair the edges with each other and with ordinary values (x / 0, inf - inf, 0 * inf, fmod).
  Rng R(92);
  for (size_t I = 12; I < 60; ++I)
    B[I] = B[R.next() % 12];
  for (size_t I = 60; I < 100; ++I)
    A[I] = A[R.next() % 12];
  auto DA = toDevice(A), DB = toDevice(B);
  auto Out = filledBuffer<F>(N * 7, F(0));
  run1D(P.kernel(Name + ".run"), N, Block, Out, DA, DB, uint32_t(N));
  std::vector<F> Want(N * 7);
  for (size_t I = 0; I < N; ++I) {
    F x = A[I], y = B[I];
    F* W = &Want[I * 7];
    W[0] = x + y;
    W[1] = x - y;
    W[2] = x * y;
    W[3] = x / y;
    W[4] = std::fmod(x, y);
    W[5] = -x;
    W[6] = x * y + x / F(3) - y;
  }
  expectSame(fromDevice(Out), Want, Name);
}

TEST(Operators, FloatArith32) {
  CONFORMANCE_REQUIRE_DEVICE(Float32Denormals); // the data include subnormals
  checkFloatArith<float>("FloatArith32");
}
TEST(Operators, FloatArith64) {
  checkFloatArith<double>("FloatArith64");
}

template <class F> void checkFloatCompare(xpu::Program& P, const std::string& Kernel) {
  std::vector<F> A = floatData<F>(N, 100, -4, 4), B = floatData<F>(N, 101, -4, 4);
  Rng R(102);
  for (size_t I = 12; I < N; I += 2)
    B[I] = (I % 4 == 0) ? A[I] : A[R.next() % 12]; // equal pairs and edge pairs
  auto DA = toDevice(A), DB = toDevice(B);
  auto Out = boolsToDevice(std::vector<uint8_t>(N * 6, 0));
  run1D(P.kernel(Kernel), N, Block, Out, DA, DB, uint32_t(N));
  std::vector<uint8_t> Want(N * 6);
  for (size_t I = 0; I < N; ++I) {
    F x = A[I], y = B[I];
    uint8_t* W = &Want[I * 6];
    W[0] = x < y;
    W[1] = x <= y;
    W[2] = x > y;
    W[3] = x >= y;
    W[4] = x == y;
    W[5] = x != y;
  }
  expectSame(boolsFromDevice(Out), Want, Kernel);
}

TEST(Operators, FloatCompare) {
  xpu::Program P = compileProgram("FloatCompare");
  checkFloatCompare<float>(P, "FloatCompare.f32");
  checkFloatCompare<double>(P, "FloatCompare.f64");
}

} // namespace
} // namespace conformance
