// Conformance of @Backend restrictions (a cuda-only kernel runs on CUDA and fails elsewhere with
// the documented error) and of --check-bounds on buffers and shared arrays.
#include "ConformanceSupport.h"

#include <climits>

namespace conformance {
namespace {

bool contains(const std::string& Text, const std::string& Part) {
  return Text.find(Part) != std::string::npos;
}

TEST(BackendChecks, CudaOnlyKernel) {
  xpu::Program P = compileProgram("BackendCuda");
  const uint32_t N = 200;
  auto Out = filledBuffer<int32_t>(N, -1);
  std::vector<int32_t> Want(N);
  if (P.device().backend() == "cuda") {
    run1D(P.kernel("BackendCuda.onlyCuda"), N, 64, Out, N);
    for (uint32_t I = 0; I < N; ++I)
      Want[I] = int32_t(I) * 3;
    expectSame(fromDevice(Out), Want, "BackendCuda.onlyCuda on cuda");
  } else {
    try {
      run1D(P.kernel("BackendCuda.onlyCuda"), N, 64, Out, N);
      ADD_FAILURE() << "BackendCuda.onlyCuda ran on " << P.device().backend();
    } catch (const xpu::Error& E) {
      EXPECT_TRUE(contains(E.what(), "BackendCuda.onlyCuda")) << E.what();
      EXPECT_TRUE(contains(E.what(), "cuda")) << E.what();
      EXPECT_TRUE(contains(E.what(), P.device().backend())) << E.what();
    }
    expectSame(fromDevice(Out), std::vector<int32_t>(N, -1), "BackendCuda.onlyCuda output");
  }
  // The unrestricted kernel of the same program runs everywhere.
  run1D(P.kernel("BackendCuda.anywhere"), N, 64, Out, N);
  for (uint32_t I = 0; I < N; ++I)
    Want[I] = int32_t(I) * 5;
  expectSame(fromDevice(Out), Want, "BackendCuda.anywhere");
}

xpu::Program compileChecked(const std::string& Name) {
  xpu::CompileOptions O;
  O.checkBounds = true;
  return compileProgram(Name, O);
}

/// Runs Launch, which must fail at sync with a LaunchError whose message names every part.
template <class LaunchFn>
void expectBoundsError(LaunchFn Launch, const std::vector<std::string>& Parts,
                       const std::string& What) {
  xpu::KernelStream& S = xpu::KernelStream::current();
  try {
    Launch(S);
  } catch (const xpu::Error& E) {
    ADD_FAILURE() << What << ": the launch itself failed: " << E.what();
    return;
  }
  try {
    S.sync();
    ADD_FAILURE() << What << ": sync() did not report the out-of-range index";
  } catch (const xpu::LaunchError& E) {
    for (const std::string& Part : Parts)
      EXPECT_TRUE(contains(E.what(), Part)) << What << ": no '" << Part << "' in: " << E.what();
  }
}

TEST(BackendChecks, CheckBoundsBuffer) {
  xpu::Program P = compileChecked("CheckBoundsBuffer");
  const uint32_t N = 300, Len = 256;
  std::vector<uint32_t> Where(N);
  for (uint32_t I = 0; I < N; ++I)
    Where[I] = I % Len;
  Where[123] = 1256; // out of range
  auto GuardBefore = filledBuffer<int32_t>(1024, -3);
  auto Dest = filledBuffer<int32_t>(Len, -1);
  auto GuardAfter = filledBuffer<int32_t>(1024, -3);
  auto DWhere = toDevice(Where);
  expectBoundsError(
      [&](xpu::KernelStream& S) {
        P.kernel("CheckBoundsBuffer.scatter")
            .launch(S, xpu::grid(groupsFor(N, 64)), xpu::block(64))(Dest, DWhere, N);
      },
      {"CheckBoundsBuffer.scatter", "dest", "1256", "256"}, "scatter");
  // Work-items may have run before the failing one stopped the kernel; none wrote anything else.
  std::vector<int32_t> Got = fromDevice(Dest);
  for (uint32_t K = 0; K < Len; ++K)
    EXPECT_TRUE(Got[K] == -1 || Where[uint32_t(Got[K]) % N] == K)
        << "dest[" << K << "] = " << Got[K];
  expectSame(fromDevice(GuardBefore), std::vector<int32_t>(1024, -3), "guard before dest");
  expectSame(fromDevice(GuardAfter), std::vector<int32_t>(1024, -3), "guard after dest");

  // The stream works again, and an in-range run is not reported.
  Where[123] = 123;
  DWhere.upload(Where);
  run1D(P.kernel("CheckBoundsBuffer.scatter"), Len, 64, Dest, DWhere, Len);
  std::vector<int32_t> Want(Len);
  for (uint32_t K = 0; K < Len; ++K)
    Want[K] = int32_t(K);
  expectSame(fromDevice(Dest), Want, "scatter in range");

  // A read one past the end.
  const uint32_t TableLen = 100;
  std::vector<uint32_t> Index(N);
  for (uint32_t I = 0; I < N; ++I)
    Index[I] = I % TableLen;
  Index[77] = TableLen;
  std::vector<double> Table(TableLen);
  for (uint32_t K = 0; K < TableLen; ++K)
    Table[K] = K * 2.0;
  auto DTable = toDevice(Table);
  auto DIndex = toDevice(Index);
  auto Out = filledBuffer<int32_t>(N, -1);
  expectBoundsError(
      [&](xpu::KernelStream& S) {
        P.kernel("CheckBoundsBuffer.gather")
            .launch(S, xpu::grid(groupsFor(N, 64)), xpu::block(64))(Out, DTable, DIndex, N);
      },
      {"CheckBoundsBuffer.gather", "table", "100"}, "gather");
  Got = fromDevice(Out);
  // The failing work-item's own result is unspecified (the CPU finishes its workgroup with the
  // access skipped); every other element is untouched or right.
  for (uint32_t I = 0; I < N; ++I)
    EXPECT_TRUE(I == 77 || Got[I] == -1 || Got[I] == int32_t(Index[I] * 2))
        << "out[" << I << "] = " << Got[I];
}

TEST(BackendChecks, CheckBoundsInATwoDimensionalGridNamesTheFirstIndex) {
  // The CPU checks a workgroup's accesses together (the loop over work-items vectorizes); the
  // report still names the smallest index out of range and nothing past the buffer is touched.
  xpu::Program P = compileChecked("CheckBoundsDeferred");
  const uint32_t W = 45, H = 21;
  std::vector<float> Src = uniformData<float>(W * (H - 1), 31, -1, 1); // one row short
  auto DSrc = toDevice(Src);
  auto Dst = filledBuffer<float>(W * H, 7.0f);
  expectBoundsError(
      [&](xpu::KernelStream& S) {
        P.kernel("CheckBoundsDeferred.copy2D")
            .launch(S, xpu::grid(groupsFor(W, 16), groupsFor(H, 4)), xpu::block(16, 4))(Dst, DSrc,
                                                                                        W, H);
      },
      {"CheckBoundsDeferred.copy2D", "src", "of length " + std::to_string(Src.size())}, "copy2D");
  // Which failing index is reported: the first work-item's on a GPU, the smallest of the first
  // workgroup to report on the CPU; always one of the last row's.
  try {
    P.kernel("CheckBoundsDeferred.copy2D")
        .launch(xpu::KernelStream::current(), xpu::grid(groupsFor(W, 16), groupsFor(H, 4)),
                xpu::block(16, 4))(Dst, DSrc, W, H);
    xpu::KernelStream::current().sync();
    ADD_FAILURE() << "copy2D: the second run reported nothing";
  } catch (const xpu::LaunchError& E) {
    std::string What = E.what();
    size_t At = What.find("index ");
    ASSERT_NE(At, std::string::npos) << What;
    unsigned long Index = std::stoul(What.substr(At + 6));
    EXPECT_GE(Index, W * (H - 1)) << What;
    EXPECT_LT(Index, W * H) << What;
  }
  std::vector<float> Got = fromDevice(Dst);
  for (uint32_t I = 0; I < W * (H - 1); ++I)
    EXPECT_TRUE(Got[I] == 7.0f || Got[I] == Src[I] * 2.0f) << "dst[" << I << "] = " << Got[I];
}

TEST(BackendChecks, CheckBoundsStopsALoopThatWouldRunOffTheEnd) {
  // Inside a loop the check stops the kernel at once: a skipped load giving 0 would loop here
  // forever.
  xpu::Program P = compileChecked("CheckBoundsDeferred");
  const uint32_t N = 100;
  auto Data = filledBuffer<int32_t>(N, 0);
  auto Out = filledBuffer<uint32_t>(N, 0);
  expectBoundsError(
      [&](xpu::KernelStream& S) {
        P.kernel("CheckBoundsDeferred.skipZeros")
            .launch(S, xpu::grid(groupsFor(N, 32)), xpu::block(32))(Out, Data, N);
      },
      {"CheckBoundsDeferred.skipZeros", "data", "100"}, "skipZeros");
}

TEST(BackendChecks, CheckBoundsSharedArray) {
  xpu::Program P = compileChecked("CheckBoundsShared");
  const uint32_t N = 200, Block = 64;
  auto Out = filledBuffer<int32_t>(N, -1);
  expectBoundsError(
      [&](xpu::KernelStream& S) {
        P.kernel("CheckBoundsShared.run")
            .launch(S, xpu::grid(groupsFor(N, Block)), xpu::block(Block))(Out, 69u, N);
      },
      {"CheckBoundsShared.run", "lowTile", "69", "64"}, "shared");
  // Index 69 of lowTile is where highTile[5] would be on a naive layout: it must never read 99.
  std::vector<int32_t> Got = fromDevice(Out);
  for (uint32_t I = 0; I < N; ++I)
    EXPECT_TRUE(Got[I] == -1 || Got[I] == 7001) << "out[" << I << "] = " << Got[I];

  // In range: work-item 0 of each workgroup overwrites lowTile[5].
  run1D(P.kernel("CheckBoundsShared.run"), N, Block, Out, 5u, N);
  std::vector<int32_t> Want(N);
  for (uint32_t I = 0; I < N; ++I)
    Want[I] = I % Block == 5 ? 7099 : 7001;
  expectSame(fromDevice(Out), Want, "CheckBoundsShared in range");
}

/// The index a bounds failure names (the number after "index ", a negative one as printed or as
/// its 64-bit unsigned value), or LLONG_MIN without one.
long long reportedIndex(const std::string& What) {
  size_t At = What.find("index ");
  if (At == std::string::npos)
    return LLONG_MIN;
  try {
    return (long long)std::stoull(What.substr(At + 6));
  } catch (const std::exception&) {
    return LLONG_MIN;
  }
}

/// Launches, expects a bounds failure at sync naming Kernel and Param, and returns its index.
template <class LaunchFn>
long long boundsFailureIndex(LaunchFn Launch, const std::string& Kernel, const std::string& Param) {
  xpu::KernelStream& S = xpu::KernelStream::current();
  try {
    Launch(S);
    S.sync();
    ADD_FAILURE() << Kernel << ": no out-of-range index was reported";
  } catch (const xpu::LaunchError& E) {
    EXPECT_TRUE(contains(E.what(), Kernel)) << E.what();
    EXPECT_TRUE(contains(E.what(), "'" + Param + "'") || contains(E.what(), Param)) << E.what();
    return reportedIndex(E.what());
  }
  return LLONG_MIN;
}

TEST(BackendChecks, CheckBoundsStencilRowsInAndOutOfRange) {
  // Every row of the interior in range: the results, bit for bit (the values are small integers,
  // so every sum and product is exact).
  xpu::Program P = compileChecked("CheckBoundsRows");
  const uint32_t W = 77, H = 45;
  std::vector<float> In(W * H);
  for (uint32_t I = 0; I < W * H; ++I)
    In[I] = float(I % 13) - 6.0f;
  auto DIn = toDevice(In);
  auto Out = filledBuffer<float>(W * H, -100.0f);
  auto Launch = [&](xpu::KernelStream& S, xpu::KernelBuffer<float>& Src) {
    P.kernel("CheckBoundsRows.stencil")
        .launch(S, xpu::grid(groupsFor(W, 16), groupsFor(H, 4)), xpu::block(16, 4))(Out, Src, W, H);
  };
  Launch(xpu::KernelStream::current(), DIn);
  xpu::KernelStream::current().sync();
  std::vector<float> Want(W * H, -100.0f);
  for (uint32_t Y = 1; Y + 1 < H; ++Y)
    for (uint32_t X = 1; X + 1 < W; ++X) {
      uint32_t C = Y * W + X;
      Want[C] = 2.0f * In[C] + 0.5f * (In[C - W] + In[C + W] + In[C + 1] + In[C - 1]);
    }
  expectSame(fromDevice(Out), Want, "CheckBoundsRows.stencil");

  // The source a row and one element short: only the last interior row reads past it.
  std::vector<float> Short(In.begin(), In.begin() + W * (H - 1) - 1);
  auto DShort = toDevice(Short);
  long long Index = boundsFailureIndex([&](xpu::KernelStream& S) { Launch(S, DShort); },
                                       "CheckBoundsRows.stencil", "in");
  EXPECT_GE(Index, (long long)Short.size());
  EXPECT_LT(Index, (long long)(W * H));
}

TEST(BackendChecks, CheckBoundsWrappingAndSignedIndices) {
  xpu::Program P = compileChecked("CheckBoundsRows");
  const uint32_t N = 200;
  // In range: shift 0 writes every element.
  auto Out = filledBuffer<uint32_t>(N, 0xFFFFu);
  run1D(P.kernel("CheckBoundsRows.shifted"), N, 64, Out, 0u, N);
  std::vector<uint32_t> Want(N);
  for (uint32_t I = 0; I < N; ++I)
    Want[I] = I;
  expectSame(fromDevice(Out), Want, "CheckBoundsRows.shifted, shift 0");
  // Shift 5: work-items 0-4 index 2^32 - 5 .. 2^32 - 1.
  long long Index = boundsFailureIndex(
      [&](xpu::KernelStream& S) {
        P.kernel("CheckBoundsRows.shifted")
            .launch(S, xpu::grid(groupsFor(N, 64)), xpu::block(64))(Out, 5u, N);
      },
      "CheckBoundsRows.shifted", "out");
  EXPECT_GE(Index, (long long)0xFFFFFFFBu);
  EXPECT_LE(Index, (long long)0xFFFFFFFFu);

  auto Signed = filledBuffer<int32_t>(N, -1);
  run1D(P.kernel("CheckBoundsRows.signedShift"), N, 64, Signed, 0, int32_t(N));
  std::vector<int32_t> WantSigned(N);
  for (uint32_t I = 0; I < N; ++I)
    WantSigned[I] = int32_t(I);
  expectSame(fromDevice(Signed), WantSigned, "CheckBoundsRows.signedShift, shift 0");
  // Shift 3: work-items 0-2 index -3 .. -1.
  Index = boundsFailureIndex(
      [&](xpu::KernelStream& S) {
        P.kernel("CheckBoundsRows.signedShift")
            .launch(S, xpu::grid(groupsFor(N, 64)), xpu::block(64))(Signed, 3, int32_t(N));
      },
      "CheckBoundsRows.signedShift", "out");
  EXPECT_GE(Index, -3);
  EXPECT_LE(Index, -1);
}

TEST(BackendChecks, CheckBoundsFallingIndexAndColumnLoop) {
  xpu::Program P = compileChecked("CheckBoundsRows");
  const uint32_t N = 150;
  std::vector<float> In(N);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = float(I);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<float>(N, -1.0f);
  run1D(P.kernel("CheckBoundsRows.reverse"), N, 32, Out, DIn, N);
  std::vector<float> Want(N);
  for (uint32_t I = 0; I < N; ++I)
    Want[N - 1 - I] = In[I];
  expectSame(fromDevice(Out), Want, "CheckBoundsRows.reverse");
  // A destination one short: work-item 0 writes index N - 1.
  auto ShortOut = filledBuffer<float>(N - 1, -1.0f);
  long long Index = boundsFailureIndex(
      [&](xpu::KernelStream& S) {
        P.kernel("CheckBoundsRows.reverse")
            .launch(S, xpu::grid(groupsFor(N, 32)), xpu::block(32))(ShortOut, DIn, N);
      },
      "CheckBoundsRows.reverse", "out");
  EXPECT_EQ(Index, (long long)(N - 1));

  const uint32_t W = 37, H = 23;
  std::vector<float> Grid(W * H);
  for (uint32_t I = 0; I < W * H; ++I)
    Grid[I] = float(I % 7);
  auto DGrid = toDevice(Grid);
  auto Sums = filledBuffer<float>(W, -1.0f);
  run1D(P.kernel("CheckBoundsRows.columnSum"), W, 16, Sums, DGrid, W, H);
  std::vector<float> WantSums(W, 0.0f);
  for (uint32_t Y = 0; Y < H; ++Y)
    for (uint32_t X = 0; X < W; ++X)
      WantSums[X] += Grid[Y * W + X];
  expectSame(fromDevice(Sums), WantSums, "CheckBoundsRows.columnSum");
  // The grid one element short: the last column's last row is past it.
  std::vector<float> ShortGrid(Grid.begin(), Grid.end() - 1);
  auto DShortGrid = toDevice(ShortGrid);
  Index = boundsFailureIndex(
      [&](xpu::KernelStream& S) {
        P.kernel("CheckBoundsRows.columnSum")
            .launch(S, xpu::grid(groupsFor(W, 16)), xpu::block(16))(Sums, DShortGrid, W, H);
      },
      "CheckBoundsRows.columnSum", "in");
  EXPECT_EQ(Index, (long long)(W * H - 1));
}

TEST(BackendChecks, CheckBoundsAHoistedIndexAndABranchOnTheRow) {
  xpu::Program P = compileChecked("CheckBoundsRows");
  const uint32_t W = 45, H = 21, T = 3;
  std::vector<float> In(W * H), Src = {1.5f, 2.5f, 3.5f, 4.5f};
  for (uint32_t I = 0; I < W * H; ++I)
    In[I] = float(I % 11);
  auto DIn = toDevice(In), DSrc = toDevice(Src);
  auto Out = filledBuffer<float>(W * H, -1.0f);
  auto Launch = [&](xpu::KernelStream& S, xpu::KernelBuffer<float>& From, uint32_t At) {
    P.kernel("CheckBoundsRows.sourceRow")
        .launch(S, xpu::grid(groupsFor(W, 16), groupsFor(H, 4)), xpu::block(16, 4))(Out, DIn, From,
                                                                                    W, H, At);
  };
  Launch(xpu::KernelStream::current(), DSrc, T);
  xpu::KernelStream::current().sync();
  std::vector<float> Want(W * H);
  for (uint32_t Y = 0; Y < H; ++Y)
    for (uint32_t X = 0; X < W; ++X)
      Want[Y * W + X] = Y == 0 ? Src[T] : In[Y * W + X] + In[(Y - 1) * W + X];
  expectSame(fromDevice(Out), Want, "CheckBoundsRows.sourceRow");
  // The source index past the source: row 0 reports it.
  long long Index = boundsFailureIndex([&](xpu::KernelStream& S) { Launch(S, DSrc, 4); },
                                       "CheckBoundsRows.sourceRow", "src");
  EXPECT_EQ(Index, 4);
}

TEST(BackendChecks, CheckBoundsAnIndexBoundedByItsType) {
  xpu::Program P = compileChecked("CheckBoundsRows");
  const uint32_t N = 1000;
  std::vector<uint8_t> Data(N);
  for (uint32_t I = 0; I < N; ++I)
    Data[I] = uint8_t((I * 37) % 256);
  auto DData = toDevice(Data);
  auto Counts = filledBuffer<uint32_t>(256, 0u);
  run1D(P.kernel("CheckBoundsRows.byteCounts"), N, 64, Counts, DData, N);
  std::vector<uint32_t> Want(256, 0u);
  for (uint8_t V : Data)
    ++Want[V];
  expectSame(fromDevice(Counts), Want, "CheckBoundsRows.byteCounts");
  // Room for 200 counts: a byte of 200 or more is past them.
  auto Short = filledBuffer<uint32_t>(200, 0u);
  long long Index = boundsFailureIndex(
      [&](xpu::KernelStream& S) {
        P.kernel("CheckBoundsRows.byteCounts")
            .launch(S, xpu::grid(groupsFor(N, 64)), xpu::block(64))(Short, DData, N);
      },
      "CheckBoundsRows.byteCounts", "counts");
  EXPECT_GE(Index, 200);
  EXPECT_LE(Index, 255);
}

TEST(BackendChecks, CheckBoundsATriangularLoopAndARowWalk) {
  xpu::Program P = compileChecked("CheckBoundsRows");
  const uint32_t N = 19, M = 70;
  std::vector<float> D(N * M);
  for (uint32_t I = 0; I < N * M; ++I)
    D[I] = float(I % 5) - 2.0f;
  auto DD = toDevice(D);
  auto Sym = filledBuffer<float>(M * M, -9.0f);
  auto Products = [&](xpu::KernelStream& S, xpu::KernelBuffer<float>& From) {
    P.kernel("CheckBoundsRows.columnProducts")
        .launch(S, xpu::grid(groupsFor(M, 32)), xpu::block(32))(Sym, From, N, M);
  };
  Products(xpu::KernelStream::current(), DD);
  xpu::KernelStream::current().sync();
  std::vector<float> Want(M * M, -9.0f);
  for (uint32_t J1 = 0; J1 < M; ++J1)
    for (uint32_t J2 = J1 + 1; J2 < M; ++J2) {
      float S = 0.0f;
      for (uint32_t I = 0; I < N; ++I)
        S += D[I * M + J1] * D[I * M + J2];
      Want[J1 * M + J2] = S;
    }
  expectSame(fromDevice(Sym), Want, "CheckBoundsRows.columnProducts");
  // The grid one element short: the last row's last column is past it.
  std::vector<float> ShortD(D.begin(), D.end() - 1);
  auto DShortD = toDevice(ShortD);
  long long Index = boundsFailureIndex([&](xpu::KernelStream& S) { Products(S, DShortD); },
                                       "CheckBoundsRows.columnProducts", "d");
  EXPECT_EQ(Index, (long long)(N * M - 1));

  // Rows of 33 against an x of 33 and of 30: the walk reads x[30] first past it.
  const uint32_t Rows = 10, Cols = 33;
  std::vector<float> A(Rows * Cols), X(Cols);
  for (uint32_t I = 0; I < Rows * Cols; ++I)
    A[I] = float(I % 3);
  for (uint32_t J = 0; J < Cols; ++J)
    X[J] = float(J % 4) - 1.0f;
  auto DA = toDevice(A), DX = toDevice(X);
  auto Dots = filledBuffer<float>(Rows, -1.0f);
  run1D(P.kernel("CheckBoundsRows.rowDot"), Rows, 16, Dots, DA, DX, Rows, Cols);
  std::vector<float> WantDots(Rows, 0.0f);
  for (uint32_t I = 0; I < Rows; ++I)
    for (uint32_t J = 0; J < Cols; ++J)
      WantDots[I] += A[I * Cols + J] * X[J];
  expectSame(fromDevice(Dots), WantDots, "CheckBoundsRows.rowDot");
  std::vector<float> ShortX(X.begin(), X.begin() + 30);
  auto DShortX = toDevice(ShortX);
  Index = boundsFailureIndex(
      [&](xpu::KernelStream& S) {
        P.kernel("CheckBoundsRows.rowDot")
            .launch(S, xpu::grid(1), xpu::block(16))(Dots, DA, DShortX, Rows, Cols);
      },
      "CheckBoundsRows.rowDot", "x");
  EXPECT_EQ(Index, 30);
}

TEST(BackendChecks, CheckBoundsSharedTileTranspose) {
  xpu::Program P = compileChecked("CheckBoundsRows");
  const uint32_t W = 45, H = 38;
  std::vector<float> In(W * H);
  for (uint32_t I = 0; I < W * H; ++I)
    In[I] = float(I);
  auto DIn = toDevice(In);
  auto Out = filledBuffer<float>(W * H, -1.0f);
  auto Launch = [&](xpu::KernelStream& S, xpu::KernelBuffer<float>& Dst) {
    P.kernel("CheckBoundsRows.transpose")
        .launch(S, xpu::grid(groupsFor(W, 16), groupsFor(H, 16)), xpu::block(16, 16))(Dst, DIn, W,
                                                                                      H);
  };
  Launch(xpu::KernelStream::current(), Out);
  xpu::KernelStream::current().sync();
  std::vector<float> Want(W * H);
  for (uint32_t Y = 0; Y < H; ++Y)
    for (uint32_t X = 0; X < W; ++X)
      Want[X * H + Y] = In[Y * W + X];
  expectSame(fromDevice(Out), Want, "CheckBoundsRows.transpose");
  // A destination one short: the last element's work-item fails; the tile's reads stay in range.
  auto Short = filledBuffer<float>(W * H - 1, -1.0f);
  long long Index = boundsFailureIndex([&](xpu::KernelStream& S) { Launch(S, Short); },
                                       "CheckBoundsRows.transpose", "out");
  EXPECT_EQ(Index, (long long)(W * H - 1));
}

} // namespace
} // namespace conformance
