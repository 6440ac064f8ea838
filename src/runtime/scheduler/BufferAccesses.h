// What the streams did to one buffer since its last write: the record the access-set ordering
// reads. A launch or copy on one stream is ordered after the accesses of other streams it
// conflicts with: a read after their last write (read-after-write), a write after their last
// write and every read since (write-after-write, write-after-read). Reads from several streams
// do not wait for one another.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace cajeta::xpu::rt {

class StreamClock;

/// One stream's command: the stream's clock and the command's sequence number on it.
struct StreamPosition {
  std::shared_ptr<StreamClock> Clock;
  uint64_t Seq = 0;
  uint64_t TraceTs = 0; // when the command was issued, on the trace's clock (0: no trace)
};

class BufferAccesses {
public:
  /// Appends to Out the positions of other streams (not Mine) that an access by Mine that
  /// Writes (or only reads) must follow.
  void conflictsWith(const StreamClock* Mine, bool Writes, std::vector<StreamPosition>& Out) const;
  /// Records an access by the command At.
  void note(const StreamPosition& At, bool Writes);

private:
  StreamPosition LastWrite;                    // Clock null: never written through a stream
  std::vector<StreamPosition> ReadsSinceWrite; // one entry per reading stream, its latest read
};

} // namespace cajeta::xpu::rt
