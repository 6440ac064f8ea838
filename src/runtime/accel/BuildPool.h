// The threads of one BVH build (runtime/accel/BvhBuilder): the caller and Threads - 1 workers
// take numbered jobs of one batch at a time until the batch is done.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace cajeta::xpu::rt {

class BuildPool {
public:
  /// Starts Threads - 1 workers (none for 0 or 1). Throws std::system_error when a thread
  /// cannot be created.
  explicit BuildPool(unsigned Threads);
  ~BuildPool();
  BuildPool(const BuildPool&) = delete;
  BuildPool& operator=(const BuildPool&) = delete;

  /// The workers and the caller.
  unsigned threads() const { return unsigned(Workers.size()) + 1; }

  /// Calls Body(I) once for every I in [0, Count), on the workers and on the calling thread, and
  /// returns when every call has returned; rethrows the first exception one of them threw.
  void run(size_t Count, const std::function<void(size_t)>& Body);

  /// CAJETA_XPU_BUILD_THREADS when it is a positive number, else the hardware's thread count.
  static unsigned defaultThreads();

private:
  void workerLoop();
  void drain();

  std::mutex Mutex;
  std::condition_variable WorkCv;
  std::condition_variable DoneCv;
  const std::function<void(size_t)>* Body = nullptr;
  size_t Count = 0;
  std::atomic<size_t> Next{0};
  uint64_t Generation = 0; // one per batch
  unsigned Busy = 0;       // workers still in the current batch
  bool Stopping = false;
  std::exception_ptr Error;
  std::vector<std::thread> Workers;
};

} // namespace cajeta::xpu::rt
