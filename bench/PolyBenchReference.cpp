// The float64 references (see PolyBenchReference.h). Rows run in parallel where they are
// independent, only so that the check stays cheap at the GPU bench's sizes; each element is
// computed by one thread in PolyBench's order.
#include "PolyBenchReference.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace cajeta::polybench {

namespace {

using I64 = int64_t;

/// C = A B for row-major A (ni x nk), B (nk x nj).
void product(double* C, const double* A, const double* B, I64 NI, I64 NJ, I64 NK) {
#pragma omp parallel for
  for (I64 I = 0; I < NI; ++I)
    for (I64 J = 0; J < NJ; ++J) {
      double S = 0;
      for (I64 K = 0; K < NK; ++K)
        S += A[I * NK + K] * B[K * NJ + J];
      C[I * NJ + J] = S;
    }
}

/// Column means of Data (n rows x m columns).
void columnMeans(double* Mean, const double* Data, I64 N, I64 M) {
  for (I64 J = 0; J < M; ++J) {
    double S = 0;
    for (I64 I = 0; I < N; ++I)
      S += Data[I * M + J];
    Mean[J] = S / double(N);
  }
}

/// Sym = Data^T Data (m x m) from the upper triangle, mirrored; the diagonal too unless
/// UnitDiagonal, which sets it to 1.
void gram(double* Sym, const double* Data, I64 N, I64 M, bool UnitDiagonal) {
#pragma omp parallel for schedule(dynamic)
  for (I64 J1 = 0; J1 < M; ++J1) {
    if (UnitDiagonal)
      Sym[J1 * M + J1] = 1;
    for (I64 J2 = UnitDiagonal ? J1 + 1 : J1; J2 < M; ++J2) {
      double S = 0;
      for (I64 I = 0; I < N; ++I)
        S += Data[I * M + J1] * Data[I * M + J2];
      Sym[J1 * M + J2] = S;
      Sym[J2 * M + J1] = S;
    }
  }
}

} // namespace

void mm2Reference(ReferenceArrays A, const Dims& D) {
  product(A[0], A[2], A[3], D.NI, D.NJ, D.NK);
  product(A[1], A[0], A[4], D.NI, D.NL, D.NJ);
}

void mm3Reference(ReferenceArrays A, const Dims& D) {
  product(A[0], A[3], A[4], D.NI, D.NJ, D.NK);
  product(A[1], A[5], A[6], D.NJ, D.NL, D.NM);
  product(A[2], A[0], A[1], D.NI, D.NL, D.NJ);
}

void ataxReference(ReferenceArrays A, const Dims& D) {
  double *Y = A[0], *Tmp = A[1];
  const double *M = A[2], *X = A[3];
  const I64 NX = D.NI, NY = D.NJ;
  product(Tmp, M, X, NX, 1, NY);
  for (I64 J = 0; J < NY; ++J)
    Y[J] = 0;
  for (I64 I = 0; I < NX; ++I)
    for (I64 J = 0; J < NY; ++J)
      Y[J] += M[I * NY + J] * Tmp[I];
}

void bicgReference(ReferenceArrays A, const Dims& D) {
  double *S = A[0], *Q = A[1];
  const double *M = A[2], *R = A[3], *P = A[4];
  const I64 NX = D.NI, NY = D.NJ;
  for (I64 J = 0; J < NY; ++J)
    S[J] = 0;
  for (I64 I = 0; I < NX; ++I)
    for (I64 J = 0; J < NY; ++J)
      S[J] += R[I] * M[I * NY + J];
  product(Q, M, P, NX, 1, NY);
}

void corrReference(ReferenceArrays A, const Dims& D) {
  double *Sym = A[0], *Data = A[1], *Mean = A[2], *Std = A[3];
  const I64 N = D.NI, M = D.NJ;
  const double Eps = 0.005;
  columnMeans(Mean, Data, N, M);
  for (I64 J = 0; J < M; ++J) {
    double S = 0;
    for (I64 I = 0; I < N; ++I)
      S += (Data[I * M + J] - Mean[J]) * (Data[I * M + J] - Mean[J]);
    S = std::sqrt(S / double(N));
    Std[J] = S <= Eps ? 1.0 : S;
  }
  for (I64 I = 0; I < N; ++I)
    for (I64 J = 0; J < M; ++J)
      Data[I * M + J] = (Data[I * M + J] - Mean[J]) / (std::sqrt(double(N)) * Std[J]);
  gram(Sym, Data, N, M, true);
}

