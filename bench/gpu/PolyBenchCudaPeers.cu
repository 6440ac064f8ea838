// The PolyBench/GPU kernels in CUDA C++, as the suite's own CUDA code has them: one thread per
// output element with the inner loops inside it, 2D blocks of 32x8 over (column, row), 1D blocks
// of 256; the same loops, launches and arithmetic as bench/gpu/kernels/polybench.cj, so that
// the comparison is of the two compilers. nvcc -O3 contracts to fma (-fmad=true by default), as
// @FastMath lets ours.
#include "PolyBenchCudaPeers.h"

#include <cuda_runtime.h>

#include <stdexcept>

namespace cajeta::gpubench {

namespace {

using polybench::Arrays;
using polybench::Dims;

// ---- the kernels ---------------------------------------------------------------------------

__global__ void mmKernel(float* c, const float* a, const float* b, unsigned ni, unsigned nj,
                         unsigned nk) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < ni && j < nj) {
    float sum = 0.0f;
    for (unsigned k = 0; k < nk; k++)
      sum += a[i * nk + k] * b[k * nj + j];
    c[i * nj + j] = sum;
  }
}

__global__ void gemmKernel(float* c, const float* a, const float* b, unsigned ni, unsigned nj,
                           unsigned nk, float alpha, float beta) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < ni && j < nj) {
    float sum = c[i * nj + j] * beta;
    for (unsigned k = 0; k < nk; k++)
      sum += alpha * a[i * nk + k] * b[k * nj + j];
    c[i * nj + j] = sum;
  }
}

__global__ void syrkKernel(float* c, const float* a, unsigned n, unsigned m, float alpha,
                           float beta) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    float sum = c[i * n + j] * beta;
    for (unsigned k = 0; k < m; k++)
      sum += alpha * a[i * m + k] * a[j * m + k];
    c[i * n + j] = sum;
  }
}

__global__ void syr2kKernel(float* c, const float* a, const float* b, unsigned n, unsigned m,
                            float alpha, float beta) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < n) {
    float sum = c[i * n + j] * beta;
    for (unsigned k = 0; k < m; k++)
      sum += alpha * a[i * m + k] * b[j * m + k] + alpha * b[i * m + k] * a[j * m + k];
    c[i * n + j] = sum;
  }
}

// y[i] = sum over j of a[i][j] x[j] (atax step 1, bicg's q).
__global__ void rowDotKernel(float* y, const float* a, const float* x, unsigned rows,
                             unsigned cols) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows) {
    float sum = 0.0f;
    for (unsigned j = 0; j < cols; j++)
      sum += a[i * cols + j] * x[j];
    y[i] = sum;
  }
}

// y[j] = sum over i of a[i][j] x[i] (atax step 2; bicg's s, written r[i] * a[i][j] there).
__global__ void columnDotKernel(float* y, const float* a, const float* x, unsigned rows,
                                unsigned cols) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < cols) {
    float sum = 0.0f;
    for (unsigned i = 0; i < rows; i++)
      sum += a[i * cols + j] * x[i];
    y[j] = sum;
  }
}

__global__ void bicg1Kernel(float* s, const float* a, const float* r, unsigned rows,
                            unsigned cols) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < cols) {
    float sum = 0.0f;
    for (unsigned i = 0; i < rows; i++)
      sum += r[i] * a[i * cols + j];
    s[j] = sum;
  }
}

__global__ void gesummvKernel(float* y, float* tmp, const float* a, const float* b, const float* x,
                              unsigned n, float alpha, float beta) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float t = 0.0f, s = 0.0f;
    for (unsigned j = 0; j < n; j++) {
      t += a[i * n + j] * x[j];
      s += b[i * n + j] * x[j];
    }
    tmp[i] = t;
    y[i] = alpha * t + beta * s;
  }
}

__global__ void mvt1Kernel(float* x1, const float* a, const float* y1, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float sum = x1[i];
    for (unsigned j = 0; j < n; j++)
      sum += a[i * n + j] * y1[j];
    x1[i] = sum;
  }
}

__global__ void mvt2Kernel(float* x2, const float* a, const float* y2, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float sum = x2[i];
    for (unsigned j = 0; j < n; j++)
      sum += a[j * n + i] * y2[j];
    x2[i] = sum;
  }
}

__global__ void meanKernel(float* mean, const float* data, unsigned n, unsigned m) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float sum = 0.0f;
    for (unsigned i = 0; i < n; i++)
      sum += data[i * m + j];
    mean[j] = sum / (float)n;
  }
}

__global__ void stddevKernel(float* std, const float* mean, const float* data, unsigned n,
                             unsigned m, float eps) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < m) {
    float sum = 0.0f;
    for (unsigned i = 0; i < n; i++) {
      float d = data[i * m + j] - mean[j];
      sum += d * d;
    }
    float s = sqrtf(sum / (float)n);
    std[j] = s <= eps ? 1.0f : s;
  }
}

