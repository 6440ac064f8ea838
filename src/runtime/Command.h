// One unit of work issued on a stream besides a launch (Stream::launch): a copy, an event signal or
// wait, or a marker.
#pragma once

#include "runtime/Backend.h"

#include <memory>

namespace cajeta::xpu::rt {

class Buffer;
class Event;

struct Command {
  enum class Kind : uint8_t { Marker, Write, Read, Signal, Wait };
  Kind What = Kind::Marker;

  // Write / Read: Count elements between host memory and the start of Buf.
  std::shared_ptr<Buffer> Buf;
  const void* Src = nullptr;
  void* Dst = nullptr;
  size_t Count = 0;
  bool Staged = false; // an Async copy: the queue copies through pinned staging

  // Signal / Wait.
  std::shared_ptr<Event> Ev;
};

} // namespace cajeta::xpu::rt
