// A persistent pool of worker threads that splits a range of workgroups into chunks.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace cajeta::xpu::rt {

class ThreadPool {
public:
  /// Participants = Helpers + the calling thread.
  explicit ThreadPool(unsigned Helpers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned participants() const { return unsigned(Threads.size()) + 1; }

  /// Calls Body(Ctx, Begin, End) over chunks covering [0, Total); the caller takes part and
  /// returns when every chunk has run. Safe to call from several threads at once.
  using ChunkFn = void (*)(void* Ctx, uint64_t Begin, uint64_t End);
  void parallelFor(uint64_t Total, ChunkFn Body, void* Ctx);

private:
  struct Job {
    ChunkFn Body;
    void* Ctx;
    uint64_t Total;
    uint64_t Chunk;
    uint64_t Next = 0; // guarded by the job's atomic use below
    unsigned Active = 0;
    Job* Link = nullptr;
  };

  void workerLoop();
  static void runChunks(Job& J);

  std::mutex Mutex;
  std::condition_variable WorkCv;
  std::condition_variable DoneCv;
  Job* Jobs = nullptr; // jobs that still have chunks to hand out
  bool Stopping = false;
  std::vector<std::thread> Threads;
};

} // namespace cajeta::xpu::rt