__global__ void corrReduceKernel(float* data, const float* mean, const float* std, unsigned n,
                                 unsigned m) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < m) {
    float d = data[i * m + j] - mean[j];
    data[i * m + j] = d / (sqrtf((float)n) * std[j]);
  }
}

__global__ void corrKernel(float* sym, const float* data, unsigned n, unsigned m) {
  unsigned j1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (j1 < m) {
    sym[j1 * m + j1] = 1.0f;
    for (unsigned j2 = j1 + 1; j2 < m; j2++) {
      float sum = 0.0f;
      for (unsigned i = 0; i < n; i++)
        sum += data[i * m + j1] * data[i * m + j2];
      sym[j1 * m + j2] = sum;
      sym[j2 * m + j1] = sum;
    }
  }
}

__global__ void covarReduceKernel(float* data, const float* mean, unsigned n, unsigned m) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < m)
    data[i * m + j] = data[i * m + j] - mean[j];
}

__global__ void covarKernel(float* sym, const float* data, unsigned n, unsigned m) {
  unsigned j1 = blockIdx.x * blockDim.x + threadIdx.x;
  if (j1 < m) {
    for (unsigned j2 = j1; j2 < m; j2++) {
      float sum = 0.0f;
      for (unsigned i = 0; i < n; i++)
        sum += data[i * m + j1] * data[i * m + j2];
      sym[j1 * m + j2] = sum;
      sym[j2 * m + j1] = sum;
    }
  }
}

__global__ void gramschm1Kernel(float* r, const float* a, unsigned m, unsigned n, unsigned k) {
  if (blockIdx.x * blockDim.x + threadIdx.x == 0) {
    float nrm = 0.0f;
    for (unsigned i = 0; i < m; i++)
      nrm += a[i * n + k] * a[i * n + k];
    r[k * n + k] = sqrtf(nrm);
  }
}

__global__ void gramschm2Kernel(float* q, const float* r, const float* a, unsigned m, unsigned n,
                                unsigned k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m)
    q[i * n + k] = a[i * n + k] / r[k * n + k];
}

__global__ void gramschm3Kernel(float* a, float* r, const float* q, unsigned m, unsigned n,
                                unsigned k) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > k && j < n) {
    float sum = 0.0f;
    for (unsigned i = 0; i < m; i++)
      sum += q[i * n + k] * a[i * n + j];
    r[k * n + j] = sum;
    for (unsigned i = 0; i < m; i++)
      a[i * n + j] = a[i * n + j] - q[i * n + k] * sum;
  }
}

__global__ void conv2dKernel(float* b, const float* a, unsigned ni, unsigned nj) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && j > 0 && i + 1 < ni && j + 1 < nj)
    b[i * nj + j] = 0.2f * a[(i - 1) * nj + (j - 1)] + -0.3f * a[i * nj + (j - 1)] +
                    0.4f * a[(i + 1) * nj + (j - 1)] + 0.5f * a[(i - 1) * nj + j] +
                    0.6f * a[i * nj + j] + 0.7f * a[(i + 1) * nj + j] +
                    -0.8f * a[(i - 1) * nj + (j + 1)] + -0.9f * a[i * nj + (j + 1)] +
                    0.1f * a[(i + 1) * nj + (j + 1)];
}

__global__ void conv3dKernel(float* b, const float* a, unsigned ni, unsigned nj, unsigned nk,
                             unsigned i) {
  unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && j > 0 && k > 0 && i + 1 < ni && j + 1 < nj && k + 1 < nk) {
    unsigned p = nj * nk;
    b[i * p + j * nk + k] =
        2.0f * a[(i - 1) * p + (j - 1) * nk + (k - 1)] +
        4.0f * a[(i + 1) * p + (j - 1) * nk + (k - 1)] +
        5.0f * a[(i - 1) * p + (j - 1) * nk + (k - 1)] +
        7.0f * a[(i + 1) * p + (j - 1) * nk + (k - 1)] +
        -8.0f * a[(i - 1) * p + (j - 1) * nk + (k - 1)] +
        10.0f * a[(i + 1) * p + (j - 1) * nk + (k - 1)] + -3.0f * a[i * p + (j - 1) * nk + k] +
        6.0f * a[i * p + j * nk + k] + -9.0f * a[i * p + (j + 1) * nk + k] +
        2.0f * a[(i - 1) * p + (j - 1) * nk + (k + 1)] +
        4.0f * a[(i + 1) * p + (j - 1) * nk + (k + 1)] + 5.0f * a[(i - 1) * p + j * nk + (k + 1)] +
        7.0f * a[(i + 1) * p + j * nk + (k + 1)] + -8.0f * a[(i - 1) * p + (j + 1) * nk + (k + 1)] +
        10.0f * a[(i + 1) * p + (j + 1) * nk + (k + 1)];
  }
}

