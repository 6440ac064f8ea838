// Conformance of Barrier.sync(): in uniform loops, several per iteration, in nested loops, inside a
// @Device helper, and with the early returns the barrier rule allows (the ones it rejects are
// tests/diagnostics' business).
#include "ConformanceSupport.h"

namespace conformance {
namespace {

TEST(Barrier, InUniformLoop) {
  xpu::Program P = compileProgram("BarrierLoop");
  const uint32_t N = 300, Block = 128;
  std::vector<int32_t> In = intData<int32_t>(N, 1200);
  auto DIn = toDevice(In);
  for (uint32_t Rounds : {5u, 0u, 1u}) {
    auto Out = filledBuffer<int32_t>(N, 1);
    run1D(P.kernel("BarrierLoop.run"), N, Block, Out, DIn, Rounds, N);
    std::vector<int32_t> Want(N);
    for (uint32_t Base = 0; Base < N; Base += Block) {
      std::vector<int32_t> Cur(Block), Next(Block);
      for (uint32_t T = 0; T < Block; ++T)
        Cur[T] = Base + T < N ? In[Base + T] : 0;
      for (uint32_t R = 0; R < Rounds; ++R) {
        for (uint32_t T = 0; T < Block; ++T)
          Next[T] = wrapAdd(wrapMul(Cur[T], 3), Cur[(T + 1) % Block] ^ int32_t(R));
        Cur.swap(Next);
      }
      for (uint32_t T = 0; T < Block && Base + T < N; ++T)
        Want[Base + T] = Cur[T];
    }
    expectSame(fromDevice(Out), Want, "BarrierLoop rounds " + std::to_string(Rounds));
  }
}

TEST(Barrier, OneInTheMiddleOfTheLoopBody) {
  xpu::Program P = compileProgram("BarrierMidLoop");
  const uint32_t N = 300, Block = 128;
  std::vector<uint32_t> In = intData<uint32_t>(N, 1205);
  auto DIn = toDevice(In);
  for (uint32_t Rounds : {6u, 1u, 0u}) {
    auto Out = filledBuffer<uint32_t>(N, 1);
    run1D(P.kernel("BarrierMidLoop.run"), N, Block, Out, DIn, Rounds, N);
    std::vector<uint32_t> Want(N);
    for (uint32_t Base = 0; Base < N; Base += Block) {
      std::vector<uint32_t> V(Block), Next(Block);
      for (uint32_t T = 0; T < Block; ++T)
        V[T] = Base + T < N ? In[Base + T] : 0;
      for (uint32_t R = 0; R < Rounds; ++R) {
        for (uint32_t T = 0; T < Block; ++T)
          Next[T] = V[(T + 1) % Block] * 3u + R;
        V.swap(Next);
      }
      for (uint32_t T = 0; T < Block && Base + T < N; ++T)
        Want[Base + T] = V[T];
    }
    expectSame(fromDevice(Out), Want, "BarrierMidLoop rounds " + std::to_string(Rounds));
  }
}

TEST(Barrier, SeveralPerIteration) {
  xpu::Program P = compileProgram("BarrierMulti");
  const uint32_t N = 500, Block = 64, Rounds = 4, Groups = groupsFor(N, Block);
  std::vector<uint32_t> In = intData<uint32_t>(N, 1210);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<uint32_t>(N, 1);
  auto Folds = filledBuffer<uint32_t>(Groups, 1);
  run1D(P.kernel("BarrierMulti.run"), N, Block, Out, DIn, Folds, Rounds, N);
  std::vector<uint32_t> Want(N), WantFolds(Groups);
  for (uint32_t G = 0; G < Groups; ++G) {
    std::vector<uint32_t> S(Block), Left(Block);
    for (uint32_t T = 0; T < Block; ++T)
      S[T] = G * Block + T < N ? In[G * Block + T] : 0;
    uint32_t Acc = 0;
    for (uint32_t R = 0; R < Rounds; ++R) {
      for (uint32_t T = 0; T < Block; ++T)
        Left[T] = S[(T + Block - 1) % Block];
      for (uint32_t T = 0; T < Block; ++T)
        S[T] = S[T] + Left[T] * 2u + Acc;
      Acc = Acc * 31u + S[Block - 1];
    }
    for (uint32_t T = 0; T < Block && G * Block + T < N; ++T)
      Want[G * Block + T] = S[T];
    WantFolds[G] = Acc;
  }
  expectSame(fromDevice(Out), Want, "BarrierMulti out");
  expectSame(fromDevice(Folds), WantFolds, "BarrierMulti folds");
}

TEST(Barrier, NestedLoops) {
  xpu::Program P = compileProgram("BarrierNested");
  const uint32_t N = 300, Block = 128, Rounds = 3;
  std::vector<int64_t> In = intData<int64_t>(N, 1220);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<int64_t>(N, 1);
  run1D(P.kernel("BarrierNested.run"), N, Block, Out, DIn, Rounds, N);
  std::vector<int64_t> Want(N);
  for (uint32_t Base = 0; Base < N; Base += Block) {
    std::vector<int64_t> S(Block), Add(Block);
    for (uint32_t T = 0; T < Block; ++T)
      S[T] = Base + T < N ? In[Base + T] : 0;
    for (uint32_t R = 0; R < Rounds; ++R) {
      for (uint32_t Step = 1; Step < Block; Step <<= 1) {
        for (uint32_t T = 0; T < Block; ++T)
          Add[T] = T >= Step ? S[T - Step] : 0;
        for (uint32_t T = 0; T < Block; ++T)
          S[T] = wrapAdd(S[T], Add[T]);
      }
      for (uint32_t T = 0; T < Block; ++T)
        S[T] = wrapSub(S[T], int64_t(R));
    }
    for (uint32_t T = 0; T < Block && Base + T < N; ++T)
      Want[Base + T] = S[T];
  }
  expectSame(fromDevice(Out), Want, "BarrierNested");
}

TEST(Barrier, InsideDeviceHelper) {
  xpu::Program P = compileProgram("BarrierHelper");
  const uint32_t N = 300, Block = 64;
  std::vector<int32_t> In = intData<int32_t>(N, 1230);
  auto DIn = toDevice(In);
  auto Scratch = filledBuffer<int32_t>(groupsFor(N, Block) * Block, 0);
  auto Out = filledBuffer<int32_t>(N, 1);
  run1D(P.kernel("BarrierHelper.run"), N, Block, Out, DIn, Scratch, N);
  // first = the mirror's value; second = (mirror's first) * 5 + 1 = own value * 5 + 1.
  std::vector<int32_t> Want(N);
  for (uint32_t I = 0; I < N; ++I)
    Want[I] = wrapSub(wrapAdd(wrapMul(In[I], 5), 1), In[I]);
  expectSame(fromDevice(Out), Want, "BarrierHelper");
}

TEST(Barrier, EarlyReturnsTheRuleAllows) {
  xpu::Program P = compileProgram("BarrierEarlyReturn");
  const uint32_t N = 300, Block = 64;
  std::vector<int32_t> In = intData<int32_t>(N, 1240);
  auto DIn = toDevice(In);
  for (uint32_t Skip : {2u, 4u, 99u}) {
    auto Out = filledBuffer<int32_t>(N, 31337);
    run1D(P.kernel("BarrierEarlyReturn.run"), N, Block, Out, DIn, Skip, N);
    std::vector<int32_t> Want(N, 31337);
    for (uint32_t I = 0; I < N; ++I) {
      uint32_t Base = I / Block * Block, T = I - Base;
      if (I / Block == Skip)
        continue;
      uint32_t Mirror = Base + Block - 1 - T;
      Want[I] = wrapSub(Mirror < N ? In[Mirror] : 7, In[I]);
    }
    expectSame(fromDevice(Out), Want, "BarrierEarlyReturn skip " + std::to_string(Skip));
  }
  auto Untouched = filledBuffer<int32_t>(N, 5);
  run1D(P.kernel("BarrierEarlyReturn.run"), N, Block, Untouched, DIn, 99u, 0u);
  expectSame(fromDevice(Untouched), std::vector<int32_t>(N, 5), "BarrierEarlyReturn n = 0");
}

} // namespace
} // namespace conformance
