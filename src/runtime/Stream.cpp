// Streams: a worker thread that runs queued launches, copies and event operations in order.
#include "runtime/Stream.h"

#include "runtime/Buffer.h"
#include "runtime/Event.h"
#include "runtime/Kernel.h"
#include "runtime/RuntimeError.h"

#include <atomic>
#include <fmt/format.h>

namespace cajeta::xpu::rt {

std::string Stream::nextName(const char* Suffix) {
  static std::atomic<unsigned> Counter{0};
  return fmt::format("stream {}{}", ++Counter, Suffix);
}

Stream::Stream(BackendDevice& Device, std::string Name)
    : Device(Device), Name(std::move(Name)), Worker([this] { run(); }) {}

Stream::~Stream() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stopping = true;
  }
  WorkCv.notify_all();
  Worker.join();
  endBorrows();
}

uint64_t Stream::enqueue(Command&& C) {
  uint64_t Seq;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Queue.push_back(std::move(C));
    Seq = ++Enqueued;
  }
  WorkCv.notify_one();
  return Seq;
}

void Stream::waitFor(uint64_t Seq) {
  std::unique_lock<std::mutex> Lock(Mutex);
  DoneCv.wait(Lock, [&] { return Completed >= Seq; });
}

void Stream::sync() {
  uint64_t Target;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
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
  if (!FirstError)
    FirstError.emplace(Status, std::move(Message));
}

void Stream::run() {
  for (;;) {
    Command C;
    {
      std::unique_lock<std::mutex> Lock(Mutex);
      WorkCv.wait(Lock, [&] { return Stopping || !Queue.empty(); });
      if (Queue.empty())
        return;
      C = std::move(Queue.front());
      Queue.pop_front();
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
  Device.launch(C.Target->entry(), C.Target->info(), Args, C.Geometry, Failure);
  if (Failure.Failed)
    recordError(CAJETA_XPU_LAUNCH_ERROR, C.Target->describeFailure(Failure));
}

} // namespace cajeta::xpu::rt
