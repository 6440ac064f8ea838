// Streams: launches, copies and event operations in order, issued to the device's queue from the
// calling thread.
#include "runtime/Stream.h"

#include "runtime/Buffer.h"
#include "runtime/DeviceAllocation.h"
#include "runtime/Event.h"
#include "runtime/Kernel.h"
#include "runtime/LoadedProgram.h"
#include "runtime/RuntimeError.h"
#include "runtime/scheduler/DispatchGate.h"
#include "runtime/scheduler/Scheduler.h"
#include "runtime/scheduler/Submission.h"
#include "runtime/scheduler/Trace.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <thread>

namespace cajeta::xpu::rt {

std::string Stream::nextName(const char* Suffix) {
  static std::atomic<unsigned> Counter{0};
  return fmt::format("stream {}{}", ++Counter, Suffix);
}

Stream::Stream(BackendDevice& Device, std::string Name)
    : Device(Device), Name(std::move(Name)), Queue(Device.createQueue()),
      Clock(std::make_shared<StreamClock>(
          *this, this->Name, fmt::format("{} '{}'", Device.backendName(), Device.name()))) {
  if (Trace::active())
    DeviceTimes = Queue->timeLaunches();
}

namespace {

/// Where the scheduler asked a launch to run, for the trace ("" for the whole device). A backend
/// that cannot confine a launch runs it on the whole device all the same.
std::string placementText(const LaunchGeometry& G) {
  using Part = LaunchGeometry::Part;
  switch (G.Partition) {
  case Part::Whole:
    return "";
  case Part::Reserved:
    return ", on the units reserved for the latency class";
  case Part::Remainder:
    return ", on the units not reserved";
  case Part::Slice:
    return fmt::format(", on a slice of {} units", G.SliceUnits);
  case Part::SliceComplement:
    return fmt::format(", beside a slice of {} units", G.SliceUnits);
  }
  return "";
}

/// What abandoned streams leave running: never freed, never waited for.
struct AbandonedWork {
  std::unique_ptr<BackendQueue> Queue;
  std::vector<std::shared_ptr<const LoadedProgram>> Programs;
  std::vector<std::shared_ptr<DeviceAllocation>> Memory;
};

void keepForever(std::unique_ptr<BackendQueue> Queue,
                 std::vector<std::shared_ptr<const LoadedProgram>> Programs,
                 std::vector<std::shared_ptr<DeviceAllocation>> Memory) {
  static std::mutex Mutex;
  static auto* Kept = new std::vector<AbandonedWork>(); // never destroyed, as the runtime
  std::lock_guard<std::mutex> Lock(Mutex);
  Kept->push_back({std::move(Queue), std::move(Programs), std::move(Memory)});
}

} // namespace

Stream::~Stream() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (!Abandoned.empty()) {
      // Its work may never end: the queue, the code and the memory it runs on stay for the rest
      // of the process, held where they remain reachable (a leak checker sees them kept).
      keepForever(std::move(Queue), std::move(InFlightPrograms), std::move(InFlightMemory));
      Clock->detach();
      return;
    }
    drainLocked(); // errors not synced are dropped
    LastEvent.reset();
    Queue.reset();
  }
  Clock->detach(); // waits for a stream asking for an event meanwhile
  endBorrows();
}

std::vector<std::shared_ptr<BackendEvent>>
Stream::eventsToFollow(const BufferUse* Uses, size_t Count, std::vector<StreamPosition>* Waited) {
  std::vector<std::shared_ptr<BackendEvent>> Events;
  if (Scheduler::bypassed())
    return Events;
  std::vector<StreamPosition> After;
  for (size_t I = 0; I != Count; ++I)
    Uses[I].Buf->conflictsWith(Clock.get(), Uses[I].Writes, After);
  if (After.empty())
    return Events;
  // One event per other stream, at its latest position that matters.
  std::sort(After.begin(), After.end(), [](const StreamPosition& A, const StreamPosition& B) {
    return A.Clock != B.Clock ? A.Clock < B.Clock : A.Seq > B.Seq;
  });
  for (size_t I = 0; I != After.size(); ++I) {
    if (I && After[I].Clock == After[I - 1].Clock)
      continue;
    if (std::shared_ptr<BackendEvent> E = After[I].Clock->eventAfter(After[I].Seq)) {
      Events.push_back(std::move(E));
      if (Waited)
        Waited->push_back(After[I]);
    }
  }
  return Events;
}

