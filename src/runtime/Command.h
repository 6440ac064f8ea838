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

  /// A write of Count elements from Src to the start of B.
  static Command write(std::shared_ptr<Buffer> B, const void* Src, size_t Count) {
    Command C;
    C.What = Kind::Write;
    C.Buf = std::move(B);
    C.Src = Src;
    C.Count = Count;
    return C;
  }
  /// A read of Count elements from the start of B to Dst.
  static Command read(std::shared_ptr<Buffer> B, void* Dst, size_t Count) {
    Command C;
    C.What = Kind::Read;
    C.Buf = std::move(B);
    C.Dst = Dst;
    C.Count = Count;
    return C;
  }
};

} // namespace cajeta::xpu::rt