void covarReference(ReferenceArrays A, const Dims& D) {
  double *Sym = A[0], *Data = A[1], *Mean = A[2];
  const I64 N = D.NI, M = D.NJ;
  columnMeans(Mean, Data, N, M);
  for (I64 I = 0; I < N; ++I)
    for (I64 J = 0; J < M; ++J)
      Data[I * M + J] -= Mean[J];
  gram(Sym, Data, N, M, false);
}

void gemmReference(ReferenceArrays A, const Dims& D) {
  double* C = A[0];
  const double *X = A[1], *Y = A[2];
#pragma omp parallel for
  for (I64 I = 0; I < D.NI; ++I)
    for (I64 J = 0; J < D.NJ; ++J) {
      double S = C[I * D.NJ + J] * D.Beta;
      for (I64 K = 0; K < D.NK; ++K)
        S += D.Alpha * X[I * D.NK + K] * Y[K * D.NJ + J];
      C[I * D.NJ + J] = S;
    }
}

void gesummvReference(ReferenceArrays A, const Dims& D) {
  double *Y = A[0], *Tmp = A[1];
  const double *MA = A[2], *MB = A[3], *X = A[4];
  const I64 N = D.NI;
  std::vector<double> BX(N);
  product(Tmp, MA, X, N, 1, N);
  product(BX.data(), MB, X, N, 1, N);
  for (I64 I = 0; I < N; ++I)
    Y[I] = D.Alpha * Tmp[I] + D.Beta * BX[I];
}

void gramschmReference(ReferenceArrays A, const Dims& D) {
  double *M = A[0], *R = A[1], *Q = A[2];
  const I64 Rows = D.NI, N = D.NJ;
  for (I64 K = 0; K < N; ++K) {
    double Nrm = 0;
    for (I64 I = 0; I < Rows; ++I)
      Nrm += M[I * N + K] * M[I * N + K];
    R[K * N + K] = std::sqrt(Nrm);
    for (I64 I = 0; I < Rows; ++I)
      Q[I * N + K] = M[I * N + K] / R[K * N + K];
#pragma omp parallel for
    for (I64 J = K + 1; J < N; ++J) {
      double S = 0;
      for (I64 I = 0; I < Rows; ++I)
        S += Q[I * N + K] * M[I * N + J];
      R[K * N + J] = S;
      for (I64 I = 0; I < Rows; ++I)
        M[I * N + J] -= Q[I * N + K] * S;
    }
  }
}

void mvtReference(ReferenceArrays A, const Dims& D) {
  double *X1 = A[0], *X2 = A[1];
  const double *M = A[2], *Y1 = A[3], *Y2 = A[4];
  const I64 N = D.NI;
#pragma omp parallel for
  for (I64 I = 0; I < N; ++I) {
    double S1 = X1[I], S2 = X2[I];
    for (I64 J = 0; J < N; ++J) {
      S1 += M[I * N + J] * Y1[J];
      S2 += M[J * N + I] * Y2[J];
    }
    X1[I] = S1;
    X2[I] = S2;
  }
}

void syr2kReference(ReferenceArrays A, const Dims& D) {
  double* C = A[0];
  const double *X = A[1], *Y = A[2];
  const I64 N = D.NI, M = D.NK;
#pragma omp parallel for
  for (I64 I = 0; I < N; ++I)
    for (I64 J = 0; J < N; ++J) {
      double S = C[I * N + J] * D.Beta;
      for (I64 K = 0; K < M; ++K)
        S += D.Alpha * X[I * M + K] * Y[J * M + K] + D.Alpha * Y[I * M + K] * X[J * M + K];
      C[I * N + J] = S;
    }
}

void syrkReference(ReferenceArrays A, const Dims& D) {
  double* C = A[0];
  const double* X = A[1];
  const I64 N = D.NI, M = D.NK;
#pragma omp parallel for
  for (I64 I = 0; I < N; ++I)
    for (I64 J = 0; J < N; ++J) {
      double S = C[I * N + J] * D.Beta;
      for (I64 K = 0; K < M; ++K)
        S += D.Alpha * X[I * M + K] * X[J * M + K];
      C[I * N + J] = S;
    }
}