void Stream::noteAccesses(const BufferUse* Uses, size_t Count, uint64_t TraceTs) {
  if (Scheduler::bypassed())
    return;
  for (size_t I = 0; I != Count; ++I)
    Uses[I].Buf->noteAccess({Clock, Enqueued, TraceTs}, Uses[I].Writes);
}

void Stream::traceCommand(Trace& T, uint64_t TraceStart, const char* Kind,
                          const std::string& CommandName, const std::string& Geometry,
                          const std::vector<StreamPosition>& Waited, const Submission* Sub) {
  Trace::Command C;
  C.Device = Clock->deviceName();
  C.Stream = Name;
  C.Name = CommandName;
  C.Kind = Kind;
  C.Start = TraceStart;
  C.End = T.now();
  C.Seq = Enqueued;
  C.Geometry = Geometry;
  if (Sub) {
    C.Policy = policyName(Sub->Policy);
    if (Sub->hasWindow()) {
      uint64_t Now = monotonicNowNs();
      auto Ms = [&](uint64_t At) { return (double(At) - double(Now)) / 1e6; };
      C.Window = fmt::format("[{}, {}] ms from its issue",
                             Sub->EarliestNs ? fmt::format("{:.3f}", Ms(Sub->EarliestNs)) : "-",
                             Sub->LatestNs ? fmt::format("{:.3f}", Ms(Sub->LatestNs)) : "-");
    }
  }
  T.command(C);
  for (const StreamPosition& W : Waited)
    T.edge(W.Clock->deviceName(), W.Clock->streamName(), W.TraceTs, C.Device, Name, TraceStart);
}

std::shared_ptr<BackendEvent> Stream::eventAfter(uint64_t Seq) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Completed >= Seq || !Queue)
    return nullptr;
  if (!LastEvent || LastEventSeq < Seq) {
    closeChainLocked();
    LastEvent = Queue->record();
    LastEventSeq = Enqueued;
  }
  return LastEvent;
}

uint64_t Stream::enqueue(Command&& C) {
  bool Copy = C.What == Command::Kind::Write || C.What == Command::Kind::Read;
  BufferUse Use{C.Buf.get(), C.What == Command::Kind::Write};
  Trace* T = Copy ? Trace::active() : nullptr;
  uint64_t TraceStart = T ? T->now() : 0;
  std::vector<StreamPosition> Waited;
  std::vector<std::shared_ptr<BackendEvent>> Waits;
  if (Copy)
    Waits = eventsToFollow(&Use, 1, T ? &Waited : nullptr);
  std::lock_guard<std::mutex> Lock(Mutex);
  checkNotAbandonedLocked();
  closeChainLocked();
  for (const std::shared_ptr<BackendEvent>& E : Waits)
    Queue->wait(*E);
  issue(C);
  ++Enqueued;
  if (Copy)
    noteAccesses(&Use, 1, TraceStart);
  if (T)
    traceCommand(*T, TraceStart, "copy", Use.Writes ? "upload" : "download", "", Waited);
  return Enqueued;
}

void Stream::copyWithinAndWait(const std::shared_ptr<DeviceAllocation>& Dst,
                               const std::shared_ptr<DeviceAllocation>& Src, size_t Bytes) {
  std::lock_guard<std::mutex> Lock(Mutex);
  checkNotAbandonedLocked();
  closeChainLocked();
  Queue->copyWithinDevice(Dst->data(), Src->data(), Bytes);
  keepAlive(Src);
  keepAlive(Dst);
  ++Enqueued;
  watchdogLocked();
  drainLocked();
}

void Stream::keepAlive(std::shared_ptr<DeviceAllocation> Memory) {
  // A launch loop passes the same few buffers again and again: keep each once.
  size_t Seen = std::min<size_t>(InFlightMemory.size(), 8);
  for (size_t I = InFlightMemory.size() - Seen; I != InFlightMemory.size(); ++I)
    if (InFlightMemory[I] == Memory)
      return;
  InFlightMemory.push_back(std::move(Memory));
}

