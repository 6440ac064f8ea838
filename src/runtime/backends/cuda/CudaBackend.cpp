// The cuda backend: device discovery, primary contexts, memory, PTX modules through the driver's
// JIT with their footprints, and a CudaQueue per runtime stream.
#include "runtime/backends/cuda/CudaBackend.h"
#include "runtime/backends/cuda/CudaAbandonedWork.h"

#include "runtime/RuntimeError.h"
#include "runtime/backends/cuda/CudaDriverApi.h"
#include "runtime/backends/cuda/CudaEntry.h"
#include "runtime/backends/cuda/CudaQueue.h"
#include "runtime/backends/cuda/CudaReservation.h"

#include <fmt/format.h>

#include <cstring>
#include <map>
#include <mutex>

namespace cajeta::xpu::rt {

using namespace cuda;

namespace {

/// A loaded PTX module; kernel entries are CudaEntry records of its CUfunctions, one per symbol
/// and one per TMA entry, owned here.
class CudaModule : public BackendModule {
public:
  /// SharedLimit: the device's most static plus dynamic shared bytes per group.
  CudaModule(const CudaDriverApi& Api, CUmodule Module, uint32_t SharedLimit)
      : Api(Api), Module(Module), SharedLimit(SharedLimit) {}
  ~CudaModule() override {
    if (!workAbandoned()) // unloading waits for the module's kernels, one of which never ends
      Api.cuModuleUnload(Module);
  }

  const void* findKernel(const std::string& Symbol) const override {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (auto It = Entries.find(Symbol); It != Entries.end())
      return It->second.get();
    CUfunction F = nullptr;
    if (Api.cuModuleGetFunction(&F, Module, Symbol.c_str()) != CUDA_SUCCESS)
      return nullptr;
    auto E = std::make_unique<CudaEntry>();
    E->Fn = F;
    return Entries.emplace(Symbol, std::move(E)).first->second.get();
  }

  const void* tensorMapEntry(const void* TmaKernel, const void* Plain,
                             const std::vector<bundle::TensorMapRecipe>& Maps) const override {
    auto E = std::make_unique<CudaEntry>();
    E->Fn = CudaEntry::of(TmaKernel).Fn;
    E->Plain = &CudaEntry::of(Plain);
    E->Maps = Maps;
    // Its code's own limits: a launch it cannot take runs the plain entry.
    int MaxThreads = 0, Shared = 0;
    if (Api.cuFuncGetAttribute(&MaxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, E->Fn) ==
        CUDA_SUCCESS)
      E->MaxThreads = uint32_t(MaxThreads);
    if (Api.cuFuncGetAttribute(&Shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, E->Fn) == CUDA_SUCCESS)
      E->StaticSharedBytes = uint32_t(Shared);
    E->SharedLimit = SharedLimit;
    std::lock_guard<std::mutex> Lock(Mutex);
    TmaEntries.push_back(std::move(E));
    return TmaEntries.back().get();
  }

  bool footprint(const void* Kernel, KernelFootprint& Out) const override {
    CUfunction Fn = CudaEntry::of(Kernel).Fn;
    int Regs = 0, Local = 0, Shared = 0, MaxThreads = 0;
    if (Api.cuFuncGetAttribute(&Regs, CU_FUNC_ATTRIBUTE_NUM_REGS, Fn) != CUDA_SUCCESS ||
        Api.cuFuncGetAttribute(&Local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, Fn) != CUDA_SUCCESS ||
        Api.cuFuncGetAttribute(&Shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, Fn) != CUDA_SUCCESS ||
        Api.cuFuncGetAttribute(&MaxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, Fn) !=
            CUDA_SUCCESS)
      return false;
    Out.Registers = uint32_t(Regs);
    Out.LocalBytes = uint32_t(Local);
    Out.SharedBytes = uint32_t(Shared);
    Out.MaxThreads = uint32_t(MaxThreads);
    return true;
  }

private:
  const CudaDriverApi& Api;
  CUmodule Module;
  uint32_t SharedLimit;
  mutable std::mutex Mutex;
  mutable std::map<std::string, std::unique_ptr<CudaEntry>> Entries;
  mutable std::vector<std::unique_ptr<CudaEntry>> TmaEntries;
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
    Reservation = std::make_unique<CudaReservation>(Api, Dev, unsigned(SmCount), this->Name);
  }
  ~CudaDevice() override = default; // the runtime is never destroyed; contexts stay retained

