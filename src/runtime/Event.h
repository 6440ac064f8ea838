// A point in a stream's work: completes when the stream reaches it; others can wait on it.
#pragma once

#include "runtime/Backend.h"

#include <memory>

namespace cajeta::xpu::rt {

/// The device event a stream's queue recorded for this point.
class Event {
public:
  /// Makes this the event of a device queue (set once, before the event is handed out).
  void attach(std::shared_ptr<BackendEvent> Device) { Native = std::move(Device); }
  BackendEvent* native() const { return Native.get(); }
  /// Blocks until the stream has passed the point (at once for an event never recorded).
  void wait() const {
    if (Native)
      Native->synchronize();
  }
  bool done() const { return !Native || Native->done(); }

private:
  std::shared_ptr<BackendEvent> Native;
};

} // namespace cajeta::xpu::rt
