// The CPU backend: host memory, payloads as shared objects, workgroups over a thread pool.
#include "runtime/backends/cpu/CpuBackend.h"

#include "bundle/CpuKernelAbi.h"
#include "runtime/backends/cpu/CpuModule.h"
#include "runtime/backends/cpu/ThreadPool.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

namespace cajeta::xpu::rt {

static_assert(sizeof(MarshalledArg) == sizeof(CajetaCpuArg));
static_assert(offsetof(MarshalledArg, Length) == offsetof(CajetaCpuArg, Length));

namespace {

constexpr size_t BufferAlignment = 64;
constexpr unsigned MaxWorkgroupSize = 1024;
constexpr uint64_t MaxDynamicSharedBytes = uint64_t(1) << 20; // allocated on a worker's stack

std::string hostCpuName() {
  std::ifstream In("/proc/cpuinfo");
  std::string Line;
  while (std::getline(In, Line)) {
    if (Line.rfind("model name", 0) != 0)
      continue;
    size_t Colon = Line.find(':');
    if (Colon != std::string::npos && Colon + 2 <= Line.size())
      return Line.substr(Colon + 2);
  }
  return "host CPU";
}

struct LaunchContext {
  CajetaCpuKernelFn Fn;
  const CajetaCpuArg* Args;
  CajetaCpuLaunch* Launch;
};

void runGroups(void* Ctx, uint64_t Begin, uint64_t End) {
  auto* C = static_cast<LaunchContext*>(Ctx);
  if (__atomic_load_n(&C->Launch->Failed, __ATOMIC_RELAXED))
    return; // a kernel already reported a failure: stop running further workgroups
  C->Fn(C->Args, C->Launch, Begin, End);
}

class CpuDevice : public BackendDevice {
public:
  CpuDevice()
      : Name(hostCpuName()), Units(std::max(1u, std::thread::hardware_concurrency())), Pool(Units) {
  }

  const std::string& name() const override { return Name; }
  const char* backendName() const override { return "cpu"; }
  unsigned computeUnits() const override { return Units; }
  unsigned maxWorkgroupSize() const override { return MaxWorkgroupSize; }
  uint64_t maxDynamicSharedBytes() const override { return MaxDynamicSharedBytes; }
  bool runsOnHostCpu() const override { return true; }
  /// The host SIMD vector in 32-bit lanes, as the compiler picks it for --cpu=native
  /// (waveWidthFor in CpuTarget.h); a payload built for other features says its own.
  uint32_t waveWidth() const override {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f"))
      return 16;
    return __builtin_cpu_supports("avx") ? 8 : 4;
#else
    return 4;
#endif
  }

  bool supports(cajeta_xpu_capability Capability) const override {
    switch (Capability) {
    case CAJETA_XPU_CAP_FLOAT16:
    case CAJETA_XPU_CAP_FLOAT64:
    case CAJETA_XPU_CAP_INT64_ATOMICS:
    case CAJETA_XPU_CAP_FLOAT_ATOMICS:
    case CAJETA_XPU_CAP_SHARED_MEMORY:
    case CAJETA_XPU_CAP_DYNAMIC_SHARED_MEMORY:
    case CAJETA_XPU_CAP_CORRECTLY_ROUNDED_FMA:   // llvm.fma: fused, one rounding
    case CAJETA_XPU_CAP_PRECISE_TRANSCENDENTALS: // libm, at the argument's precision
    case CAJETA_XPU_CAP_FLOAT32_DENORMALS:       // the runtime never sets FTZ/DAZ
    case CAJETA_XPU_CAP_WAVE_OPS:                // the portable tier (PortableWave)
      return true;
    default: // cooperative matrices, textures, ray query: not on the CPU backend yet
      return false;
    }
  }

  void* allocate(size_t Bytes) override {
    // aligned_alloc wants a multiple of the alignment; an empty buffer still gets a block.
    size_t Rounded = (Bytes + BufferAlignment - 1) / BufferAlignment * BufferAlignment;
    if (Rounded < Bytes)
      return nullptr;
    return std::aligned_alloc(BufferAlignment, Rounded ? Rounded : BufferAlignment);
  }
  void release(void* Ptr, size_t) override {
    std::free(Ptr);
  }
  void copyToDevice(void* Dst, const void* Src, size_t Bytes) override {
    std::memcpy(Dst, Src, Bytes);
  }
  void copyFromDevice(void* Dst, const void* Src, size_t Bytes) override {
    std::memcpy(Dst, Src, Bytes);
  }
  void copyWithinDevice(void* Dst, const void* Src, size_t Bytes) override {
    std::memmove(Dst, Src, Bytes);
  }

  std::unique_ptr<BackendModule> loadModule(const bundle::Payload& Payload) override {
    return CpuModule::load(Payload);
  }

  void launch(const void* Kernel, const bundle::KernelInfo&, const MarshalledArg* Args,
              const LaunchGeometry& Geometry, KernelFailure& Failure) override {
    CajetaCpuLaunch Launch{};
    Launch.DynamicSharedBytes = Geometry.DynamicSharedBytes;
    for (int D = 0; D != 3; ++D) {
      Launch.GridDim[D] = Geometry.Grid[D];
      Launch.BlockDim[D] = Geometry.Block[D];
    }
    LaunchContext Ctx{reinterpret_cast<CajetaCpuKernelFn>(const_cast<void*>(Kernel)),
                      reinterpret_cast<const CajetaCpuArg*>(Args), &Launch};
    uint64_t Groups = uint64_t(Geometry.Grid[0]) * Geometry.Grid[1] * Geometry.Grid[2];
    Pool.parallelFor(Groups, runGroups, &Ctx);
    if (!Launch.Failed)
      return;
    Failure.Failed = true;
    Failure.Param = Launch.FailedParam;
    Failure.Index = Launch.FailedIndex;
    Failure.Length = Launch.FailedLength;
  }

private:
  std::string Name;
  unsigned Units;
  ThreadPool Pool;
};

class CpuBackend : public Backend {
public:
  CpuBackend() : Devices{&Device} {}
  const char* name() const override { return "cpu"; }
  const char* payloadTarget() const override { return "cpu-x86_64"; }
  const std::vector<BackendDevice*>& devices() const override { return Devices; }

private:
  CpuDevice Device;
  std::vector<BackendDevice*> Devices;
};

} // namespace

std::unique_ptr<Backend> createCpuBackend() {
  return std::make_unique<CpuBackend>();
}

} // namespace cajeta::xpu::rt
