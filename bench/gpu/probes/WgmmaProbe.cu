// Probe: what the wgmma tier of Group.mac can reach on the H200, written by hand before the
// compiler emits it (docs/benchmarks.md, "wgmma by hand"). A float16 GEMM, float32 out, beside
// cuBLAS in one process on the same data, every element compared with cuBLAS's:
// - RS 256x64: the per-wave Tile semantics as they are (each wave its own 64 x 64 accumulator),
//   b shared by the four waves of a warpgroup in a 128-byte-swizzled stage, a from registers
//   (ldmatrix), four wgmma.m64n64k16 per 16-deep step;
// - SS 128x128: a tile held by the whole warpgroup (rows split across the four waves), a and b
//   both read by the tensor cores from swizzled stages, two wgmma.m64n128k16 per step; the
//   "lbo=K" row swaps the descriptor's two offsets and must come out wrong (relerr ~1): which
//   offset steps across 64-column atoms of an MN-major b.
// The stages are filled by cp.async in every variant (no TMA, no warp specialisation).
//
// Build and run (GPU machine, CUDA 13):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a bench/gpu/probes/WgmmaProbe.cu \
//        -o wgmma_probe -lcublas && ./wgmma_probe
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <vector>

#define CK(x)                                                                                      \
  do {                                                                                             \
    auto e = (x);                                                                                  \
    if (e != 0) {                                                                                  \
      printf("error %d at %s:%d\n", int(e), __FILE__, __LINE__);                                   \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

__device__ __forceinline__ uint32_t swz(uint32_t o) {
  return o ^ (((o >> 7) & 7) << 4);
}

__device__ __forceinline__ uint64_t descOf(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  uint64_t d = (addr & 0x3FFFF) >> 4;
  d |= uint64_t(lbo >> 4) << 16;
  d |= uint64_t(sbo >> 4) << 32;
  d |= 1ull << 62;
  return d;
}

__device__ __forceinline__ void wgmma64(float* d, const uint32_t* a, uint64_t desc) {
  asm volatile("{\n"
               "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
               "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
               "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
               "{%32, %33, %34, %35}, %36, 1, 1, 1, 1;\n"
               "}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
                 "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
                 "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
                 "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
                 "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
                 "+f"(d[31])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc));
}

template <int STAGES, int WAITK, int LBO>
__global__ void __launch_bounds__(128)
    gemmW(float* C, const half* A, const half* B, int M, int N, int K) {
  extern __shared__ __align__(1024) unsigned char smem[];
  constexpr uint32_t StageBytes = 32768 + 8192;
  uint32_t sbase = uint32_t(__cvta_generic_to_shared(smem));
  if (sbase & 1023)
    __trap();
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  int row0 = blockIdx.y * 256, col0 = blockIdx.x * 64;
  float acc[4][32];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 32; ++j)
      acc[i][j] = 0.f;
  int steps = K / 64;
  auto issue = [&](int kt) {
    uint32_t sa = sbase + (kt % STAGES) * StageBytes, sb = sa + 32768;
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      int c = tid + 128 * j, r = c / 8, ch = c % 8;
      const half* g = A + size_t(row0 + r) * K + kt * 64 + ch * 8;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa + swz(r * 128 + ch * 16)),
                   "l"(g));
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int c = tid + 128 * j, r = c / 8, ch = c % 8;
      const half* g = B + size_t(kt * 64 + r) * N + col0 + ch * 8;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sb + swz(r * 128 + ch * 16)),
                   "l"(g));
    }
  };
  for (int kt = 0; kt < STAGES - 1; ++kt) {
    if (kt < steps)
      issue(kt);
    asm volatile("cp.async.commit_group;");
  }
  for (int kt = 0; kt < steps; ++kt) {
    asm volatile("cp.async.wait_group %0;" ::"n"(STAGES - 2));
    asm volatile("fence.proxy.async.shared::cta;");
    __syncthreads();
    if (kt + STAGES - 1 < steps)
      issue(kt + STAGES - 1);
    asm volatile("cp.async.commit_group;");
    uint32_t sa = sbase + (kt % STAGES) * StageBytes, sb = sa + 32768;
#pragma unroll
    for (int ki = 0; ki < 4; ++ki) {
      uint32_t a[4][4];
#pragma unroll
      for (int mi = 0; mi < 4; ++mi) {
        int row = warp * 64 + mi * 16 + lane % 16;
        uint32_t addr = sa + swz(row * 128 + ki * 32 + (lane / 16) * 16);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(a[mi][0]), "=r"(a[mi][1]), "=r"(a[mi][2]), "=r"(a[mi][3])
                     : "r"(addr));
      }
      uint64_t desc = descOf(sb + ki * 2048, LBO, 1024);
      asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
      for (int mi = 0; mi < 4; ++mi)
        wgmma64(acc[mi], a[mi], desc);
      asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
      if (WAITK || ki == 3)
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
    }
  }
  int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int mi = 0; mi < 4; ++mi)
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        int r = row0 + warp * 64 + mi * 16 + g + (i >= 2 ? 8 : 0);
        int c = col0 + 8 * j + 2 * t + (i & 1);
        C[size_t(r) * N + c] = acc[mi][j * 4 + i];
      }
}

