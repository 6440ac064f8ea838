// The CUDA C++ peers: the same kernels as bench/gpu/kernels/*.cj in CUDA C++, CUB's sum, cuBLAS's
// GEMM, the driver's device-to-device copy and raw cuLaunchKernel, each timed by events and host
// clock.
#include "CudaPeers.h"

#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace cajeta::gpubench {

namespace {

void check(cudaError_t E, const char* What) {
  if (E == cudaSuccess)
    return;
  throw std::runtime_error(std::string("CUDA peer: ") + What + ": " + cudaGetErrorName(E) + " (" +
                           cudaGetErrorString(E) + ")");
}

/// The driver calls of the raw peers, resolved through cudart (cudaGetDriverEntryPointByVersion)
/// so that the binary links no libcuda and says so when the driver is missing.
struct DriverApi {
  PFN_cuLaunchKernel_v4000 LaunchKernel = nullptr;
  PFN_cuMemcpyDtoDAsync_v3020 MemcpyDtoDAsync = nullptr;
  PFN_cuStreamSynchronize_v2000 StreamSynchronize = nullptr;
  PFN_cuGetErrorName_v6000 GetErrorName = nullptr;
  PFN_cuModuleLoadData_v2000 ModuleLoadData = nullptr;
  PFN_cuModuleGetFunction_v2000 ModuleGetFunction = nullptr;
};

/// The PTX our compiler makes for an empty kernel (cajeta emit --target=ptx), loaded by the raw
/// peer through the driver's JIT as our runtime loads it.
const char* const EmptyKernelPtx = ".version 7.8\n.target sm_90\n.address_size 64\n"
                                   ".visible .entry e(.param .u64 p)\n{\n\tret;\n}\n";

DriverApi Driver;

template <class Fn> void resolve(Fn& Out, const char* Symbol, unsigned Version) {
  void* Ptr = nullptr;
  cudaDriverEntryPointQueryResult Status{};
  check(cudaGetDriverEntryPointByVersion(Symbol, &Ptr, Version, cudaEnableDefault, &Status),
        Symbol);
  if (!Ptr || Status != cudaDriverEntryPointSuccess)
    throw std::runtime_error(std::string("CUDA peer: the driver has no ") + Symbol);
  Out = reinterpret_cast<Fn>(Ptr);
}

void check(CUresult R, const char* What) {
  if (R == CUDA_SUCCESS)
    return;
  const char* Name = nullptr;
  if (Driver.GetErrorName)
    Driver.GetErrorName(R, &Name);
  throw std::runtime_error(std::string("CUDA peer: ") + What + ": " +
                           (Name ? Name : std::to_string(int(R)).c_str()));
}

void check(cublasStatus_t St, const char* What) {
  if (St == CUBLAS_STATUS_SUCCESS)
    return;
  throw std::runtime_error(std::string("cuBLAS peer: ") + What + ": " + cublasGetStatusName(St) +
                           " (" + cublasGetStatusString(St) + ")");
}

double nowMs() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

// The kernels, written as a CUDA user writes them; the same algorithms as the .cj files.
__global__ void saxpyKernel(float* y, const float* x, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void triadKernel(float* a, const float* b, const float* c, float s, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = b[i] + s * c[i];
}

constexpr unsigned Tile = 16;

__global__ void matmulKernel(float* c, const float* a, const float* b, unsigned rows,
                             unsigned inner, unsigned cols) {
  __shared__ float ta[Tile * Tile];
  __shared__ float tb[Tile * Tile];
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  unsigned row = blockIdx.y * Tile + ty;
  unsigned col = blockIdx.x * Tile + tx;
  float sum = 0.0f;
  unsigned tiles = (inner + Tile - 1) / Tile;
  for (unsigned t = 0; t < tiles; t++) {
    unsigned ak = t * Tile + tx;
    unsigned bk = t * Tile + ty;
    ta[ty * Tile + tx] = row < rows && ak < inner ? a[row * inner + ak] : 0.0f;
    tb[ty * Tile + tx] = bk < inner && col < cols ? b[bk * cols + col] : 0.0f;
    __syncthreads();
    for (unsigned k = 0; k < Tile; k++)
      sum += ta[ty * Tile + k] * tb[k * Tile + tx];
    __syncthreads();
  }
  if (row < rows && col < cols)
    c[row * cols + col] = sum;
}

__global__ void emptyKernel() {}
// The same with one pointer parameter, as each of our kernels takes its status record.
__global__ void emptyKernelWithPointer(unsigned long long*) {}

unsigned blocksFor(uint32_t N, unsigned Block) {
  return (N + Block - 1) / Block;
}

// ---- primary rays over a software BVH (the words of bundle/AccelLayout.h) -----------------

__device__ __forceinline__ float wordF(const uint32_t* __restrict__ B, uint32_t I) {
  return __uint_as_float(__ldg(B + I));
}

/// Words I..I+3 as one 128-bit load (I a multiple of 4: the layout aligns nodes and slots).
__device__ __forceinline__ uint4 words4(const uint32_t* __restrict__ B, uint32_t I) {
  return __ldg(reinterpret_cast<const uint4*>(B + I));
}

// Vector: each node's and slot's words in 128-bit loads (layout version 2 aligns them), as a
// CUDA engineer would write against this layout; otherwise one 32-bit load per word.
template <bool Vector>
__global__ void primaryRaysKernel(float* __restrict__ outT, int* __restrict__ outPrim,
                                  const uint32_t* __restrict__ bvh, unsigned w, unsigned h,
                                  float ex, float ey, float ez, unsigned tiles) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h)
    return;
  // Pixel i in rows, or 8 x 4 tiles of 32 threads (raytrace.cj's mapping).
  unsigned x = i % w, y = i / w;
  if (tiles) {
    unsigned across = w / 8;
    x = (i / 32) % across * 8 + i % 8;
    y = (i / 32) / across * 4 + (i % 32) / 8;
  }
  float o[3] = {ex, ey, ez};
  float d[3] = {((float)x + 0.5f) / (float)w - ex, ((float)y + 0.5f) / (float)h - ey, -ez};
  float inv[3];
  unsigned sign = 0;
  for (int k = 0; k < 3; ++k) {
    float s = d[k] >= 0 ? fmaxf(d[k], 1e-20f) : fminf(d[k], -1e-20f);
    inv[k] = 1.0f / s;
    sign |= d[k] < 0 ? 1u << k : 0u;
  }
  // The watertight test's frame.
  float ad[3] = {fabsf(d[0]), fabsf(d[1]), fabsf(d[2])};
  int kz = ad[0] >= ad[1] ? (ad[0] >= ad[2] ? 0 : 2) : (ad[1] >= ad[2] ? 1 : 2);
  int kx = kz == 2 ? 0 : kz + 1, ky = kx == 2 ? 0 : kx + 1;
  if (d[kz] < 0) {
    int t = kx;
    kx = ky;
    ky = t;
  }
  float sx = d[kx] / d[kz], sy = d[ky] / d[kz], sz = 1.0f / d[kz];
  const unsigned nodeCount = bvh[2], nodeBase = bvh[4], primBase = bvh[6];
  float tmax = 1e30f;
  int best = -1;
  unsigned stack[64];
  int sp = 0;
  unsigned node = 0;
  bool more = nodeCount != 0;
  while (more) {
    const unsigned nb = nodeBase + node * 8;
    float lo[3], hi[3];
    unsigned info = 0, child = 0;
    if (Vector) {
      uint4 a = words4(bvh, nb), b = words4(bvh, nb + 4);
      lo[0] = __uint_as_float(a.x), lo[1] = __uint_as_float(a.y), lo[2] = __uint_as_float(a.z);
      hi[0] = __uint_as_float(a.w), hi[1] = __uint_as_float(b.x), hi[2] = __uint_as_float(b.y);
      child = b.z, info = b.w;
    } else {
      for (int k = 0; k < 3; ++k)
        lo[k] = wordF(bvh, nb + k), hi[k] = wordF(bvh, nb + 3 + k);
    }
    float tn = 0.0f, tf = tmax;
    for (int k = 0; k < 3; ++k) {
      float t0 = (lo[k] - o[k]) * inv[k];
      float t1 = (hi[k] - o[k]) * inv[k];
      tn = fmaxf(tn, fminf(t0, t1));
      tf = fminf(tf, fmaxf(t0, t1));
    }
    tf = tf > 0 ? tf * 1.0000004f : tf * 0.9999996f;
    if (tn <= tf) {
      if (!Vector)
        info = __ldg(bvh + nb + 7), child = __ldg(bvh + nb + 6);
      if ((info & 3u) != 3u) {
        unsigned nearSide = (sign >> info) & 1u;
        stack[sp++] = child + 1u - nearSide;
        node = child + nearSide;
        continue;
      }
      for (unsigned p = child, end = child + (info >> 2); p < end; ++p) {
        const unsigned b = primBase + p * 12;
        float c[12];
        if (Vector) {
          for (int q = 0; q < 3; ++q) {
            uint4 v = words4(bvh, b + 4 * q);
            c[4 * q] = __uint_as_float(v.x), c[4 * q + 1] = __uint_as_float(v.y);
            c[4 * q + 2] = __uint_as_float(v.z), c[4 * q + 3] = __uint_as_float(v.w);
          }
        }
        float x[3], y[3], z[3];
        for (int v = 0; v < 3; ++v) {
          auto at = [&](int k) { return Vector ? c[3 * v + k] : wordF(bvh, b + 3 * v + k); };
          auto pick = [&](int k) { return k == 0 ? at(0) : k == 1 ? at(1) : at(2); };
          float az = (Vector ? pick(kz) : at(kz)) - o[kz];
          x[v] = ((Vector ? pick(kx) : at(kx)) - o[kx]) - sx * az;
          y[v] = ((Vector ? pick(ky) : at(ky)) - o[ky]) - sy * az;
          z[v] = sz * az;
        }
        float eu = x[2] * y[1] - y[2] * x[1];
        float ev = x[0] * y[2] - y[0] * x[2];
        float ew = x[1] * y[0] - y[1] * x[0];
        if ((eu < 0 || ev < 0 || ew < 0) && (eu > 0 || ev > 0 || ew > 0))
          continue;
        float det = eu + ev + ew;
        if (det == 0)
          continue;
        float t = (eu * z[0] + ev * z[1] + ew * z[2]) * (1.0f / det);
        if (t >= 0.0f && t < tmax) {
          tmax = t;
          best = Vector ? (int)__float_as_uint(c[9]) : (int)__ldg(bvh + b + 9);
        }
      }
    }
    if (sp == 0)
      break;
    node = stack[--sp];
  }
  outT[y * w + x] = best >= 0 ? tmax : -1.0f;
  outPrim[y * w + x] = best;
}

} // namespace

