// The CPU backend's device queue (CpuQueue.h).
#include "runtime/backends/cpu/CpuQueue.h"

#include "bundle/CpuKernelAbi.h"
#include "runtime/RuntimeError.h"
#include "runtime/backends/cpu/CpuReservation.h"
#include "runtime/backends/cpu/GroupNarrowing.h"
#include "runtime/backends/cpu/SpinWait.h"
#include "runtime/backends/cpu/ThreadPool.h"
#include "runtime/scheduler/Submission.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <string>
#include <thread>

namespace cajeta::xpu::rt {

static_assert(sizeof(MarshalledArg) == sizeof(CajetaCpuArg));
static_assert(offsetof(MarshalledArg, Length) == offsetof(CajetaCpuArg, Length));

namespace {

constexpr size_t PodAlignment = 64; // the most a POD may need (ManifestJson checks)

/// A point in a CpuQueue: done once the worker has completed Seq commands.
class CpuEvent : public BackendEvent {
public:
  CpuEvent(std::shared_ptr<CpuQueue::Progress> P, uint64_t Seq) : P(std::move(P)), Seq(Seq) {}
  void synchronize() override { P->waitFor(Seq); }
  bool done() override { return P->reached(Seq); }

private:
  std::shared_ptr<CpuQueue::Progress> P;
  uint64_t Seq;
};

struct LaunchContext {
  CajetaCpuKernelFn Fn;
  const CajetaCpuArg* Args;
  CajetaCpuLaunch* Launch;
};

void runGroups(void* Ctx, uint64_t Begin, uint64_t End) {
  auto* C = static_cast<LaunchContext*>(Ctx);
  if (__atomic_load_n(&C->Launch->Failed, __ATOMIC_RELAXED))
    return; // a kernel already reported a failure: stop running further workgroups
  C->Fn(C->Args, C->Launch, Begin, End);
}

/// `CAJETA_CPU_NARROW_GROUPS=0` runs every launch in its own workgroups (for A/B runs).
bool narrowingWanted() {
  static const bool Wanted = [] {
    const char* V = std::getenv("CAJETA_CPU_NARROW_GROUPS");
    return !(V && std::string(V) == "0");
  }();
  return Wanted;
}

/// Runs every workgroup of a launch over the pool; the failure a kernel reported, if any.
KernelFailure runKernel(ThreadPool& Pool, const void* Kernel, const MarshalledArg* Args,
                        const LaunchGeometry& Geometry) {
  CajetaCpuLaunch Launch{};
  Launch.DynamicSharedBytes = Geometry.DynamicSharedBytes;
  for (int D = 0; D != 3; ++D) {
    Launch.GridDim[D] = Geometry.Grid[D];
    Launch.BlockDim[D] = Geometry.Block[D];
  }
  if (Geometry.GroupShapeFree && narrowingWanted())
    narrowGroupsInX(Launch.BlockDim[0], Launch.GridDim[0],
                    uint64_t(Launch.GridDim[1]) * Launch.GridDim[2], Pool.participants(),
                    Geometry.GroupLoops);
  LaunchContext Ctx{reinterpret_cast<CajetaCpuKernelFn>(const_cast<void*>(Kernel)),
                    reinterpret_cast<const CajetaCpuArg*>(Args), &Launch};
  uint64_t Groups = uint64_t(Launch.GridDim[0]) * Launch.GridDim[1] * Launch.GridDim[2];
  Pool.parallelFor(Groups, runGroups, &Ctx);
  KernelFailure Failure;
  if (Launch.Failed) {
    Failure.Failed = true;
    Failure.Param = Launch.FailedParam;
    Failure.Index = Launch.FailedIndex;
    Failure.Length = Launch.FailedLength;
  }
  return Failure;
}

/// Waits until the window opens (the worker holds the commands after it, in order); a failure
/// with DeadlineMissed when it has closed, so the kernel is not run.
KernelFailure missedWindow(const DispatchWindow& Window) {
  uint64_t Now = monotonicNowNs();
  if (Now < Window.EarliestNs) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(Window.EarliestNs - Now));
    Now = monotonicNowNs();
  }
  KernelFailure Failure;
  if (Window.LatestNs && Now > Window.LatestNs) {
    Failure.Failed = true;
    Failure.DeadlineMissed = true;
    Failure.MissedByNs = Now - Window.LatestNs;
  }
  return Failure;
}

} // namespace

void CpuQueue::Progress::waitFor(uint64_t Seq) {
  if (spinUntil([&] { return reached(Seq); }))
    return;
  std::unique_lock<std::mutex> Lock(Mutex);
  while (Completed.load(std::memory_order_relaxed) < Seq) {
    LowestWaited = std::min(LowestWaited, Seq); // again after each wake-up: complete() reset it
    Cv.wait(Lock);
  }
}

