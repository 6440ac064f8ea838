// The OpenMP peers (see PolyBenchPeers.h). Where an element is a sum over a unit-stride row the
// peer vectorizes the sum itself (`omp simd reduction`, a different order of the same terms);
// where it is a sum down a column the peer streams rows across a block of such sums, each
// still added in the kernel's order.
#include "PolyBenchPeers.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <omp.h>
#include <stdexcept>

namespace cajeta::polybench {

namespace {

using I64 = int64_t;

// Column sums are blocked so that a block of accumulators stays in L1 while rows stream past.
constexpr I64 ColumnBlock = 256;

/// C = A B (A: ni x nk, B: nk x nj), rows of C accumulated over k in order.
void product(float* __restrict C, const float* __restrict A, const float* __restrict B, I64 NI,
             I64 NJ, I64 NK) {
#pragma omp parallel for schedule(static)
  for (I64 I = 0; I < NI; ++I) {
    float* __restrict Row = C + I * NJ;
    for (I64 J = 0; J < NJ; ++J)
      Row[J] = 0.0f;
    for (I64 K = 0; K < NK; ++K) {
      const float Aik = A[I * NK + K];
      const float* __restrict BRow = B + K * NJ;
#pragma omp simd
      for (I64 J = 0; J < NJ; ++J)
        Row[J] += Aik * BRow[J];
    }
  }
}

/// Y[i] = Init[i] (or 0) + sum over j of M[i][j] X[j], each sum vectorized.
void rowDots(float* __restrict Y, const float* __restrict M, const float* __restrict X, I64 Rows,
             I64 Cols, bool Accumulate) {
#pragma omp parallel for schedule(static)
  for (I64 I = 0; I < Rows; ++I) {
    float S = Accumulate ? Y[I] : 0.0f;
    const float* __restrict Row = M + I * Cols;
#pragma omp simd reduction(+ : S)
    for (I64 J = 0; J < Cols; ++J)
      S += Row[J] * X[J];
    Y[I] = S;
  }
}

/// Y[j] = Init[j] (or 0) + sum over i of M[i][j] X[i], in order of i.
void columnDots(float* __restrict Y, const float* __restrict M, const float* __restrict X, I64 Rows,
                I64 Cols, bool Accumulate) {
#pragma omp parallel for schedule(static)
  for (I64 J0 = 0; J0 < Cols; J0 += ColumnBlock) {
    const I64 J1 = std::min(Cols, J0 + ColumnBlock);
    if (!Accumulate)
      for (I64 J = J0; J < J1; ++J)
        Y[J] = 0.0f;
    for (I64 I = 0; I < Rows; ++I) {
      const float Xi = X[I];
      const float* __restrict Row = M + I * Cols;
#pragma omp simd
      for (I64 J = J0; J < J1; ++J)
        Y[J] += Row[J] * Xi;
    }
  }
}

/// Mean[j] = the sum of column j of Data (n x m), in order, over n.
void columnMeans(float* __restrict Mean, const float* __restrict Data, I64 N, I64 M) {
#pragma omp parallel for schedule(static)
  for (I64 J0 = 0; J0 < M; J0 += ColumnBlock) {
    const I64 J1 = std::min(M, J0 + ColumnBlock);
    float Sum[ColumnBlock] = {};
    for (I64 I = 0; I < N; ++I)
#pragma omp simd
      for (I64 J = J0; J < J1; ++J)
        Sum[J - J0] += Data[I * M + J];
    for (I64 J = J0; J < J1; ++J)
      Mean[J] = Sum[J - J0] / float(N);
  }
}

/// Sym[j1][j2] for j2 >= j1 (> j1 with a unit diagonal): row j1 accumulates Data[i][j1] times
/// row i of Data over i in order; then mirrored.
void gram(float* __restrict Sym, const float* __restrict Data, I64 N, I64 M, bool UnitDiagonal) {
#pragma omp parallel for schedule(dynamic, 4)
  for (I64 J1 = 0; J1 < M; ++J1) {
    float* __restrict Row = Sym + J1 * M;
    const I64 From = UnitDiagonal ? J1 + 1 : J1;
    for (I64 J2 = From; J2 < M; ++J2)
      Row[J2] = 0.0f;
    for (I64 I = 0; I < N; ++I) {
      const float D1 = Data[I * M + J1];
      const float* __restrict DRow = Data + I * M;
#pragma omp simd
      for (I64 J2 = From; J2 < M; ++J2)
        Row[J2] += D1 * DRow[J2];
    }
    if (UnitDiagonal)
      Row[J1] = 1.0f;
    for (I64 J2 = From; J2 < M; ++J2)
      Sym[J2 * M + J1] = Row[J2];
  }
}

void mm2(Arrays A, const Dims& D) {
  product(A[0], A[2], A[3], D.NI, D.NJ, D.NK);
  product(A[1], A[0], A[4], D.NI, D.NL, D.NJ);
}

void mm3(Arrays A, const Dims& D) {
  product(A[0], A[3], A[4], D.NI, D.NJ, D.NK);
  product(A[1], A[5], A[6], D.NJ, D.NL, D.NM);
  product(A[2], A[0], A[1], D.NI, D.NL, D.NJ);
}

void atax(Arrays A, const Dims& D) {
  rowDots(A[1], A[2], A[3], D.NI, D.NJ, false);
  columnDots(A[0], A[2], A[1], D.NI, D.NJ, false);
}

void bicg(Arrays A, const Dims& D) {
  columnDots(A[0], A[2], A[3], D.NI, D.NJ, false);
  rowDots(A[1], A[2], A[4], D.NI, D.NJ, false);
}

void corr(Arrays A, const Dims& D) {
  float* __restrict Sym = A[0], * __restrict Data = A[1], * __restrict Mean = A[2], * __restrict Std = A[3];
  const I64 N = D.NI, M = D.NJ;
  columnMeans(Mean, Data, N, M);
#pragma omp parallel for schedule(static)
  for (I64 J0 = 0; J0 < M; J0 += ColumnBlock) {
    const I64 J1 = std::min(M, J0 + ColumnBlock);
    float Sum[ColumnBlock] = {};
    for (I64 I = 0; I < N; ++I)
#pragma omp simd
      for (I64 J = J0; J < J1; ++J) {
        const float Dev = Data[I * M + J] - Mean[J];
        Sum[J - J0] += Dev * Dev;
      }
    for (I64 J = J0; J < J1; ++J) {
      const float S = std::sqrt(Sum[J - J0] / float(N));
      Std[J] = S <= 0.005f ? 1.0f : S;
    }
  }
  const float SqrtN = std::sqrt(float(N));
#pragma omp parallel for schedule(static)
  for (I64 I = 0; I < N; ++I)
#pragma omp simd
    for (I64 J = 0; J < M; ++J)
      Data[I * M + J] = (Data[I * M + J] - Mean[J]) / (SqrtN * Std[J]);
  gram(Sym, Data, N, M, true);
}

void covar(Arrays A, const Dims& D) {
  float* __restrict Sym = A[0], * __restrict Data = A[1], * __restrict Mean = A[2];
  const I64 N = D.NI, M = D.NJ;
  columnMeans(Mean, Data, N, M);
#pragma omp parallel for schedule(static)
  for (I64 I = 0; I < N; ++I)
#pragma omp simd
    for (I64 J = 0; J < M; ++J)
      Data[I * M + J] = Data[I * M + J] - Mean[J];
  gram(Sym, Data, N, M, false);
}

void gemm(Arrays A, const Dims& D) {
  float* __restrict C = A[0];
  const float* __restrict X = A[1], * __restrict Y = A[2];
  const I64 NI = D.NI, NJ = D.NJ, NK = D.NK;
#pragma omp parallel for schedule(static)
  for (I64 I = 0; I < NI; ++I) {
    float* __restrict Row = C + I * NJ;
#pragma omp simd
    for (I64 J = 0; J < NJ; ++J)
      Row[J] = Row[J] * D.Beta;
    for (I64 K = 0; K < NK; ++K) {
      const float AlphaXik = D.Alpha * X[I * NK + K];
      const float* __restrict YRow = Y + K * NJ;
#pragma omp simd
      for (I64 J = 0; J < NJ; ++J)
        Row[J] += AlphaXik * YRow[J];
    }
  }
}

void gesummv(Arrays A, const Dims& D) {
  float* __restrict Y = A[0], * __restrict Tmp = A[1];
  const float* __restrict MA = A[2], * __restrict MB = A[3], * __restrict X = A[4];
  const I64 N = D.NI;
#pragma omp parallel for schedule(static)
  for (I64 I = 0; I < N; ++I) {
    float T = 0.0f, S = 0.0f;
#pragma omp simd reduction(+ : T, S)
    for (I64 J = 0; J < N; ++J) {
      T += MA[I * N + J] * X[J];
      S += MB[I * N + J] * X[J];
    }
    Tmp[I] = T;
    Y[I] = D.Alpha * T + D.Beta * S;
  }
}

void gramschm(Arrays A, const Dims& D) {
  float* __restrict M = A[0], * __restrict R = A[1], * __restrict Q = A[2];
  const I64 Rows = D.NI, N = D.NJ;
  for (I64 K = 0; K < N; ++K) {
    float Nrm = 0.0f;
#pragma omp simd reduction(+ : Nrm)
    for (I64 I = 0; I < Rows; ++I)
      Nrm += M[I * N + K] * M[I * N + K];
    const float Rkk = std::sqrt(Nrm);
    R[K * N + K] = Rkk;
    for (I64 I = 0; I < Rows; ++I)
      Q[I * N + K] = M[I * N + K] / Rkk;
    float* __restrict RRow = R + K * N;
#pragma omp parallel
    {
#pragma omp for schedule(static)
      for (I64 J0 = K + 1; J0 < N; J0 += ColumnBlock) {
        const I64 J1 = std::min(N, J0 + ColumnBlock);
        for (I64 J = J0; J < J1; ++J)
          RRow[J] = 0.0f;
        for (I64 I = 0; I < Rows; ++I) {
          const float Qik = Q[I * N + K];
#pragma omp simd
          for (I64 J = J0; J < J1; ++J)
            RRow[J] += Qik * M[I * N + J];
        }
      }
#pragma omp for schedule(static)
      for (I64 I = 0; I < Rows; ++I) {
        const float Qik = Q[I * N + K];
#pragma omp simd
        for (I64 J = K + 1; J < N; ++J)
          M[I * N + J] = M[I * N + J] - Qik * RRow[J];
      }
    }
  }
}

void mvt(Arrays A, const Dims& D) {
  rowDots(A[0], A[2], A[3], D.NI, D.NI, true);
  columnDots(A[1], A[2], A[4], D.NI, D.NI, true);
}

void syr2k(Arrays A, const Dims& D) {
  float* __restrict C = A[0];
  const float* __restrict X = A[1], * __restrict Y = A[2];
  const I64 N = D.NI, M = D.NK;
#pragma omp parallel for schedule(static)
  for (I64 I = 0; I < N; ++I)
    for (I64 J = 0; J < N; ++J) {
      float S = C[I * N + J] * D.Beta;
#pragma omp simd reduction(+ : S)
      for (I64 K = 0; K < M; ++K)
        S += D.Alpha * X[I * M + K] * Y[J * M + K] + D.Alpha * Y[I * M + K] * X[J * M + K];
      C[I * N + J] = S;
    }
}

void syrk(Arrays A, const Dims& D) {
  float* __restrict C = A[0];
  const float* __restrict X = A[1];
  const I64 N = D.NI, M = D.NK;
#pragma omp parallel for schedule(static)
  for (I64 I = 0; I < N; ++I)
    for (I64 J = 0; J < N; ++J) {
      float S = C[I * N + J] * D.Beta;
#pragma omp simd reduction(+ : S)
      for (I64 K = 0; K < M; ++K)
        S += D.Alpha * X[I * M + K] * X[J * M + K];
      C[I * N + J] = S;
    }
}

void conv2d(Arrays A, const Dims& D) {
  float* __restrict B = A[0];
  const float* __restrict X = A[1];
  const I64 NI = D.NI, NJ = D.NJ;
#pragma omp parallel for schedule(static)
  for (I64 I = 1; I < NI - 1; ++I) {
    const float* __restrict Up = X + (I - 1) * NJ, * __restrict Mid = X + I * NJ, * __restrict Down = X + (I + 1) * NJ;
#pragma omp simd
    for (I64 J = 1; J < NJ - 1; ++J)
      B[I * NJ + J] = 0.2f * Up[J - 1] + -0.3f * Mid[J - 1] + 0.4f * Down[J - 1] + 0.5f * Up[J] +
                      0.6f * Mid[J] + 0.7f * Down[J] + -0.8f * Up[J + 1] + -0.9f * Mid[J + 1] +
                      0.1f * Down[J + 1];
  }
}

void conv3d(Arrays A, const Dims& D) {
  float* __restrict B = A[0];
  const float* __restrict X = A[1];
  const I64 NI = D.NI, NJ = D.NJ, NK = D.NK, P = NJ * NK;
#pragma omp parallel for collapse(2) schedule(static)
  for (I64 I = 1; I < NI - 1; ++I)
    for (I64 J = 1; J < NJ - 1; ++J) {
      // Rows (plane di, row dj) of the input around (i, j).
      auto row = [&](I64 DI, I64 DJ) { return X + (I + DI) * P + (J + DJ) * NK; };
      const float* __restrict Mmm = row(-1, -1), * __restrict Pm = row(1, -1), * __restrict Zm = row(0, -1), * __restrict Zz = row(0, 0), * __restrict Zp = row(0, 1), * __restrict Mz = row(-1, 0), * __restrict Pz = row(1, 0), * __restrict Mp = row(-1, 1), * __restrict Pp = row(1, 1);
      float* __restrict Out = B + I * P + J * NK;
#pragma omp simd
      for (I64 K = 1; K < NK - 1; ++K)
        Out[K] = 2.0f * Mmm[K - 1] + 4.0f * Pm[K - 1] + 5.0f * Mmm[K - 1] + 7.0f * Pm[K - 1] +
                 -8.0f * Mmm[K - 1] + 10.0f * Pm[K - 1] + -3.0f * Zm[K] + 6.0f * Zz[K] +
                 -9.0f * Zp[K] + 2.0f * Mmm[K + 1] + 4.0f * Pm[K + 1] + 5.0f * Mz[K + 1] +
                 7.0f * Pz[K + 1] + -8.0f * Mp[K + 1] + 10.0f * Pp[K + 1];
    }
}

void fdtd2d(Arrays A, const Dims& D) {
  float* __restrict Ex = A[0], * __restrict Ey = A[1], * __restrict Hz = A[2];
  const float* __restrict Fict = A[3];
  const I64 NX = D.NI, NY = D.NJ;
  // One parallel region for all steps; the `omp for` barriers order the three updates.
#pragma omp parallel
  for (I64 T = 0; T < I64(D.Steps); ++T) {
#pragma omp for schedule(static)
    for (I64 I = 0; I < NX; ++I) {
      if (I == 0) {
        for (I64 J = 0; J < NY; ++J)
          Ey[J] = Fict[T];
        continue;
      }
#pragma omp simd
      for (I64 J = 0; J < NY; ++J)
        Ey[I * NY + J] = Ey[I * NY + J] - 0.5f * (Hz[I * NY + J] - Hz[(I - 1) * NY + J]);
    }
#pragma omp for schedule(static)
    for (I64 I = 0; I < NX; ++I)
#pragma omp simd
      for (I64 J = 1; J < NY; ++J)
        Ex[I * (NY + 1) + J] =
            Ex[I * (NY + 1) + J] - 0.5f * (Hz[I * NY + J] - Hz[I * NY + (J - 1)]);
#pragma omp for schedule(static)
    for (I64 I = 0; I < NX; ++I)
#pragma omp simd
      for (I64 J = 0; J < NY; ++J)
        Hz[I * NY + J] =
            Hz[I * NY + J] - 0.7f * (Ex[I * (NY + 1) + (J + 1)] - Ex[I * (NY + 1) + J] +
                                     Ey[(I + 1) * NY + J] - Ey[I * NY + J]);
  }
}

void jacobi2d(Arrays A, const Dims& D) {
  float* __restrict X = A[0], * __restrict B = A[1];
  const I64 N = D.NI;
#pragma omp parallel
  for (I64 T = 0; T < I64(D.Steps); ++T) {
#pragma omp for schedule(static)
    for (I64 I = 1; I < N - 1; ++I)
#pragma omp simd
      for (I64 J = 1; J < N - 1; ++J)
        B[I * N + J] = 0.2f * (X[I * N + J] + X[I * N + (J - 1)] + X[I * N + (J + 1)] +
                               X[(I + 1) * N + J] + X[(I - 1) * N + J]);
#pragma omp for schedule(static)
    for (I64 I = 1; I < N - 1; ++I)
#pragma omp simd
      for (I64 J = 1; J < N - 1; ++J)
        X[I * N + J] = B[I * N + J];
  }
}

} // namespace

OmpPeer ompPeer(const std::string& Name) {
  static const struct {
    const char* Name;
    OmpPeer Peer;
  } Peers[] = {
      {"2mm", mm2},           {"3mm", mm3},       {"atax", atax},     {"bicg", bicg},
      {"corr", corr},         {"covar", covar},   {"gemm", gemm},     {"gesummv", gesummv},
      {"gramschm", gramschm}, {"mvt", mvt},       {"syr2k", syr2k},   {"syrk", syrk},
      {"2dconv", conv2d},     {"3dconv", conv3d}, {"fdtd2d", fdtd2d}, {"jacobi2d", jacobi2d}};
  for (const auto& P : Peers)
    if (Name == P.Name)
      return P.Peer;
  throw std::invalid_argument("no OpenMP peer for PolyBench case '" + Name + "'");
}

} // namespace cajeta::polybench
