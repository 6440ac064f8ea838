// An asynchronous in-order queue of commands over its device's BackendQueue, fed from the calling
// thread on every backend (the CPU's queue runs them on a worker thread of its own).
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"
#include "runtime/Command.h"
#include "runtime/scheduler/BufferAccesses.h"
#include "runtime/scheduler/StreamClock.h"

#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace cajeta::xpu::rt {

class DeviceAllocation;
class Kernel;
class LoadedProgram;
struct Submission;
class Trace;

class Stream {
public:
  Stream(BackendDevice& Device, std::string Name);
  /// Drains the queue and ends this stream's borrows; unsynced errors drop.
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  BackendDevice& device() const { return Device; }
  const std::string& name() const { return Name; }
  /// Issues a command to the device queue; returns its sequence number (for waitFor). Errors in
  /// issuing it are thrown.
  uint64_t enqueue(Command&& C);
  /// Borrows Buffers (non-null entries), fills their pointers and lengths into Args, keeps their
  /// memory and Program alive until the device has passed the launch, and enqueues it.
  /// Everything about the arguments has been checked. A submission with a window is started
  /// inside it or not at all: by the queue where it dispatches windows, else held here until
  /// the work it follows has finished (a missed deadline is thrown, nothing enqueued).
  void launch(const Kernel& K, const LoadedProgram& Program, MarshalledArg* Args,
              const std::shared_ptr<Buffer>* Buffers, size_t Count, const LaunchGeometry& Geometry,
              const Submission& Sub);
  /// Copies Bytes from Src to Dst (allocations of this stream's device) after the work queued
  /// so far, and waits for it (a buffer resize); Src stays alive until then.
  void copyWithinAndWait(const std::shared_ptr<DeviceAllocation>& Dst,
                         const std::shared_ptr<DeviceAllocation>& Src, size_t Bytes);
  /// Blocks until the command with sequence number Seq has completed.
  void waitFor(uint64_t Seq);
  /// Waits for all queued work, ends the borrows of its launches, rethrows the first error.
  void sync();
  /// Issues the open chain now (a missed window is reported at sync).
  void endChain();

  /// An event that completes once this stream has passed its command Seq; null when it has.
  /// Other streams ask through the stream's StreamClock.
  std::shared_ptr<BackendEvent> eventAfter(uint64_t Seq);

  /// A stream name for messages, unique in the process: "stream 4".
  static std::string nextName(const char* Suffix = "");

private:
  /// One buffer a command touches, and whether it writes it.
  struct BufferUse {
    Buffer* Buf;
    bool Writes;
  };
  /// The events of other streams' commands that a command with these uses must follow (the
  /// access-set ordering). Called without this stream's lock: it takes the other streams'.
  /// With Waited (tracing), the positions those events stand for.
  std::vector<std::shared_ptr<BackendEvent>> eventsToFollow(const BufferUse* Uses, size_t Count,
                                                            std::vector<StreamPosition>* Waited);
  void noteAccesses(const BufferUse* Uses, size_t Count, uint64_t TraceTs);
  /// Records a command issued from TraceStart until now, and the edges of what it waited for.
  void traceCommand(Trace& T, uint64_t TraceStart, const char* Kind, const std::string& Name,
                    const std::string& Geometry, const std::vector<StreamPosition>& Waited,
                    const Submission* Sub = nullptr);
  void issue(Command& C);
  /// Adds a launch to the open chain (its arguments bound), opening it as chain Sub.CaptureId
  /// with Sub's window. Locked.
  void chainLaunchLocked(const Kernel& K, const MarshalledArg* Args, const LaunchGeometry& Geometry,
                         const Submission& Sub);
  /// Issues the open chain, if any, as one unit (BackendQueue::launchChain). Locked.
  void closeChainLocked();
  void keepAlive(std::shared_ptr<DeviceAllocation> Memory);
  void drainLocked();
  /// Puts the device times the queue recorded into the trace.
  void traceDeviceSpansLocked();
  void recordErrorLocked(cajeta_xpu_status Status, std::string Message);
  /// CAJETA_XPU_WATCHDOG_MS: waits at most that long for the queue to finish what it has (the
  /// CPU and GPUs cannot stop a kernel that never ends); past it, abandons the stream: its work
  /// and everything it needs are left to run for the rest of the process, every later use of
  /// the stream fails, and the process can still exit. Throws LaunchError then.
  void watchdogLocked();
  /// Throws the abandonment's error when the stream was abandoned.
  void checkNotAbandonedLocked() const;
  void endBorrows();

  BackendDevice& Device;
  std::string Name;
  std::unique_ptr<BackendQueue> Queue;
  std::mutex Mutex; // serialises the queue's calls and guards what follows
  uint64_t Enqueued = 0;
  uint64_t Completed = 0;
  std::optional<std::pair<cajeta_xpu_status, std::string>> FirstError;
  std::vector<std::weak_ptr<Buffer>> Borrowed;
  // What the device may still use, dropped when the stream is drained.
  std::vector<std::shared_ptr<DeviceAllocation>> InFlightMemory;
  std::vector<std::shared_ptr<const LoadedProgram>> InFlightPrograms;
  const LoadedProgram* LastProgram = nullptr;
  const Kernel* LastKernel = nullptr; // the last launch's, for the watchdog's message
  std::string Abandoned;              // non-empty: the watchdog gave the stream up (why)
  std::vector<QueuedFailure> Failures;
  // The open chain: launches of consecutive submissions with capture identity ChainId, held
  // until another command, a sync or another identity closes it (queues that record chains).
  uint64_t ChainId = 0;
  std::vector<ChainLaunch> Chain;
  DispatchWindow ChainWindow; // the window of the chain's first submission
  std::vector<std::shared_ptr<const LoadedProgram>> ChainPrograms; // recordings refer to them
  // The allocations the open chain binds, and those of the chain last issued under each
  // identity: a recording may bind them (a Vulkan command buffer's descriptor sets), so they
  // live until that identity is issued with other buffers or the stream ends, and a new buffer
  // can never take a recorded one's place (its address, its driver handle).
  std::vector<std::shared_ptr<DeviceAllocation>> ChainAllocations;
  std::unordered_map<uint64_t, std::vector<std::shared_ptr<DeviceAllocation>>> ChainMemory;
  bool DeviceTimes = false; // tracing, and the queue records when launches run
  std::vector<DeviceSpan> Spans;
  std::shared_ptr<StreamClock> Clock;
  std::shared_ptr<BackendEvent> LastEvent; // eventAfter's, covering commands up to LastEventSeq
  uint64_t LastEventSeq = 0;
};

} // namespace cajeta::xpu::rt