void Stream::launch(const Kernel& K, const LoadedProgram& Program, MarshalledArg* Args,
                    const std::shared_ptr<Buffer>* Buffers, size_t Count,
                    const LaunchGeometry& Geometry, const Submission& Sub) {
  // The buffers the kernel reads or writes, by its manifest's access modes.
  constexpr size_t InlineUses = 12;
  std::array<BufferUse, InlineUses> SmallUses;
  std::vector<BufferUse> LargeUses;
  BufferUse* Uses = SmallUses.data();
  if (Count > InlineUses) {
    LargeUses.resize(Count);
    Uses = LargeUses.data();
  }
  size_t UseCount = 0;
  for (size_t I = 0; I != Count; ++I) {
    bundle::Access Mode = K.info().Params[I].Mode;
    if (Buffers[I] && Mode != bundle::Access::None)
      Uses[UseCount++] = {Buffers[I].get(), Mode != bundle::Access::Read};
  }
  Trace* T = Trace::active();
  uint64_t TraceStart = T ? T->now() : 0;
  std::vector<StreamPosition> Waited;
  std::vector<std::shared_ptr<BackendEvent>> Waits =
      eventsToFollow(Uses, UseCount, T ? &Waited : nullptr);
  std::lock_guard<std::mutex> Lock(Mutex);
  checkNotAbandonedLocked();
  bool Windowed = Sub.hasWindow();
  // A chain's window is checked once, when the chain is dispatched (closeChainLocked): all of
  // it runs, or none.
  bool Chained = Sub.CaptureId && Queue->recordsChains();
  if (!Chained || Sub.CaptureId != ChainId)
    closeChainLocked();
  if (Windowed && !Chained && !Queue->dispatchesWindows()) {
    // Issuing is starting only on an idle queue: wait for what it follows, inside the window.
    DispatchGate Gate({Sub.EarliestNs, Sub.LatestNs}, K.name());
    if (Enqueued > Completed)
      Waits.push_back(Queue->record());
    Gate.waitFor(Waits);
    Gate.waitForOpening();
    Waits.clear();
  }
  for (const std::shared_ptr<BackendEvent>& E : Waits)
    Queue->wait(*E);
  for (size_t I = 0; I != Count; ++I) {
    if (!Buffers[I])
      continue;
    Buffer::View V = Buffers[I]->view();
    Args[I].Ptr = V.Memory->data();
    Args[I].Length = V.Count;
    if (Chained && std::find(ChainAllocations.begin(), ChainAllocations.end(), V.Memory) ==
                       ChainAllocations.end())
      ChainAllocations.push_back(V.Memory);
    keepAlive(std::move(V.Memory));
    if (Buffers[I]->borrow(*this, K.name()))
      Borrowed.push_back(Buffers[I]);
  }
  if (&Program != LastProgram) {
    InFlightPrograms.push_back(Program.shared_from_this());
    LastProgram = &Program;
  }
  LastKernel = &K;
  LaunchGeometry Run = Geometry; // the entry may widen or narrow the grid (Kernel::entryFor)
  if (Chained)
    chainLaunchLocked(K, Args, Geometry, Sub);
  else if (Windowed && Queue->dispatchesWindows()) {
    const void* Entry = K.entryFor(Args, Run);
    Queue->launchWithin(Entry, K.info(), Args, Run, &K, {Sub.EarliestNs, Sub.LatestNs});
  } else {
    const void* Entry = K.entryFor(Args, Run);
    Queue->launch(Entry, K.info(), Args, Run, &K);
  }
  ++Enqueued;
  noteAccesses(Uses, UseCount, TraceStart);
  if (T)
    traceCommand(*T, TraceStart, "launch", K.name(),
                 fmt::format("grid [{},{},{}] block [{},{},{}]{}", Run.Grid[0], Run.Grid[1],
                             Run.Grid[2], Run.Block[0], Run.Block[1], Run.Block[2],
                             placementText(Run)),
                 Waited, &Sub);
}