void CpuQueue::Progress::complete() {
  bool Wake = false;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    uint64_t Now = Completed.load(std::memory_order_relaxed) + 1;
    Completed.store(Now, std::memory_order_release);
    if (Now >= LowestWaited) {
      LowestWaited = UINT64_MAX;
      Wake = true;
    }
  }
  if (Wake)
    Cv.notify_all();
}

CpuQueue::CpuQueue(ThreadPool& Pool, CpuReservation& Reservation, const std::string& DeviceName)
    : Pool(Pool), Reservation(Reservation), DeviceName(DeviceName),
      Worker(ThreadPool::startThread(workerMain, this)) {}

void* CpuQueue::workerMain(void* Queue) {
  static_cast<CpuQueue*>(Queue)->run();
  return nullptr;
}

ThreadPool& CpuQueue::poolFor(const LaunchGeometry& Geometry) {
  if (Geometry.Partition != LaunchGeometry::Part::Reserved)
    return Pool;
  ThreadPool* Reserved =
      Reservation.forLatency(uint64_t(Geometry.Grid[0]) * Geometry.Grid[1] * Geometry.Grid[2]);
  return Reserved ? *Reserved : Pool;
}

CpuQueue::~CpuQueue() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping = true;
  }
  WorkCv.notify_all();
  if (Abandoned)
    pthread_detach(Worker); // it may be inside a kernel that never ends
  else
    pthread_join(Worker, nullptr);
}

void CpuQueue::abandon() {
  Abandoned = true;
  Pool.abandon();
  Reservation.abandon();
}

void CpuQueue::push(Work&& W) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Pending.push_back(std::move(W));
    PendingCount.store(Pending.size(), std::memory_order_release);
  }
  ++Enqueued;
  WorkCv.notify_one();
}

void CpuQueue::launch(const void* Kernel, const bundle::KernelInfo& Info, const MarshalledArg* Args,
                      const LaunchGeometry& Geometry, const void* Tag) {
  push(makeLaunch(Kernel, Info, Args, Geometry, Tag));
}

void CpuQueue::launchWithin(const void* Kernel, const bundle::KernelInfo& Info,
                            const MarshalledArg* Args, const LaunchGeometry& Geometry,
                            const void* Tag, const DispatchWindow& Window) {
  Work W = makeLaunch(Kernel, Info, Args, Geometry, Tag);
  W.Window = Window;
  push(std::move(W));
}

bool CpuQueue::timeLaunches() {
  Timing = true;
  return true;
}

void CpuQueue::takeDeviceSpans(std::vector<DeviceSpan>& Out) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Out.insert(Out.end(), Spans.begin(), Spans.end());
  Spans.clear();
}

void CpuQueue::launchChain(uint64_t, std::vector<ChainLaunch>& Launches) {
  Work W;
  W.What = Work::Kind::Chain;
  W.Chain.swap(Launches); // they own their arguments and POD bytes already
  push(std::move(W));
}

void CpuQueue::launchChainWithin(uint64_t, std::vector<ChainLaunch>& Launches,
                                 const DispatchWindow& Window) {
  Work W;
  W.What = Work::Kind::Chain;
  W.Chain.swap(Launches);
  W.Window = Window;
  push(std::move(W));
}

CpuQueue::Work CpuQueue::makeLaunch(const void* Kernel, const bundle::KernelInfo& Info,
                                    const MarshalledArg* Args, const LaunchGeometry& Geometry,
                                    const void* Tag) {
  Work W;
  W.What = Work::Kind::Launch;
  W.Kernel = Kernel;
  W.Args.assign(Args, Args + Info.Params.size());
  W.Geometry = Geometry;
  W.Tag = Tag;
  // POD bytes live in the caller's storage: copy them, each at an aligned offset.
  size_t PodBytes = 0;
  for (size_t I = 0; I != Info.Params.size(); ++I)
    if (Info.Params[I].Kind == bundle::ParamKind::Pod)
      PodBytes += (Args[I].Length + PodAlignment - 1) / PodAlignment * PodAlignment;
  if (PodBytes) {
    W.Pods.reset(static_cast<uint8_t*>(std::aligned_alloc(PodAlignment, PodBytes)));
    if (!W.Pods)
      fail(CAJETA_XPU_ERROR,
           fmt::format("cpu device '{}': no memory for a launch's POD arguments", DeviceName));
    uint8_t* At = W.Pods.get();
    for (size_t I = 0; I != Info.Params.size(); ++I) {
      if (Info.Params[I].Kind != bundle::ParamKind::Pod)
        continue;
      std::memcpy(At, Args[I].Ptr, Args[I].Length);
      W.Args[I].Ptr = At;
      At += (Args[I].Length + PodAlignment - 1) / PodAlignment * PodAlignment;
    }
  }
  return W;
}

