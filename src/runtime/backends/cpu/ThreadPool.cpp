// The CPU backend's thread pool: jobs on a list, chunks claimed with an atomic counter.
#include "runtime/backends/cpu/ThreadPool.h"

#include "runtime/backends/cpu/SpinWait.h"

#include <algorithm>
#include <atomic>
#include <system_error>

namespace cajeta::xpu::rt {

pthread_t ThreadPool::startThread(void* (*Main)(void*), void* Arg) {
  pthread_attr_t Attr;
  pthread_attr_init(&Attr);
  int Err = pthread_attr_setstacksize(&Attr, StackBytes);
  pthread_t T{};
  if (!Err)
    Err = pthread_create(&T, &Attr, Main, Arg);
  pthread_attr_destroy(&Attr);
  if (Err)
    throw std::system_error(Err, std::generic_category(),
                            "cannot create a CPU backend thread (64 MiB stack)");
  return T;
}

ThreadPool::ThreadPool(unsigned Participants) {
  unsigned Workers = Participants ? Participants - 1 : 0;
  Threads.reserve(Workers);
  for (unsigned I = 0; I != Workers; ++I) {
    try {
      Threads.push_back(startThread(threadMain, this));
    } catch (const std::system_error&) {
      if (Threads.empty() && Workers)
        throw; // the caller alone would run every job: report it rather than crawl
      break;
    }
  }
}

void* ThreadPool::threadMain(void* Pool) {
  static_cast<ThreadPool*>(Pool)->workerLoop();
  return nullptr;
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping = true;
  }
  WorkCv.notify_all();
  for (pthread_t T : Threads)
    if (Abandoned)
      pthread_detach(T); // a thread may be inside a kernel that never ends
    else
      pthread_join(T, nullptr);
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

void ThreadPool::unlink(Job& J) {
  for (Job** P = &Jobs; *P; P = &(*P)->Link) {
    if (*P != &J)
      continue;
    *P = J.Link;
    JobCount.fetch_sub(1, std::memory_order_relaxed);
    return;
  }
}

void ThreadPool::parallelFor(uint64_t Total, ChunkFn Body, void* Ctx) {
  if (!Total)
    return;
  // Several chunks per participant balance uneven workgroups; a chunk amortises the claim.
  uint64_t Chunk = std::max<uint64_t>(1, Total / (uint64_t(participants()) * 4));
  if (Chunk >= Total || Threads.empty()) {
    Body(Ctx, 0, Total); // one chunk: handing it to a worker would only add a crossing
    return;
  }
  Job J{Body, Ctx, Total, Chunk};
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    J.Link = Jobs;
    Jobs = &J;
    JobCount.fetch_add(1, std::memory_order_release);
  }
  // Workers still spinning from the last job take this one without a wake-up.
  WorkCv.notify_all();
  runChunks(J);
  // Every chunk claimed and no worker inside: done. Workers unlink the job when they leave it.
  auto Finished = [&] { return J.Active.load(std::memory_order_acquire) == 0; };
  spinUntil(Finished);
  std::unique_lock<std::mutex> Lock(Mutex);
  DoneCv.wait(Lock, Finished);
  unlink(J);
}

void ThreadPool::workerLoop() {
  for (;;) {
    spinUntil([&] { return JobCount.load(std::memory_order_acquire) != 0; });
    std::unique_lock<std::mutex> Lock(Mutex);
    WorkCv.wait(Lock, [&] { return Stopping || Jobs; });
    if (Stopping)
      return;
    Job& J = *Jobs;
    J.Active.fetch_add(1, std::memory_order_relaxed);
    Lock.unlock();
    runChunks(J);
    Lock.lock();
    // Done with J: unlink it if its owner has not yet, so helpers stop picking it up.
    unlink(J);
    if (J.Active.fetch_sub(1, std::memory_order_acq_rel) == 1)
      DoneCv.notify_all();
  }
}

} // namespace cajeta::xpu::rt
