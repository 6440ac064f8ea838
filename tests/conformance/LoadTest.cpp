// Load: many host threads launching at once, on streams and buffers they share. Every launch
// counts into a shared buffer (atomically) and into its thread's own buffer; the totals are
// exact, and the process's resident memory does not grow with the number of launches.
#include "ConformanceSupport.h"

#include <malloc.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <unistd.h>

namespace conformance {
namespace {

/// Resident set size in bytes (/proc/self/statm), 0 where it cannot be read.
size_t residentBytes() {
  std::FILE* F = std::fopen("/proc/self/statm", "r");
  if (!F)
    return 0;
  unsigned long Size = 0, Resident = 0;
  int N = std::fscanf(F, "%lu %lu", &Size, &Resident);
  std::fclose(F);
  return N == 2 ? size_t(Resident) * size_t(::sysconf(_SC_PAGESIZE)) : 0;
}

/// Bytes the program has allocated and not freed, over every malloc arena (0 without glibc).
size_t liveHeapBytes() {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
  struct mallinfo2 M = ::mallinfo2();
  return M.uordblks + M.hblkhd;
#else
  return 0;
#endif
}

/// CAJETA_LOAD_LAUNCHES overrides the launches per thread (a longer run by hand, or a shorter
/// one under a sanitizer).
unsigned launchesPerThread() {
  const char* E = std::getenv("CAJETA_LOAD_LAUNCHES");
  unsigned N = E ? unsigned(std::strtoul(E, nullptr, 10)) : 0;
  return N ? N : 10000;
}

TEST(Load, SixteenThreadsOnSharedStreamsAndBuffersCountExactly) {
  xpu::Program P = compileProgram("LoadCounters");
  xpu::Kernel Count = P.kernel("LoadCounters.count");
  constexpr unsigned Threads = 16, Streams = 4, Items = 64;
  const unsigned Launches = launchesPerThread();
  xpu::KernelBuffer<uint32_t> Shared(P.device(), Items);
  Shared.upload(std::vector<uint32_t>(Items, 0));
  std::vector<xpu::KernelStream> StreamPool;
  for (unsigned S = 0; S < Streams; ++S)
    StreamPool.emplace_back(P.device());
  std::vector<xpu::KernelBuffer<uint32_t>> Own;
  for (unsigned T = 0; T < Threads; ++T) {
    Own.emplace_back(P.device(), Items);
    Own.back().upload(std::vector<uint32_t>(Items, 0));
  }
  // Three rounds of a third of the launches each: the first grows the queues, pools and
  // allocator arenas to their working size; a leak grows the heap in each later round. A pool
  // can still grow once more in a later round (how many batches a stream has in flight at once
  // depends on timing: on the H200's Vulkan driver it did), so only growth in both is a leak.
  std::atomic<unsigned> Failures{0};
  std::vector<std::string> Errors(Threads);
  auto Round = [&](unsigned PerThread) {
    std::vector<std::thread> Workers;
    for (unsigned T = 0; T < Threads; ++T)
      Workers.emplace_back([&, T] {
        try {
          // Thread T's own buffer is only ever written on stream T % Streams, which orders its
          // launches; the shared buffer is written on every stream.
          xpu::KernelStream& S = StreamPool[T % Streams];
          for (unsigned I = 0; I < PerThread; ++I)
            Count.launch(S, xpu::grid(1), xpu::block(Items))(Shared, Own[T]);
        } catch (const xpu::Error& E) {
          Errors[T] = E.what();
          ++Failures;
        }
      });
    for (std::thread& W : Workers)
      W.join();
    for (xpu::KernelStream& S : StreamPool)
      S.sync();
  };
  const unsigned First = Launches / 3, Second = (Launches - First) / 2;
  Round(First);
  size_t Before = residentBytes(), HeapBefore = liveHeapBytes();
  Round(Second);
  size_t HeapBetween = liveHeapBytes();
  Round(Launches - First - Second);
  size_t After = residentBytes(), HeapAfter = liveHeapBytes();
  ASSERT_EQ(Failures.load(), 0u) << [&] {
    std::string All;
    for (const std::string& E : Errors)
      All += E.empty() ? "" : E + "\n";
    return All;
  }();
  std::vector<uint32_t> Got;
  Shared.download(Got);
  const uint32_t WantShared = Threads * Launches;
  for (unsigned I = 0; I < Items; ++I)
    ASSERT_EQ(Got[I], WantShared) << "shared element " << I;
  for (unsigned T = 0; T < Threads; ++T) {
    Own[T].download(Got);
    const uint32_t Want = Launches;
    for (unsigned I = 0; I < Items; ++I)
      ASSERT_EQ(Got[I], Want) << "thread " << T << " element " << I;
  }
  // Flat: the later rounds (53,000 launches each) leave nothing allocated behind (a leak of
  // even 10 bytes a launch would show as 512 KiB in each). Resident memory is only bounded
  // loosely: with 16 threads the allocator's per-thread arenas keep what they once held.
  if (HeapBefore && HeapAfter) {
    const size_t Limit = 1u << 19;
    bool GrewInSecond = HeapBetween > HeapBefore + Limit,
         GrewInThird = HeapAfter > HeapBetween + Limit;
    EXPECT_FALSE(GrewInSecond && GrewInThird)
        << "live heap grew in each round: " << HeapBefore / 1024 << " KiB, then "
        << HeapBetween / 1024 << " KiB, then " << HeapAfter / 1024 << " KiB (" << Threads * Second
        << " launches a round)";
  }
  // Not under AddressSanitizer: its quarantine holds freed memory back on purpose.
#ifndef __SANITIZE_ADDRESS__
  if (Before && After) {
    EXPECT_LT(After, Before + (64u << 20))
        << "resident memory grew from " << Before / 1024 << " KiB to " << After / 1024
        << " KiB over the second " << Threads * (Launches - First) << " launches";
  }
#endif
}

} // namespace
} // namespace conformance
