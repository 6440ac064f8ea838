// Backend choice by preference order, payload availability and CAJETA_XPU_BACKEND.
#include "runtime/Dispatcher.h"

#include "runtime/Runtime.h"
#include "runtime/RuntimeError.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>

namespace cajeta::xpu::rt {

const std::vector<std::string>& Dispatcher::order() {
  static const std::vector<std::string> Order = {"cuda", "hip", "vulkan", "cpu"};
  return Order;
}

static std::string presentBackends() {
  std::string Present;
  for (const std::string& Name : Dispatcher::order()) {
    Backend* B = Runtime::get().findBackend(Name);
    if (B && !B->devices().empty())
      Present += (Present.empty() ? "" : ", ") + Name;
  }
  return Present.empty() ? "none" : Present;
}

/// The device of B the dispatcher uses: its first device, unless that device only emulates a GPU
/// on the host (lavapipe) and the backend is not forced; then none, so that the cpu backend (our
/// own, faster on the same cores) runs the program. CAJETA_XPU_BACKEND=vulkan still picks it.
static BackendDevice* usableDevice(const Backend* B, bool Forced) {
  if (!B || B->devices().empty())
    return nullptr;
  BackendDevice* D = B->devices().front();
  return Forced || D->preferredByDefault() ? D : nullptr;
}

static bool forced() {
  const char* Forced = std::getenv("CAJETA_XPU_BACKEND");
  return Forced && *Forced;
}

std::vector<std::string> Dispatcher::candidates() {
  const char* Forced = std::getenv("CAJETA_XPU_BACKEND");
  if (!Forced || !*Forced)
    return order();
  std::string Name = Forced;
  if (std::find(order().begin(), order().end(), Name) == order().end())
    fail(CAJETA_XPU_BACKEND_UNAVAILABLE,
         fmt::format("CAJETA_XPU_BACKEND='{}' is not a backend (known: {})", Name,
                     fmt::join(order(), ", ")));
  Backend* B = Runtime::get().findBackend(Name);
  if (!B || B->devices().empty()) {
    std::string Why = Runtime::get().unavailableReason(Name);
    fail(
        CAJETA_XPU_BACKEND_UNAVAILABLE,
        fmt::format("CAJETA_XPU_BACKEND='{}': the {} backend is not available here{} (present: {})",
                    Name, Name, Why.empty() ? "" : ": " + Why, presentBackends()));
  }
  return {Name};
}

BackendDevice& Dispatcher::defaultDevice() {
  bool Forced = forced();
  for (const std::string& Name : candidates())
    if (BackendDevice* D = usableDevice(Runtime::get().findBackend(Name), Forced))
      return *D;
  fail(CAJETA_XPU_BACKEND_UNAVAILABLE, "no backend with a device is available");
}

Dispatcher::Choice Dispatcher::chooseOn(const bundle::Program& Desc, BackendDevice& D,
                                        const std::string& Origin) {
  Backend* B = Runtime::get().findBackend(D.backendName());
  if (const bundle::Payload* P = B ? B->choosePayload(Desc, D) : nullptr)
    return {&D, P};
  std::string Payloads;
  for (const bundle::Payload& P : Desc.Payloads)
    Payloads += (Payloads.empty() ? "" : ", ") + P.Target;
  fail(CAJETA_XPU_BACKEND_UNAVAILABLE,
       fmt::format("{}: the program has no payload the {} device '{}' can run (payloads: {})",
                   Origin, D.backendName(), D.name(), Payloads.empty() ? "none" : Payloads));
}

Dispatcher::Choice Dispatcher::choose(const bundle::Program& Desc, const std::string& Origin) {
  std::vector<std::string> Names = candidates();
  bool Forced = forced();
  for (const std::string& Name : Names) {
    Backend* B = Runtime::get().findBackend(Name);
    BackendDevice* D = usableDevice(B, Forced);
    if (!D)
      continue;
    if (const bundle::Payload* P = B->choosePayload(Desc, *D))
      return {D, P};
  }
  std::string Payloads;
  for (const bundle::Payload& P : Desc.Payloads)
    Payloads += (Payloads.empty() ? "" : ", ") + P.Target;
  fail(CAJETA_XPU_BACKEND_UNAVAILABLE,
       fmt::format("{}: no available backend can run the program (payloads: {}; backends {}: {})",
                   Origin, Payloads.empty() ? "none" : Payloads,
                   Names.size() == 1 ? "forced" : "present",
                   Names.size() == 1 ? Names[0] : presentBackends()));
}

} // namespace cajeta::xpu::rt