__global__ void fdtd1Kernel(float* ey, const float* hz, const float* fict, unsigned nx, unsigned ny,
                            unsigned t) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny) {
    if (i == 0)
      ey[j] = fict[t];
    else
      ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
  }
}

__global__ void fdtd2Kernel(float* ex, const float* hz, unsigned nx, unsigned ny) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j > 0 && j < ny)
    ex[i * (ny + 1) + j] = ex[i * (ny + 1) + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
}

__global__ void fdtd3Kernel(float* hz, const float* ex, const float* ey, unsigned nx, unsigned ny) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < nx && j < ny)
    hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * (ny + 1) + (j + 1)] - ex[i * (ny + 1) + j] +
                                              ey[(i + 1) * ny + j] - ey[i * ny + j]);
}

__global__ void jacobi1Kernel(float* b, const float* a, unsigned n) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && j > 0 && i + 1 < n && j + 1 < n)
    b[i * n + j] = 0.2f * (a[i * n + j] + a[i * n + (j - 1)] + a[i * n + (j + 1)] +
                           a[(i + 1) * n + j] + a[(i - 1) * n + j]);
}

__global__ void jacobi2Kernel(float* a, const float* b, unsigned n) {
  unsigned j = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i > 0 && j > 0 && i + 1 < n && j + 1 < n)
    a[i * n + j] = b[i * n + j];
}

// ---- the launches, as PolyBenchSuite.cpp makes ours ------------------------------------------

const dim3 Block2d(32, 8), Block1d(256);

dim3 grid2d(unsigned Cols, unsigned Rows) {
  return dim3((Cols + 31) / 32, (Rows + 7) / 8);
}

dim3 grid1d(unsigned N) {
  return dim3((N + 255) / 256);
}

cudaStream_t stream(void* S) {
  return static_cast<cudaStream_t>(S);
}

void mm2(void* S, Arrays A, const Dims& D) {
  mmKernel<<<grid2d(D.NJ, D.NI), Block2d, 0, stream(S)>>>(A[0], A[2], A[3], D.NI, D.NJ, D.NK);
  mmKernel<<<grid2d(D.NL, D.NI), Block2d, 0, stream(S)>>>(A[1], A[0], A[4], D.NI, D.NL, D.NJ);
}

void mm3(void* S, Arrays A, const Dims& D) {
  mmKernel<<<grid2d(D.NJ, D.NI), Block2d, 0, stream(S)>>>(A[0], A[3], A[4], D.NI, D.NJ, D.NK);
  mmKernel<<<grid2d(D.NL, D.NJ), Block2d, 0, stream(S)>>>(A[1], A[5], A[6], D.NJ, D.NL, D.NM);
  mmKernel<<<grid2d(D.NL, D.NI), Block2d, 0, stream(S)>>>(A[2], A[0], A[1], D.NI, D.NL, D.NJ);
}

void atax(void* S, Arrays A, const Dims& D) {
  rowDotKernel<<<grid1d(D.NI), Block1d, 0, stream(S)>>>(A[1], A[2], A[3], D.NI, D.NJ);
  columnDotKernel<<<grid1d(D.NJ), Block1d, 0, stream(S)>>>(A[0], A[2], A[1], D.NI, D.NJ);
}

void bicg(void* S, Arrays A, const Dims& D) {
  bicg1Kernel<<<grid1d(D.NJ), Block1d, 0, stream(S)>>>(A[0], A[2], A[3], D.NI, D.NJ);
  rowDotKernel<<<grid1d(D.NI), Block1d, 0, stream(S)>>>(A[1], A[2], A[4], D.NI, D.NJ);
}

void corr(void* S, Arrays A, const Dims& D) {
  const unsigned Rows = D.NI, Cols = D.NJ;
  meanKernel<<<grid1d(Cols), Block1d, 0, stream(S)>>>(A[2], A[1], Rows, Cols);
  stddevKernel<<<grid1d(Cols), Block1d, 0, stream(S)>>>(A[3], A[2], A[1], Rows, Cols, 0.005f);
  corrReduceKernel<<<grid2d(Cols, Rows), Block2d, 0, stream(S)>>>(A[1], A[2], A[3], Rows, Cols);
  corrKernel<<<grid1d(Cols), Block1d, 0, stream(S)>>>(A[0], A[1], Rows, Cols);
}

void covar(void* S, Arrays A, const Dims& D) {
  const unsigned Rows = D.NI, Cols = D.NJ;
  meanKernel<<<grid1d(Cols), Block1d, 0, stream(S)>>>(A[2], A[1], Rows, Cols);
  covarReduceKernel<<<grid2d(Cols, Rows), Block2d, 0, stream(S)>>>(A[1], A[2], Rows, Cols);
  covarKernel<<<grid1d(Cols), Block1d, 0, stream(S)>>>(A[0], A[1], Rows, Cols);
}

