// The Energy policy's placement (spec 17.8: a submission's policy is one of throughput, latency,
// frameBudget or energy): an energy submission runs on the fewest compute units that finish it
// as soon as the whole device would, leaving the rest idle or to other work. A grid's time on a
// device is set by the unit that runs the most of its workgroups; on the whole device the
// hardware spreads them evenly, so a slice on which no unit runs more workgroups than some unit
// of the whole device does takes the same time, for any kernel whose workgroups' speed depends
// only on the unit they share (compute-bound work). A memory-bound kernel's speed depends on how
// many units issue loads at once (the H200's calibration: 39 % of the read bandwidth on 30 % of
// the SMs), so it is right-sized only where each of its workgroups has a unit of its own either
// way: a grid of at most one workgroup per unit. Pure arithmetic, tested without a device.
#pragma once

#include <cstdint>

namespace cajeta::xpu::rt {

/// What bounds a launch's speed on the device, from its costs against the measured ridge.
enum class WorkClass { Unknown, MemoryBound, ComputeBound };

/// The units an energy launch of Groups workgroups runs on, a multiple of Granularity (the
/// steps a device can cut: 8 SMs on Hopper, leaving at least one step beside the slice), or 0
/// where that saves nothing (the whole device).
/// Groups beyond one per unit are right-sized only for compute-bound work.
unsigned rightSizedUnits(uint64_t Groups, unsigned Units, unsigned Granularity, WorkClass Class);

} // namespace cajeta::xpu::rt
