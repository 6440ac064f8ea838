// A point in a stream's work: completes when the stream reaches it; others can wait on it.
#pragma once

#include <condition_variable>
#include <mutex>

namespace cajeta::xpu::rt {

class Event {
public:
  void signal();
  void wait() const;
  bool done() const;

private:
  mutable std::mutex Mutex;
  mutable std::condition_variable Cv;
  bool Done = false;
};

} // namespace cajeta::xpu::rt
