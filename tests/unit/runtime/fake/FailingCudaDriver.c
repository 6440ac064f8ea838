/* A stand-in CUDA driver that loads and then fails to initialise, as a broken installation does
   (a driver without a device, a kernel module that does not match): every entry point the
   runtime resolves is here, cuInit answers CUDA_ERROR_NO_DEVICE and everything else fails.
   Loaded through CAJETA_CUDA_DRIVER by the cuda_driver_fails_to_initialise test. */

#define CUDA_ERROR_NO_DEVICE 100
#define CUDA_ERROR_NOT_INITIALIZED 3

int cuInit(unsigned Flags) {
  (void)Flags;
  return CUDA_ERROR_NO_DEVICE;
}

int cuGetErrorName(int Code, const char** Name) {
  *Name = Code == CUDA_ERROR_NO_DEVICE ? "CUDA_ERROR_NO_DEVICE" : "CUDA_ERROR_NOT_INITIALIZED";
  return 0;
}

int cuGetErrorString(int Code, const char** Text) {
  *Text = Code == CUDA_ERROR_NO_DEVICE ? "no CUDA-capable device is detected"
                                       : "initialization error";
  return 0;
}

/* The rest: never reached after the failed cuInit, and failing if they were. */
int cuDeviceGetCount(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuDeviceGet(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuDeviceGetName(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuDeviceGetAttribute(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuDevicePrimaryCtxRetain(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuDevicePrimaryCtxRelease_v2(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuCtxSetCurrent(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuCtxGetCurrent(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuMemAlloc_v2(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuMemFree_v2(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuMemAllocHost_v2(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuMemFreeHost(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuMemHostAlloc(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuMemcpyHtoDAsync_v2(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuMemcpyDtoHAsync_v2(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuMemcpyDtoDAsync_v2(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuMemsetD8Async(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuStreamCreate(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuStreamDestroy_v2(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuStreamSynchronize(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuStreamWaitEvent(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuLaunchHostFunc(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuEventCreate(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuEventRecord(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuEventQuery(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuEventSynchronize(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuEventDestroy_v2(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuModuleLoadDataEx(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuModuleUnload(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuModuleGetFunction(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuFuncGetAttribute(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuFuncSetAttribute(void) { return CUDA_ERROR_NOT_INITIALIZED; }
int cuLaunchKernel(void) { return CUDA_ERROR_NOT_INITIALIZED; }
