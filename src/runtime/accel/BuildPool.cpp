// BuildPool: a batch of numbered jobs handed out by one atomic counter.
#include "runtime/accel/BuildPool.h"

#include <cstdlib>

namespace cajeta::xpu::rt {

BuildPool::BuildPool(unsigned Threads) {
  unsigned N = Threads > 1 ? Threads - 1 : 0;
  Workers.reserve(N);
  try {
    for (unsigned I = 0; I != N; ++I)
      Workers.emplace_back([this] { workerLoop(); });
  } catch (...) {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Stopping = true;
    }
    WorkCv.notify_all();
    for (std::thread& W : Workers)
      W.join();
    throw;
  }
}

BuildPool::~BuildPool() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping = true;
  }
  WorkCv.notify_all();
  for (std::thread& W : Workers)
    W.join();
}

void BuildPool::drain() {
  for (size_t I; (I = Next.fetch_add(1, std::memory_order_relaxed)) < Count;) {
    try {
      (*Body)(I);
    } catch (...) {
      std::lock_guard<std::mutex> Lock(Mutex);
      if (!Error)
        Error = std::current_exception();
    }
  }
}

void BuildPool::workerLoop() {
  uint64_t Seen = 0;
  std::unique_lock<std::mutex> Lock(Mutex);
  while (true) {
    WorkCv.wait(Lock, [&] { return Stopping || Generation != Seen; });
    if (Stopping)
      return;
    Seen = Generation;
    Lock.unlock();
    drain();
    Lock.lock();
    if (--Busy == 0)
      DoneCv.notify_one();
  }
}

void BuildPool::run(size_t N, const std::function<void(size_t)>& F) {
  if (N == 0)
    return;
  if (Workers.empty() || N == 1) {
    for (size_t I = 0; I != N; ++I)
      F(I);
    return;
  }
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Body = &F;
    Count = N;
    Next.store(0, std::memory_order_relaxed);
    Busy = unsigned(Workers.size());
    ++Generation;
  }
  WorkCv.notify_all();
  drain();
  std::exception_ptr Thrown;
  {
    std::unique_lock<std::mutex> Lock(Mutex);
    DoneCv.wait(Lock, [&] { return Busy == 0; });
    Body = nullptr;
    Count = 0;
    Thrown = Error;
    Error = nullptr;
  }
  if (Thrown)
    std::rethrow_exception(Thrown);
}

unsigned BuildPool::defaultThreads() {
  if (const char* Env = std::getenv("CAJETA_XPU_BUILD_THREADS")) {
    char* End = nullptr;
    unsigned long N = std::strtoul(Env, &End, 10);
    if (End != Env && *End == '\0' && N > 0)
      return N > 1024 ? 1024u : unsigned(N);
  }
  unsigned N = std::thread::hardware_concurrency();
  return N ? N : 1;
}

} // namespace cajeta::xpu::rt