__device__ __forceinline__ void wgmmaSS128(float* d, uint64_t da, uint64_t db) {
  asm volatile("{\n"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, "
               "%7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, "
               "%24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, "
               "%40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, "
               "%56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, 1, 1, 1, 0, 1;\n"
               "}\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
                 "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
                 "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
                 "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
                 "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
                 "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
                 "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),
                 "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
                 "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
                 "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),
                 "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
               : "l"(da), "l"(db));
}

__device__ __forceinline__ uint64_t descSW(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return descOf(addr, lbo, sbo);
}

// Group-held 128x128 tile: one warpgroup, two m64n128k16 SS per k16.
template <int S, int DEFER, int SWAP>
__global__ void __launch_bounds__(128)
    gemmSS(float* C, const half* A, const half* B, int M, int N, int K) {
  extern __shared__ __align__(1024) unsigned char smem[];
  constexpr uint32_t StageBytes = 32768;
  uint32_t sbase = uint32_t(__cvta_generic_to_shared(smem));
  if (sbase & 1023)
    __trap();
  int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
  float acc[2][64];
#pragma unroll
  for (int i = 0; i < 2; ++i)
#pragma unroll
    for (int j = 0; j < 64; ++j)
      acc[i][j] = 0.f;
  int steps = K / 64;
  auto issue = [&](int kt) {
    uint32_t sa = sbase + (kt % S) * StageBytes, sb = sa + 16384;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int c = tid + 128 * j, r = c / 8, ch = c % 8;
      const half* g = A + size_t(row0 + r) * K + kt * 64 + ch * 8;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa + swz(r * 128 + ch * 16)),
                   "l"(g));
    }
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      int c = tid + 128 * j, r = c / 16, ch = c % 16;
      const half* g = B + size_t(kt * 64 + r) * N + col0 + ch * 8;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sb + (ch / 8) * 8192 +
                                                                     swz(r * 128 + (ch % 8) * 16)),
                   "l"(g));
    }
  };
  constexpr int Ahead = DEFER ? S - 2 : S - 1;
  for (int kt = 0; kt < Ahead; ++kt) {
    if (kt < steps)
      issue(kt);
    asm volatile("cp.async.commit_group;");
  }
  for (int kt = 0; kt < steps; ++kt) {
    asm volatile("cp.async.wait_group %0;" ::"n"(Ahead - 1));
    asm volatile("fence.proxy.async.shared::cta;");
    __syncthreads();
    if (kt + Ahead < steps)
      issue(kt + Ahead);
    asm volatile("cp.async.commit_group;");
    uint32_t sa = sbase + (kt % S) * StageBytes, sb = sa + 16384;
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int ki = 0; ki < 4; ++ki) {
      uint64_t db = SWAP ? descSW(sb + ki * 2048, 1024, 8192) : descSW(sb + ki * 2048, 8192, 1024);
#pragma unroll
      for (int mh = 0; mh < 2; ++mh)
        wgmmaSS128(acc[mh], descSW(sa + mh * 8192 + ki * 32, 16, 1024), db);
    }
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    if (DEFER)
      asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    else
      asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int mh = 0; mh < 2; ++mh)
#pragma unroll
    for (int j = 0; j < 16; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        int r = row0 + mh * 64 + warp * 16 + g + (i >= 2 ? 8 : 0);
        int c = col0 + 8 * j + 2 * t + (i & 1);
        C[size_t(r) * N + c] = acc[mh][j * 4 + i];
      }
}

/// The best of three batches' time per launch, in ms.
template <class Launch> float bestMs(int n, Launch launch) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  int reps = n >= 8192 ? 5 : 20;
  float best = 1e9;
  for (int round = 0; round < 3; ++round) {
    cudaEventRecord(e0);
    for (int i = 0; i < reps; ++i)
      launch();
    cudaEventRecord(e1);
    CK(cudaEventSynchronize(e1));
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    best = std::min(best, ms / reps);
  }
  return best;
}

