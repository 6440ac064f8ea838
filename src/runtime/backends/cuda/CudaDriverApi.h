// The CUDA driver API entry points the cuda backend calls, declared here and resolved by dlsym.
// Only what we use; values from the driver API's documented ABI (no cuda.h in the build).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cajeta::xpu::rt::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
struct CUctx_st;
struct CUstream_st;
struct CUmod_st;
struct CUfunc_st;
struct CUevent_st;
using CUcontext = CUctx_st*;
using CUstream = CUstream_st*;
using CUmodule = CUmod_st*;
using CUfunction = CUfunc_st*;
using CUevent = CUevent_st*;
using CUhostFn = void (*)(void*);
struct CUgraph_st;
struct CUgraphNode_st;
struct CUgraphExec_st;
using CUgraph = CUgraph_st*;
using CUgraphNode = CUgraphNode_st*;
using CUgraphExec = CUgraphExec_st*;
struct CUgreenCtx_st;
struct CUdevResourceDesc_st;
using CUgreenCtx = CUgreenCtx_st*;
using CUdevResourceDesc = CUdevResourceDesc_st*;

/// CUdevResource: a type, 92 bytes the driver keeps to itself, then the SM resource's fields
/// (CUDA 13 appends a link pointer; Spare leaves room for what a later driver adds, since only
/// single resources are passed, never arrays).
struct CudaDevResource {
  int Type;
  unsigned char Internal[92];
  unsigned SmCount;
  unsigned MinSmPartitionSize;     // CUDA 13; 0 from an older driver
  unsigned SmCoscheduledAlignment; // CUDA 13; 0 from an older driver
  unsigned Flags;
  unsigned char Spare[160];
};
constexpr int CU_DEV_RESOURCE_TYPE_SM = 1;
constexpr unsigned CU_GREEN_CTX_DEFAULT_STREAM = 1;

/// CUDA_KERNEL_NODE_PARAMS_v2: kern and ctx are ignored when func is set.
struct CudaKernelNodeParams {
  CUfunction func;
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void** kernelParams;
  void** extra;
  void* kern;
  CUcontext ctx;
};

/// CUlaunchAttribute: an id, padding to 8 bytes, a 64-byte value (a union; priority is an int).
struct CudaLaunchAttribute {
  int Id;
  char Pad[4];
  union {
    char Bytes[64];
    int Priority;
  } Value;
};
constexpr int CU_LAUNCH_ATTRIBUTE_PRIORITY = 8;

/// CUlaunchConfig.
struct CudaLaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CudaLaunchAttribute* attrs;
  unsigned numAttrs;
};

static_assert(sizeof(CudaLaunchAttribute) == 72 && sizeof(CudaLaunchConfig) == 56,
              "the driver API's launch-attribute layout");

/// CUtensorMap: the 128 opaque bytes cuTensorMapEncodeTiled fills, 64-byte aligned; a TMA entry
/// takes each by value (bundle::TargetManifest::TensorMaps).
struct alignas(64) CUtensorMap {
  uint64_t Opaque[16];
};
static_assert(sizeof(CUtensorMap) == 128, "the driver API's tensor map");

// CUtensorMapDataType, CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion and
// CUtensorMapFloatOOBfill values.
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1;
constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2;
constexpr int CU_TENSOR_MAP_INTERLEAVE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_NONE = 0;
constexpr int CU_TENSOR_MAP_SWIZZLE_128B = 3;
constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2;
constexpr int CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0; // zeros

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_NOT_READY = 600;

// CUdevice_attribute values.
constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
constexpr int CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13;
constexpr int CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36;
constexpr int CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33;
constexpr int CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34;
constexpr int CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50;

// CUfunction_attribute values.
constexpr int CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
constexpr int CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
constexpr int CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3;
constexpr int CU_FUNC_ATTRIBUTE_NUM_REGS = 4;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

