// The Energy policy's placement (RightSizing.h).
#include "runtime/scheduler/RightSizing.h"

#include "runtime/scheduler/CoRunPlanner.h"

namespace cajeta::xpu::rt {

unsigned rightSizedUnits(uint64_t Groups, unsigned Units, unsigned Granularity, WorkClass Class) {
  if (!Granularity || !Units || !Groups)
    return 0;
  uint64_t Needed = Groups;
  if (Groups > Units) {
    if (Class != WorkClass::ComputeBound)
      return 0;
    // The most workgroups one unit of the whole device runs, then the fewest units that run
    // every workgroup with no unit running more.
    uint64_t Turns = (Groups + Units - 1) / Units;
    Needed = (Groups + Turns - 1) / Turns;
  }
  // A slice leaves at least one step beside it, as the device cuts (ResourceDescriptor's place).
  unsigned Slice = sliceSize(unsigned(Needed), Granularity);
  return Slice + Granularity <= Units ? Slice : 0;
}

} // namespace cajeta::xpu::rt
