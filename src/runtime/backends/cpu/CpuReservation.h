// Threads reserved for latency-class submissions on the cpu backend: a second pool beside the
// device's, on which latency and frameBudget launches run while the others keep the device's
// pool. A reserved pool of N threads is the latency stream's own queue worker and N - 1 more (the
// worker runs chunks too). The reserved threads are added, not taken from the pool: the operating
// system preempts threads, so a latency launch only has to stop queueing behind other launches'
// workgroups (the pool hands its threads to jobs in turn) to get its share of the cores at once.
#pragma once

#include "runtime/backends/cpu/ThreadPool.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class CpuReservation {
public:
  CpuReservation(unsigned Threads, const std::string& DeviceName)
      : Threads(Threads), DeviceName(DeviceName) {}

  /// The reserved pool, or nullptr when there is none.
  ThreadPool* current() const { return Current.load(std::memory_order_acquire); }
  unsigned reservedThreads() const {
    ThreadPool* P = current();
    return P ? P->participants() : 0;
  }

  /// Reserves Units threads (at most half the device's, at least one), replacing a reservation
  /// of another size; 0 releases it. Returns the threads reserved, 0 on a single-thread device.
  unsigned reserve(unsigned Units);
  /// The pool for a latency-class launch of Groups workgroups: made by the first one (a thread
  /// per workgroup, at most a quarter of the device's), none after a release.
  ThreadPool* forLatency(uint64_t Groups);

  /// A kernel never ends (a stream's watchdog gave it up): no reserved pool joins its threads.
  void abandon();

private:
  unsigned reserveLocked(unsigned Units, unsigned MostDivisor);

  unsigned Threads;
  std::string DeviceName;
  std::mutex Mutex;
  // Every pool made; a replaced or released one stays (a queue may still be running on it).
  std::vector<std::unique_ptr<ThreadPool>> Made;
  std::atomic<ThreadPool*> Current{nullptr};
};

} // namespace cajeta::xpu::rt
