// The runtime's scheduling switches (Scheduler.h).
#include "runtime/scheduler/Scheduler.h"

#include <cstdlib>
#include <cstring>

namespace cajeta::xpu::rt {

namespace {
bool bypassFromEnvironment() {
  const char* V = std::getenv("CAJETA_XPU_SCHEDULER");
  return V && std::strcmp(V, "bypass") == 0;
}
bool reservingFromEnvironment() {
  const char* V = std::getenv("CAJETA_XPU_RESERVATION");
  return !V || (std::strcmp(V, "off") != 0 && std::strcmp(V, "0") != 0);
}
} // namespace

std::atomic<bool> Scheduler::Bypass{bypassFromEnvironment()};
std::atomic<bool> Scheduler::Reserving{reservingFromEnvironment()};

} // namespace cajeta::xpu::rt
