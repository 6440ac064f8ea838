// The CPU backend's device queue: commands run in order on a worker thread of their own, each
// launch spread over the device's thread pool with the worker as one of its participants (a
// launch of one chunk runs on the worker alone). The same BackendQueue the GPU backends implement,
// so a CPU stream is fed exactly as a CUDA or Vulkan one (AdaptiveCpp's omp_queue model).
#pragma once

#include "runtime/Backend.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <pthread.h>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class ThreadPool;
class CpuReservation;

class CpuQueue : public BackendQueue {
public:
  CpuQueue(ThreadPool& Pool, CpuReservation& Reservation, const std::string& DeviceName);
  /// Runs what is queued, then stops the worker.
  ~CpuQueue() override;
  CpuQueue(const CpuQueue&) = delete;
  CpuQueue& operator=(const CpuQueue&) = delete;

  void launch(const void* Kernel, const bundle::KernelInfo& Info, const MarshalledArg* Args,
              const LaunchGeometry& Geometry, const void* Tag) override;
  bool dispatchesWindows() const override { return true; }
  void abandon() override;
  void launchWithin(const void* Kernel, const bundle::KernelInfo& Info, const MarshalledArg* Args,
                    const LaunchGeometry& Geometry, const void* Tag,
                    const DispatchWindow& Window) override;
  bool timeLaunches() override;
  void takeDeviceSpans(std::vector<DeviceSpan>& Out) override;
  /// A chain is one command: its launches run back to back on the worker.
  bool recordsChains() const override { return true; }
  void launchChain(uint64_t Id, std::vector<ChainLaunch>& Launches) override;
  void launchChainWithin(uint64_t Id, std::vector<ChainLaunch>& Launches,
                         const DispatchWindow& Window) override;
  void copyToDevice(void* Dst, const void* Src, size_t Bytes, bool Staged) override;
  void copyFromDevice(void* Dst, const void* Src, size_t Bytes, bool Staged) override;
  void copyWithinDevice(void* Dst, const void* Src, size_t Bytes) override;
  std::shared_ptr<BackendEvent> record() override;
  void wait(BackendEvent& E) override;
  void synchronize(std::vector<QueuedFailure>& Failures) override;

  /// How far the worker has come: commands completed, shared with the queue's events (which may
  /// outlive it).
  class Progress {
  public:
    /// Returns once Seq commands have completed: polls a while, then sleeps.
    void waitFor(uint64_t Seq);
    bool reached(uint64_t Seq) const { return Completed.load(std::memory_order_acquire) >= Seq; }
    /// One more command completed: wakes the sleepers only when the lowest count one of them
    /// waits for is reached, not at every command (a stream of small launches would otherwise
    /// wake a waiting caller once per launch).
    void complete();

  private:
    std::mutex Mutex;
    std::condition_variable Cv;
    std::atomic<uint64_t> Completed{0}; // written under Mutex, polled without it
    uint64_t LowestWaited = UINT64_MAX; // the least Seq a sleeper waits for (Mutex)
  };

private:
  struct FreeDeleter {
    void operator()(void* P) const { std::free(P); }
  };
  /// One queued command. A launch owns copies of its arguments and POD bytes; a staged copy owns
  /// the host bytes it was given.
  struct Work {
    enum class Kind : uint8_t { Launch, Chain, Copy, Wait } What = Kind::Copy;
    std::vector<ChainLaunch> Chain;
    const void* Kernel = nullptr;
    std::vector<MarshalledArg> Args;
    std::unique_ptr<uint8_t, FreeDeleter> Pods;
    LaunchGeometry Geometry{};
    const void* Tag = nullptr;
    void* Dst = nullptr;
    const void* Src = nullptr;
    size_t Bytes = 0;
    std::vector<uint8_t> Staging;
    std::shared_ptr<BackendEvent> WaitFor;
    DispatchWindow Window; // a launch's, checked when the worker starts it
  };

  /// A launch's Work: its arguments and POD bytes copied.
  Work makeLaunch(const void* Kernel, const bundle::KernelInfo& Info, const MarshalledArg* Args,
                  const LaunchGeometry& Geometry, const void* Tag);

  void push(Work&& W);
  void run();
  static void* workerMain(void* Queue);
  /// Runs W, timing it for the trace when asked to.
  void execute(Work& W);
  void perform(Work& W);
  /// The pool a launch runs on: the reserved threads for a latency-class one where there are.
  ThreadPool& poolFor(const LaunchGeometry& Geometry);

  ThreadPool& Pool;
  CpuReservation& Reservation;
  std::string DeviceName;
  std::shared_ptr<Progress> Done = std::make_shared<Progress>();
  std::mutex Mutex; // Pending, Stopping, Failures, FirstError
  std::condition_variable WorkCv;
  std::deque<Work> Pending;
  std::atomic<size_t> PendingCount{0}; // Pending.size(), polled by the worker without Mutex
  uint64_t Enqueued = 0;               // only the owning stream's thread touches it
  bool Stopping = false;
  std::atomic<bool> Abandoned{false}; // abandon(): the destructor detaches the worker
  std::vector<QueuedFailure> Failures;
  std::atomic<bool> Timing{false};
  std::vector<DeviceSpan> Spans; // guarded by Mutex
  std::optional<std::pair<cajeta_xpu_status, std::string>> FirstError;
  pthread_t Worker; // a ThreadPool::startThread thread: kernels run on it
};

} // namespace cajeta::xpu::rt
