// The CPU backend's thread count: CAJETA_CPU_THREADS, else the calling thread's CPUs.
#include "runtime/backends/cpu/CpuThreadCount.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace cajeta::xpu::rt {

namespace {

/// The CPUs in the calling thread's affinity mask, or hardware_concurrency where it is unknown.
unsigned allowedCpus() {
#if defined(__linux__)
  cpu_set_t Set;
  CPU_ZERO(&Set);
  if (sched_getaffinity(0, sizeof(Set), &Set) == 0)
    if (int N = CPU_COUNT(&Set); N > 0)
      return unsigned(N);
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

} // namespace

unsigned cpuThreadCount(const char* Setting, unsigned Default, std::string& Warning) {
  Default = std::clamp(Default, 1u, MaxCpuThreads);
  if (!Setting)
    return Default;
  char* End = nullptr;
  errno = 0;
  const unsigned long long N = std::strtoull(Setting, &End, 10);
  const bool Digits = *Setting >= '0' && *Setting <= '9';
  if (Digits && End && !*End && errno == 0 && N >= 1 && N <= MaxCpuThreads)
    return unsigned(N);
  Warning = "CAJETA_CPU_THREADS='" + std::string(Setting) + "' is not a thread count from 1 to " +
            std::to_string(MaxCpuThreads) + "; the CPU backend uses " + std::to_string(Default) +
            (Default == 1 ? " thread" : " threads");
  return Default;
}

unsigned cpuThreadCount(std::string& Warning) {
  return cpuThreadCount(std::getenv("CAJETA_CPU_THREADS"), allowedCpus(), Warning);
}

} // namespace cajeta::xpu::rt
