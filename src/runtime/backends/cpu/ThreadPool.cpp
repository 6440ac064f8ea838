// The CPU backend's thread pool: jobs on a list, chunks claimed with an atomic counter.
#include "runtime/backends/cpu/ThreadPool.h"

#include <algorithm>
#include <atomic>

namespace cajeta::xpu::rt {

ThreadPool::ThreadPool(unsigned Helpers) {
  Threads.reserve(Helpers);
  for (unsigned I = 0; I != Helpers; ++I)
    Threads.emplace_back([this] { workerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping = true;
  }
  WorkCv.notify_all();
  for (std::thread& T : Threads)
    T.join();
}

void ThreadPool::runChunks(Job& J) {
  std::atomic_ref<uint64_t> Next(J.Next);
  for (;;) {
    uint64_t Begin = Next.fetch_add(J.Chunk, std::memory_order_relaxed);
    if (Begin >= J.Total)
      return;
    J.Body(J.Ctx, Begin, std::min(J.Total, Begin + J.Chunk));
  }
}

void ThreadPool::parallelFor(uint64_t Total, ChunkFn Body, void* Ctx) {
  if (!Total)
    return;
  // Several chunks per participant balance uneven workgroups; a chunk amortises the claim.
  uint64_t Chunk = std::max<uint64_t>(1, Total / (uint64_t(participants()) * 4));
  if (Threads.empty() || Chunk >= Total) {
    Body(Ctx, 0, Total);
    return;
  }
  Job J{Body, Ctx, Total, Chunk};
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    J.Link = Jobs;
    Jobs = &J;
  }
  WorkCv.notify_all();
  runChunks(J);
  std::unique_lock<std::mutex> Lock(Mutex);
  // No chunk is left to claim: unlink so no new helper joins, then wait for those inside.
  for (Job** P = &Jobs; *P; P = &(*P)->Link) {
    if (*P != &J)
      continue;
    *P = J.Link;
    break;
  }
  DoneCv.wait(Lock, [&] { return J.Active == 0; });
}

void ThreadPool::workerLoop() {
  std::unique_lock<std::mutex> Lock(Mutex);
  for (;;) {
    WorkCv.wait(Lock, [&] { return Stopping || Jobs; });
    if (Stopping)
      return;
    Job& J = *Jobs;
    ++J.Active;
    Lock.unlock();
    runChunks(J);
    Lock.lock();
    // Done with J: unlink it if its owner has not yet, so helpers stop picking it up.
    for (Job** P = &Jobs; *P; P = &(*P)->Link) {
      if (*P != &J)
        continue;
      *P = J.Link;
      break;
    }
    if (--J.Active == 0)
      DoneCv.notify_all();
  }
}

} // namespace cajeta::xpu::rt