/// Runs launch once into C, compares every element with cuBLAS's Ref (relative 2-norm of the
/// difference), times it and prints a row beside cuBLAS's time.
template <class Launch>
void report(const char* name, int n, float* C, float* Ref, float cublasMs, Launch launch) {
  cudaMemset(C, 0, size_t(n) * n * 4);
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> c(size_t(n) * n), r(size_t(n) * n);
  CK(cudaMemcpy(c.data(), C, c.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(r.data(), Ref, r.size() * 4, cudaMemcpyDeviceToHost));
  double num = 0, den = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    double d = double(c[i]) - r[i];
    num += d * d;
    den += double(r[i]) * r[i];
  }
  float best = bestMs(n, launch);
  double tf = 2.0 * n * n * double(n) / (best * 1e-3) / 1e12;
  printf("%-28s n=%d  %.3f ms  %.1f TFLOP/s  ratio %.3f  relerr %.2e\n", name, n, best, tf,
         cublasMs / best, std::sqrt(num / den));
}

template <int S, int D, int W>
void runSS(const char* name, int n, half* A, half* B, float* C, float* Ref, float cublasMs) {
  size_t smem = size_t(S) * 32768;
  CK(cudaFuncSetAttribute(gemmSS<S, D, W>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  report(name, n, C, Ref, cublasMs,
         [&] { gemmSS<S, D, W><<<dim3(n / 128, n / 128), 128, smem>>>(C, A, B, n, n, n); });
}

__global__ void refGemm(float* C, const half* A, const half* B, int M, int N, int K) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y;
  if (c >= N)
    return;
  float s = 0;
  for (int k = 0; k < K; ++k)
    s += __half2float(A[size_t(r) * K + k]) * __half2float(B[size_t(k) * N + c]);
  C[size_t(r) * N + c] = s;
}

__global__ void fill(half* p, size_t n, uint32_t seed) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995;
    h ^= h >> 15;
    p[i] = __float2half(float(int(h % 2001) - 1000) / 1000.f);
  }
}

template <int S, int W, int L>
void runOurs(const char* name, int n, half* A, half* B, float* C, float* Ref, float cublasMs) {
  size_t smem = size_t(S) * 40960;
  CK(cudaFuncSetAttribute(gemmW<S, W, L>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  report(name, n, C, Ref, cublasMs,
         [&] { gemmW<S, W, L><<<dim3(n / 64, n / 256), 128, smem>>>(C, A, B, n, n, n); });
}

int main() {
  cublasHandle_t h;
  CK(cublasCreate(&h));
  for (int n : {4096, 8192}) {
    size_t nn = size_t(n) * n;
    half *A, *B;
    float *C, *Ref;
    CK(cudaMalloc(&A, nn * 2));
    CK(cudaMalloc(&B, nn * 2));
    CK(cudaMalloc(&C, nn * 4));
    CK(cudaMalloc(&Ref, nn * 4));
    fill<<<(nn + 255) / 256, 256>>>(A, nn, 1);
    fill<<<(nn + 255) / 256, 256>>>(B, nn, 7);
    float alpha = 1, beta = 0;
    // cuBLAS row-major C = A B  <=>  C^T = B^T A^T column-major
    auto cub = [&] {
      CK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, B, CUDA_R_16F, n, A, CUDA_R_16F,
                      n, &beta, Ref, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    };
    cub();
    CK(cudaDeviceSynchronize());
    float best = bestMs(n, cub);
    printf("cuBLAS n=%d %.3f ms %.1f TFLOP/s\n", n, best,
           2.0 * n * n * double(n) / (best * 1e-3) / 1e12);
    runOurs<2, 0, 1024>("RS 256x64 S2", n, A, B, C, Ref, best);
    runSS<3, 0, 0>("SS 128x128 S3 lbo=MN", n, A, B, C, Ref, best);
    runSS<3, 0, 1>("SS 128x128 S3 lbo=K", n, A, B, C, Ref, best);
    runSS<4, 0, 0>("SS 128x128 S4", n, A, B, C, Ref, best);
    runSS<3, 1, 0>("SS 128x128 S3 defer", n, A, B, C, Ref, best);
    runSS<4, 1, 0>("SS 128x128 S4 defer", n, A, B, C, Ref, best);
    runSS<5, 1, 0>("SS 128x128 S5 defer", n, A, B, C, Ref, best);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    cudaFree(Ref);
  }
  return 0;
}
