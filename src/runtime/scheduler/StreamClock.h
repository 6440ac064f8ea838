// A stream's position as other streams see it: shared with the buffers the stream touched, it
// answers "an event once the stream has passed command N" and outlives the stream itself.
#pragma once

#include "runtime/Backend.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace cajeta::xpu::rt {

class Stream;

class StreamClock {
public:
  /// Device names the stream's device for traces ("cpu 'host CPU'").
  StreamClock(Stream& Owner, std::string Name, std::string Device)
      : Owner(&Owner), Name(std::move(Name)), Device(std::move(Device)) {}

  const std::string& streamName() const { return Name; }
  const std::string& deviceName() const { return Device; }

  /// An event of the owning stream that completes once it has passed its command Seq (it may
  /// cover later commands too); null when the stream has already passed it or is gone.
  std::shared_ptr<BackendEvent> eventAfter(uint64_t Seq);
  /// The stream is going away, its work drained: every position has been passed.
  void detach();

private:
  std::mutex Mutex; // held while asking the owner, so the owner cannot go meanwhile
  Stream* Owner;
  const std::string Name, Device;
};

} // namespace cajeta::xpu::rt