void gemm(void* S, Arrays A, const Dims& D) {
  gemmKernel<<<grid2d(D.NJ, D.NI), Block2d, 0, stream(S)>>>(A[0], A[1], A[2], D.NI, D.NJ, D.NK,
                                                            D.Alpha, D.Beta);
}

void gesummv(void* S, Arrays A, const Dims& D) {
  gesummvKernel<<<grid1d(D.NI), Block1d, 0, stream(S)>>>(A[0], A[1], A[2], A[3], A[4], D.NI,
                                                         D.Alpha, D.Beta);
}

void gramschm(void* S, Arrays A, const Dims& D) {
  for (unsigned K = 0; K < D.NJ; ++K) {
    gramschm1Kernel<<<1, 1, 0, stream(S)>>>(A[1], A[0], D.NI, D.NJ, K);
    gramschm2Kernel<<<grid1d(D.NI), Block1d, 0, stream(S)>>>(A[2], A[1], A[0], D.NI, D.NJ, K);
    gramschm3Kernel<<<grid1d(D.NJ), Block1d, 0, stream(S)>>>(A[0], A[1], A[2], D.NI, D.NJ, K);
  }
}

void mvt(void* S, Arrays A, const Dims& D) {
  mvt1Kernel<<<grid1d(D.NI), Block1d, 0, stream(S)>>>(A[0], A[2], A[3], D.NI);
  mvt2Kernel<<<grid1d(D.NI), Block1d, 0, stream(S)>>>(A[1], A[2], A[4], D.NI);
}

void syr2k(void* S, Arrays A, const Dims& D) {
  syr2kKernel<<<grid2d(D.NI, D.NI), Block2d, 0, stream(S)>>>(A[0], A[1], A[2], D.NI, D.NK, D.Alpha,
                                                             D.Beta);
}

void syrk(void* S, Arrays A, const Dims& D) {
  syrkKernel<<<grid2d(D.NI, D.NI), Block2d, 0, stream(S)>>>(A[0], A[1], D.NI, D.NK, D.Alpha,
                                                            D.Beta);
}

void conv2d(void* S, Arrays A, const Dims& D) {
  conv2dKernel<<<grid2d(D.NJ, D.NI), Block2d, 0, stream(S)>>>(A[0], A[1], D.NI, D.NJ);
}

void conv3d(void* S, Arrays A, const Dims& D) {
  for (unsigned I = 1; I + 1 < D.NI; ++I)
    conv3dKernel<<<grid2d(D.NK, D.NJ), Block2d, 0, stream(S)>>>(A[0], A[1], D.NI, D.NJ, D.NK, I);
}

void fdtd2d(void* S, Arrays A, const Dims& D) {
  const dim3 Grid = grid2d(D.NJ, D.NI);
  for (unsigned T = 0; T < D.Steps; ++T) {
    fdtd1Kernel<<<Grid, Block2d, 0, stream(S)>>>(A[1], A[2], A[3], D.NI, D.NJ, T);
    fdtd2Kernel<<<Grid, Block2d, 0, stream(S)>>>(A[0], A[2], D.NI, D.NJ);
    fdtd3Kernel<<<Grid, Block2d, 0, stream(S)>>>(A[2], A[0], A[1], D.NI, D.NJ);
  }
}

void jacobi2d(void* S, Arrays A, const Dims& D) {
  const dim3 Grid = grid2d(D.NI, D.NI);
  for (unsigned T = 0; T < D.Steps; ++T) {
    jacobi1Kernel<<<Grid, Block2d, 0, stream(S)>>>(A[1], A[0], D.NI);
    jacobi2Kernel<<<Grid, Block2d, 0, stream(S)>>>(A[0], A[1], D.NI);
  }
}

} // namespace

PolyBenchCudaPeer polyBenchCudaPeer(const std::string& Name) {
  static const struct {
    const char* Name;
    PolyBenchCudaPeer Peer;
  } Peers[] = {
      {"2mm", mm2},           {"3mm", mm3},       {"atax", atax},     {"bicg", bicg},
      {"corr", corr},         {"covar", covar},   {"gemm", gemm},     {"gesummv", gesummv},
      {"gramschm", gramschm}, {"mvt", mvt},       {"syr2k", syr2k},   {"syrk", syrk},
      {"2dconv", conv2d},     {"3dconv", conv3d}, {"fdtd2d", fdtd2d}, {"jacobi2d", jacobi2d}};
  for (const auto& P : Peers)
    if (Name == P.Name)
      return P.Peer;
  throw std::invalid_argument("no CUDA peer for PolyBench case '" + Name + "'");
}

} // namespace cajeta::gpubench
