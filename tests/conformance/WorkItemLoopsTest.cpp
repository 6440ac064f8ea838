// Loops inside work-items (WorkItemLoops.cj) against the same loops on the host, with sizes that
// leave the last workgroups partly idle. On the CPU these are the shapes kir::ImplicitLoopBarriers
// runs once per group (the ctest conformance_cpu_loop_barriers_all runs them with every uniform
// loop so).
#include "ConformanceSupport.h"

namespace conformance {
namespace {

TEST(WorkItemLoops, GuardedMatmulOverPartialGroups) {
  xpu::Program P = compileProgram("WorkItemLoops");
  const uint32_t Rows = 37, Cols = 45, Inner = 29;
  std::vector<float> A = uniformData<float>(Rows * Inner, 11, -1, 1);
  std::vector<float> B = uniformData<float>(Inner * Cols, 12, -1, 1);
  auto DA = toDevice(A), DB = toDevice(B);
  auto DC = filledBuffer<float>(Rows * Cols, -7.0f);
  runKernel(P.kernel("WorkItemLoops.matmul"), xpu::grid(groupsFor(Cols, 16), groupsFor(Rows, 8)),
            xpu::block(16, 8), DC, DA, DB, Rows, Cols, Inner);
  std::vector<float> Want(Rows * Cols);
  for (uint32_t I = 0; I < Rows; ++I)
    for (uint32_t J = 0; J < Cols; ++J) {
      float Sum = 0.0f;
      for (uint32_t K = 0; K < Inner; ++K)
        Sum += A[I * Inner + K] * B[K * Cols + J];
      Want[I * Cols + J] = Sum;
    }
  expectSame(fromDevice(DC), Want, "WorkItemLoops.matmul");
}

TEST(WorkItemLoops, AReturnInsideTheLoopLeavesOnlyThatWorkItem) {
  xpu::Program P = compileProgram("WorkItemLoops");
  const uint32_t Rows = 40, Cols = 150;
  std::vector<float> Data = uniformData<float>(Rows * Cols, 13, 0, 1);
  Rng R(14);
  for (uint32_t J = 0; J < Cols; J += 3) // a third of the columns have a negative element
    Data[(R.next() % Rows) * Cols + J] = -1.0f;
  auto DD = toDevice(Data);
  auto DO = filledBuffer<float>(Cols + 10, 5.0f);
  run1D(P.kernel("WorkItemLoops.sumUntilNegative"), Cols + 10, 32, DO, DD, Rows, Cols);
  std::vector<float> Want(Cols + 10, 5.0f);
  for (uint32_t J = 0; J < Cols; ++J) {
    float Sum = 0.0f;
    bool Negative = false;
    for (uint32_t Row = 0; Row < Rows && !Negative; ++Row) {
      float V = Data[Row * Cols + J];
      if (V < 0.0f) {
        Want[J] = -float(Row + 1);
        Negative = true;
      } else {
        Sum += V;
      }
    }
    if (!Negative)
      Want[J] = Sum;
  }
  expectSame(fromDevice(DO), Want, "WorkItemLoops.sumUntilNegative");
}

TEST(WorkItemLoops, BothBranchesOfADivergentIfRunTheirLoops) {
  xpu::Program P = compileProgram("WorkItemLoops");
  const uint32_t Rows = 23, Cols = 100, Total = 140;
  std::vector<float> Data = uniformData<float>(Rows * Cols, 15, -1, 1);
  auto DD = toDevice(Data);
  auto DO = filledBuffer<float>(Total, 0.0f);
  run1D(P.kernel("WorkItemLoops.guardWithElse"), Total, 64, DO, DD, Rows, Cols, Total);
  std::vector<float> Want(Total);
  for (uint32_t J = 0; J < Total; ++J) {
    if (J < Cols) {
      float Sum = 0.0f;
      for (uint32_t Row = 0; Row < Rows; ++Row)
        if (((J + Row) & 3) != 0)
          Sum += Data[Row * Cols + J];
      Want[J] = Sum;
    } else {
      Want[J] = float(Rows * (Rows - 1) / 2);
    }
  }
  expectSame(fromDevice(DO), Want, "WorkItemLoops.guardWithElse");
}

TEST(WorkItemLoops, CountsFromABufferNestedLoopsAndTheCounterAfterwards) {
  xpu::Program P = compileProgram("WorkItemLoops");
  const uint32_t Rows = 31, Cols = 70;
  std::vector<float> Data = uniformData<float>(Rows * Cols, 16, -1, 1);
  std::vector<uint32_t> Params = {3, Rows, 4};
  auto DD = toDevice(Data);
  auto DP = toDevice(Params);
  auto DO = filledBuffer<float>(Cols, 0.0f);
  run1D(P.kernel("WorkItemLoops.nested"), Cols, 32, DO, DD, DP, Cols);
  std::vector<float> Want(Cols);
  for (uint32_t J = 0; J < Cols; ++J) {
    float Sum = 0.0f;
    uint32_t Row = 0;
    for (uint32_t Pass = 0; Pass < Params[0]; ++Pass)
      for (Row = Pass; Row < Rows; Row += Params[2])
        Sum += Data[Row * Cols + J] * float(Pass + 1);
    Want[J] = Sum + float(Row);
  }
  expectSame(fromDevice(DO), Want, "WorkItemLoops.nested");
}

TEST(WorkItemLoops, ATriangleOfLoopsWithTheirOwnTripCounts) {
  xpu::Program P = compileProgram("WorkItemLoops");
  const uint32_t N = 19, M = 53;
  std::vector<float> Data = uniformData<float>(N * M, 17, -1, 1);
  auto DD = toDevice(Data);
  for (uint32_t Step : {1u, 3u}) {
    auto DS = filledBuffer<float>(M * M, -5.0f);
    run1D(P.kernel("WorkItemLoops.triangle"), M + 7, 32, DS, DD, N, M, Step);
    std::vector<float> Want(M * M, -5.0f);
    for (uint32_t J1 = 0; J1 < M; ++J1) {
      Want[J1 * M + J1] = 1.0f;
      for (uint32_t J2 = J1 + 1; J2 < M; J2 += Step) {
        float Sum = 0.0f;
        for (uint32_t I = 0; I < N; ++I)
          Sum += Data[I * M + J1] * Data[I * M + J2];
        Want[J1 * M + J2] = Sum;
        Want[J2 * M + J1] = Sum + float(J2);
      }
    }
    expectSame(fromDevice(DS), Want, "WorkItemLoops.triangle, step " + std::to_string(Step));
  }
}

TEST(WorkItemLoops, ADivergentBranchAroundUniformLoopsReadingOneAddress) {
  // Whole workgroups (k = 70, 149) and parts of one (k = 0, 5) skip the branch; the first
  // running work-item is then not the group's first.
  xpu::Program P = compileProgram("WorkItemLoops");
  const uint32_t M = 37, N = 150;
  std::vector<float> A = uniformData<float>(M * N, 18, -1, 1);
  std::vector<float> Q = uniformData<float>(M * N, 19, -1, 1);
  auto DQ = toDevice(Q);
  for (uint32_t K : {0u, 5u, 70u, 149u}) {
    auto DA = toDevice(A);
    auto DR = filledBuffer<float>(N * N, -3.0f);
    run1D(P.kernel("WorkItemLoops.orthogonalize"), N + 10, 64, DA, DR, DQ, M, N, K);
    std::vector<float> WantA = A, WantR(N * N, -3.0f);
    for (uint32_t J = K + 1; J < N; ++J) {
      float Sum = 0.0f;
      for (uint32_t I = 0; I < M; ++I)
        Sum += Q[I * N + K] * A[I * N + J];
      WantR[K * N + J] = Sum;
      for (uint32_t I = 0; I < M; ++I)
        WantA[I * N + J] = A[I * N + J] - Q[I * N + K] * Sum;
    }
    std::string What = "WorkItemLoops.orthogonalize, k = " + std::to_string(K);
    expectSame(fromDevice(DR), WantR, What + ": r");
    expectSame(fromDevice(DA), WantA, What + ": a");
  }
}

TEST(WorkItemLoops, EveryTripCountAroundAnUnrolledLoopAndAReturnInsideIt) {
  xpu::Program P = compileProgram("WorkItemLoops");
  const uint32_t Rows = 11, Cols = 45, StopAt = 7;
  std::vector<float> Data = uniformData<float>(Rows * Cols, 20, -1, 1);
  auto DD = toDevice(Data);
  for (uint32_t Count = 0; Count <= Rows; ++Count) {
    auto DO = filledBuffer<float>(Cols, 9.0f);
    run1D(P.kernel("WorkItemLoops.columnSumsUpTo"), Cols + 3, 32, DO, DD, Count, Cols, StopAt);
    std::vector<float> Want(Cols);
    for (uint32_t J = 0; J < Cols; ++J) {
      float Sum = 0.0f;
      bool Left = false;
      for (uint32_t R = 0; R < Count && !Left; ++R) {
        if (J == StopAt && R == 5) {
          Want[J] = -Sum;
          Left = true;
          break;
        }
        Sum += Data[R * Cols + J];
      }
      if (!Left)
        Want[J] = Sum;
    }
    expectSame(fromDevice(DO), Want,
               "WorkItemLoops.columnSumsUpTo, count " + std::to_string(Count));
  }
}

TEST(WorkItemLoops, ASignedCounterFromBelowZero) {
  xpu::Program P = compileProgram("WorkItemLoops");
  const uint32_t Rows = 11, Cols = 37;
  const int32_t First = -5;
  std::vector<float> Data = uniformData<float>(Rows * Cols, 21, -1, 1);
  auto DD = toDevice(Data);
  for (int32_t Last : {-7, -5, -4, -2, 0, 2, 6}) {
    auto DO = filledBuffer<float>(Cols, 9.0f);
    run1D(P.kernel("WorkItemLoops.signedCounter"), Cols, 32, DO, DD, First, uint32_t(Last + 8),
          Cols);
    std::vector<float> Want(Cols, 0.0f);
    for (uint32_t J = 0; J < Cols; ++J)
      for (int32_t R = First; R < Last; ++R)
        Want[J] += Data[uint32_t(R - First) * Cols + J];
    expectSame(fromDevice(DO), Want, "WorkItemLoops.signedCounter, last " + std::to_string(Last));
  }
}

// Jammed by four on the CPU (kir::LoopJam, `LoopJam.*` checks it takes this shape): every start
// below, at and past the first column, trip counts that are and are not multiples of four, and
// an inner loop that runs no time; each element the same bits as the loops one at a time.
TEST(WorkItemLoops, AJammedNestComputesEachIterationAsItsOwn) {
  xpu::Program P = compileProgram("WorkItemLoops");
  const int32_t M = 37;
  std::vector<float> Data = uniformData<float>(size_t(6) * M, 23, -1, 1);
  auto DD = toDevice(Data);
  for (uint32_t N : {0u, 5u})
    for (int32_t From : {-6, -1, 0, 1, 3, 40}) {
      auto DO = filledBuffer<float>(size_t(M) * M, -3.0f);
      run1D(P.kernel("WorkItemLoops.jammedNest"), uint32_t(M) + 5, 32, DO, DD, N, M, From);
      std::vector<float> Want(size_t(M) * M, -3.0f);
      for (int32_t J1 = 0; J1 < M; ++J1)
        for (int32_t J2 = J1 + From; J2 < M; ++J2) {
          float W = J2 < 0 ? 0.5f : Data[uint32_t(J2)];
          float Sum = W;
          for (uint32_t I = 0; I < N; ++I)
            Sum += Data[I * uint32_t(M) + uint32_t(J1)] * W;
          if (J2 >= 0)
            Want[size_t(J1) * M + size_t(J2)] = Sum;
        }
      expectSame(fromDevice(DO), Want,
                 "WorkItemLoops.jammedNest, n " + std::to_string(N) + ", from " +
                     std::to_string(From));
    }
}

} // namespace
} // namespace conformance