  unsigned computeCapability() const { return unsigned(CcMajor * 10 + CcMinor); }
  /// The mma.sync tier's products (kir::TileLowering's MmaSync form), and on compute capability
  /// 9.0 (whose sm_90a payload has them) the wgmma products.
  const std::string& matrixShapes() const override {
    static const std::string MmaSync = "16x8x16:f16:f16:f32:f32,16x8x16:bf16:bf16:f32:f32,"
                                       "16x8x32:s8:s8:s32:s32,16x8x32:u8:u8:s32:s32",
                             Wgmma = MmaSync +
                                     ",64x64x16:f16:f16:f32:f32,64x64x16:bf16:bf16:f32:f32,"
                                     "64x64x32:s8:s8:s32:s32,64x64x32:u8:u8:s32:s32",
                             None;
    return computeCapability() == 90 ? Wgmma : computeCapability() >= 80 ? MmaSync : None;
  }

  const std::string& name() const override { return Name; }
  const char* backendName() const override { return "cuda"; }
  unsigned computeUnits() const override { return unsigned(SmCount); }
  unsigned maxWorkgroupSize() const override { return unsigned(MaxThreads); }
  uint64_t maxDynamicSharedBytes() const override { return uint64_t(SharedOptIn); }

  uint32_t waveWidth() const override { return 32; } // every NVIDIA GPU's warp
  std::string jitArch() const override { return "sm_" + std::to_string(computeCapability()); }
  std::string identity() const override {
    int Domain = 0, Bus = 0, Slot = 0, Clock = 0, MemClock = 0;
    attribute(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, Domain);
    attribute(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, Bus);
    attribute(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, Slot);
    attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE, Clock);
    attribute(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, MemClock);
    return fmt::format("pci {:04x}:{:02x}:{:02x} sm_{} {} SMs {} kHz memory {} kHz", Domain, Bus,
                       Slot, computeCapability(), SmCount, Clock, MemClock);
  }
  std::string driverVersion() const override {
    int Version = 0;
    if (!Api.cuDriverGetVersion || Api.cuDriverGetVersion(&Version) != CUDA_SUCCESS)
      return "";
    return fmt::format("cuda {}.{}", Version / 1000, Version % 1000 / 10);
  }
  bool supports(cajeta_xpu_capability Capability) const override {
    switch (Capability) {
    case CAJETA_XPU_CAP_FLOAT16:
      return computeCapability() >= 53;
    case CAJETA_XPU_CAP_FLOAT64:
    case CAJETA_XPU_CAP_INT64_ATOMICS:
    case CAJETA_XPU_CAP_FLOAT_ATOMICS: // float32 everywhere; float64 add from sm_60
    case CAJETA_XPU_CAP_SHARED_MEMORY:
    case CAJETA_XPU_CAP_DYNAMIC_SHARED_MEMORY:
    case CAJETA_XPU_CAP_CORRECTLY_ROUNDED_FMA:   // fma.rn: fused, one rounding
    case CAJETA_XPU_CAP_PRECISE_TRANSCENDENTALS: // libdevice, at the argument's precision
    case CAJETA_XPU_CAP_FLOAT32_DENORMALS:       // no .ftz: PTX without ftz, libdevice ftz=0
    case CAJETA_XPU_CAP_WAVE_OPS:                // shfl.sync / vote.sync / redux.sync
      return true;
    case CAJETA_XPU_CAP_COOPERATIVE_MATRIX: // tiles' native tier: mma.sync.m16n8k16 (sm_80+)
      return computeCapability() >= 80;
    default: // textures, ray query: not in this backend yet
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
    if (workAbandoned())
      return; // cuMemFree would wait for a kernel that never ends: left to the process's end
    bind();
    Api.cuMemFree(reinterpret_cast<CUdeviceptr>(Ptr));
  }
  std::unique_ptr<BackendQueue> createQueue() override {
    return std::make_unique<CudaQueue>(Api, Ctx, Name, *Reservation);
  }
  unsigned reserve(unsigned Units) override {
    bind();
    return Reservation->reserve(Units, "asked for");
  }
  unsigned reservedComputeUnits() const override { return Reservation->reservedSms(); }
  unsigned sliceGranularity() const override { return Reservation->granularity(); }

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
    return std::make_unique<CudaModule>(Api, Module, uint32_t(SharedOptIn));
  }

private:
  void attribute(int Which, int& Out) const {
    if (Api.cuDeviceGetAttribute(&Out, Which, Dev) != CUDA_SUCCESS)
      Out = 0;
  }