PeerBuffer::PeerBuffer(size_t Count) : Count(Count) {
  check(cudaMalloc(&Data, (Count ? Count : 1) * sizeof(float)), "cudaMalloc");
}

PeerBuffer::~PeerBuffer() {
  cudaFree(Data);
}

void PeerBuffer::upload(const float* Src) {
  check(cudaMemcpy(Data, Src, Count * sizeof(float), cudaMemcpyHostToDevice),
        "cudaMemcpy host to device");
}

void PeerBuffer::download(float* Dst) const {
  check(cudaMemcpy(Dst, Data, Count * sizeof(float), cudaMemcpyDeviceToHost),
        "cudaMemcpy device to host");
}

PeerBytes::PeerBytes(size_t Bytes) : Bytes(Bytes) {
  check(cudaMalloc(&Data, Bytes ? Bytes : 1), "cudaMalloc");
}

PeerBytes::~PeerBytes() {
  cudaFree(Data);
}

void PeerBytes::upload(const void* Src) {
  check(cudaMemcpy(Data, Src, Bytes, cudaMemcpyHostToDevice), "cudaMemcpy host to device");
}

void PeerBytes::download(void* Dst) const {
  check(cudaMemcpy(Dst, Data, Bytes, cudaMemcpyDeviceToHost), "cudaMemcpy device to host");
}

