// The runtime's scheduling switches (Scheduler.h).
#include "runtime/scheduler/Scheduler.h"

#include "cajeta/xpu/cajeta_xpu.h"

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
int coRunningFromEnvironment() {
  const char* V = std::getenv("CAJETA_XPU_CORUN");
  if (V && (std::strcmp(V, "off") == 0 || std::strcmp(V, "0") == 0))
    return CAJETA_XPU_CORUN_OFF;
  if (V && std::strcmp(V, "always") == 0)
    return CAJETA_XPU_CORUN_ALWAYS;
  return CAJETA_XPU_CORUN_AUTO;
}
} // namespace

std::atomic<bool> Scheduler::Bypass{bypassFromEnvironment()};
std::atomic<bool> Scheduler::Reserving{reservingFromEnvironment()};
std::atomic<int> Scheduler::CoRunning{coRunningFromEnvironment()};

} // namespace cajeta::xpu::rt
