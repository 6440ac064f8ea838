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
  if (!B || B->devices().empty())
    fail(CAJETA_XPU_BACKEND_UNAVAILABLE,
         fmt::format("CAJETA_XPU_BACKEND='{}': the {} backend is not available here (present: {})",
                     Name, Name, presentBackends()));
  return {Name};
}

BackendDevice& Dispatcher::defaultDevice() {
  for (const std::string& Name : candidates()) {
    Backend* B = Runtime::get().findBackend(Name);
    if (B && !B->devices().empty())
      return *B->devices().front();
  }
  fail(CAJETA_XPU_BACKEND_UNAVAILABLE, "no backend with a device is available");
}

Dispatcher::Choice Dispatcher::choose(const bundle::Program& Desc, const std::string& Origin) {
  std::vector<std::string> Names = candidates();
  for (const std::string& Name : Names) {
    Backend* B = Runtime::get().findBackend(Name);
    if (!B || B->devices().empty())
      continue;
    if (const bundle::Payload* P = B->choosePayload(Desc))
      return {B->devices().front(), P};
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
