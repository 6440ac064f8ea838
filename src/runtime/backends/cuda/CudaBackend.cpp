// The cuda backend: device discovery, primary contexts, memory, per-stream CUstreams, PTX modules
// through the driver's JIT, and launches marshalled by GpuKernelAbi.h.
#include "runtime/backends/cuda/CudaBackend.h"

#include "bundle/GpuKernelAbi.h"
#include "runtime/RuntimeError.h"
#include "runtime/backends/cuda/CudaDriverApi.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <mutex>

namespace cajeta::xpu::rt {

using namespace cuda;

namespace {

constexpr unsigned DefaultSharedLimit = 48 * 1024; // above it a kernel must opt in

/// A loaded PTX module; kernel entries are its CUfunctions.
class CudaModule : public BackendModule {
public:
  CudaModule(const CudaDriverApi& Api, CUmodule Module) : Api(Api), Module(Module) {}
  ~CudaModule() override { Api.cuModuleUnload(Module); }

  const void* findKernel(const std::string& Symbol) const override {
    CUfunction F = nullptr;
    if (Api.cuModuleGetFunction(&F, Module, Symbol.c_str()) != CUDA_SUCCESS)
      return nullptr;
    return F;
  }

private:
  const CudaDriverApi& Api;
  CUmodule Module;
};

class CudaDevice : public BackendDevice {
public:
  CudaDevice(const CudaDriverApi& Api, CUdevice Dev, CUcontext Ctx, std::string Name)
      : Api(Api), Dev(Dev), Ctx(Ctx), Name(std::move(Name)) {
    attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, SmCount);
    attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, MaxThreads);
    attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, CcMajor);
    attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, CcMinor);
    attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, SharedOptIn);
  }
  ~CudaDevice() override = default; // the runtime is never destroyed; contexts stay retained

  unsigned computeCapability() const { return unsigned(CcMajor * 10 + CcMinor); }

  const std::string& name() const override { return Name; }
  const char* backendName() const override { return "cuda"; }
  unsigned computeUnits() const override { return unsigned(SmCount); }
  unsigned maxWorkgroupSize() const override { return unsigned(MaxThreads); }
  uint64_t maxDynamicSharedBytes() const override { return uint64_t(SharedOptIn); }

  bool supports(cajeta_xpu_capability Capability) const override {
    switch (Capability) {
    case CAJETA_XPU_CAP_FLOAT16:
      return computeCapability() >= 53;
    case CAJETA_XPU_CAP_FLOAT64:
    case CAJETA_XPU_CAP_INT64_ATOMICS:
    case CAJETA_XPU_CAP_FLOAT_ATOMICS: // float32 everywhere; float64 add from sm_60
    case CAJETA_XPU_CAP_SHARED_MEMORY:
    case CAJETA_XPU_CAP_DYNAMIC_SHARED_MEMORY:
      return true;
    default: // wave ops, cooperative matrices, textures, ray query: not in this backend yet
      return false;
    }
  }

  void* allocate(size_t Bytes) override {
    bind();
    CUdeviceptr Ptr = 0;
    // An empty buffer still gets a small block so that its pointer is valid and distinct.
    if (Api.cuMemAlloc(&Ptr, Bytes ? Bytes : 256) != CUDA_SUCCESS)
      return nullptr; // Buffer reports OutOfDeviceMemory naming the size
    return reinterpret_cast<void*>(Ptr);
  }
  void release(void* Ptr, size_t) override {
    bind();
    Api.cuMemFree(reinterpret_cast<CUdeviceptr>(Ptr));
  }
  void copyToDevice(void* Dst, const void* Src, size_t Bytes) override {
    StreamState& S = stream();
    check(Api.cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(Dst), Src, Bytes, S.Stream),
          "cuMemcpyHtoDAsync");
    check(Api.cuStreamSynchronize(S.Stream), "cuStreamSynchronize after an upload");
  }
  void copyFromDevice(void* Dst, const void* Src, size_t Bytes) override {
    StreamState& S = stream();
    check(Api.cuMemcpyDtoHAsync(Dst, reinterpret_cast<CUdeviceptr>(Src), Bytes, S.Stream),
          "cuMemcpyDtoHAsync");
    check(Api.cuStreamSynchronize(S.Stream), "cuStreamSynchronize after a download");
  }
  void copyWithinDevice(void* Dst, const void* Src, size_t Bytes) override {
    StreamState& S = stream();
    check(Api.cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(Dst),
                                reinterpret_cast<CUdeviceptr>(Src), Bytes, S.Stream),
          "cuMemcpyDtoDAsync");
    check(Api.cuStreamSynchronize(S.Stream), "cuStreamSynchronize after a device copy");
  }

  std::unique_ptr<BackendModule> loadModule(const bundle::Payload& Payload) override {
    bind();
    std::string Ptx(Payload.Bytes.begin(), Payload.Bytes.end()); // the JIT wants a NUL
    char ErrorLog[8192] = {};
    char InfoLog[4096] = {};
    int Options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                     CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* Values[] = {ErrorLog, reinterpret_cast<void*>(uintptr_t(sizeof(ErrorLog))), InfoLog,
                      reinterpret_cast<void*>(uintptr_t(sizeof(InfoLog)))};
    CUmodule Module = nullptr;
    CUresult R = Api.cuModuleLoadDataEx(&Module, Ptx.c_str(), 4, Options, Values);
    if (R != CUDA_SUCCESS)
      fail(CAJETA_XPU_BUNDLE_ERROR,
           fmt::format("cuda device '{}' cannot load the {} payload: cuModuleLoadDataEx: {}{}{}",
                       Name, Payload.Target, Api.describe(R), ErrorLog[0] ? "\n" : "", ErrorLog));
    return std::make_unique<CudaModule>(Api, Module);
  }

  void launch(const void* Kernel, const bundle::KernelInfo& Info, const MarshalledArg* Args,
              const LaunchGeometry& Geometry, KernelFailure& Failure) override {
    StreamState& S = stream();
    auto* Fn = static_cast<CUfunction>(const_cast<void*>(Kernel));
    // GpuKernelAbi.h: one entry per PTX parameter, a buffer taking two, then the status record.
    void* Params[2 * 64 + 1];
    size_t N = 0;
    if (Info.Params.size() > 64)
      fail(CAJETA_XPU_LAUNCH_ERROR,
           fmt::format("{}: {} parameters; the cuda backend passes at most 64", Info.Name,
                       Info.Params.size()));
    for (size_t I = 0; I != Info.Params.size(); ++I) {
      MarshalledArg& A = const_cast<MarshalledArg&>(Args[I]);
      switch (Info.Params[I].Kind) {
      case bundle::ParamKind::Buffer:
        Params[N++] = &A.Ptr; // a CUdeviceptr is the pointer's bits
        Params[N++] = &A.Length;
        break;
      case bundle::ParamKind::Scalar:
      case bundle::ParamKind::Function:
        Params[N++] = &A.Bits; // little-endian: the param's size in the low bytes
        break;
      case bundle::ParamKind::Pod:
        Params[N++] = A.Ptr; // the POD's bytes, copied by the driver
        break;
      }
    }
    Params[N++] = &S.Status;
    if (Geometry.DynamicSharedBytes > DefaultSharedLimit)
      check(Api.cuFuncSetAttribute(Fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                   int(Geometry.DynamicSharedBytes)),
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) for " + Info.Name);
    CUresult R = Api.cuLaunchKernel(Fn, Geometry.Grid[0], Geometry.Grid[1], Geometry.Grid[2],
                                    Geometry.Block[0], Geometry.Block[1], Geometry.Block[2],
                                    Geometry.DynamicSharedBytes, S.Stream, Params, nullptr);
    if (R != CUDA_SUCCESS)
      fail(CAJETA_XPU_LAUNCH_ERROR, fmt::format("{}: cuLaunchKernel on cuda device '{}': {}{}",
                                                Info.Name, Name, Api.describe(R), footprint(Fn)));
    check(Api.cuStreamSynchronize(S.Stream), "cuStreamSynchronize after " + Info.Name);
    CajetaGpuStatus Status{};
    check(Api.cuMemcpyDtoHAsync(&Status, S.Status, sizeof(Status), S.Stream),
          "reading the status record of " + Info.Name);
    check(Api.cuStreamSynchronize(S.Stream), "cuStreamSynchronize after the status record");
    if (!Status.Failed)
      return;
    Failure.Failed = true;
    Failure.Param = Status.FailedParam;
    Failure.Index = Status.FailedIndex;
    Failure.Length = Status.FailedLength;
    check(Api.cuMemsetD8Async(S.Status, 0, sizeof(CajetaGpuStatus), S.Stream),
          "resetting the status record");
    check(Api.cuStreamSynchronize(S.Stream), "cuStreamSynchronize after the reset");
  }

