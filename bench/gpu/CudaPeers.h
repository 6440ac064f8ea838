// The CUDA C++ peers of the GPU bench (built by nvcc in CudaPeers.cu), behind a CUDA-free API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace cajeta::gpubench {

/// Device memory of n floats from cudaMalloc; errors throw std::runtime_error naming the call.
class PeerBuffer {
public:
  explicit PeerBuffer(size_t Count);
  ~PeerBuffer();
  PeerBuffer(const PeerBuffer&) = delete;
  PeerBuffer& operator=(const PeerBuffer&) = delete;

  void upload(const float* Src);
  void download(float* Dst) const;
  size_t size() const { return Count; }
  float* data() const { return Data; }

private:
  float* Data = nullptr;
  size_t Count = 0;
};

/// Device memory of Bytes bytes from cudaMalloc, for elements that are not float (the float16 and
/// bfloat16 GEMM inputs); errors throw std::runtime_error naming the call.
class PeerBytes {
public:
  explicit PeerBytes(size_t Bytes);
  ~PeerBytes();
  PeerBytes(const PeerBytes&) = delete;
  PeerBytes& operator=(const PeerBytes&) = delete;

  /// Copies all bytes() from Src / into Dst.
  void upload(const void* Src);
  void download(void* Dst) const;
  size_t bytes() const { return Bytes; }
  void* data() const { return Data; }

private:
  void* Data = nullptr;
  size_t Bytes = 0;
};

/// One batch of peer work: host wall time (launches through cudaStreamSynchronize) and GPU time
/// (CUDA events recorded on the peer stream around the batch), both per item of the batch.
struct PeerTime {
  double WallMs = 0;
  double GpuMs = 0;
};

/// The peers: each call enqueues Batch copies of one workload on the peer stream and waits.
class CudaPeers {
public:
  CudaPeers();
  ~CudaPeers();
  CudaPeers(const CudaPeers&) = delete;
  CudaPeers& operator=(const CudaPeers&) = delete;

  /// "NVIDIA H200 (sm_90, 132 SMs), driver 13.0, runtime 13.0".
  const char* deviceDescription() const;

  PeerTime saxpy(PeerBuffer& Y, const PeerBuffer& X, float A, uint32_t N, int Batch);
  PeerTime triad(PeerBuffer& A, const PeerBuffer& B, const PeerBuffer& C, float S, uint32_t N,
                 int Batch);
  /// cuMemcpyDtoDAsync of all of Src into Dst.
  PeerTime copyDtoD(PeerBuffer& Dst, const PeerBuffer& Src, int Batch);
  /// cub::DeviceReduce::Sum of X into Out[0] (temporary storage kept between calls).
  PeerTime cubSum(PeerBuffer& Out, const PeerBuffer& X, uint32_t N, int Batch);
  PeerTime matmul(PeerBuffer& C, const PeerBuffer& A, const PeerBuffer& B, uint32_t Rows,
                  uint32_t Inner, uint32_t Cols, int Batch);
  /// Batch calls of Enqueue(stream), each enqueuing one item on the peer stream (a
  /// cudaStream_t), timed like the peers above: for peers built in other .cu files.
  PeerTime timed(int Batch, const std::function<void(void* Stream)>& Enqueue);

  /// cuBLAS cublasGemmEx: C (float32, row-major M x N) = A (row-major M x K) * B (row-major
  /// K x N), inputs float16 (gemmF16) or bfloat16 (gemmBf16), float32 accumulation
  /// (CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT). A and B hold 2-byte elements; C float32.
  PeerTime gemmF16(PeerBuffer& C, const PeerBytes& A, const PeerBytes& B, uint32_t M, uint32_t N,
                   uint32_t K, int Batch);
  PeerTime gemmBf16(PeerBuffer& C, const PeerBytes& A, const PeerBytes& B, uint32_t M, uint32_t N,
                    uint32_t K, int Batch);
  /// cuBLAS cublasGemmEx in its int8 form: C (int32, row-major M x N) = A (int8, row-major
  /// M x K) * B, with B given transposed (Bt: int8, row-major N x K, the "TN" layout cuBLAS's
  /// integer tensor-core kernels take), int32 accumulation (CUBLAS_COMPUTE_32I). C holds M * N
  /// int32.
  PeerTime gemmInt8(PeerBytes& C, const PeerBytes& A, const PeerBytes& Bt, uint32_t M, uint32_t N,
                    uint32_t K, int Batch);
  /// "cuBLAS 13.0.2".
  std::string cublasVersion();

  /// raytrace.cj's primary rays by hand in CUDA C++: the same camera, the same BVH words (the
  /// layout of bundle/AccelLayout.h), a near-first walk with a 64-entry stack and the same
  /// watertight triangle test. T: W * H floats (t or -1); Prim: W * H int32. VectorLoads: each
  /// node's and triangle slot's words in 128-bit loads instead of one load per word. Tiles:
  /// each 32 threads trace an 8 x 4 tile of pixels (W a multiple of 8, H of 4) instead of 32
  /// pixels of a row; T and Prim are indexed by pixel either way.
  PeerTime primaryRays(PeerBuffer& T, PeerBytes& Prim, const PeerBytes& Bvh, uint32_t W, uint32_t H,
                       float Ex, float Ey, float Ez, int Batch, bool VectorLoads = false,
                       bool Tiles = false);

  /// Host nanoseconds per launch of an empty nvcc-built kernel by the raw driver API
  /// (cuLaunchKernel, grid 1 x block 1) over Count launches, not counting the final sync
  /// (SyncNs: the whole loop including cuStreamSynchronize, per launch).
  void rawLaunchCost(int Count, double& LaunchNs, double& SyncNs);
  /// The same for an empty kernel with one pointer parameter (each of our kernels takes its
  /// status record): what the parameter itself costs the driver.
  void rawLaunchCostWithPointer(int Count, double& LaunchNs, double& SyncNs);
  /// The same for the PTX our compiler makes for an empty kernel, JIT-loaded by the driver
  /// (cuModuleLoadData) as our runtime loads it.
  void rawLaunchCostOfPtx(int Count, double& LaunchNs, double& SyncNs);
  /// The same through the runtime API's triple-chevron launch.
  void runtimeLaunchCost(int Count, double& LaunchNs, double& SyncNs);
  /// Host nanoseconds per kernel of a CUDA graph of Links empty kernels in a line (built once
  /// with cudaGraphAddKernelNode, instantiated once), launched Count / Links times with
  /// cudaGraphLaunch; SyncNs includes the final cudaStreamSynchronize.
  void graphLaunchCost(int Count, int Links, double& LaunchNs, double& SyncNs);

private:
  struct State;
  std::unique_ptr<State> S;
};

} // namespace cajeta::gpubench
