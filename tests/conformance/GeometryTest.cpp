// Conformance of launch geometry (1D/2D/3D coordinate reads), the grid-stride loop and
// buf.length().
#include "ConformanceSupport.h"

namespace conformance {
namespace {

TEST(Geometry, OneDimensional) {
  xpu::Program P = compileProgram("Geometry1D");
  const size_t N = 1000;
  const uint32_t Block = 96; // 11 groups, the last one partial
  const uint32_t Groups = groupsFor(N, Block);
  auto Out = filledBuffer<uint32_t>(N * 12, 0xDEAD);
  run1D(P.kernel("Geometry1D.run"), N, Block, Out, uint32_t(N));
  std::vector<uint32_t> Want(N * 12);
  for (uint32_t G = 0; G < N; ++G) {
    uint32_t* W = &Want[G * 12];
    W[0] = G % Block;
    W[1] = G / Block;
    W[2] = Block;
    W[3] = Groups;
    W[4] = G;
    W[5] = Groups * Block;
    W[6] = 0;
    W[7] = 0;
    W[8] = 11;
    W[9] = 11;
    W[10] = 0;
    W[11] = 11;
  }
  expectSame(fromDevice(Out), Want, "Geometry1D.run");
}

TEST(Geometry, TwoDimensional) {
  xpu::Program P = compileProgram("Geometry2D");
  const uint32_t W = 37, H = 23, BX = 8, BY = 4;
  const uint32_t GX = groupsFor(W, BX), GY = groupsFor(H, BY);
  auto Out = filledBuffer<uint32_t>(W * H * 9, 0xDEAD);
  runKernel(P.kernel("Geometry2D.run"), xpu::grid(GX, GY), xpu::block(BX, BY), Out, W, H);
  std::vector<uint32_t> Want(W * H * 9);
  for (uint32_t Y = 0; Y < H; ++Y)
    for (uint32_t X = 0; X < W; ++X) {
      uint32_t* R = &Want[(Y * W + X) * 9];
      R[0] = X % BX;
      R[1] = Y % BY;
      R[2] = X / BX;
      R[3] = Y / BY;
      R[4] = BX * 100 + BY;
      R[5] = GX * 100 + GY;
      R[6] = GX * BX * 1000 + GY * BY;
      R[7] = 0;
      R[8] = 0;
    }
  expectSame(fromDevice(Out), Want, "Geometry2D.run");
}

TEST(Geometry, ThreeDimensional) {
  xpu::Program P = compileProgram("Geometry3D");
  const uint32_t W = 9, H = 7, D = 5, BX = 4, BY = 2, BZ = 3;
  const uint32_t GX = groupsFor(W, BX), GY = groupsFor(H, BY), GZ = groupsFor(D, BZ);
  auto Out = filledBuffer<uint32_t>(W * H * D * 8, 0xDEAD);
  runKernel(P.kernel("Geometry3D.run"), xpu::grid(GX, GY, GZ), xpu::block(BX, BY, BZ), Out, W, H,
            D);
  std::vector<uint32_t> Want(W * H * D * 8);
  for (uint32_t Z = 0; Z < D; ++Z)
    for (uint32_t Y = 0; Y < H; ++Y)
      for (uint32_t X = 0; X < W; ++X) {
        uint32_t* R = &Want[((Z * H + Y) * W + X) * 8];
        R[0] = (X % BX) * 10000 + (Y % BY) * 100 + Z % BZ;
        R[1] = (X / BX) * 10000 + (Y / BY) * 100 + Z / BZ;
        R[2] = BX * 10000 + BY * 100 + BZ;
        R[3] = GX * 10000 + GY * 100 + GZ;
        R[4] = GX * BX * 10000 + GY * BY * 100 + GZ * BZ;
        R[5] = X;
        R[6] = Y;
        R[7] = Z;
      }
  expectSame(fromDevice(Out), Want, "Geometry3D.run");
}

TEST(Geometry, GridStrideLoopVisitsEachIndexOnce) {
  xpu::Program P = compileProgram("GridStride");
  const size_t N = 1000, Len = 1010;   // elements past n must stay untouched
  const uint32_t Grid = 3, Block = 64; // 192 work-items for 1000 elements
  std::vector<float> In = floatData<float>(Len, 800, -50, 50);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<float>(Len, -7.0f);
  const float A = 1.75f;
  runKernel(P.kernel("GridStride.scale"), xpu::grid(Grid), xpu::block(Block), Out, DIn, A,
            uint32_t(N));
  std::vector<float> Want(Len, -7.0f);
  for (size_t I = 0; I < N; ++I)
    Want[I] = In[I] * A + 1.0f;
  expectSame(fromDevice(Out), Want, "GridStride.scale");

  auto Counts = filledBuffer<int32_t>(Len, 0);
  auto Who = filledBuffer<uint32_t>(Len, 0xFFFFFFFFu);
  runKernel(P.kernel("GridStride.visit"), xpu::grid(Grid), xpu::block(Block), Counts, Who,
            uint32_t(N));
  std::vector<int32_t> WantCounts(Len, 0);
  std::vector<uint32_t> WantWho(Len, 0xFFFFFFFFu);
  for (size_t I = 0; I < N; ++I) {
    WantCounts[I] = 1;
    WantWho[I] = static_cast<uint32_t>(I % (Grid * Block));
  }
  expectSame(fromDevice(Counts), WantCounts, "GridStride.visit counts");
  expectSame(fromDevice(Who), WantWho, "GridStride.visit work-item");
}

// The CPU runs a grid-stride loop through one of three entries chosen at launch (one step per
// work-item, a step at a time for the group, or each work-item's whole loop): every grid shape
// must give the same elements, including a 2-D grid whose size in x is below the count though
// its work-items are not (the loop strides by the size in x).
TEST(Geometry, GridStrideStepsOnAGridFarSmallerThanTheCount) {
  xpu::Program P = compileProgram("GridStrideWide");
  const uint32_t Grid = 3, Block = 32, Items = Grid * Block;
  for (uint32_t N : {0u, 50u, 1000u, 4099u}) {
    std::vector<float> In = uniformData<float>(N + 1, 71 + N, -2, 2);
    std::vector<uint32_t> Ints(N + 1);
    for (uint32_t I = 0; I <= N; ++I)
      Ints[I] = (I * 13) % 17; // zeros at 0, 17, 34, ...
    auto DIn = toDevice(In);
    auto DInts = toDevice(Ints);
    std::string At = ", n " + std::to_string(N);

    auto Out = filledBuffer<float>(N + 1, -1.0f);
    runKernel(P.kernel("GridStrideWide.affine"), xpu::grid(Grid), xpu::block(Block), Out, DIn, 1.5f,
              N);
    std::vector<float> Want(N + 1, -1.0f);
    for (uint32_t I = 0; I < N; ++I) {
      float T = 1.5f * In[I];
      Want[I] = T + float(I);
    }
    expectSame(fromDevice(Out), Want, "GridStrideWide.affine" + At);

    // The uint32 kernels: out[i] for i < n as Want says, 99 past it.
    auto RunInts = [&](const std::string& Kernel, const std::vector<uint32_t>& Want) {
      auto Out = filledBuffer<uint32_t>(N + 1, 99u);
      runKernel(P.kernel("GridStrideWide." + Kernel), xpu::grid(Grid), xpu::block(Block), Out,
                DInts, N);
      expectSame(fromDevice(Out), Want, "GridStrideWide." + Kernel + At);
    };
    std::vector<uint32_t> WantSteps(N + 1, 99u), WantWalk(N + 1, 99u), WantUntil(N + 1, 99u);
    for (uint32_t I = 0; I < N; ++I) {
      WantSteps[I] = I / Items + 1;
      WantWalk[I] = I % Items + Ints[I];
    }
    for (uint32_t W = 0; W < Items; ++W)
      for (uint32_t I = W; I < N && Ints[I] != 0; I += Items)
        WantUntil[I] = Ints[I] + 1;
    RunInts("stepNumbers", WantSteps);
    RunInts("walker", WantWalk);
    RunInts("untilZero", WantUntil);
  }
}

TEST(Geometry, GridStrideLoopOnEveryGridShape) {
  xpu::Program P = compileProgram("GridStride");
  struct Shape {
    xpu::Dim3 Grid;
    uint32_t N;
  };
  const uint32_t Block = 64;
  const Shape Shapes[] = {{xpu::grid(16), 1000},   // one step or none each
                          {xpu::grid(16), 1024},   // exactly one step each
                          {xpu::grid(16), 1025},   // one work-item takes a second step
                          {xpu::grid(3), 1000},    // many steps each
                          {xpu::grid(8, 3), 1000}, // 2-D: 512 in x, 1,536 work-items
                          {xpu::grid(16, 2), 1000}};
  for (const Shape& S : Shapes) {
    const uint32_t Len = S.N + 9;
    std::vector<float> In = floatData<float>(Len, 801, -50, 50);
    auto Out = filledBuffer<float>(Len, -7.0f);
    runKernel(P.kernel("GridStride.scale"), S.Grid, xpu::block(Block), Out, toDevice(In), 1.75f,
              S.N);
    std::vector<float> Want(Len, -7.0f);
    for (uint32_t I = 0; I < S.N; ++I)
      Want[I] = In[I] * 1.75f + 1.0f;
    expectSame(fromDevice(Out), Want,
               "GridStride.scale, grid " + std::to_string(S.Grid.x) + " x " +
                   std::to_string(S.Grid.y) + ", n " + std::to_string(S.N));
  }
}

TEST(Geometry, GridStrideIndexTypes) {
  xpu::Program P = compileProgram("GridStrideTypes");
  const size_t Len = 500;
  const uint64_t M = 450;
  std::vector<uint8_t> Bytes = intData<uint8_t>(Len, 810);
  auto DBytes = toDevice(Bytes);
  auto Idx = filledBuffer<uint64_t>(Len, 7);
  runKernel(P.kernel("GridStrideTypes.wide"), xpu::grid(2), xpu::block(50), Idx, DBytes, M);
  std::vector<uint64_t> WantIdx(Len, 7);
  std::vector<uint8_t> WantBytes = Bytes;
  for (uint64_t I = 0; I < M; ++I) {
    WantIdx[I] = I * 0x100000000ull + Bytes[I];
    WantBytes[I] = static_cast<uint8_t>(Bytes[I] + 1);
  }
  expectSame(fromDevice(Idx), WantIdx, "GridStrideTypes.wide index");
  expectSame(fromDevice(DBytes), WantBytes, "GridStrideTypes.wide bytes");

  std::vector<int64_t> Longs = intData<int64_t>(Len, 811);
  auto DLongs = toDevice(Longs);
  const int32_t K = 333;
  runKernel(P.kernel("GridStrideTypes.signedCount"), xpu::grid(4), xpu::block(32), DLongs, K);
  std::vector<int64_t> WantLongs = Longs;
  for (int32_t J = 0; J < K; ++J)
    WantLongs[J] = wrapAdd(wrapMul(Longs[J], int64_t(2)), int64_t(J));
  expectSame(fromDevice(DLongs), WantLongs, "GridStrideTypes.signedCount");
}

TEST(Geometry, BufferLength) {
  xpu::Program P = compileProgram("BufferLength");
  std::vector<int16_t> Shorts = intData<int16_t>(123, 820);
  auto DShorts = toDevice(Shorts);
  auto Doubles = filledBuffer<double>(4567, 0.0);
  auto Flags = boolsToDevice(std::vector<uint8_t>(9, 0));
  auto Out = filledBuffer<uint64_t>(6, 0);
  runKernel(P.kernel("BufferLength.run"), xpu::grid(3), xpu::block(5), Out, DShorts, Doubles,
            Flags);
  int64_t Sum = 0;
  for (int16_t S : Shorts)
    Sum += S;
  expectSame(fromDevice(Out), std::vector<uint64_t>{123, 4567, 9, 6, static_cast<uint64_t>(Sum), 0},
             "BufferLength.run");
}

} // namespace
} // namespace conformance

