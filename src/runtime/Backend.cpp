// The defaults of the backend interfaces (Backend.h).
#include "runtime/Backend.h"

#include "runtime/RuntimeError.h"

#include <fmt/format.h>

namespace cajeta::xpu::rt {

void BackendQueue::launchWithin(const void*, const bundle::KernelInfo& Info, const MarshalledArg*,
                                const LaunchGeometry&, const void*, const DispatchWindow&) {
  // Streams gate windowed launches themselves on queues that do not dispatch windows.
  fail(CAJETA_XPU_ERROR, fmt::format("{}: internal error: this queue does not dispatch windowed "
                                     "launches",
                                     Info.Name));
}

void BackendQueue::launchChain(uint64_t, std::vector<ChainLaunch>& Launches) {
  fail(CAJETA_XPU_ERROR, fmt::format("{}: internal error: this queue does not record chains",
                                     Launches.empty() ? "a chain" : Launches[0].Info->Name));
}

void BackendQueue::launchChainWithin(uint64_t, std::vector<ChainLaunch>& Launches,
                                     const DispatchWindow&) {
  fail(CAJETA_XPU_ERROR,
       fmt::format("{}: internal error: this queue does not dispatch windowed chains",
                   Launches.empty() ? "a chain" : Launches[0].Info->Name));
}

} // namespace cajeta::xpu::rt
