// Streams: launches, copies and event operations in order, issued to a device queue from the
// calling thread, or run by a worker thread.
#include "runtime/Stream.h"

#include "runtime/Buffer.h"
#include "runtime/DeviceAllocation.h"
#include "runtime/Event.h"
#include "runtime/Kernel.h"
#include "runtime/LoadedProgram.h"
#include "runtime/RuntimeError.h"

#include <algorithm>
#include <atomic>
#include <fmt/format.h>

namespace cajeta::xpu::rt {

std::string Stream::nextName(const char* Suffix) {
  static std::atomic<unsigned> Counter{0};
  return fmt::format("stream {}{}", ++Counter, Suffix);
}

Stream::Stream(BackendDevice& Device, std::string Name)
    : Device(Device), Name(std::move(Name)), Queue(Device.createQueue()) {
  if (!Queue)
    Worker = std::thread([this] { run(); });
}

Stream::~Stream() {
  if (Queue) {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      drainLocked(); // errors not synced are dropped, as on worker streams
      Queue.reset();
    }
    endBorrows();
    return;
  }
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping = true;
  }
  WorkCv.notify_all();
  Worker.join();
  endBorrows();
}

uint64_t Stream::enqueue(Command&& C) {
  if (Queue) {
    std::lock_guard<std::mutex> Lock(Mutex);
    issue(C);
    return ++Enqueued;
  }
  uint64_t Seq;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Pending.push_back(std::move(C));
    Seq = ++Enqueued;
  }
  WorkCv.notify_one();
  return Seq;
}

void Stream::keepAlive(std::shared_ptr<DeviceAllocation> Memory) {
  // A launch loop passes the same few buffers again and again: keep each once.
  size_t Seen = std::min<size_t>(InFlightMemory.size(), 8);
  for (size_t I = InFlightMemory.size() - Seen; I != InFlightMemory.size(); ++I)
    if (InFlightMemory[I] == Memory)
      return;
  InFlightMemory.push_back(std::move(Memory));
}

void Stream::launchDirect(const Kernel& K, const LoadedProgram& Program, MarshalledArg* Args,
                          const std::shared_ptr<Buffer>* Buffers, size_t Count,
                          const LaunchGeometry& Geometry) {
  std::lock_guard<std::mutex> Lock(Mutex);
  for (size_t I = 0; I != Count; ++I) {
    if (!Buffers[I])
      continue;
    Buffer::View V = Buffers[I]->view();
    Args[I].Ptr = V.Memory->data();
    Args[I].Length = V.Count;
    keepAlive(std::move(V.Memory));
    if (Buffers[I]->borrow(*this, K.name()))
      Borrowed.push_back(Buffers[I]);
  }
  if (&Program != LastProgram) {
    InFlightPrograms.push_back(Program.shared_from_this());
    LastProgram = &Program;
  }
  Queue->launch(K.entryFor(Args, Geometry), K.info(), Args, Geometry, &K);
  ++Enqueued;
}

void Stream::issue(Command& C) {
  switch (C.What) {
  case Command::Kind::Marker:
  case Command::Kind::Launch: // launches take launchDirect
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
    // An event of a worker-thread stream: the device queue cannot wait on it, so the host does
    // (the worker reaches it without help from this stream, so this cannot deadlock).
    C.Ev->wait();
    return;
  }
}

void Stream::drainLocked() {
  Failures.clear();
  try {
    Queue->synchronize(Failures);
  } catch (const RuntimeError& E) {
    recordErrorLocked(E.status(), E.what());
  }
  for (const QueuedFailure& F : Failures)
    recordErrorLocked(CAJETA_XPU_LAUNCH_ERROR,
                      static_cast<const Kernel*>(F.Tag)->describeFailure(F.Failure));
  Failures.clear();
  InFlightMemory.clear(); // deferred releases happen here, once the device has passed them
  InFlightPrograms.clear();
  LastProgram = nullptr;
  Completed = Enqueued;
}

void Stream::waitFor(uint64_t Seq) {
  if (Queue) {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Completed < Seq)
      drainLocked();
    return;
  }
  std::unique_lock<std::mutex> Lock(Mutex);
  DoneCv.wait(Lock, [&] { return Completed >= Seq; });
}

void Stream::sync() {
  uint64_t Target;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Queue)
      drainLocked();
    Target = Enqueued;
  }
  waitFor(Target);
  endBorrows();
  std::optional<std::pair<cajeta_xpu_status, std::string>> Error;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Error.swap(FirstError);
  }
  if (Error)
    fail(Error->first, Error->second);
}

void Stream::noteBorrowed(const std::shared_ptr<Buffer>& Buf) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Borrowed.push_back(Buf);
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

void Stream::recordError(cajeta_xpu_status Status, std::string Message) {
  std::lock_guard<std::mutex> Lock(Mutex);
  recordErrorLocked(Status, std::move(Message));
}

void Stream::recordErrorLocked(cajeta_xpu_status Status, std::string Message) {
  if (!FirstError)
    FirstError.emplace(Status, std::move(Message));
}

void Stream::run() {
  for (;;) {
    Command C;
    {
      std::unique_lock<std::mutex> Lock(Mutex);
      WorkCv.wait(Lock, [&] { return Stopping || !Pending.empty(); });
      if (Pending.empty())
        return;
      C = std::move(Pending.front());
      Pending.pop_front();
    }
    try {
      execute(C);
    } catch (const RuntimeError& E) {
      recordError(E.status(), E.what());
    } catch (const std::exception& E) {
      recordError(CAJETA_XPU_ERROR, fmt::format("{}: {}", Name, E.what()));
    }
    C = Command(); // release buffers and programs before reporting completion
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      ++Completed;
    }
    DoneCv.notify_all();
  }
}

void Stream::execute(Command& C) {
  switch (C.What) {
  case Command::Kind::Marker:
    return;
  case Command::Kind::Launch:
    executeLaunch(C);
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
      Device.copyToDevice(V.Memory->data(), C.Src, Bytes);
    else
      Device.copyFromDevice(C.Dst, V.Memory->data(), Bytes);
    return;
  }
  case Command::Kind::Signal:
    C.Ev->signal();
    return;
  case Command::Kind::Wait:
    C.Ev->wait();
    return;
  }
}

void Stream::executeLaunch(Command& C) {
  MarshalledArg* Args = C.Args.args();
  std::shared_ptr<Buffer>* Buffers = C.Args.buffers();
  for (size_t I = 0, E = C.Args.size(); I != E; ++I) {
    if (!Buffers[I])
      continue;
    // Borrow rules keep other streams from resizing the buffer while this launch holds it.
    Buffer::View V = Buffers[I]->view();
    Args[I].Ptr = V.Memory->data();
    Args[I].Length = V.Count;
  }
  C.Target->bindPods(C.Args);
  KernelFailure Failure;
  Device.launch(C.Target->entryFor(Args, C.Geometry), C.Target->info(), Args, C.Geometry, Failure);
  if (Failure.Failed)
    recordError(CAJETA_XPU_LAUNCH_ERROR, C.Target->describeFailure(Failure));
}

} // namespace cajeta::xpu::rt
