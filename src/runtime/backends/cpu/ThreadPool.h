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
  /// Kernels alloca their shared arrays and per-work-item arrays on the running thread, so every
  /// thread that runs chunks has StackBytes of stack: the pool's workers and the callers of
  /// parallelFor, which are threads made by startThread.
  static constexpr size_t StackBytes = size_t(64) << 20;

  /// Starts Main(Arg) on a new thread with StackBytes of stack; throws std::system_error when it
  /// cannot be created.
  static pthread_t startThread(void* (*Main)(void*), void* Arg);

  /// A pool in which Participants threads run a job: the caller of parallelFor and
  /// Participants - 1 workers. Throws std::system_error when no worker can be created.
  explicit ThreadPool(unsigned Participants);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned participants() const { return unsigned(Threads.size()) + 1; }

  /// A kernel on the pool may never end (a stream's watchdog gave it up): the destructor then
  /// detaches the threads instead of joining them, so the process can exit.
  void abandon() { Abandoned = true; }

  /// Calls Body(Ctx, Begin, End) over chunks covering [0, Total) on the calling thread and the
  /// pool's workers, and returns when every chunk has run. A job of one chunk runs on the caller
  /// alone: no other thread is woken or waited for. Safe to call from several threads at once;
  /// the caller must have been started by startThread.
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
