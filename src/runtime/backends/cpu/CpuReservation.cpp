// Reserved threads for the latency class on the cpu backend (CpuReservation.h).
#include "runtime/backends/cpu/CpuReservation.h"

#include <algorithm>
#include <cstdio>

namespace cajeta::xpu::rt {

unsigned CpuReservation::reserve(unsigned Units) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (!Units) {
    if (Current.exchange(nullptr, std::memory_order_acq_rel))
      std::fprintf(stderr,
                   "cajeta: note: [reservation] cpu device '%s': reservation released; every "
                   "submission runs on the device's threads\n",
                   DeviceName.c_str());
    return 0;
  }
  return reserveLocked(Units, 2);
}

unsigned CpuReservation::reserveLocked(unsigned Units, unsigned MostDivisor) {
  unsigned Most = Threads / MostDivisor;
  if (!Most)
    return 0;
  unsigned Want = std::clamp(Units, 1u, Most);
  if (ThreadPool* P = current(); P && P->participants() == Want)
    return Want;
  Made.push_back(std::make_unique<ThreadPool>(Want));
  Current.store(Made.back().get(), std::memory_order_release);
  std::fprintf(stderr,
               "cajeta: note: [reservation] cpu device '%s': %u thread%s for latency and "
               "frameBudget submissions beside the %u that run the others "
               "(CAJETA_XPU_RESERVATION=off turns this off)\n",
               DeviceName.c_str(), Want, Want == 1 ? "" : "s", Threads);
  return Want;
}

ThreadPool* CpuReservation::forLatency(uint64_t Groups) {
  if (ThreadPool* P = current())
    return P;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (!Made.empty()) // made meanwhile, or released on purpose
    return current();
  reserveLocked(unsigned(std::min<uint64_t>(Groups, Threads)), 4);
  return current();
}

void CpuReservation::abandon() {
  std::lock_guard<std::mutex> Lock(Mutex);
  for (auto& P : Made)
    P->abandon();
}

} // namespace cajeta::xpu::rt
