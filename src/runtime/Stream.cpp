// Streams: launches, copies and event operations in order, issued to the device's queue from the
// calling thread.
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
    : Device(Device), Name(std::move(Name)), Queue(Device.createQueue()) {}

Stream::~Stream() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    drainLocked(); // errors not synced are dropped
    Queue.reset();
  }
  endBorrows();
}

uint64_t Stream::enqueue(Command&& C) {
  std::lock_guard<std::mutex> Lock(Mutex);
  issue(C);
  return ++Enqueued;
}

void Stream::copyWithinAndWait(const std::shared_ptr<DeviceAllocation>& Dst,
                               const std::shared_ptr<DeviceAllocation>& Src, size_t Bytes) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Queue->copyWithinDevice(Dst->data(), Src->data(), Bytes);
  keepAlive(Src);
  keepAlive(Dst);
  ++Enqueued;
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
  std::lock_guard<std::mutex> Lock(Mutex);
  if (Completed < Seq)
    drainLocked();
}

void Stream::sync() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
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
