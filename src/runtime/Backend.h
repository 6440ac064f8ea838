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
  /// The kernel's static shared bytes (its footprint): with the dynamic ones, what its
  /// workgroups take (CUDA opts in above 48 KiB of the two together).
  uint32_t StaticSharedBytes = 0;
  /// A latency-policy submission: the queue asks the device to start its workgroups ahead of
  /// other queued work where it can (CUDA: the context's highest launch priority). Ordering on
  /// its own stream is unchanged.
  bool Urgent = false;
  /// Where on the device the launch runs: the whole device; the SMs reserved for latency-class
  /// submissions (BackendDevice::reserve) or the rest of them; or a slice of SliceUnits units
  /// or its complement (a co-running pair, or a throughput submission's compute-unit budget:
  /// CoRunAdmission). Only the cuda backend partitions; the others run every launch on the
  /// whole device.
  enum class Part : uint8_t {
    Whole,
    Reserved,
    Remainder,
    Slice,
    SliceComplement
  } Partition = Part::Whole;
  /// A latency-class launch's compute-unit budget (KernelSubmission::computeUnits), 0 when none:
  /// the size of the reservation its first launch makes.
  uint32_t ReserveUnits = 0;
  /// The units of the slice for Part::Slice and Part::SliceComplement (the complement runs on
  /// the others).
  uint32_t SliceUnits = 0;
  /// The kernel computes the same on any cut of the grid into workgroups of the same global size
  /// (TargetManifest::GroupShapeFree): the CPU narrows the workgroups in x where there are too
  /// few to spread over its threads. Set by Kernel::entryFor.
  bool GroupShapeFree = false;
  /// The kernel runs loops once per workgroup around its work-items
  /// (TargetManifest::GroupLoops): with GroupShapeFree, the CPU narrows a launch of few
  /// workgroups even on one thread (narrowGroupsInX). Set by Kernel::entryFor.
  bool GroupLoops = false;
};

/// When a launch may start, in monotonicNowNs nanoseconds (Submission): not before EarliestNs,
/// and not at all after LatestNs (0: no deadline).
struct DispatchWindow {
  uint64_t EarliestNs = 0;
  uint64_t LatestNs = 0;
};

/// What a kernel reported about itself (a --check-bounds failure), or a launch its queue dropped
/// because its dispatch window had closed (MissedByNs: how late it would have started).
struct KernelFailure {
  bool Failed = false;
  uint32_t Param = 0;
  uint64_t Index = 0;
  uint64_t Length = 0;
  bool DeadlineMissed = false;
  uint64_t MissedByNs = 0;
};

/// What a kernel's code object needs per work-item and per workgroup, read from the loaded code
/// where the backend can (cuFuncGetAttribute), else from the manifest. MaxThreads 0: no limit of
/// the kernel's own (the device's workgroup limit applies).
struct KernelFootprint {
  uint32_t Registers = 0;
  uint32_t LocalBytes = 0;
  uint32_t SharedBytes = 0;
  uint32_t MaxThreads = 0;
  uint32_t WaveWidth = 0; // Wave.width() of the loaded code (kernels that use wave ops only)
  /// The code's waves are the device's own and the device starts one at each row of x
  /// (BackendDevice::wavesSpanRows false): the group's x size must hold whole waves.
  bool WavesInRows = false;
};

