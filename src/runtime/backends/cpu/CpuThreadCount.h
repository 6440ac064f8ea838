// How many threads run the CPU backend's workgroups.
#pragma once

#include <string>

namespace cajeta::xpu::rt {

/// CAJETA_CPU_THREADS when it is set to a count from 1 to MaxThreads; otherwise the CPUs the
/// calling thread may run on (its affinity mask: what `taskset`, `numactl` or a job scheduler
/// left the process), as OpenMP counts its processors; at least 1. Warning gets a line for a
/// CAJETA_CPU_THREADS that is not such a count (the default is used then).
unsigned cpuThreadCount(std::string& Warning);

/// The same for a given value of CAJETA_CPU_THREADS (nullptr: unset) and default.
unsigned cpuThreadCount(const char* Setting, unsigned Default, std::string& Warning);

inline constexpr unsigned MaxCpuThreads = 4096;

} // namespace cajeta::xpu::rt
