// A persistent pool of large-stack worker threads that splits a range of workgroups into chunks.
#pragma once

#include <atomic>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <pthread.h>
#include <vector>

namespace cajeta::xpu::rt {

class ThreadPool {
public:
  /// Kernels alloca their shared arrays and per-work-item arrays on the running thread, so only
  /// pool threads (with StackBytes of stack each) run chunks; the caller of parallelFor waits.
  static constexpr size_t StackBytes = size_t(64) << 20;

  /// Throws std::system_error when a thread cannot be created.
  explicit ThreadPool(unsigned Workers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned participants() const { return unsigned(Threads.size()); }

  /// A kernel on the pool may never end (a stream's watchdog gave it up): the destructor then
  /// detaches the threads instead of joining them, so the process can exit.
  void abandon() { Abandoned = true; }

  /// Calls Body(Ctx, Begin, End) on pool threads over chunks covering [0, Total) and returns
  /// when every chunk has run. Safe to call from several threads at once.
  using ChunkFn = void (*)(void* Ctx, uint64_t Begin, uint64_t End);
  void parallelFor(uint64_t Total, ChunkFn Body, void* Ctx);

private:
  struct Job {
    ChunkFn Body;
    void* Ctx;
    uint64_t Total;
    uint64_t Chunk;
    uint64_t Next = 0; // guarded by the job's atomic use below
    std::atomic<unsigned> Active{0};
    Job* Link = nullptr;
  };

  void workerLoop();
  /// Takes J off the list if it is still there (Mutex held).
  void unlink(Job& J);
  static void* threadMain(void* Pool);
  static void runChunks(Job& J);

  std::mutex Mutex;
  std::condition_variable WorkCv;
  std::condition_variable DoneCv;
  Job* Jobs = nullptr;               // jobs that still have chunks to hand out
  std::atomic<unsigned> JobCount{0}; // the list's length, polled by idle workers without Mutex
  bool Stopping = false;
  std::atomic<bool> Abandoned{false};
  std::vector<pthread_t> Threads;
};

} // namespace cajeta::xpu::rt