/// A payload loaded on a device; hands out kernel entries by symbol.
class BackendModule {
public:
  virtual ~BackendModule() = default;
  /// The kernel entry for Symbol, or nullptr when the payload lacks it.
  virtual const void* findKernel(const std::string& Symbol) const = 0;
  /// NVIDIA sm_90a: an entry that runs TmaKernel (the entry findKernel returned for
  /// TargetManifest::TmaSymbol) with, after Plain's arguments, one tensor map per recipe of Maps
  /// encoded from each launch's arguments, and runs Plain instead where they do not encode.
  /// nullptr where the backend has no tensor maps (the kernel then has no TMA entry).
  virtual const void* tensorMapEntry(const void* /*TmaKernel*/, const void* /*Plain*/,
                                     const std::vector<bundle::TensorMapRecipe>& /*Maps*/) const {
    return nullptr;
  }
  /// The footprint of an entry findKernel returned; false where the backend cannot read one
  /// (the runtime then takes the manifest's figures).
  virtual bool footprint(const void* /*Kernel*/, KernelFootprint& /*Out*/) const { return false; }
  /// Wave.width() of this payload's code where it is fixed by the payload (the CPU's SIMD width
  /// at compile time); 0 = the device's (BackendDevice::waveWidth).
  virtual uint32_t waveWidth() const { return 0; }
  /// "" when the loaded code's own record of entry Symbol's parameters agrees with K's manifest,
  /// otherwise what disagrees, naming the kernel. Backends whose payloads bundle::PayloadAbiCheck
  /// reads before loading have nothing more to check.
  virtual std::string checkKernel(const std::string& /*Symbol*/,
                                  const bundle::KernelInfo& /*K*/) const {
    return "";
  }
};

/// A point in a device queue that the host or another queue can wait for (a CUDA event). Always
/// owned by a shared_ptr (BackendQueue::record), so a queue that waits may keep it alive.
class BackendEvent : public std::enable_shared_from_this<BackendEvent> {
public:
  virtual ~BackendEvent() = default;
  /// Blocks until the queue has passed the point; throws RuntimeError on a driver error.
  virtual void synchronize() = 0;
  virtual bool done() = 0;
};

/// One launch of a chain (consecutive submissions with one capture identity), owning its
/// arguments: a POD argument's Ptr points into Pods. Moved, never copied.
struct ChainLaunch {
  const void* Kernel = nullptr;
  const bundle::KernelInfo* Info = nullptr;
  std::vector<MarshalledArg> Args;
  std::vector<uint8_t> Pods;
  LaunchGeometry Geometry{};
  const void* Tag = nullptr;

  ChainLaunch() = default;
  ChainLaunch(ChainLaunch&&) = default;
  ChainLaunch& operator=(ChainLaunch&&) = default;
  ChainLaunch(const ChainLaunch&) = delete;
  ChainLaunch& operator=(const ChainLaunch&) = delete;
};

/// When launches ran on the device, for the trace (monotonicNowNs clock): one launch, or a
/// chain of Launches whose first launch has Tag.
struct DeviceSpan {
  const void* Tag = nullptr;
  uint32_t Launches = 1;
  uint64_t StartNs = 0, EndNs = 0;
};

/// A kernel failure read back from a device queue, with the tag its launch was given.
struct QueuedFailure {
  const void* Tag;
  KernelFailure Failure;
};

