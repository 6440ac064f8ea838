// Conformance of control flow: if/else, loops, labeled break/continue, early return, ?:, && / ||,
// scopes and zero-initialised locals.
#include "ConformanceSupport.h"

namespace conformance {
namespace {

constexpr size_t N = 555;
constexpr uint32_t Block = 64;

// Small values (the interesting range of the branches) mixed with the integer edges.
std::vector<int32_t> branchData(uint64_t Seed, int32_t Lo, int32_t Hi, bool WithEdges) {
  std::vector<int32_t> V = WithEdges ? intData<int32_t>(N, Seed) : std::vector<int32_t>(N, 0);
  Rng R(Seed + 1);
  for (size_t I = WithEdges ? 12 : 0; I < N; ++I)
    V[I] = Lo + static_cast<int32_t>(R.next() % uint64_t(Hi - Lo + 1));
  return V;
}

TEST(Control, IfElseChain) {
  xpu::Program P = compileProgram("IfElse");
  std::vector<int32_t> Xs = branchData(400, -300, 1300, true);
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<int32_t>(N, 0x55);
  run1D(P.kernel("IfElse.classify"), N, Block, Out, DX, uint32_t(N));
  std::vector<int32_t> Want(N);
  for (size_t I = 0; I < N; ++I) {
    int32_t x = Xs[I], r;
    if (x < -100)
      r = 1;
    else if (x < 0)
      r = 2;
    else if (x == 0)
      r = 3;
    else if (x <= 100)
      r = 4;
    else
      r = 5;
    bool Even = (x & 1) == 0;
    if (Even)
      r += x > 0 ? 10 : 20;
    else if (x > 1000)
      r += 30;
    Want[I] = r > 100 ? -1 : r;
  }
  expectSame(fromDevice(Out), Want, "IfElse.classify");
}

TEST(Control, DanglingElse) {
  xpu::Program P = compileProgram("DanglingElse");
  std::vector<int32_t> Xs = branchData(410, -5, 5, true);
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<int32_t>(N, 0x55);
  run1D(P.kernel("DanglingElse.run"), N, Block, Out, DX, uint32_t(N));
  std::vector<int32_t> Want(N);
  for (size_t I = 0; I < N; ++I) {
    int32_t x = Xs[I], r = 0;
    if (x > 0)
      r = (x % 2 == 0) ? 1 : 2;
    if (x < 0)
      r = 3;
    else if (x == 0)
      r = 4;
    Want[I] = r;
  }
  expectSame(fromDevice(Out), Want, "DanglingElse.run");
}

TEST(Control, WhileCollatz) {
  xpu::Program P = compileProgram("While");
  std::vector<uint64_t> Seeds = intData<uint64_t>(N, 420);
  Rng R(421);
  for (size_t I = 12; I < N; I += 2)
    Seeds[I] = R.next() % 100000;
  auto DS = toDevice(Seeds);
  auto Out = filledBuffer<uint32_t>(N, 0x55);
  run1D(P.kernel("While.collatz"), N, Block, Out, DS, uint32_t(N));
  std::vector<uint32_t> Want(N);
  for (size_t I = 0; I < N; ++I) {
    uint64_t v = Seeds[I];
    uint32_t s = 0;
    while (v > 1 && s < 1000) {
      v = (v & 1) == 0 ? v / 2 : 3 * v + 1;
      s++;
    }
    Want[I] = s;
  }
  expectSame(fromDevice(Out), Want, "While.collatz");
}

TEST(Control, DoWhile) {
  xpu::Program P = compileProgram("DoWhile");
  std::vector<uint32_t> Xs = intData<uint32_t>(N, 430);
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<int32_t>(N * 3, 0x55);
  run1D(P.kernel("DoWhile.run"), N, Block, Out, DX, uint32_t(N));
  std::vector<int32_t> Want(N * 3);
  for (size_t I = 0; I < N; ++I) {
    uint32_t v = Xs[I];
    int32_t Digits = 0;
    do {
      Digits++;
      v /= 10;
    } while (v != 0);
    uint32_t Limit = Xs[I] % 20;
    int32_t k = 0, Odd = 0;
    do {
      k++;
      if (k % 2 == 0)
        continue;
      Odd++;
    } while (uint32_t(k) < Limit);
    Want[I * 3] = Digits;
    Want[I * 3 + 1] = 7;
    Want[I * 3 + 2] = Odd * 100 + k;
  }
  expectSame(fromDevice(Out), Want, "DoWhile.run");
}

TEST(Control, ForLoops) {
  xpu::Program P = compileProgram("ForLoop");
  std::vector<int32_t> Xs = branchData(440, 0, 300, false);
  Xs[0] = 0;
  Xs[1] = 1;
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<int64_t>(N * 5, 0x55);
  run1D(P.kernel("ForLoop.run"), N, Block, Out, DX, uint32_t(N));
  std::vector<int64_t> Want(N * 5);
  for (size_t I = 0; I < N; ++I) {
    int32_t x = Xs[I];
    int64_t Sq = 0;
    for (int32_t j = 0; j <= x; j++)
      Sq += j * j;
    uint32_t Down = 0;
    for (uint32_t j = uint32_t(x); j > 0; j--)
      Down += j;
    int64_t Big = 0;
    for (int64_t j = 1; j < 4000000000LL; j *= 3)
      Big += j;
    int32_t Spins = 0;
    for (;;) {
      Spins++;
      if (Spins * Spins > x)
        break;
    }
    int32_t Pairs = 0;
    for (int32_t a = 0; a < x; a++)
      for (int32_t b = a; b < x; b += 2)
        Pairs++;
    int64_t* W = &Want[I * 5];
    W[0] = Sq;
    W[1] = Down;
    W[2] = Big;
    W[3] = Spins;
    W[4] = Pairs;
  }
  expectSame(fromDevice(Out), Want, "ForLoop.run");
}

TEST(Control, LabeledBreakContinue) {
  xpu::Program P = compileProgram("LabeledLoops");
  std::vector<int32_t> Lims = branchData(450, -3, 90, false);
  auto DL = toDevice(Lims);
  auto Out = filledBuffer<int32_t>(N * 6, 0x55);
  run1D(P.kernel("LabeledLoops.run"), N, Block, Out, DL, uint32_t(N));
  std::vector<int32_t> Want(N * 6);
  for (size_t I = 0; I < N; ++I) {
    int32_t Lim = Lims[I];
    int32_t Count = 0;
    for (int32_t a = 0; a < 10; a++) {
      bool BreakOuter = false;
      for (int32_t b = 0; b < 10; b++) {
        if (b > a)
          break; // continue outer
        if (a * b > Lim) {
          BreakOuter = true;
          break;
        }
        Count++;
      }
      if (BreakOuter)
        break;
    }
    int32_t s = 0, p = 0;
    bool Done = false;
    while (p < 6 && !Done) {
      p++;
      int32_t q = 0;
      while (true) {
        q++;
        if (q > p)
          break; // continue rows
        if (q * p == Lim) {
          Done = true; // break rows
          break;
        }
        s += q;
      }
    }
    int32_t Inner = 0;
    for (int32_t a = 0; a < 5; a++)
      for (int32_t b = 0; b < 5; b++) {
        if (b == a)
          break;
        if (b == 1)
          continue;
        Inner += 1;
      }
    int32_t d = 0, e = 0;
    do {
      d++;
      for (int32_t c = 0; c < 3; c++) {
        if (d % 2 == 0)
          goto nextTest; // continue again
        e += c;
      }
    nextTest:;
    } while (d < Lim % 7);
    int32_t* W = &Want[I * 6];
    W[0] = Count;
    W[1] = s;
    W[2] = p;
    W[3] = Inner;
    W[4] = d;
    W[5] = e;
  }
  expectSame(fromDevice(Out), Want, "LabeledLoops.run");
}

TEST(Control, EarlyReturnEndsOnlyThatWorkItem) {
  xpu::Program P = compileProgram("EarlyReturn");
  std::vector<int32_t> Xs = branchData(460, -20, 70, true);
  auto DX = toDevice(Xs);
  // One element more than n: the work-item for it exists (partial group) but must return at once.
  auto Out = filledBuffer<int32_t>(N + 1, 0);
  run1D(P.kernel("EarlyReturn.run"), N + 1, Block, Out, DX, uint32_t(N));
  std::vector<int32_t> Want(N + 1, 0);
  for (size_t I = 0; I < N; ++I) {
    int32_t x = Xs[I];
    Want[I] = x < 0 ? 1 : (x < 50 ? 3 : 4);
  }
  expectSame(fromDevice(Out), Want, "EarlyReturn.run");
}

TEST(Control, TernaryIsLazyAndRightAssociative) {
  xpu::Program P = compileProgram("Ternary");
  std::vector<int32_t> Xs = branchData(470, -200, 200, true);
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<int32_t>(N * 6, 0x55);
  auto Pos = filledBuffer<int32_t>(N, -99);
  auto Neg = filledBuffer<int32_t>(N, -99);
  run1D(P.kernel("Ternary.run"), N, Block, Out, Pos, Neg, DX, uint32_t(N));
  std::vector<int32_t> Want(N * 6), WantPos(N, -99), WantNeg(N, -99);
  for (size_t I = 0; I < N; ++I) {
    int32_t x = Xs[I];
    int32_t* W = &Want[I * 6];
    W[0] = x < 0 ? -1 : (x == 0 ? 0 : 1);
    if (x > 0)
      WantPos[I] = W[1] = x;
    else
      WantNeg[I] = W[1] = wrapNeg(x);
    W[2] = x > 0 ? 10 * 100 + 11 : 10 * 100 + 9;
    W[3] = x != 0 ? cjDiv(1000, x) : -7;
    W[4] = (x > 5 ? x < 100 : x < -100) ? 1 : 0;
    W[5] = (x & 1) == 0 ? x >> 1 : wrapAdd(wrapMul(x, 3), 1);
  }
  expectSame(fromDevice(Out), Want, "Ternary.run");
  expectSame(fromDevice(Pos), WantPos, "Ternary stores (then arm)");
  expectSame(fromDevice(Neg), WantNeg, "Ternary stores (else arm)");
}

TEST(Control, ShortCircuitLogic) {
  xpu::Program P = compileProgram("LazyLogic");
  std::vector<int32_t> Xs = branchData(480, -20, 20, true);
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<int32_t>(N * 5, 0x55);
  auto W1 = filledBuffer<int32_t>(N, -99);
  auto W2 = filledBuffer<int32_t>(N, -99);
  run1D(P.kernel("LazyLogic.run"), N, Block, Out, W1, W2, DX, uint32_t(N));
  std::vector<int32_t> Want(N * 5), WantW1(N, -99), WantW2(N, -99);
  for (size_t I = 0; I < N; ++I) {
    int32_t x = Xs[I];
    bool R1 = false, R2 = true;
    if (x > 0) {
      WantW1[I] = x;
      R1 = x > 5;
    } else {
      WantW2[I] = wrapNeg(x);
      R2 = wrapNeg(x) > 5;
    }
    int32_t* W = &Want[I * 5];
    W[0] = (R1 ? 1 : 0) + (R2 ? 2 : 0) + 8 + 32; // r3 false, r4 true, r5 false, r6 true
    W[1] = 2;
    W[2] = 4;
    W[3] = x > 10 ? 11 : 1;
    W[4] = x;
  }
  expectSame(fromDevice(Out), Want, "LazyLogic.run");
  expectSame(fromDevice(W1), WantW1, "LazyLogic && right-side stores");
  expectSame(fromDevice(W2), WantW2, "LazyLogic || right-side stores");
}

TEST(Control, ShadowingInSiblingScopes) {
  xpu::Program P = compileProgram("Shadowing");
  std::vector<int32_t> Xs = intData<int32_t>(N, 490);
  auto DX = toDevice(Xs);
  auto Out = filledBuffer<int32_t>(N, 0x55);
  run1D(P.kernel("Shadowing.run"), N, Block, Out, DX, uint32_t(N));
  std::vector<int32_t> Want(N);
  for (size_t I = 0; I < N; ++I) {
    int32_t x = Xs[I];
    Want[I] = (x & 0xFF) + 3 + 3 + 4 + 5 + (x > 0 ? 4 : 700);
  }
  expectSame(fromDevice(Out), Want, "Shadowing.run");
}

TEST(Control, ZeroInitialisedLocals) {
  xpu::Program P = compileProgram("ZeroInit");
  std::vector<int32_t> Xs = intData<int32_t>(N, 500);
  auto DX = toDevice(Xs);
  auto Ints = filledBuffer<int64_t>(N * 8, 0x55);
  auto Floats = filledBuffer<double>(N * 2, -1.0);
  auto Flags = boolsToDevice(std::vector<uint8_t>(N, 1));
  run1D(P.kernel("ZeroInit.run"), N, Block, Ints, Floats, Flags, DX, uint32_t(N));
  std::vector<int64_t> WantI(N * 8);
  for (size_t I = 0; I < N; ++I) {
    int64_t* W = &WantI[I * 8];
    W[0] = W[1] = W[2] = W[3] = 0;
    W[4] = 3;
    W[5] = 0;
    W[6] = wrapAdd(Xs[I], 2);
    W[7] = 10; // the loop body's local restarts at zero: 1 + 2 + 3 + 4
  }
  expectSame(fromDevice(Ints), WantI, "ZeroInit ints");
  expectSame(fromDevice(Floats), std::vector<double>(N * 2, 0.0), "ZeroInit floats (+0)");
  expectSame(boolsFromDevice(Flags), std::vector<uint8_t>(N, 0), "ZeroInit bool");
}

/// x after N steps of LongLoop.lcg's recurrence.
uint32_t lcgAfter(uint64_t N) {
  uint32_t X = 1;
  for (uint64_t K = 0; K < N; ++K)
    X = X * 1664525u + 1013904223u;
  return X;
}

TEST(Control, AMillionIterationLoopRunsToItsEnd) {
  // Where the driver stops loops early the device says so (maxLoopIterations), and the loop
  // indeed stops there; everywhere else it runs to its end.
  xpu::Program P = compileProgram("LongLoop");
  const uint32_t N = 1000000;
  auto Out = toDevice(std::vector<uint32_t>(2, 0));
  run1D(P.kernel("LongLoop.lcg"), 1, 1, Out, N);
  uint64_t Limit = P.device().maxLoopIterations();
  uint32_t Got = fromDevice(Out)[0];
  if (Limit && Limit < N) {
    EXPECT_EQ(Got, lcgAfter(Limit))
        << P.device().name() << " reports a loop limit of " << Limit << " iterations";
    return;
  }
  EXPECT_EQ(Got, lcgAfter(N)) << P.device().name() << " (" << P.device().backend() << ")";
}

} // namespace
} // namespace conformance
