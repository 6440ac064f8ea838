// Row walks (RowWalks.cj) against the same loops on the host, bit for bit: the CPU fuses several
// work-items' walks (WorkItemJam), which must keep each work-item's own order of additions. The
// sizes leave the fused groups of four and the workgroups partly filled, and the rows' lengths
// cover the unrolled loop's remainders, one element and none.
#include "ConformanceSupport.h"

namespace conformance {
namespace {

TEST(RowWalks, EachWorkItemSumsItsRowInOrder) {
  xpu::Program P = compileProgram("RowWalks");
  for (uint32_t Rows : {1u, 5u, 37u, 130u})
    for (uint32_t Cols : {0u, 1u, 3u, 17u, 64u}) {
      std::vector<float> A = uniformData<float>(Rows * Cols + 1, 31 + Rows, -1, 1);
      std::vector<float> X = uniformData<float>(Cols + 1, 32 + Cols, -4, 4);
      auto DA = toDevice(A), DX = toDevice(X);
      auto DO = filledBuffer<float>(Rows + 9, 7.0f);
      run1D(P.kernel("RowWalks.rowDot"), Rows + 9, 32, DO, DA, DX, Rows, Cols);
      std::vector<float> Want(Rows + 9, 7.0f);
      for (uint32_t I = 0; I < Rows; ++I) {
        float Sum = 0.0f;
        for (uint32_t J = 0; J < Cols; ++J)
          Sum += A[I * Cols + J] * X[J];
        Want[I] = Sum;
      }
      expectSame(fromDevice(DO), Want,
                 "RowWalks.rowDot " + std::to_string(Rows) + " x " + std::to_string(Cols));
    }
}

TEST(RowWalks, ASumThatTrailsAnotherTakesItsPreviousValue) {
  xpu::Program P = compileProgram("RowWalks");
  for (uint32_t Rows : {5u, 37u})
    for (uint32_t Cols : {1u, 17u, 64u}) {
      std::vector<float> A = uniformData<float>(Rows * Cols + 1, 61 + Rows, -1, 1);
      std::vector<float> X = uniformData<float>(Cols + 1, 62 + Cols, -4, 4);
      auto DO = filledBuffer<float>(Rows + 9, 7.0f);
      run1D(P.kernel("RowWalks.trailing"), Rows + 9, 32, DO, toDevice(A), toDevice(X), Rows, Cols);
      std::vector<float> Want(Rows + 9, 7.0f);
      for (uint32_t I = 0; I < Rows; ++I) {
        float Before = 0.0f, Sum = 0.0f;
        for (uint32_t J = 0; J < Cols; ++J) {
          volatile float Product = A[I * Cols + J] * X[J], Half = 0.5f * Before;
          float Next = Sum + Product + Half;
          Before = Sum;
          Sum = Next;
        }
        Want[I] = Sum - Before;
      }
      expectSame(fromDevice(DO), Want,
                 "RowWalks.trailing " + std::to_string(Rows) + " x " + std::to_string(Cols));
    }
}

TEST(RowWalks, TwoWalksReadingAndWritingTheirWorkItemsElements) {
  xpu::Program P = compileProgram("RowWalks");
  const float Alpha = 1.5f;
  for (uint32_t N : {6u, 45u, 99u}) {
    std::vector<float> A = uniformData<float>(N * N, 41, -1, 1);
    std::vector<float> B = uniformData<float>(N * N, 42, -1, 1);
    std::vector<float> X = uniformData<float>(N, 43, -2, 2);
    std::vector<float> Y = uniformData<float>(N, 44, -8, 8);
    auto DA = toDevice(A), DB = toDevice(B), DX = toDevice(X), DY = toDevice(Y);
    auto DT = filledBuffer<float>(N, 3.0f);
    run1D(P.kernel("RowWalks.twoRows"), N, 16, DY, DT, DA, DB, DX, N, Alpha);
    std::vector<float> WantY(N), WantT(N);
    for (uint32_t I = 0; I < N; ++I) {
      float S = Y[I], U = 0.0f;
      for (uint32_t J = 0; J < N; ++J) {
        S += A[I * N + J] * X[J];
        U -= B[I * N + J] * X[J];
      }
      WantT[I] = U;
      WantY[I] = Alpha * S + U;
    }
    expectSame(fromDevice(DT), WantT, "RowWalks.twoRows t, n " + std::to_string(N));
    expectSame(fromDevice(DY), WantY, "RowWalks.twoRows y, n " + std::to_string(N));
  }
}

TEST(RowWalks, ARankKUpdateWalksTwoRowsPerElement) {
  xpu::Program P = compileProgram("RowWalks");
  const float Alpha = 0.75f, Beta = -1.25f;
  for (uint32_t N : {3u, 34u, 70u})
    for (uint32_t M : {2u, 29u}) {
      std::vector<float> A = uniformData<float>(N * M, 51 + M, -1, 1);
      std::vector<float> C = uniformData<float>(N * N, 52 + N, -1, 1);
      auto DA = toDevice(A), DC = toDevice(C);
      runKernel(P.kernel("RowWalks.rankK"), xpu::grid(groupsFor(N, 32), groupsFor(N, 8)),
                xpu::block(32, 8), DC, DA, N, M, Alpha, Beta);
      std::vector<float> Want(N * N);
      for (uint32_t I = 0; I < N; ++I)
        for (uint32_t J = 0; J < N; ++J) {
          float Sum = C[I * N + J] * Beta;
          for (uint32_t K = 0; K < M; ++K)
            Sum += Alpha * A[I * M + K] * A[J * M + K];
          Want[I * N + J] = Sum;
        }
      expectSame(fromDevice(DC), Want,
                 "RowWalks.rankK n " + std::to_string(N) + ", m " + std::to_string(M));
    }
}

/// c[i][j] = beta * c[i][j] + alpha * sum over k of rows i and j of a (and b, for rank 2k), in k
/// order, as one work-item does it.
std::vector<float> rankUpdate(const std::vector<float>& C, const std::vector<float>& A,
                              const std::vector<float>* B, uint32_t N, uint32_t M, float Alpha,
                              float Beta) {
  std::vector<float> Want(size_t(N) * N);
  for (uint32_t I = 0; I < N; ++I)
    for (uint32_t J = 0; J < N; ++J) {
      float Sum = C[I * N + J] * Beta;
      for (uint32_t K = 0; K < M; ++K) {
        volatile float P = Alpha * A[I * M + K] * (B ? (*B)[J * M + K] : A[J * M + K]);
        if (B) {
          volatile float Q = Alpha * (*B)[I * M + K] * A[J * M + K];
          volatile float Both = P + Q;
          Sum += Both;
        } else {
          Sum += P;
        }
      }
      Want[I * N + J] = Sum;
    }
  return Want;
}

// The rows of a workgroup walk the same rows of a: the CPU keeps the first row's transposed
// blocks for the others (ColumnCache). Group shapes one row high (nothing kept), narrower and
// wider than a vector of work-items, rows longer than a vector and not a multiple of it, and a
// matrix whose blocks overflow the cache (the rest of the row transposes as before).
TEST(RowWalks, TheRowsOfAGroupShareTheirWalksTransposedBlocks) {
  xpu::Program P = compileProgram("RowWalks");
  const float Alpha = 0.75f, Beta = -1.25f;
  struct Shape {
    uint32_t N, M, BX, BY;
  };
  for (Shape S : {Shape{70, 29, 32, 8}, Shape{45, 67, 16, 16}, Shape{100, 40, 64, 4},
                  Shape{37, 33, 8, 8}, Shape{50, 64, 256, 1}, Shape{300, 600, 32, 8}}) {
    std::vector<float> A = uniformData<float>(S.N * S.M, 71 + S.M, -1, 1);
    std::vector<float> C = uniformData<float>(S.N * S.N, 72 + S.N, -1, 1);
    const std::string Name = "n " + std::to_string(S.N) + ", m " + std::to_string(S.M) +
                             ", block " + std::to_string(S.BX) + "x" + std::to_string(S.BY);
    for (const char* K : {"RowWalks.rankK", "RowWalks.rankKGroups"}) {
      auto DA = toDevice(A), DC = toDevice(C);
      runKernel(P.kernel(K), xpu::grid(groupsFor(S.N, S.BX), groupsFor(S.N, S.BY)),
                xpu::block(S.BX, S.BY), DC, DA, S.N, S.M, Alpha, Beta);
      expectSame(fromDevice(DC), rankUpdate(C, A, nullptr, S.N, S.M, Alpha, Beta),
                 std::string(K) + " " + Name);
    }
  }
}

TEST(RowWalks, TwoWalksPerElementShareTheirBlocksToo) {
  xpu::Program P = compileProgram("RowWalks");
  const float Alpha = 1.5f, Beta = 0.5f;
  for (uint32_t N : {20u, 77u})
    for (uint32_t M : {9u, 48u}) {
      std::vector<float> A = uniformData<float>(N * M, 81 + M, -1, 1);
      std::vector<float> B = uniformData<float>(N * M, 82 + M, -1, 1);
      std::vector<float> C = uniformData<float>(N * N, 83 + N, -1, 1);
      auto DA = toDevice(A), DB = toDevice(B), DC = toDevice(C);
      runKernel(P.kernel("RowWalks.rank2K"), xpu::grid(groupsFor(N, 32), groupsFor(N, 8)),
                xpu::block(32, 8), DC, DA, DB, N, M, Alpha, Beta);
      expectSame(fromDevice(DC), rankUpdate(C, A, &B, N, M, Alpha, Beta),
                 "RowWalks.rank2K n " + std::to_string(N) + ", m " + std::to_string(M));
    }
}

TEST(RowWalks, WalksThatMoveWithTheRowAndWalksOfRowsJustWritten) {
  xpu::Program P = compileProgram("RowWalks");
  const uint32_t N = 40, M = 35;
  std::vector<float> A = uniformData<float>(2 * N * M, 91, -1, 1);
  auto DA = toDevice(A);
  auto DC = filledBuffer<float>(N * N, 0.0f);
  runKernel(P.kernel("RowWalks.diagonalWalk"), xpu::grid(groupsFor(N, 32), groupsFor(N, 8)),
            xpu::block(32, 8), DC, DA, N, M);
  std::vector<float> Want(N * N);
  for (uint32_t I = 0; I < N; ++I)
    for (uint32_t J = 0; J < N; ++J) {
      float Sum = 0.0f;
      for (uint32_t K = 0; K < M; ++K) {
        volatile float P = A[(I + J) * M + K] * A[I * M + K];
        Sum += P;
      }
      Want[I * N + J] = Sum;
    }
  expectSame(fromDevice(DC), Want, "RowWalks.diagonalWalk");

  std::vector<float> W = uniformData<float>(N * M, 92, -1, 1);
  auto DW = toDevice(W);
  runKernel(P.kernel("RowWalks.writeThenWalk"), xpu::grid(groupsFor(N, 32), groupsFor(N, 8)),
            xpu::block(32, 8), DC, DW, N, M);
  for (uint32_t J = 0; J < N; ++J)
    W[J * M] = float(J + 1);
  for (uint32_t I = 0; I < N; ++I)
    for (uint32_t J = 0; J < N; ++J) {
      float Sum = 0.0f;
      for (uint32_t K = 0; K < M; ++K) {
        volatile float P = W[J * M + K] * float(K + 1);
        Sum += P;
      }
      Want[I * N + J] = Sum;
    }
  expectSame(fromDevice(DC), Want, "RowWalks.writeThenWalk");
}

TEST(RowWalks, Float64RowsWithABranchInTheWalk) {
  xpu::Program P = compileProgram("RowWalks");
  const uint32_t Rows = 27, Cols = 19;
  std::vector<double> A = uniformData<double>(Rows * Cols, 61, -1, 1);
  std::vector<double> X = uniformData<double>(Cols, 62, -3, 3);
  auto DA = toDevice(A), DX = toDevice(X);
  auto DO = filledBuffer<double>(Rows, 0.0);
  run1D(P.kernel("RowWalks.rowBranch64"), Rows, 8, DO, DA, DX, Rows, Cols);
  std::vector<double> Want(Rows);
  for (uint32_t I = 0; I < Rows; ++I) {
    double S = 1.0;
    for (uint32_t J = 0; J < Cols; ++J) {
      double V = A[I * Cols + J];
      if (V > 0.0)
        S += V * X[J];
      else
        S -= V * V;
    }
    Want[I] = S;
  }
  expectSame(fromDevice(DO), Want, "RowWalks.rowBranch64");
}

TEST(RowWalks, RowsOfTheirOwnLengths) {
  xpu::Program P = compileProgram("RowWalks");
  const uint32_t Rows = 41, Cols = 23;
  std::vector<float> A = uniformData<float>(Rows * Cols, 63, -1, 1);
  std::vector<uint32_t> Len(Rows);
  for (uint32_t I = 0; I < Rows; ++I)
    Len[I] = (I * 7) % (Cols + 1);
  auto DA = toDevice(A);
  auto DL = toDevice(Len);
  auto DO = filledBuffer<float>(Rows, -1.0f);
  run1D(P.kernel("RowWalks.ragged"), Rows, 16, DO, DA, DL, Rows, Cols);
  std::vector<float> Want(Rows);
  for (uint32_t I = 0; I < Rows; ++I) {
    float S = 0.0f;
    for (uint32_t J = 0; J < Len[I]; ++J)
      S += A[I * Cols + J] * float(J + 1);
    Want[I] = S;
  }
  expectSame(fromDevice(DO), Want, "RowWalks.ragged");
}

} // namespace
} // namespace conformance