void Stream::chainLaunchLocked(const Kernel& K, const MarshalledArg* Args,
                               const LaunchGeometry& Geometry, const Submission& Sub) {
  const bundle::KernelInfo& Info = K.info();
  ChainLaunch L;
  L.Geometry = Geometry;
  L.Kernel = K.entryFor(Args, L.Geometry); // which may widen its grid
  L.Info = &Info;
  L.Args.assign(Args, Args + Info.Params.size());
  L.Tag = &K;
  // POD bytes, each at an offset aligned as a launch's POD storage is (the caller's storage is
  // gone by the time the chain is issued).
  constexpr size_t PodAlignment = 64;
  auto Padded = [](size_t Bytes) {
    return (Bytes + PodAlignment - 1) / PodAlignment * PodAlignment;
  };
  size_t PodBytes = 0;
  for (size_t I = 0; I != Info.Params.size(); ++I)
    if (Info.Params[I].Kind == bundle::ParamKind::Pod)
      PodBytes += Padded(Args[I].Length);
  if (PodBytes) {
    L.Pods.resize(PodBytes + PodAlignment);
    auto Base = reinterpret_cast<uintptr_t>(L.Pods.data());
    uint8_t* At = L.Pods.data() + (PodAlignment - Base % PodAlignment) % PodAlignment;
    for (size_t I = 0; I != Info.Params.size(); ++I) {
      if (Info.Params[I].Kind != bundle::ParamKind::Pod)
        continue;
      std::memcpy(At, Args[I].Ptr, Args[I].Length);
      L.Args[I].Ptr = At;
      At += Padded(Args[I].Length);
    }
  }
  if (Chain.empty())
    ChainWindow = {Sub.EarliestNs, Sub.LatestNs};
  ChainId = Sub.CaptureId;
  Chain.push_back(std::move(L));
  std::shared_ptr<const LoadedProgram> P = K.program().shared_from_this();
  if (std::find(ChainPrograms.begin(), ChainPrograms.end(), P) == ChainPrograms.end())
    ChainPrograms.push_back(std::move(P));
}

void Stream::closeChainLocked() {
  if (Chain.empty())
    return;
  std::vector<ChainLaunch> Launches;
  Launches.swap(Chain);
  uint64_t Id = ChainId;
  DispatchWindow Window = ChainWindow;
  ChainId = 0;
  ChainWindow = {};
  // The previous chain's allocations under this identity are released only after the queue has
  // replaced a recording that binds them (InFlightMemory keeps them until the device is done).
  std::vector<std::shared_ptr<DeviceAllocation>> Allocations;
  Allocations.swap(ChainAllocations);
  if (Window.EarliestNs || Window.LatestNs) {
    if (Queue->dispatchesWindows()) {
      Queue->launchChainWithin(Id, Launches, Window);
      return; // the CPU queue binds nothing: its allocations need no keeping
    }
    // Issuing is starting only on an idle queue (as for a single windowed launch). A miss drops
    // the whole chain and is reported at sync: this may run inside another command's call.
    try {
      DispatchGate Gate(Window, Launches.front().Info->Name);
      Gate.waitFor({Queue->record()});
      Gate.waitForOpening();
    } catch (const RuntimeError& E) {
      if (E.status() != CAJETA_XPU_DEADLINE_MISSED)
        throw;
      recordErrorLocked(E.status(), fmt::format("{} (the first of a chain of {} launches, "
                                                "capture {}: none was run)",
                                                E.what(), Launches.size(), Id));
      return;
    }
  }
  std::vector<std::shared_ptr<DeviceAllocation>>& Kept = ChainMemory[Id];
  try {
    Queue->launchChain(Id, Launches);
  } catch (...) {
    // Which recording the queue kept is unknown: keep both chains' allocations.
    Kept.insert(Kept.end(), Allocations.begin(), Allocations.end());
    throw;
  }
  Kept.swap(Allocations);
}

void Stream::issue(Command& C) {
  switch (C.What) {
  case Command::Kind::Marker:
    return;
  case Command::Kind::Write:
  case Command::Kind::Read: {
    Buffer::View V = C.Buf->view();
    if (C.Count > V.Count)
      fail(CAJETA_XPU_ERROR, fmt::format("{}: a copy of {} elements no longer fits the buffer, "
                                         "resized to {} elements",
                                         Name, C.Count, V.Count));
    size_t Bytes = C.Count * bundle::scalarTypeSize(C.Buf->type());
    if (C.What == Command::Kind::Write)
      Queue->copyToDevice(V.Memory->data(), C.Src, Bytes, C.Staged);
    else
      Queue->copyFromDevice(C.Dst, V.Memory->data(), Bytes, C.Staged);
    keepAlive(std::move(V.Memory));
    return;
  }
  case Command::Kind::Signal:
    C.Ev->attach(Queue->record());
    return;
  case Command::Kind::Wait:
    if (BackendEvent* Native = C.Ev->native()) {
      Queue->wait(*Native);
      return;
    }
    C.Ev->wait(); // an event never recorded: nothing to wait for
    return;
  }
}