private:
  /// One CUstream and status record per runtime stream: each runtime stream runs its commands
  /// on its own worker thread, so a thread-local state per device maps the two.
  struct StreamState {
    CUstream Stream = nullptr;
    CUdeviceptr Status = 0;
  };

  void attribute(int Which, int& Out) {
    if (Api.cuDeviceGetAttribute(&Out, Which, Dev) != CUDA_SUCCESS)
      Out = 0;
  }

  void bind() { check(Api.cuCtxSetCurrent(Ctx), "cuCtxSetCurrent"); }

  void check(CUresult R, const std::string& What) const {
    if (R == CUDA_SUCCESS)
      return;
    fail(R == CUDA_ERROR_OUT_OF_MEMORY ? CAJETA_XPU_OUT_OF_DEVICE_MEMORY : CAJETA_XPU_ERROR,
         fmt::format("cuda device '{}': {}: {}", Name, What, Api.describe(R)));
  }

  /// " (registers 40, local bytes 0, static shared bytes 2048)" from cuFuncGetAttribute.
  std::string footprint(CUfunction Fn) const {
    int Regs = 0, Local = 0, Shared = 0;
    Api.cuFuncGetAttribute(&Regs, CU_FUNC_ATTRIBUTE_NUM_REGS, Fn);
    Api.cuFuncGetAttribute(&Local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, Fn);
    Api.cuFuncGetAttribute(&Shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, Fn);
    return fmt::format(" (kernel footprint: {} registers, {} local bytes, {} static shared bytes)",
                       Regs, Local, Shared);
  }

  StreamState& stream() {
    bind();
    thread_local std::map<const CudaDevice*, StreamState> States;
    StreamState& S = States[this];
    if (S.Stream)
      return S;
    check(Api.cuStreamCreate(&S.Stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    check(Api.cuMemAlloc(&S.Status, sizeof(CajetaGpuStatus)), "allocating a status record");
    check(Api.cuMemsetD8Async(S.Status, 0, sizeof(CajetaGpuStatus), S.Stream),
          "clearing a status record");
    check(Api.cuStreamSynchronize(S.Stream), "cuStreamSynchronize");
    return S;
  }

  const CudaDriverApi& Api;
  CUdevice Dev;
  CUcontext Ctx;
  std::string Name;
  int SmCount = 0, MaxThreads = 0, CcMajor = 0, CcMinor = 0, SharedOptIn = 0;
};

class CudaBackend : public Backend {
public:
  const char* name() const override { return "cuda"; }
  const char* payloadTarget() const override { return Target.c_str(); }
  const std::vector<BackendDevice*>& devices() const override { return Devices; }

  /// The PTX for the highest sm_XX not above the first device's compute capability.
  const bundle::Payload* choosePayload(const bundle::Program& Desc) const override {
    unsigned Cc = Owned.empty() ? 0 : Owned.front()->computeCapability();
    const bundle::Payload* Best = nullptr;
    unsigned BestSm = 0;
    for (const bundle::Payload& P : Desc.Payloads) {
      if (P.Target.rfind("nvptx-sm_", 0) != 0 || P.Format != "ptx")
        continue;
      unsigned Sm = unsigned(std::strtoul(P.Target.c_str() + 9, nullptr, 10));
      if (Sm && Sm <= Cc && Sm > BestSm) {
        Best = &P;
        BestSm = Sm;
      }
    }
    return Best;
  }

  bool init() {
    std::string Error;
    if (!Api.load(Error) || Api.cuInit(0) != CUDA_SUCCESS)
      return false;
    int Count = 0;
    if (Api.cuDeviceGetCount(&Count) != CUDA_SUCCESS)
      return false;
    for (int I = 0; I < Count; ++I) {
      CUdevice Dev = 0;
      CUcontext Ctx = nullptr;
      char Name[256] = {};
      if (Api.cuDeviceGet(&Dev, I) != CUDA_SUCCESS ||
          Api.cuDeviceGetName(Name, sizeof(Name) - 1, Dev) != CUDA_SUCCESS ||
          Api.cuDevicePrimaryCtxRetain(&Ctx, Dev) != CUDA_SUCCESS)
        continue;
      Owned.push_back(std::make_unique<CudaDevice>(Api, Dev, Ctx, Name));
      Devices.push_back(Owned.back().get());
    }
    if (Owned.empty())
      return false;
    Target = fmt::format("nvptx-sm_{}", Owned.front()->computeCapability());
    return true;
  }

private:
  CudaDriverApi Api{};
  std::vector<std::unique_ptr<CudaDevice>> Owned;
  std::vector<BackendDevice*> Devices;
  std::string Target = "nvptx";
};

} // namespace

std::unique_ptr<Backend> createCudaBackend() {
  auto B = std::make_unique<CudaBackend>();
  if (!B->init())
    return nullptr;
  return B;
}

} // namespace cajeta::xpu::rt