void conv2dReference(ReferenceArrays A, const Dims& D) {
  double* B = A[0];
  const double* X = A[1];
  const I64 NI = D.NI, NJ = D.NJ;
#pragma omp parallel for
  for (I64 I = 1; I < NI - 1; ++I)
    for (I64 J = 1; J < NJ - 1; ++J) {
      auto At = [&](I64 DI, I64 DJ) { return X[(I + DI) * NJ + (J + DJ)]; };
      B[I * NJ + J] = 0.2 * At(-1, -1) - 0.3 * At(0, -1) + 0.4 * At(1, -1) + 0.5 * At(-1, 0) +
                      0.6 * At(0, 0) + 0.7 * At(1, 0) - 0.8 * At(-1, 1) - 0.9 * At(0, 1) +
                      0.1 * At(1, 1);
    }
}

void conv3dReference(ReferenceArrays A, const Dims& D) {
  double* B = A[0];
  const double* X = A[1];
  const I64 NI = D.NI, NJ = D.NJ, NK = D.NK;
#pragma omp parallel for
  for (I64 I = 1; I < NI - 1; ++I)
    for (I64 J = 1; J < NJ - 1; ++J)
      for (I64 K = 1; K < NK - 1; ++K) {
        auto At = [&](I64 DI, I64 DJ, I64 DK) {
          return X[(I + DI) * NJ * NK + (J + DJ) * NK + (K + DK)];
        };
        B[(I * NJ + J) * NK + K] = 2 * At(-1, -1, -1) + 4 * At(1, -1, -1) + 5 * At(-1, -1, -1) +
                                   7 * At(1, -1, -1) - 8 * At(-1, -1, -1) + 10 * At(1, -1, -1) -
                                   3 * At(0, -1, 0) + 6 * At(0, 0, 0) - 9 * At(0, 1, 0) +
                                   2 * At(-1, -1, 1) + 4 * At(1, -1, 1) + 5 * At(-1, 0, 1) +
                                   7 * At(1, 0, 1) - 8 * At(-1, 1, 1) + 10 * At(1, 1, 1);
      }
}

void fdtd2dReference(ReferenceArrays A, const Dims& D) {
  double *Ex = A[0], *Ey = A[1], *Hz = A[2];
  const double* Fict = A[3];
  const I64 NX = D.NI, NY = D.NJ;
  for (I64 T = 0; T < D.Steps; ++T) {
    for (I64 J = 0; J < NY; ++J)
      Ey[J] = Fict[T];
    for (I64 I = 1; I < NX; ++I)
      for (I64 J = 0; J < NY; ++J)
        Ey[I * NY + J] -= 0.5 * (Hz[I * NY + J] - Hz[(I - 1) * NY + J]);
    for (I64 I = 0; I < NX; ++I)
      for (I64 J = 1; J < NY; ++J)
        Ex[I * (NY + 1) + J] -= 0.5 * (Hz[I * NY + J] - Hz[I * NY + J - 1]);
    for (I64 I = 0; I < NX; ++I)
      for (I64 J = 0; J < NY; ++J)
        Hz[I * NY + J] -= 0.7 * (Ex[I * (NY + 1) + J + 1] - Ex[I * (NY + 1) + J] +
                                 Ey[(I + 1) * NY + J] - Ey[I * NY + J]);
  }
}

void jacobi2dReference(ReferenceArrays A, const Dims& D) {
  double *X = A[0], *B = A[1];
  const I64 N = D.NI;
  for (I64 T = 0; T < D.Steps; ++T) {
    for (I64 I = 1; I < N - 1; ++I)
      for (I64 J = 1; J < N - 1; ++J)
        B[I * N + J] = 0.2 * (X[I * N + J] + X[I * N + J - 1] + X[I * N + J + 1] +
                              X[(I + 1) * N + J] + X[(I - 1) * N + J]);
    for (I64 I = 1; I < N - 1; ++I)
      for (I64 J = 1; J < N - 1; ++J)
        X[I * N + J] = B[I * N + J];
  }
}

} // namespace cajeta::polybench
