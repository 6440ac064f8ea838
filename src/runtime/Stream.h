// An asynchronous in-order queue of commands: a device queue fed from the calling thread (GPU
// backends), or a worker thread that runs the commands (the CPU backend).
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"
#include "runtime/Command.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace cajeta::xpu::rt {

class DeviceAllocation;

class Stream {
public:
  Stream(BackendDevice& Device, std::string Name);
  /// Drains the queue, ends this stream's borrows and stops the worker; unsynced errors drop.
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  BackendDevice& device() const { return Device; }
  const std::string& name() const { return Name; }
  /// Whether commands go straight to a device queue from the calling thread.
  bool direct() const { return Queue != nullptr; }

  /// Queues a command; returns its sequence number (for waitFor). On a direct stream the command
  /// is issued to the device queue now, and errors in issuing it are thrown.
  uint64_t enqueue(Command&& C);
  /// Direct streams only: borrows Buffers (non-null entries), fills their pointers and lengths
  /// into Args, keeps their memory and Program alive until the device has passed the launch,
  /// and enqueues it. Everything about the arguments has been checked.
  void launchDirect(const Kernel& K, const LoadedProgram& Program, MarshalledArg* Args,
                    const std::shared_ptr<Buffer>* Buffers, size_t Count,
                    const LaunchGeometry& Geometry);
  /// Blocks until the command with sequence number Seq has completed.
  void waitFor(uint64_t Seq);
  /// Waits for all queued work, ends the borrows of its launches, rethrows the first error.
  void sync();
  /// Remembers Buf so that sync() ends its borrow by this stream.
  void noteBorrowed(const std::shared_ptr<Buffer>& Buf);

  /// A stream name for messages, unique in the process: "stream 4".
  static std::string nextName(const char* Suffix = "");

private:
  void run();
  void execute(Command& C);
  void executeLaunch(Command& C);
  void issue(Command& C);
  void keepAlive(std::shared_ptr<DeviceAllocation> Memory);
  void drainLocked();
  void recordError(cajeta_xpu_status Status, std::string Message);
  void recordErrorLocked(cajeta_xpu_status Status, std::string Message);
  void endBorrows();

  BackendDevice& Device;
  std::string Name;
  std::unique_ptr<BackendQueue> Queue; // direct streams
  std::mutex Mutex;
  std::condition_variable WorkCv;
  std::condition_variable DoneCv;
  std::deque<Command> Pending;
  uint64_t Enqueued = 0;
  uint64_t Completed = 0;
  bool Stopping = false;
  std::optional<std::pair<cajeta_xpu_status, std::string>> FirstError;
  std::vector<std::weak_ptr<Buffer>> Borrowed;
  // Direct streams: what the device may still use, dropped when the stream is drained.
  std::vector<std::shared_ptr<DeviceAllocation>> InFlightMemory;
  std::vector<std::shared_ptr<const LoadedProgram>> InFlightPrograms;
  const LoadedProgram* LastProgram = nullptr;
  std::vector<QueuedFailure> Failures;
  std::thread Worker; // worker-thread streams
};

} // namespace cajeta::xpu::rt
