// The interface every backend implements: devices, memory, modules and kernel execution.
#pragma once

#include "bundle/Manifest.h"
#include "cajeta/xpu/cajeta_xpu.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

/// One marshalled kernel argument: a buffer's base pointer and element count, or a scalar's
/// bits. Layout-compatible with CajetaCpuArg so the CPU backend passes it through unchanged.
struct MarshalledArg {
  union {
    void* Ptr;
    uint64_t Bits;
  };
  uint64_t Length;
};

struct LaunchGeometry {
  uint32_t Grid[3];
  uint32_t Block[3];
  uint32_t DynamicSharedBytes; // the kernel's dynamic shared array, 0 when none
};

/// What a kernel reported about itself (a --check-bounds failure).
struct KernelFailure {
  bool Failed = false;
  uint32_t Param = 0;
  uint64_t Index = 0;
  uint64_t Length = 0;
};

/// A payload loaded on a device; hands out kernel entries by symbol.
class BackendModule {
public:
  virtual ~BackendModule() = default;
  /// The kernel entry for Symbol, or nullptr when the payload lacks it.
  virtual const void* findKernel(const std::string& Symbol) const = 0;
};

class BackendDevice {
public:
  virtual ~BackendDevice() = default;

  virtual const std::string& name() const = 0;
  virtual const char* backendName() const = 0;
  virtual unsigned computeUnits() const = 0;
  virtual unsigned maxWorkgroupSize() const = 0;
  /// The most dynamic shared memory one launch may ask for.
  virtual uint64_t maxDynamicSharedBytes() const = 0;
  /// What the backend really offers on this device (DESIGN.md §5 "Capabilities").
  virtual bool supports(cajeta_xpu_capability Capability) const = 0;

  /// Device memory; nullptr when the allocation fails.
  virtual void* allocate(size_t Bytes) = 0;
  virtual void release(void* Ptr, size_t Bytes) = 0;
  virtual void copyToDevice(void* Dst, const void* Src, size_t Bytes) = 0;
  virtual void copyFromDevice(void* Dst, const void* Src, size_t Bytes) = 0;
  virtual void copyWithinDevice(void* Dst, const void* Src, size_t Bytes) = 0;

  /// Loads a payload of this backend's target; throws RuntimeError (bundle error) on failure.
  virtual std::unique_ptr<BackendModule> loadModule(const bundle::Payload& Payload) = 0;
  /// Runs a kernel to completion on the calling (stream worker) thread. Args follow Info.Params:
  /// a buffer's pointer and length, a scalar's or function tag's bits, a POD's bytes (Ptr) and
  /// size (Length).
  virtual void launch(const void* Kernel, const bundle::KernelInfo& Info, const MarshalledArg* Args,
                      const LaunchGeometry& Geometry, KernelFailure& Failure) = 0;

  uint64_t allocatedBytes() const { return Allocated.load(std::memory_order_relaxed); }
  void noteAllocated(int64_t Delta) { Allocated.fetch_add(Delta, std::memory_order_relaxed); }

private:
  std::atomic<uint64_t> Allocated{0};
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;          // "cpu", "cuda", ...
  virtual const char* payloadTarget() const = 0; // "cpu-x86_64", ...
  virtual const std::vector<BackendDevice*>& devices() const = 0;
  /// The payload of Desc this backend runs: by default the one for payloadTarget(); a GPU
  /// backend picks the best architecture its devices take. nullptr when there is none.
  virtual const bundle::Payload* choosePayload(const bundle::Program& Desc) const {
    return Desc.findPayload(payloadTarget());
  }
};

} // namespace cajeta::xpu::rt