// CUjit_option values.
constexpr int CU_JIT_INFO_LOG_BUFFER = 3;
constexpr int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 2;
constexpr unsigned CU_MEMHOSTALLOC_PORTABLE = 1;

/// The driver's entry points, resolved from libcuda.so.1 (or CAJETA_CUDA_DRIVER, for tests).
struct CudaDriverApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxGetCurrent)(CUcontext*);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemAllocHost)(void**, size_t);
  CUresult (*cuMemFreeHost)(void*);
  CUresult (*cuMemHostAlloc)(void**, size_t, unsigned);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void*, size_t, CUstream);
  CUresult (*cuMemcpyDtoHAsync)(void*, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream*, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuLaunchHostFunc)(CUstream, CUhostFn, void*);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventQuery)(CUevent);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, int*, void**);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuFuncGetAttribute)(int*, int, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void**, void**);

  // CUDA graphs (chains), resolved when the driver has them (CUDA 12+); null otherwise.
  CUresult (*cuGraphCreate)(CUgraph*, unsigned) = nullptr;
  CUresult (*cuGraphAddKernelNode)(CUgraphNode*, CUgraph, const CUgraphNode*, size_t,
                                   const CudaKernelNodeParams*) = nullptr;
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec*, CUgraph, unsigned long long) = nullptr;
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream) = nullptr;
  CUresult (*cuGraphExecKernelNodeSetParams)(CUgraphExec, CUgraphNode,
                                             const CudaKernelNodeParams*) = nullptr;
  CUresult (*cuGraphExecDestroy)(CUgraphExec) = nullptr;
  CUresult (*cuGraphDestroy)(CUgraph) = nullptr;
  bool hasGraphs() const { return cuGraphDestroy != nullptr; }
  /// For the trace's device times; null when the driver lacks it.
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr; // optional: calibration keys
  // Optional (CUDA 12): launches with attributes, for the latency policy's launch priority.
  CUresult (*cuLaunchKernelEx)(const CudaLaunchConfig*, CUfunction, void**, void**) = nullptr;
  CUresult (*cuCtxGetStreamPriorityRange)(int*, int*) = nullptr;
  // Optional (CUDA 12.4): green contexts, for reserving SMs (CudaReservation).
  CUresult (*cuDeviceGetDevResource)(CUdevice, CudaDevResource*, int) = nullptr;
  CUresult (*cuDevSmResourceSplitByCount)(CudaDevResource*, unsigned*, const CudaDevResource*,
                                          CudaDevResource*, unsigned, unsigned) = nullptr;
  CUresult (*cuDevResourceGenerateDesc)(CUdevResourceDesc*, CudaDevResource*, unsigned) = nullptr;
  CUresult (*cuGreenCtxCreate)(CUgreenCtx*, CUdevResourceDesc, CUdevice, unsigned) = nullptr;
  CUresult (*cuGreenCtxDestroy)(CUgreenCtx) = nullptr;
  CUresult (*cuCtxFromGreenCtx)(CUcontext*, CUgreenCtx) = nullptr;
  CUresult (*cuGreenCtxStreamCreate)(CUstream*, CUgreenCtx, unsigned, int) = nullptr;
  CUresult (*cuCtxPushCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxPopCurrent)(CUcontext*) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, CUfunction, int, size_t) = nullptr;
  bool hasGreenContexts() const { return cuOccupancyMaxActiveBlocksPerMultiprocessor != nullptr; }
  // Optional (CUDA 12): tensor maps for TMA entries; without it they run their plain entry.
  CUresult (*cuTensorMapEncodeTiled)(CUtensorMap*, int, uint32_t, void*, const uint64_t*,
                                     const uint64_t*, const uint32_t*, const uint32_t*, int, int,
                                     int, int) = nullptr;

  /// Loads the driver library and every entry point; false with Error set when it cannot.
  bool load(std::string& Error);
  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for messages.
  std::string describe(CUresult R) const;
};

} // namespace cajeta::xpu::rt::cuda
