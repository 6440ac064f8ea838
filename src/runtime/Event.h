// A point in a stream's work: completes when the stream reaches it; others can wait on it.
#pragma once

#include "runtime/Backend.h"

#include <condition_variable>
#include <memory>
#include <mutex>

namespace cajeta::xpu::rt {

/// A flag a worker-thread stream sets, or a device event a queue-backed stream recorded.
class Event {
public:
  void signal();
  /// Makes this the event of a device queue (set once, before the event is handed out).
  void attach(std::shared_ptr<BackendEvent> Device) { Native = std::move(Device); }
  BackendEvent* native() const { return Native.get(); }
  void wait() const;
  bool done() const;

private:
  std::shared_ptr<BackendEvent> Native;
  mutable std::mutex Mutex;
  mutable std::condition_variable Cv;
  bool Done = false;
};

} // namespace cajeta::xpu::rt
