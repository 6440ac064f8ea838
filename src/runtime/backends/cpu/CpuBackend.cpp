// The CPU backend: host memory, payloads as shared objects, a CpuQueue per stream whose launches
// spread workgroups over the device's thread pool.
#include "runtime/backends/cpu/CpuBackend.h"

#include "hostcpu/HostAmx.h"
#include "runtime/backends/cpu/CpuModule.h"
#include "runtime/backends/cpu/CpuQueue.h"
#include "runtime/backends/cpu/CpuReservation.h"
#include "runtime/backends/cpu/CpuThreadCount.h"
#include "runtime/backends/cpu/ThreadPool.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

namespace cajeta::xpu::rt {

namespace {

constexpr size_t BufferAlignment = 64;
constexpr unsigned MaxWorkgroupSize = 1024;
constexpr uint64_t MaxDynamicSharedBytes = uint64_t(1) << 20; // allocated on a worker's stack

/// cpuThreadCount, its warning (a CAJETA_CPU_THREADS that is not a count) on stderr.
unsigned threadCount() {
  std::string Warning;
  const unsigned N = cpuThreadCount(Warning);
  if (!Warning.empty())
    std::fprintf(stderr, "cajeta: warning: %s\n", Warning.c_str());
  return N;
}

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

class CpuDevice : public BackendDevice {
public:
  CpuDevice() : Name(hostCpuName()), Units(threadCount()), Pool(Units), Reservation(Units, Name) {}

  const std::string& name() const override { return Name; }
  const char* backendName() const override { return "cpu"; }
  unsigned computeUnits() const override { return Units; }
  unsigned maxWorkgroupSize() const override { return MaxWorkgroupSize; }
  uint64_t maxDynamicSharedBytes() const override { return MaxDynamicSharedBytes; }
  bool runsOnHostCpu() const override { return true; }
  bool memoryIsHostAddressable() const override { return true; }
  std::string identity() const override { return fmt::format("{} threads", Units); }
  std::string powerMode() const override {
    std::ifstream In("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
    std::string Governor;
    if (!(In >> Governor))
      return "";
    return "governor " + Governor;
  }
  /// The host SIMD vector in 32-bit lanes, as the compiler picks it for --cpu=native
  /// (waveWidthFor in CpuTarget.h); a payload built for other features says its own.
  static bool hasBf16Dot() {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx512bf16");
#else
    return false;
#endif
  }
  /// The native tile tier's 8-bit products (AVX512-VNNI).
  static bool hasInt8Dot() {
#if defined(__x86_64__)
    return __builtin_cpu_supports("avx512vnni");
#else
    return false;
#endif
  }
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
    case CAJETA_XPU_CAP_COOPERATIVE_MATRIX: // the native tile tier: AVX512-BF16 / -VNNI dots
      return hasBf16Dot() || hasInt8Dot();
    default: // textures, ray query: not on the CPU backend yet
      return false;
    }
  }
  const std::string& matrixShapes() const override {
    // The native tier's blocks: AMX's tiles of 16 rows x 16 columns x 64 bytes deep where the
    // host has them, and AVX-512's 4 rows x 16 columns x 2 (bfloat16) or 4 (bytes) deep per
    // instruction, which take the shapes the tiles do not.
    static const std::string Shapes = [] {
      std::vector<std::string> S;
      const hostcpu::HostAmx Amx = hostcpu::hostAmx();
      if (Amx.Bf16)
        S.push_back("16x16x32:bf16:bf16:f32:f32");
      if (Amx.Int8)
        S.insert(S.end(), {"16x16x64:s8:s8:s32:s32", "16x16x64:u8:u8:s32:s32"});
      if (hasBf16Dot())
        S.push_back("4x16x2:bf16:bf16:f32:f32");
      if (hasInt8Dot())
        S.insert(S.end(), {"4x16x4:s8:s8:s32:s32", "4x16x4:u8:u8:s32:s32"});
      return fmt::format("{}", fmt::join(S, ","));
    }();
    return Shapes;
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
  std::unique_ptr<BackendModule> loadModule(const bundle::Payload& Payload) override {
    return CpuModule::load(Payload);
  }

  std::unique_ptr<BackendQueue> createQueue() override {
    return std::make_unique<CpuQueue>(Pool, Reservation, Name);
  }
  unsigned reserve(unsigned Units) override {
    return Reservation.reserve(Units);
  }
  unsigned reservedComputeUnits() const override {
    return Reservation.reservedThreads();
  }

private:
  std::string Name;
  unsigned Units;
  ThreadPool Pool;
  CpuReservation Reservation;
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
