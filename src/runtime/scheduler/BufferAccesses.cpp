// The per-buffer access record of the access-set ordering (BufferAccesses.h).
#include "runtime/scheduler/BufferAccesses.h"

#include "runtime/scheduler/StreamClock.h"

namespace cajeta::xpu::rt {

void BufferAccesses::conflictsWith(const StreamClock* Mine, bool Writes,
                                   std::vector<StreamPosition>& Out) const {
  if (LastWrite.Clock && LastWrite.Clock.get() != Mine)
    Out.push_back(LastWrite);
  if (!Writes)
    return;
  for (const StreamPosition& R : ReadsSinceWrite)
    if (R.Clock.get() != Mine)
      Out.push_back(R);
}

void BufferAccesses::note(const StreamPosition& At, bool Writes) {
  if (Writes) {
    LastWrite = At;
    ReadsSinceWrite.clear();
    return;
  }
  for (StreamPosition& R : ReadsSinceWrite) {
    if (R.Clock == At.Clock) {
      R.Seq = At.Seq;
      return;
    }
  }
  ReadsSinceWrite.push_back(At);
}

} // namespace cajeta::xpu::rt
