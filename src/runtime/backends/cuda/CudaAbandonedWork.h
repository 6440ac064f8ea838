// A kernel that never ends (a stream the watchdog gave up, Stream::watchdogLocked) holds its
// context for the rest of the process, and the driver calls that release resources
// (cuMemFree, cuMemFreeHost, cuModuleUnload) synchronise with the context's work, so they would
// wait for it for ever. From the first abandoned stream on, the CUDA backend leaves such
// resources to the end of the process instead of releasing them.
#pragma once

#include <atomic>

namespace cajeta::xpu::rt::cuda {

/// Set once a CUDA stream has been abandoned; never cleared.
inline std::atomic<bool>& workAbandoned() {
  static std::atomic<bool> Abandoned{false};
  return Abandoned;
}

} // namespace cajeta::xpu::rt::cuda