  void bind() { bindContext(Api, Ctx); }

  const CudaDriverApi& Api;
  CUdevice Dev;
  CUcontext Ctx;
  std::string Name;
  int SmCount = 0, MaxThreads = 0, CcMajor = 0, CcMinor = 0, SharedOptIn = 0;
  std::unique_ptr<CudaReservation> Reservation;
};

class CudaBackend : public Backend {
public:
  const char* name() const override { return "cuda"; }
  const char* payloadTarget() const override { return Target.c_str(); }
  const std::vector<BackendDevice*>& devices() const override { return Devices; }

  /// The PTX for the highest sm_XX not above the device's compute capability; an
  /// architecture-specific sm_XXa (whose code runs on that capability alone) before the plain
  /// one where it is the device's own.
  const bundle::Payload* choosePayload(const bundle::Program& Desc,
                                       const BackendDevice& Device) const override {
    unsigned Cc = static_cast<const CudaDevice&>(Device).computeCapability();
    const bundle::Payload* Best = nullptr;
    unsigned BestRank = 0;
    for (const bundle::Payload& P : Desc.Payloads) {
      if (P.Target.rfind("nvptx-sm_", 0) != 0 || P.Format != "ptx")
        continue;
      char* End = nullptr;
      unsigned Sm = unsigned(std::strtoul(P.Target.c_str() + 9, &End, 10));
      bool Specific = End && std::string(End) == "a";
      if (!Sm || Sm > Cc || (Specific && Sm != Cc) || (*End && !Specific))
        continue;
      unsigned Rank = Sm * 2 + (Specific ? 1 : 0);
      if (Rank > BestRank) {
        Best = &P;
        BestRank = Rank;
      }
    }
    return Best;
  }

  bool init(std::string& Why) {
    if (!Api.load(Why))
      return false;
    if (CUresult R = Api.cuInit(0); R != CUDA_SUCCESS) {
      Why = "the CUDA driver does not initialise: cuInit: " + Api.describe(R);
      return false;
    }
    int Count = 0;
    if (CUresult R = Api.cuDeviceGetCount(&Count); R != CUDA_SUCCESS) {
      Why = "cuDeviceGetCount: " + Api.describe(R);
      return false;
    }
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
    if (Owned.empty()) {
      Why = Count
                ? fmt::format("the CUDA driver lists {} device(s) and none could be opened", Count)
                : std::string("the CUDA driver lists no device");
      return false;
    }
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

std::unique_ptr<Backend> createCudaBackend(std::string& Why) {
  auto B = std::make_unique<CudaBackend>();
  if (!B->init(Why))
    return nullptr;
  return B;
}

} // namespace cajeta::xpu::rt