struct CudaPeers::State {
  cudaStream_t Stream = nullptr;
  cudaEvent_t Start = nullptr, Stop = nullptr;
  void* CubTemp = nullptr;
  size_t CubTempBytes = 0;
  CUfunction Empty = nullptr;
  CUfunction EmptyWithPointer = nullptr;
  CUfunction EmptyFromPtx = nullptr; // loaded on first use
  void* StatusLike = nullptr;        // device memory its pointer parameter points at
  cublasHandle_t Blas = nullptr; // made on the first GEMM: the other workloads never load cuBLAS
  char Description[256] = {};

  cublasHandle_t blas() {
    if (!Blas) {
      check(cublasCreate(&Blas), "cublasCreate");
      check(cublasSetStream(Blas, Stream), "cublasSetStream");
    }
    return Blas;
  }

  /// Row-major C (M x N, float32) = A (M x K) * B (K x N), In-typed 2-byte inputs. cuBLAS is
  /// column-major, where row-major C is C^T (N x M, ld N) = B^T A^T: B (row-major K x N, i.e.
  /// column-major N x K, ld N) goes first, then A (column-major K x M, ld K).
  PeerTime gemm(cudaDataType In, const char* What, PeerBuffer& C, const PeerBytes& A,
                const PeerBytes& B, uint32_t M, uint32_t N, uint32_t K, int Batch) {
    if (A.bytes() < size_t(M) * K * 2 || B.bytes() < size_t(K) * N * 2 || C.size() < size_t(M) * N)
      throw std::runtime_error(std::string("cuBLAS peer: ") + What +
                               ": a buffer is smaller than the matrix it holds");
    cublasHandle_t H = blas();
    const float Alpha = 1.0f, Beta = 0.0f;
    return time(Batch, [&] {
      check(cublasGemmEx(H, CUBLAS_OP_N, CUBLAS_OP_N, int(N), int(M), int(K), &Alpha, B.data(), In,
                         int(N), A.data(), In, int(K), &Beta, C.data(), CUDA_R_32F, int(N),
                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            What);
    });
  }

  /// Row-major C (M x N, int32) = A (M x K, int8) . Bt^T (Bt: N x K, int8). Column-major, C^T
  /// (N x M, ld N) = Bt (column-major K x N, ld K) transposed times A (column-major K x M).
  PeerTime gemmInt8(PeerBytes& C, const PeerBytes& A, const PeerBytes& Bt, uint32_t M, uint32_t N,
                    uint32_t K, int Batch) {
    if (A.bytes() < size_t(M) * K || Bt.bytes() < size_t(K) * N || C.bytes() < size_t(M) * N * 4)
      throw std::runtime_error("cuBLAS peer: cublasGemmEx (int8): a buffer is smaller than the "
                               "matrix it holds");
    cublasHandle_t H = blas();
    const int32_t Alpha = 1, Beta = 0;
    return time(Batch, [&] {
      check(cublasGemmEx(H, CUBLAS_OP_T, CUBLAS_OP_N, int(N), int(M), int(K), &Alpha, Bt.data(),
                         CUDA_R_8I, int(K), A.data(), CUDA_R_8I, int(K), &Beta, C.data(),
                         CUDA_R_32I, int(N), CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx (int8)");
    });
  }

  /// Runs Enqueue Batch times between two events and returns the per-item times.
  template <class F> PeerTime time(int Batch, F&& Enqueue) {
    double T0 = nowMs();
    check(cudaEventRecord(Start, Stream), "cudaEventRecord");
    for (int I = 0; I < Batch; ++I)
      Enqueue();
    check(cudaGetLastError(), "kernel launch");
    check(cudaEventRecord(Stop, Stream), "cudaEventRecord");
    check(cudaStreamSynchronize(Stream), "cudaStreamSynchronize");
    double T1 = nowMs();
    float GpuMs = 0;
    check(cudaEventElapsedTime(&GpuMs, Start, Stop), "cudaEventElapsedTime");
    return PeerTime{(T1 - T0) / Batch, double(GpuMs) / Batch};
  }
};

CudaPeers::CudaPeers() : S(std::make_unique<State>()) {
  check(cudaSetDevice(0), "cudaSetDevice(0)");
  resolve(Driver.LaunchKernel, "cuLaunchKernel", 4000);
  resolve(Driver.MemcpyDtoDAsync, "cuMemcpyDtoDAsync", 3020);
  resolve(Driver.StreamSynchronize, "cuStreamSynchronize", 2000);
  resolve(Driver.GetErrorName, "cuGetErrorName", 6000);
  resolve(Driver.ModuleLoadData, "cuModuleLoadData", 2000);
  resolve(Driver.ModuleGetFunction, "cuModuleGetFunction", 2000);
  check(cudaStreamCreateWithFlags(&S->Stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaEventCreate(&S->Start), "cudaEventCreate");
  check(cudaEventCreate(&S->Stop), "cudaEventCreate");
  cudaFunction_t Fn = nullptr;
  check(cudaGetFuncBySymbol(&Fn, reinterpret_cast<const void*>(&emptyKernel)),
        "cudaGetFuncBySymbol(emptyKernel)");
  S->Empty = reinterpret_cast<CUfunction>(Fn);
  check(cudaGetFuncBySymbol(&Fn, reinterpret_cast<const void*>(&emptyKernelWithPointer)),
        "cudaGetFuncBySymbol(emptyKernelWithPointer)");
  S->EmptyWithPointer = reinterpret_cast<CUfunction>(Fn);
  cudaDeviceProp P{};
  check(cudaGetDeviceProperties(&P, 0), "cudaGetDeviceProperties");
  int Driver = 0, Runtime = 0;
  cudaDriverGetVersion(&Driver);
  cudaRuntimeGetVersion(&Runtime);
  std::snprintf(S->Description, sizeof(S->Description),
                "%s (sm_%d%d, %d SMs), driver %d.%d, peer runtime %d.%d (static)", P.name, P.major,
                P.minor, P.multiProcessorCount, Driver / 1000, Driver % 1000 / 10, Runtime / 1000,
                Runtime % 1000 / 10);
}

CudaPeers::~CudaPeers() {
  if (S->Blas)
    cublasDestroy(S->Blas);
  cudaFree(S->CubTemp);
  cudaEventDestroy(S->Start);
  cudaEventDestroy(S->Stop);
  cudaStreamDestroy(S->Stream);
}

const char* CudaPeers::deviceDescription() const {
  return S->Description;
}

PeerTime CudaPeers::saxpy(PeerBuffer& Y, const PeerBuffer& X, float A, uint32_t N, int Batch) {
  return S->time(Batch, [&] {
    saxpyKernel<<<blocksFor(N, 256), 256, 0, S->Stream>>>(Y.data(), X.data(), A, N);
  });
}

PeerTime CudaPeers::triad(PeerBuffer& A, const PeerBuffer& B, const PeerBuffer& C, float Scalar,
                          uint32_t N, int Batch) {
  return S->time(Batch, [&] {
    triadKernel<<<blocksFor(N, 256), 256, 0, S->Stream>>>(A.data(), B.data(), C.data(), Scalar, N);
  });
}

PeerTime CudaPeers::copyDtoD(PeerBuffer& Dst, const PeerBuffer& Src, int Batch) {
  size_t Bytes = Src.size() * sizeof(float);
  return S->time(Batch, [&] {
    check(Driver.MemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(Dst.data()),
                                 reinterpret_cast<CUdeviceptr>(Src.data()), Bytes,
                                 reinterpret_cast<CUstream>(S->Stream)),
          "cuMemcpyDtoDAsync");
  });
}

PeerTime CudaPeers::cubSum(PeerBuffer& Out, const PeerBuffer& X, uint32_t N, int Batch) {
  size_t Bytes = 0;
  check(cub::DeviceReduce::Sum(nullptr, Bytes, X.data(), Out.data(), int(N), S->Stream),
        "cub::DeviceReduce::Sum (sizing)");
  if (Bytes > S->CubTempBytes) {
    cudaFree(S->CubTemp);
    S->CubTemp = nullptr;
    check(cudaMalloc(&S->CubTemp, Bytes), "cudaMalloc (CUB temporary storage)");
    S->CubTempBytes = Bytes;
  }
  return S->time(Batch, [&] {
    size_t Have = S->CubTempBytes;
    check(cub::DeviceReduce::Sum(S->CubTemp, Have, X.data(), Out.data(), int(N), S->Stream),
          "cub::DeviceReduce::Sum");
  });
}

PeerTime CudaPeers::matmul(PeerBuffer& C, const PeerBuffer& A, const PeerBuffer& B, uint32_t Rows,
                           uint32_t Inner, uint32_t Cols, int Batch) {
  dim3 Grid(blocksFor(Cols, Tile), blocksFor(Rows, Tile));
  dim3 Block(Tile, Tile);
  return S->time(Batch, [&] {
    matmulKernel<<<Grid, Block, 0, S->Stream>>>(C.data(), A.data(), B.data(), Rows, Inner, Cols);
  });
}

PeerTime CudaPeers::timed(int Batch, const std::function<void(void* Stream)>& Enqueue) {
  return S->time(Batch, [&] { Enqueue(S->Stream); });
}

PeerTime CudaPeers::gemmF16(PeerBuffer& C, const PeerBytes& A, const PeerBytes& B, uint32_t M,
                            uint32_t N, uint32_t K, int Batch) {
  return S->gemm(CUDA_R_16F, "cublasGemmEx (float16)", C, A, B, M, N, K, Batch);
}

PeerTime CudaPeers::gemmBf16(PeerBuffer& C, const PeerBytes& A, const PeerBytes& B, uint32_t M,
                             uint32_t N, uint32_t K, int Batch) {
  return S->gemm(CUDA_R_16BF, "cublasGemmEx (bfloat16)", C, A, B, M, N, K, Batch);
}

PeerTime CudaPeers::gemmInt8(PeerBytes& C, const PeerBytes& A, const PeerBytes& Bt, uint32_t M,
                             uint32_t N, uint32_t K, int Batch) {
  return S->gemmInt8(C, A, Bt, M, N, K, Batch);
}

PeerTime CudaPeers::primaryRays(PeerBuffer& T, PeerBytes& Prim, const PeerBytes& Bvh, uint32_t W,
                                uint32_t H, float Ex, float Ey, float Ez, int Batch,
                                bool VectorLoads, bool Tiles) {
  const unsigned Block = 128;
  auto* Kernel = VectorLoads ? primaryRaysKernel<true> : primaryRaysKernel<false>;
  return S->time(Batch, [&] {
    Kernel<<<blocksFor(W * H, Block), Block, 0, S->Stream>>>(
        T.data(), static_cast<int*>(Prim.data()), static_cast<const uint32_t*>(Bvh.data()), W, H,
        Ex, Ey, Ez, Tiles ? 1u : 0u);
  });
}

std::string CudaPeers::cublasVersion() {
  int Major = 0, Minor = 0, Patch = 0;
  check(cublasGetProperty(MAJOR_VERSION, &Major), "cublasGetProperty");
  check(cublasGetProperty(MINOR_VERSION, &Minor), "cublasGetProperty");
  check(cublasGetProperty(PATCH_LEVEL, &Patch), "cublasGetProperty");
  return "cuBLAS " + std::to_string(Major) + "." + std::to_string(Minor) + "." +
         std::to_string(Patch);
}

namespace {
/// Count raw cuLaunchKernel calls of Fn (grid 1 x block 1) on Stream, then a sync: host
/// nanoseconds per launch for the calls alone and with the sync.
void timeRawLaunches(CUfunction Fn, void** Params, CUstream Stream, int Count, double& LaunchNs,
                     double& SyncNs) {
  double T0 = nowMs();
  for (int I = 0; I < Count; ++I)
    check(Driver.LaunchKernel(Fn, 1, 1, 1, 1, 1, 1, 0, Stream, Params, nullptr),
          "cuLaunchKernel(an empty kernel)");
  double T1 = nowMs();
  check(Driver.StreamSynchronize(Stream), "cuStreamSynchronize");
  double T2 = nowMs();
  LaunchNs = (T1 - T0) * 1e6 / Count;
  SyncNs = (T2 - T0) * 1e6 / Count;
}
} // namespace

void CudaPeers::rawLaunchCost(int Count, double& LaunchNs, double& SyncNs) {
  timeRawLaunches(S->Empty, nullptr, reinterpret_cast<CUstream>(S->Stream), Count, LaunchNs,
                  SyncNs);
}

void CudaPeers::rawLaunchCostWithPointer(int Count, double& LaunchNs, double& SyncNs) {
  unsigned long long Ptr = 0;
  void* Params[] = {&Ptr};
  timeRawLaunches(S->EmptyWithPointer, Params, reinterpret_cast<CUstream>(S->Stream), Count,
                  LaunchNs, SyncNs);
}

void CudaPeers::rawLaunchCostOfPtx(int Count, double& LaunchNs, double& SyncNs) {
  if (!S->EmptyFromPtx) {
    CUmodule M = nullptr;
    check(Driver.ModuleLoadData(&M, EmptyKernelPtx), "cuModuleLoadData(empty kernel PTX)");
    check(Driver.ModuleGetFunction(&S->EmptyFromPtx, M, "e"), "cuModuleGetFunction(e)");
  }
  // A real device address, as ours passes its status record.
  if (!S->StatusLike)
    check(cudaMalloc(&S->StatusLike, 256), "cudaMalloc");
  unsigned long long Ptr = reinterpret_cast<unsigned long long>(S->StatusLike);
  void* Params[] = {&Ptr};
  timeRawLaunches(S->EmptyFromPtx, Params, reinterpret_cast<CUstream>(S->Stream), Count, LaunchNs,
                  SyncNs);
}

void CudaPeers::runtimeLaunchCost(int Count, double& LaunchNs, double& SyncNs) {
  double T0 = nowMs();
  for (int I = 0; I < Count; ++I)
    emptyKernel<<<1, 1, 0, S->Stream>>>();
  double T1 = nowMs();
  check(cudaGetLastError(), "emptyKernel<<<1, 1>>>");
  check(cudaStreamSynchronize(S->Stream), "cudaStreamSynchronize");
  double T2 = nowMs();
  LaunchNs = (T1 - T0) * 1e6 / Count;
  SyncNs = (T2 - T0) * 1e6 / Count;
}

void CudaPeers::graphLaunchCost(int Count, int Links, double& LaunchNs, double& SyncNs) {
  cudaGraph_t Graph;
  check(cudaGraphCreate(&Graph, 0), "cudaGraphCreate");
  cudaGraphNode_t Prev = nullptr;
  for (int I = 0; I < Links; ++I) {
    cudaKernelNodeParams P{};
    P.func = reinterpret_cast<void*>(emptyKernel);
    P.gridDim = dim3(1);
    P.blockDim = dim3(1);
    cudaGraphNode_t Node;
    check(cudaGraphAddKernelNode(&Node, Graph, Prev ? &Prev : nullptr, Prev ? 1 : 0, &P),
          "cudaGraphAddKernelNode");
    Prev = Node;
  }
  cudaGraphExec_t Exec;
  check(cudaGraphInstantiate(&Exec, Graph, 0), "cudaGraphInstantiate");
  int Replays = std::max(1, Count / Links);
  double T0 = nowMs();
  for (int I = 0; I < Replays; ++I)
    check(cudaGraphLaunch(Exec, S->Stream), "cudaGraphLaunch");
  double T1 = nowMs();
  check(cudaStreamSynchronize(S->Stream), "cudaStreamSynchronize");
  double T2 = nowMs();
  cudaGraphExecDestroy(Exec);
  cudaGraphDestroy(Graph);
  LaunchNs = (T1 - T0) * 1e6 / (double(Replays) * Links);
  SyncNs = (T2 - T0) * 1e6 / (double(Replays) * Links);
}

} // namespace cajeta::gpubench