void Stream::drainLocked() {
  try {
    closeChainLocked();
  } catch (const RuntimeError& E) {
    recordErrorLocked(E.status(), E.what());
  }
  Failures.clear();
  try {
    Queue->synchronize(Failures);
  } catch (const RuntimeError& E) {
    recordErrorLocked(E.status(), E.what());
  }
  if (DeviceTimes)
    traceDeviceSpansLocked();
  for (const QueuedFailure& F : Failures)
    recordErrorLocked(F.Failure.DeadlineMissed ? CAJETA_XPU_DEADLINE_MISSED
                                               : CAJETA_XPU_LAUNCH_ERROR,
                      static_cast<const Kernel*>(F.Tag)->describeFailure(F.Failure));
  Failures.clear();
  InFlightMemory.clear(); // deferred releases happen here, once the device has passed them
  InFlightPrograms.clear();
  LastProgram = nullptr;
  LastEvent.reset();
  Completed = Enqueued;
}

void Stream::traceDeviceSpansLocked() {
  Trace* T = Trace::active();
  Spans.clear();
  Queue->takeDeviceSpans(Spans);
  for (const DeviceSpan& S : Spans) {
    const std::string& Kernel = static_cast<const rt::Kernel*>(S.Tag)->name();
    T->deviceSlice(Clock->deviceName(), Name,
                   S.Launches == 1 ? Kernel
                                   : fmt::format("chain of {} from {}", S.Launches, Kernel),
                   S.StartNs, S.EndNs);
  }
}

void Stream::waitFor(uint64_t Seq) {
  std::lock_guard<std::mutex> Lock(Mutex);
  checkNotAbandonedLocked();
  if (Completed < Seq) {
    watchdogLocked();
    drainLocked();
  }
}

void Stream::endChain() {
  std::lock_guard<std::mutex> Lock(Mutex);
  closeChainLocked();
}

void Stream::sync() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    checkNotAbandonedLocked();
    watchdogLocked();
    drainLocked();
  }
  endBorrows();
  std::optional<std::pair<cajeta_xpu_status, std::string>> Error;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Error.swap(FirstError);
  }
  if (Error)
    fail(Error->first, Error->second);
}

void Stream::checkNotAbandonedLocked() const {
  if (!Abandoned.empty())
    fail(CAJETA_XPU_LAUNCH_ERROR, Abandoned);
}

void Stream::watchdogLocked() {
  static const uint64_t LimitMs = [] {
    const char* E = std::getenv("CAJETA_XPU_WATCHDOG_MS");
    return E ? std::strtoull(E, nullptr, 10) : 0ull;
  }();
  if (!LimitMs || Enqueued == Completed)
    return;
  std::shared_ptr<BackendEvent> Done;
  try {
    Done = Queue->record();
  } catch (const RuntimeError&) {
    return; // the drain reports it
  }
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(LimitMs);
  auto Pause = std::chrono::microseconds(20);
  while (!Done->done()) {
    if (std::chrono::steady_clock::now() >= Deadline) {
      Abandoned = fmt::format(
          "{}: the work enqueued{} has not finished after {} ms (CAJETA_XPU_WATCHDOG_MS); a "
          "kernel cannot be stopped, so the stream is abandoned: it keeps running and every "
          "later use of the stream fails",
          Name, LastKernel ? " (last launch: '" + LastKernel->name() + "')" : std::string(),
          LimitMs);
      Queue->abandon();
      fail(CAJETA_XPU_LAUNCH_ERROR, Abandoned);
    }
    std::this_thread::sleep_for(Pause);
    Pause = std::min(Pause * 2, std::chrono::microseconds(2000));
  }
}

void Stream::endBorrows() {
  std::vector<std::weak_ptr<Buffer>> Ended;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Ended.swap(Borrowed);
  }
  for (const std::weak_ptr<Buffer>& Weak : Ended)
    if (std::shared_ptr<Buffer> Buf = Weak.lock())
      Buf->endBorrow(*this);
}

void Stream::recordErrorLocked(cajeta_xpu_status Status, std::string Message) {
  if (!FirstError)
    FirstError.emplace(Status, std::move(Message));
}

} // namespace cajeta::xpu::rt
