// Resolves the CUDA driver API from libcuda.so.1 with dlopen/dlsym; no link-time dependency.
#include "runtime/backends/cuda/CudaDriverApi.h"

#include <cstdlib>
#include <dlfcn.h>

namespace cajeta::xpu::rt::cuda {

namespace {

template <class Fn> bool resolve(void* Lib, const char* Name, Fn& Out, std::string& Error) {
  Out = reinterpret_cast<Fn>(::dlsym(Lib, Name));
  if (Out)
    return true;
  Error = std::string("the CUDA driver lacks ") + Name;
  return false;
}

} // namespace

bool CudaDriverApi::load(std::string& Error) {
  const char* Path = std::getenv("CAJETA_CUDA_DRIVER");
  if (!Path || !*Path)
    Path = "libcuda.so.1";
  void* Lib = ::dlopen(Path, RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    const char* Why = ::dlerror();
    Error = std::string("cannot load the CUDA driver: ") + (Why ? Why : Path);
    return false;
  }
  // The _v2 names are the 64-bit ABI the driver has exported since CUDA 3.2.
  bool Ok = resolve(Lib, "cuInit", cuInit, Error) &&
            resolve(Lib, "cuGetErrorName", cuGetErrorName, Error) &&
            resolve(Lib, "cuGetErrorString", cuGetErrorString, Error) &&
            resolve(Lib, "cuDeviceGetCount", cuDeviceGetCount, Error) &&
            resolve(Lib, "cuDeviceGet", cuDeviceGet, Error) &&
            resolve(Lib, "cuDeviceGetName", cuDeviceGetName, Error) &&
            resolve(Lib, "cuDeviceGetAttribute", cuDeviceGetAttribute, Error) &&
            resolve(Lib, "cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain, Error) &&
            resolve(Lib, "cuDevicePrimaryCtxRelease_v2", cuDevicePrimaryCtxRelease, Error) &&
            resolve(Lib, "cuCtxSetCurrent", cuCtxSetCurrent, Error) &&
            resolve(Lib, "cuCtxGetCurrent", cuCtxGetCurrent, Error) &&
            resolve(Lib, "cuMemAlloc_v2", cuMemAlloc, Error) &&
            resolve(Lib, "cuMemFree_v2", cuMemFree, Error) &&
            resolve(Lib, "cuMemAllocHost_v2", cuMemAllocHost, Error) &&
            resolve(Lib, "cuMemFreeHost", cuMemFreeHost, Error) &&
            resolve(Lib, "cuMemHostAlloc", cuMemHostAlloc, Error) &&
            resolve(Lib, "cuMemcpyHtoDAsync_v2", cuMemcpyHtoDAsync, Error) &&
            resolve(Lib, "cuMemcpyDtoHAsync_v2", cuMemcpyDtoHAsync, Error) &&
            resolve(Lib, "cuMemcpyDtoDAsync_v2", cuMemcpyDtoDAsync, Error) &&
            resolve(Lib, "cuMemsetD8Async", cuMemsetD8Async, Error) &&
            resolve(Lib, "cuStreamCreate", cuStreamCreate, Error) &&
            resolve(Lib, "cuStreamDestroy_v2", cuStreamDestroy, Error) &&
            resolve(Lib, "cuStreamSynchronize", cuStreamSynchronize, Error) &&
            resolve(Lib, "cuStreamWaitEvent", cuStreamWaitEvent, Error) &&
            resolve(Lib, "cuLaunchHostFunc", cuLaunchHostFunc, Error) &&
            resolve(Lib, "cuEventCreate", cuEventCreate, Error) &&
            resolve(Lib, "cuEventRecord", cuEventRecord, Error) &&
            resolve(Lib, "cuEventQuery", cuEventQuery, Error) &&
            resolve(Lib, "cuEventSynchronize", cuEventSynchronize, Error) &&
            resolve(Lib, "cuEventDestroy_v2", cuEventDestroy, Error) &&
            resolve(Lib, "cuModuleLoadDataEx", cuModuleLoadDataEx, Error) &&
            resolve(Lib, "cuModuleUnload", cuModuleUnload, Error) &&
            resolve(Lib, "cuModuleGetFunction", cuModuleGetFunction, Error) &&
            resolve(Lib, "cuFuncGetAttribute", cuFuncGetAttribute, Error) &&
            resolve(Lib, "cuFuncSetAttribute", cuFuncSetAttribute, Error) &&
            resolve(Lib, "cuLaunchKernel", cuLaunchKernel, Error);
  if (!Ok) {
    ::dlclose(Lib);
    return false;
  }
  // Optional: the trace's device times, and graphs (without every graph entry point, chains
  // are issued launch by launch).
  cuEventElapsedTime =
      reinterpret_cast<decltype(cuEventElapsedTime)>(::dlsym(Lib, "cuEventElapsedTime_v2"));
  if (!cuEventElapsedTime)
    cuEventElapsedTime =
        reinterpret_cast<decltype(cuEventElapsedTime)>(::dlsym(Lib, "cuEventElapsedTime"));
  cuLaunchKernelEx = reinterpret_cast<decltype(cuLaunchKernelEx)>(::dlsym(Lib, "cuLaunchKernelEx"));
  cuCtxGetStreamPriorityRange = reinterpret_cast<decltype(cuCtxGetStreamPriorityRange)>(
      ::dlsym(Lib, "cuCtxGetStreamPriorityRange"));
  cuDriverGetVersion =
      reinterpret_cast<decltype(cuDriverGetVersion)>(::dlsym(Lib, "cuDriverGetVersion"));
  cuTensorMapEncodeTiled =
      reinterpret_cast<decltype(cuTensorMapEncodeTiled)>(::dlsym(Lib, "cuTensorMapEncodeTiled"));
  std::string Missing;
  // Green contexts are optional: without every one of them nothing is reserved.
  if (!(resolve(Lib, "cuDeviceGetDevResource", cuDeviceGetDevResource, Missing) &&
        resolve(Lib, "cuDevSmResourceSplitByCount", cuDevSmResourceSplitByCount, Missing) &&
        resolve(Lib, "cuDevResourceGenerateDesc", cuDevResourceGenerateDesc, Missing) &&
        resolve(Lib, "cuGreenCtxCreate", cuGreenCtxCreate, Missing) &&
        resolve(Lib, "cuGreenCtxDestroy", cuGreenCtxDestroy, Missing) &&
        resolve(Lib, "cuCtxFromGreenCtx", cuCtxFromGreenCtx, Missing) &&
        resolve(Lib, "cuGreenCtxStreamCreate", cuGreenCtxStreamCreate, Missing) &&
        resolve(Lib, "cuCtxPushCurrent_v2", cuCtxPushCurrent, Missing) &&
        resolve(Lib, "cuCtxPopCurrent_v2", cuCtxPopCurrent, Missing) &&
        resolve(Lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                cuOccupancyMaxActiveBlocksPerMultiprocessor, Missing)))
    cuOccupancyMaxActiveBlocksPerMultiprocessor = nullptr;
  // Graphs are optional: without every one of them, chains are issued launch by launch.
  if (!(resolve(Lib, "cuGraphCreate", cuGraphCreate, Missing) &&
        resolve(Lib, "cuGraphAddKernelNode_v2", cuGraphAddKernelNode, Missing) &&
        resolve(Lib, "cuGraphInstantiateWithFlags", cuGraphInstantiateWithFlags, Missing) &&
        resolve(Lib, "cuGraphLaunch", cuGraphLaunch, Missing) &&
        resolve(Lib, "cuGraphExecKernelNodeSetParams_v2", cuGraphExecKernelNodeSetParams,
                Missing) &&
        resolve(Lib, "cuGraphExecDestroy", cuGraphExecDestroy, Missing) &&
        resolve(Lib, "cuGraphDestroy", cuGraphDestroy, Missing)))
    cuGraphDestroy = nullptr;
  return Ok; // on success the library stays loaded for the life of the process
}

std::string CudaDriverApi::describe(CUresult R) const {
  const char* Name = nullptr;
  const char* Text = nullptr;
  if (cuGetErrorName(R, &Name) != CUDA_SUCCESS || !Name)
    Name = "CUDA_ERROR_UNKNOWN";
  if (cuGetErrorString(R, &Text) != CUDA_SUCCESS || !Text)
    Text = "no description";
  return std::string(Name) + " (" + Text + ")";
}

} // namespace cajeta::xpu::rt::cuda