namespace conformance {
namespace {

/// Grid 3 x 64 work-items for 1000 elements: several steps each (the CPU's step-at-a-time
/// entry); grid 16 x 64: at most one step each (its plain entry).
void checkGridStrideControl(uint32_t Grid) {
  xpu::Program P = compileProgram("GridStrideControl");
  const uint32_t Block = 64, Items = Block * Grid, N = 1000;
  std::vector<int32_t> X(N);
  Rng R(9101);
  for (uint32_t I = 0; I < N; ++I)
    X[I] = int32_t(R.next() % 200) - (I % 97 == 50 ? 300 : 0); // a few negatives
  for (uint32_t SkipFrom : {Items, 100u}) {
    auto Sums = filledBuffer<int32_t>(Items, 0);
    auto Out = filledBuffer<int32_t>(N, 0);
    runKernel(P.kernel("GridStrideControl.walk"), xpu::grid(Grid), xpu::block(Block), toDevice(X),
              Sums, Out, N, SkipFrom);
    std::vector<int32_t> WantSums(Items), WantOut(N, 0);
    for (uint32_t G = 0; G < Items; ++G) {
      if (G >= SkipFrom) {
        WantSums[G] = -7;
        continue;
      }
      int32_t S = 0;
      for (uint32_t I = G; I < N; I += Items) {
        WantOut[I] = 1;
        int32_t V = X[I];
        if (V < 0)
          break;
        if (V % 3 == 0)
          continue;
        bool Done = false;
        for (int32_t K = 0; K < 4 && !Done; ++K)
          for (int32_t J = 0; J < 4; ++J) {
            if (J * K > V % 5) {
              Done = true;
              break;
            }
            S += 1;
          }
        S += V;
      }
      WantSums[G] = S;
    }
    expectSame(fromDevice(Sums), WantSums, "walk sums, skipFrom " + std::to_string(SkipFrom));
    expectSame(fromDevice(Out), WantOut, "walk visits, skipFrom " + std::to_string(SkipFrom));
  }
  for (int32_t Limit : {150, 198, 1000}) {
    auto Stop = filledBuffer<int32_t>(Items, 5);
    auto Out = filledBuffer<int32_t>(N, 0);
    runKernel(P.kernel("GridStrideControl.twoLoops"), xpu::grid(Grid), xpu::block(Block),
              toDevice(X), Stop, Out, N, Limit);
    std::vector<int32_t> WantStop(Items), WantOut(N, 0);
    std::vector<int32_t> Count(Items, 0);
    std::vector<bool> Finished(Items, false);
    for (uint32_t G = 0; G < Items; ++G) {
      WantStop[G] = -1;
      Finished[G] = true;
      for (uint32_t I = G; I < N; I += Items) {
        if (X[I] > Limit) {
          WantStop[G] = int32_t(I);
          Finished[G] = false;
          break;
        }
        ++Count[G];
      }
    }
    for (uint32_t G = 0; G < Items; ++G)
      if (Finished[G])
        for (uint32_t I = G; I < N; I += Items)
          WantOut[I] = X[I] + Count[G];
    expectSame(fromDevice(Stop), WantStop, "twoLoops stop, limit " + std::to_string(Limit));
    expectSame(fromDevice(Out), WantOut, "twoLoops out, limit " + std::to_string(Limit));
  }
}

TEST(Geometry, GridStrideLoopsWithBreakContinueAndReturns) {
  checkGridStrideControl(3);
  checkGridStrideControl(16);
}

// Every work-item of 1D, 2D and 3D launches with partial workgroups and more workgroups than a
// CPU chunk runs exactly once, in range or not, when the kernel reads only global coordinates
// (the CPU runs such a kernel's workgroups of one row as one loop over global x).
TEST(Geometry, GlobalCoordinatesOnlyRunEachWorkItemOnce) {
  xpu::Program P = compileProgram("GlobalCoordinates");
  struct Shape {
    uint32_t W, H, D, BX, BY, BZ;
  };
  for (const Shape& S :
       {Shape{1000, 1, 1, 96, 1, 1}, Shape{301, 67, 1, 16, 4, 1}, Shape{301, 67, 5, 16, 4, 2},
        Shape{33, 1, 40, 32, 1, 1}, Shape{7, 300, 3, 1, 8, 2}}) {
    const uint32_t GX = groupsFor(S.W, S.BX), GY = groupsFor(S.H, S.BY), GZ = groupsFor(S.D, S.BZ);
    const size_t N = size_t(S.W) * S.H * S.D;
    auto Out = filledBuffer<uint32_t>(N, 0);
    auto Beyond = filledBuffer<uint32_t>(1, 0);
    runKernel(P.kernel("GlobalCoordinates.visit"), xpu::grid(GX, GY, GZ),
              xpu::block(S.BX, S.BY, S.BZ), Out, Beyond, S.W, S.H, S.D);
    std::vector<uint32_t> Want(N);
    for (uint32_t Z = 0; Z < S.D; ++Z)
      for (uint32_t Y = 0; Y < S.H; ++Y)
        for (uint32_t X = 0; X < S.W; ++X)
          Want[(size_t(Z) * S.H + Y) * S.W + X] = X * 1000000 + Y * 1000 + Z + 1;
    const std::string What = "GlobalCoordinates.visit " + std::to_string(S.W) + "x" +
                             std::to_string(S.H) + "x" + std::to_string(S.D) + " in blocks " +
                             std::to_string(S.BX) + "x" + std::to_string(S.BY) + "x" +
                             std::to_string(S.BZ);
    expectSame(fromDevice(Out), Want, What);
    const uint64_t Items = uint64_t(GX) * S.BX * GY * S.BY * GZ * S.BZ;
    EXPECT_EQ(fromDevice(Beyond)[0], Items - N) << What;
  }
}

// Guards of the global x against bounds, with constants added and subtracted (sums that wrap
// included), hold exactly as evaluated per work-item: the CPU runs the x where they are constant
// in a copy without them.
TEST(Geometry, GuardsOnTheGlobalXHoldAsEvaluatedPerWorkItem) {
  xpu::Program P = compileProgram("GuardRanges");
  const uint32_t N = 1000, Block = 64, Max = 0xFFFFFFFFu;
  struct Form {
    const char* Kernel;
    bool (*Holds)(uint32_t X, uint32_t B);
  };
  const Form Forms[] = {
      {"plusBelow", [](uint32_t X, uint32_t B) { return uint32_t(X + 3) < B; }},
      {"minusAtLeast", [](uint32_t X, uint32_t B) { return uint32_t(X - 2) >= B; }},
      {"aboveSeven", [](uint32_t X, uint32_t) { return X > 7; }},
      {"atMost", [](uint32_t X, uint32_t B) { return X <= B; }},
      {"minusOneBelow", [](uint32_t X, uint32_t B) { return uint32_t(X + Max) < B; }},
      {"notZeroNorFive", [](uint32_t X, uint32_t) { return X != 0 && X != 5; }}};
  for (const Form& F : Forms)
    for (uint32_t B : {0u, 1u, 2u, 3u, 4u, 500u, 997u, 1003u, 5000u, Max - 3, Max - 1, Max}) {
      auto Out = filledBuffer<uint32_t>(N, 0xDEAD);
      run1D(P.kernel(std::string("GuardRanges.") + F.Kernel), N, Block, Out, N, B);
      std::vector<uint32_t> Want(N);
      for (uint32_t X = 0; X < N; ++X)
        Want[X] = F.Holds(X, B) ? 1 : 2;
      expectSame(fromDevice(Out), Want,
                 std::string("GuardRanges.") + F.Kernel + " b=" + std::to_string(B));
    }
  const uint32_t W = 37, H = 9;
  auto Grid = filledBuffer<uint32_t>(W * H, 0);
  runKernel(P.kernel("GuardRanges.early"), xpu::grid(groupsFor(W, 16), groupsFor(H, 4)),
            xpu::block(16, 4), Grid, W, H);
  std::vector<uint32_t> Want(W * H);
  for (uint32_t Y = 0; Y < H; ++Y)
    for (uint32_t X = 1; X < W; ++X)
      Want[Y * W + X] = X + 1;
  expectSame(fromDevice(Grid), Want, "GuardRanges.early");
}

// A guarded row of every width from 1 to 40 and around multiples of the vector widths, in
// workgroups of 64 and 24: where the CPU runs the interior's last vector twice (the stencil's
// input is only read), every work-item's value is still its own, and where it may not (out is
// read and written) each work-item adds once.
TEST(Geometry, GuardedRowsComputeEachWorkItemOnceAtEveryWidth) {
  xpu::Program P = compileProgram("GuardRanges");
  std::vector<uint32_t> Widths;
  for (uint32_t N = 1; N <= 40; ++N)
    Widths.push_back(N);
  for (uint32_t N : {63u, 64u, 65u, 127u, 128u, 129u, 130u, 1000u, 1031u})
    Widths.push_back(N);
  for (uint32_t Block : {64u, 24u})
    for (uint32_t N : Widths) {
      std::vector<uint32_t> In(N);
      for (uint32_t X = 0; X < N; ++X)
        In[X] = X * 7 + 1;
      auto DIn = toDevice(In);
      auto Out = filledBuffer<uint32_t>(N, 5);
      run1D(P.kernel("GuardRanges.stencil"), N, Block, Out, DIn, N);
      std::vector<uint32_t> Want(N, 5);
      for (uint32_t X = 1; X + 1 < N; ++X)
        Want[X] = In[X - 1] + 2 * In[X] + 3 * In[X + 1];
      const std::string Shape = " n=" + std::to_string(N) + " block " + std::to_string(Block);
      expectSame(fromDevice(Out), Want, "GuardRanges.stencil" + Shape);
      auto Sum = filledBuffer<uint32_t>(N, 5);
      run1D(P.kernel("GuardRanges.accumulate"), N, Block, Sum, DIn, N);
      std::vector<uint32_t> WantSum(N, 5);
      for (uint32_t X = 1; X + 1 < N; ++X)
        WantSum[X] = 5 + In[X];
      expectSame(fromDevice(Sum), WantSum, "GuardRanges.accumulate" + Shape);
    }
}

} // namespace
// One workgroup of 256 (or a few): a Gram triangle, float column sums in row order and the
// global size are those of the launch as written, and a kernel that reads its workgroup's shape
// sees the one it was launched with (the CPU narrows the workgroups of kernels that cannot tell).
TEST(Geometry, FewWorkgroupsKeepTheirResultsAndGeometry) {
  xpu::Program P = compileProgram("FewWorkgroups");
  const uint32_t N = 37, M = 250;
  std::vector<uint32_t> Ints(size_t(N) * M);
  for (size_t I = 0; I < Ints.size(); ++I)
    Ints[I] = uint32_t((I * 2654435761u) >> 7);
  std::vector<float> Floats = uniformData<float>(size_t(N) * M, 5, -1, 1);
  auto DInts = toDevice(Ints);
  auto DFloats = toDevice(Floats);
  std::vector<uint32_t> WantSym(size_t(M) * M);
  for (uint32_t J1 = 0; J1 < M; ++J1)
    for (uint32_t J2 = J1; J2 < M; ++J2) {
      uint32_t Sum = 0;
      for (uint32_t I = 0; I < N; ++I)
        Sum += Ints[I * M + J1] * Ints[I * M + J2];
      WantSym[J1 * M + J2] = WantSym[J2 * M + J1] = Sum;
    }
  std::vector<float> WantSums(M);
  for (uint32_t J = 0; J < M; ++J) {
    float S = 0.0f;
    for (uint32_t I = 0; I < N; ++I)
      S += Floats[I * M + J];
    WantSums[J] = S;
  }
  for (uint32_t Block : {256u, 128u, 64u, 48u}) {
    const uint32_t Groups = groupsFor(M, Block);
    const std::string At = " in blocks of " + std::to_string(Block);
    auto Sym = filledBuffer<uint32_t>(size_t(M) * M, 0xDEAD);
    run1D(P.kernel("FewWorkgroups.gram"), M, Block, Sym, DInts, N, M);
    expectSame(fromDevice(Sym), WantSym, "FewWorkgroups.gram" + At);

    auto Sums = filledBuffer<float>(M, -1.0f);
    auto Size = filledBuffer<uint32_t>(M, 0);
    run1D(P.kernel("FewWorkgroups.columns"), M, Block, Sums, Size, DFloats, N, M);
    expectSame(fromDevice(Sums), WantSums, "FewWorkgroups.columns" + At);
    expectSame(fromDevice(Size), std::vector<uint32_t>(M, Groups * Block),
               "FewWorkgroups.columns' global size" + At);

    auto Shape = filledBuffer<uint32_t>(M, 0);
    run1D(P.kernel("FewWorkgroups.shape"), M, Block, Shape, M);
    expectSame(fromDevice(Shape), std::vector<uint32_t>(M, Block * 1000 + Groups),
               "FewWorkgroups.shape" + At);
  }
}

} // namespace conformance