/// An in-order device queue, one per runtime stream, fed from the calling thread: every call
/// returns without waiting for the device (except synchronize). Every backend has one (the CPU's
/// runs its commands on a worker thread). Not thread-safe; the owning Stream serialises calls.
class BackendQueue {
public:
  virtual ~BackendQueue() = default;
  /// Enqueues a launch. Args follow Info.Params: a buffer's pointer and length, a scalar's or
  /// function tag's bits, a POD's bytes (Ptr, read before the call returns) and size (Length).
  /// Tag comes back with the kernel's failure from synchronize().
  virtual void launch(const void* Kernel, const bundle::KernelInfo& Info, const MarshalledArg* Args,
                      const LaunchGeometry& Geometry, const void* Tag) = 0;
  /// Whether the queue starts its kernels itself (the CPU worker) and so can honour a dispatch
  /// window when it starts one (launchWithin). Queues that hand launches to a driver answer
  /// false: the stream then holds a windowed launch on the host until the work it follows has
  /// finished, and checks the window itself (DispatchGate).
  virtual bool dispatchesWindows() const { return false; }
  /// The stream gave this queue's work up (a kernel that does not end, Stream::watchdogLocked):
  /// destroying the queue must not wait for it. The default does nothing (a driver's queue is
  /// never joined).
  virtual void abandon() {}
  /// A launch that starts no earlier than Window.EarliestNs and, once Window.LatestNs has passed,
  /// is dropped and reported by synchronize as a failure with DeadlineMissed. Only called where
  /// dispatchesWindows().
  virtual void launchWithin(const void* Kernel, const bundle::KernelInfo& Info,
                            const MarshalledArg* Args, const LaunchGeometry& Geometry,
                            const void* Tag, const DispatchWindow& Window);
  /// Tracing: from now on, records when each launch (or chain) runs on the device. False where
  /// the backend cannot; the trace then has the host's issue times only.
  virtual bool timeLaunches() { return false; }
  /// Appends the spans of the launches synchronize has seen complete, and forgets them.
  virtual void takeDeviceSpans(std::vector<DeviceSpan>& /*Out*/) {}
  /// Whether the queue records chains and replays them (launchChain); where it does not, the
  /// stream issues a chain's launches one by one as they come.
  virtual bool recordsChains() const { return false; }
  /// Issues a chain's launches, in order, as one unit. The first time for Id it records them
  /// (a CUDA graph, a list run by the CPU worker); later, when they are the recording's kernels
  /// with its geometry, it replays the recording with the arguments updated, and otherwise it
  /// records them anew. Only called where recordsChains().
  virtual void launchChain(uint64_t Id, std::vector<ChainLaunch>& Launches);
  /// The same with a dispatch window for the whole chain, checked when the queue starts it (a
  /// late chain is dropped whole and reported by synchronize as its first launch's missed
  /// deadline). Only called where dispatchesWindows() and recordsChains().
  virtual void launchChainWithin(uint64_t Id, std::vector<ChainLaunch>& Launches,
                                 const DispatchWindow& Window);
  /// Copies ordered on the queue. Staged: Src is consumed before the call returns (pinned
  /// staging) and Dst is filled when the queue passes the copy. Not staged: the caller keeps
  /// the host memory untouched until it has synchronized the queue.
  virtual void copyToDevice(void* Dst, const void* Src, size_t Bytes, bool Staged) = 0;
  virtual void copyFromDevice(void* Dst, const void* Src, size_t Bytes, bool Staged) = 0;
  /// A copy between two allocations of the device (a buffer resize).
  virtual void copyWithinDevice(void* Dst, const void* Src, size_t Bytes) = 0;
  virtual std::shared_ptr<BackendEvent> record() = 0;
  /// Work enqueued after this starts once E (of any queue of this backend) has completed.
  virtual void wait(BackendEvent& E) = 0;
  /// Waits for everything enqueued, then appends the failures kernels reported since the last
  /// synchronize (in launch order) and forgets them.
  virtual void synchronize(std::vector<QueuedFailure>& Failures) = 0;
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
  /// The most bytes of one buffer a kernel may be given (Vulkan's maxStorageBufferRange).
  virtual uint64_t maxBufferArgumentBytes() const { return UINT64_MAX; }
  /// What the backend really offers on this device (Device::supports answers from it).
  virtual bool supports(cajeta_xpu_capability Capability) const = 0;
  /// Lanes per wave (Wave.width()) on this device; 0 where it has no wave operations.
  virtual uint32_t waveWidth() const { return 0; }
  /// Whether the device packs a workgroup's work-items into its waves in linear order across the
  /// rows of x (a wave may end one row and start the next), as Kir.h's waves are. False: it
  /// starts a wave at each row (Mesa's llvmpipe), so native wave code is only right on groups
  /// whose x size is a multiple of the width.
  virtual bool wavesSpanRows() const { return true; }
  /// The matrix products the native tile tier multiplies on this device, comma-separated
  /// "MxNxK:a:b:c:result" (component types f16, f32, s8, u8, s32, u32, ...); "" where tiles are
  /// only portable. Non-empty exactly where supports(CooperativeMatrix).
  virtual const std::string& matrixShapes() const {
    static const std::string None;
    return None;
  }
  /// The code architecture the JIT should add to a bundle for this device ("sm_86" on CUDA);
  /// "" where the bundle's standard payloads serve.
  virtual std::string jitArch() const { return ""; }
  /// False for a device that only emulates a GPU on the host CPU (a CPU-type Vulkan device such
  /// as lavapipe): the dispatcher then ranks it below the cpu backend and uses it only when
  /// CAJETA_XPU_BACKEND forces its backend.
  virtual bool preferredByDefault() const { return true; }
  /// What tells this device from another of the same name, stable across processes (a PCI
  /// address, a driver's UUID, a CPU's core count): part of a calibration record's key.
  virtual std::string identity() const { return name(); }
  /// The driver's version ("cuda 13000"), part of a calibration record's key; "" when unknown.
  virtual std::string driverVersion() const { return ""; }
  /// The power mode measurements depend on (a CPU's frequency governor); "" when the backend
  /// cannot read one.
  virtual std::string powerMode() const { return ""; }
  /// Whether the device's code runs on the host's CPU cores (the cpu backend, a CPU-type Vulkan
  /// device such as lavapipe) rather than on an accelerator.
  virtual bool runsOnHostCpu() const { return false; }
  /// Whether launches on two streams may run on the device at the same time (CUDA streams, the
  /// CPU's stream threads, Vulkan with more than one queue); false: the device runs them one
  /// after the other, whatever the streams.
  virtual bool concurrentStreams() const { return true; }
  /// Whether allocate() returns memory the host reads and writes through the pointer itself
  /// (the cpu backend), so the runtime may fill a buffer in place instead of uploading.
  virtual bool memoryIsHostAddressable() const { return false; }
  /// The most iterations the device's driver lets one loop run (a loop stops there, silently:
  /// Mesa's llvmpipe stops at 65,535); 0 where there is no such limit.
  virtual uint64_t maxLoopIterations() const { return 0; }
  /// Whether atomics with an ordering other than relaxed keep their results inside loops. Mesa's
  /// llvmpipe (lavapipe, 22.3) returns wrong old values there (Atomics.CompareExchangeLoops),
  /// so the runtime does not run its own such kernels there (LbvhBuilder).
  virtual bool orderedAtomicsInLoopsWork() const { return true; }
  /// Reserves Units compute units (rounded up to what the device can partition) for
  /// latency-class submissions, the rest for the others (co-running without waiting behind
  /// each other's resident workgroups), replacing a reservation of another size; 0 releases
  /// it. Returns the units reserved, 0 where this device cannot reserve. Throws RuntimeError
  /// when the driver refuses.
  virtual unsigned reserve(unsigned Units) {
    (void)Units;
    return 0;
  }
  /// The compute units reserved for latency-class submissions; 0 when none.
  virtual unsigned reservedComputeUnits() const { return 0; }
  /// The step in compute units of the disjoint slices launches can be confined to
  /// (LaunchGeometry::Part::Slice); 0 where this device cannot confine a launch.
  virtual unsigned sliceGranularity() const { return 0; }

  /// Device memory; nullptr when the allocation fails.
  virtual void* allocate(size_t Bytes) = 0;
  virtual void release(void* Ptr, size_t Bytes) = 0;
  /// Loads a payload of this backend's target; throws RuntimeError (bundle error) on failure.
  virtual std::unique_ptr<BackendModule> loadModule(const bundle::Payload& Payload) = 0;
  /// A device queue for a runtime stream; throws RuntimeError when the device cannot make one.
  /// Every launch and copy goes through one.
  virtual std::unique_ptr<BackendQueue> createQueue() = 0;

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
  /// The payload of Desc this backend runs on Device: by default the one for payloadTarget(); a
  /// GPU backend picks the best architecture or variant the device takes. nullptr when there is
  /// none. A payload may name the manifest target of each kernel in an attribute
  /// "<kernel>/manifest_target" (else it is the payload's Target).
  virtual const bundle::Payload* choosePayload(const bundle::Program& Desc,
                                               const BackendDevice& Device) const {
    return Desc.findPayload(payloadTarget());
  }
};

} // namespace cajeta::xpu::rt