void CpuQueue::copyToDevice(void* Dst, const void* Src, size_t Bytes, bool Staged) {
  Work W;
  W.Dst = Dst;
  W.Src = Src;
  W.Bytes = Bytes;
  if (Staged) { // the caller may reuse Src at once
    W.Staging.assign(static_cast<const uint8_t*>(Src), static_cast<const uint8_t*>(Src) + Bytes);
    W.Src = W.Staging.data();
  }
  push(std::move(W));
}

void CpuQueue::copyFromDevice(void* Dst, const void* Src, size_t Bytes, bool) {
  copyWithinDevice(Dst, Src, Bytes); // host memory either way: filled when the queue gets there
}

void CpuQueue::copyWithinDevice(void* Dst, const void* Src, size_t Bytes) {
  Work W;
  W.Dst = Dst;
  W.Src = Src;
  W.Bytes = Bytes;
  push(std::move(W));
}

std::shared_ptr<BackendEvent> CpuQueue::record() {
  return std::make_shared<CpuEvent>(Done, Enqueued);
}

void CpuQueue::wait(BackendEvent& E) {
  Work W;
  W.What = Work::Kind::Wait;
  W.WaitFor = E.shared_from_this();
  push(std::move(W));
}

void CpuQueue::synchronize(std::vector<QueuedFailure>& Out) {
  Done->waitFor(Enqueued);
  std::optional<std::pair<cajeta_xpu_status, std::string>> Error;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Out.insert(Out.end(), Failures.begin(), Failures.end());
    Failures.clear();
    Error.swap(FirstError);
  }
  if (Error)
    fail(Error->first, Error->second);
}

void CpuQueue::run() {
  for (;;) {
    Work W;
    spinUntil([&] { return PendingCount.load(std::memory_order_acquire) != 0; });
    {
      std::unique_lock<std::mutex> Lock(Mutex);
      WorkCv.wait(Lock, [&] { return Stopping || !Pending.empty(); });
      if (Pending.empty())
        return;
      W = std::move(Pending.front());
      Pending.pop_front();
      PendingCount.store(Pending.size(), std::memory_order_release);
    }
    try {
      execute(W);
    } catch (const RuntimeError& E) {
      std::lock_guard<std::mutex> Lock(Mutex);
      if (!FirstError)
        FirstError.emplace(E.status(), E.what());
    } catch (const std::exception& E) {
      std::lock_guard<std::mutex> Lock(Mutex);
      if (!FirstError)
        FirstError.emplace(CAJETA_XPU_ERROR,
                           fmt::format("cpu device '{}': {}", DeviceName, E.what()));
    }
    W = Work(); // release what the command held before reporting it done
    Done->complete();
  }
}

void CpuQueue::execute(Work& W) {
  bool Timed = Timing.load(std::memory_order_relaxed) &&
               (W.What == Work::Kind::Launch || W.What == Work::Kind::Chain);
  uint64_t Start = Timed ? monotonicNowNs() : 0;
  perform(W);
  if (Timed) {
    DeviceSpan Span;
    Span.Tag = W.What == Work::Kind::Launch ? W.Tag : W.Chain.front().Tag;
    Span.Launches = W.What == Work::Kind::Launch ? 1 : uint32_t(W.Chain.size());
    Span.StartNs = Start;
    Span.EndNs = monotonicNowNs();
    std::lock_guard<std::mutex> Lock(Mutex);
    Spans.push_back(Span);
  }
}

void CpuQueue::perform(Work& W) {
  switch (W.What) {
  case Work::Kind::Launch: {
    KernelFailure Failure =
        W.Window.LatestNs || W.Window.EarliestNs ? missedWindow(W.Window) : KernelFailure{};
    if (!Failure.Failed)
      Failure = runKernel(poolFor(W.Geometry), W.Kernel, W.Args.data(), W.Geometry);
    if (Failure.Failed) {
      std::lock_guard<std::mutex> Lock(Mutex);
      Failures.push_back({W.Tag, Failure});
    }
    return;
  }
  case Work::Kind::Chain:
    if (W.Window.LatestNs || W.Window.EarliestNs) {
      KernelFailure Missed = missedWindow(W.Window);
      if (Missed.Failed) { // the whole chain is dropped, reported as its first launch's miss
        Missed.Index = W.Chain.size();
        std::lock_guard<std::mutex> Lock(Mutex);
        Failures.push_back({W.Chain.front().Tag, Missed});
        return;
      }
    }
    for (const ChainLaunch& L : W.Chain) {
      KernelFailure Failure = runKernel(poolFor(L.Geometry), L.Kernel, L.Args.data(), L.Geometry);
      if (Failure.Failed) {
        std::lock_guard<std::mutex> Lock(Mutex);
        Failures.push_back({L.Tag, Failure});
      }
    }
    return;
  case Work::Kind::Copy:
    std::memmove(W.Dst, W.Src, W.Bytes);
    return;
  case Work::Kind::Wait:
    W.WaitFor->synchronize();
    return;
  }
}

} // namespace cajeta::xpu::rt
