// Waiting without a sleep for a short while first, as OpenMP runtimes do (GOMP_SPINCOUNT,
// KMP_BLOCKTIME): a launch on the CPU crosses three threads (the caller, the queue's worker, the
// pool's), and a futex sleep and wake-up at each crossing cost more than a small kernel runs.
// The spin yields the core now and then, so a spinning thread on a busy machine does not keep a
// runnable one off it.
#pragma once

#include <chrono>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace cajeta::xpu::rt {

/// How long a thread polls before it sleeps on its condition variable.
inline constexpr std::chrono::microseconds SpinBudget{100};

/// Polls Ready for up to Budget; true once it holds (false: the caller goes on to block).
template <class Pred> bool spinUntil(Pred Ready, std::chrono::microseconds Budget = SpinBudget) {
  if (Ready())
    return true;
  auto Deadline = std::chrono::steady_clock::now() + Budget;
  for (unsigned Round = 1;; ++Round) {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#endif
    if (Ready())
      return true;
    if (Round % 64 == 0) {
      if (std::chrono::steady_clock::now() >= Deadline)
        return false;
      std::this_thread::yield();
    }
  }
}

} // namespace cajeta::xpu::rt
