// An asynchronous in-order queue of commands, run by its own worker thread.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"
#include "runtime/Command.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace cajeta::xpu::rt {

class Stream {
public:
  Stream(BackendDevice& Device, std::string Name);
  /// Drains the queue, ends this stream's borrows and stops the worker; unsynced errors drop.
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  BackendDevice& device() const { return Device; }
  const std::string& name() const { return Name; }

  /// Queues a command; returns its sequence number (for waitFor).
  uint64_t enqueue(Command&& C);
  /// Blocks until the command with sequence number Seq has completed.
  void waitFor(uint64_t Seq);
  /// Waits for all queued work, ends the borrows of its launches, rethrows the first error.
  void sync();
  /// Remembers Buf so that sync() ends its borrow by this stream.
  void noteBorrowed(const std::shared_ptr<Buffer>& Buf);

  /// A stream name for messages, unique in the process: "stream 4".
  static std::string nextName(const char* Suffix = "");

private:
  void run();
  void execute(Command& C);
  void executeLaunch(Command& C);
  void recordError(cajeta_xpu_status Status, std::string Message);
  void endBorrows();

  BackendDevice& Device;
  std::string Name;
  std::mutex Mutex;
  std::condition_variable WorkCv;
  std::condition_variable DoneCv;
  std::deque<Command> Queue;
  uint64_t Enqueued = 0;
  uint64_t Completed = 0;
  bool Stopping = false;
  std::optional<std::pair<cajeta_xpu_status, std::string>> FirstError;
  std::vector<std::weak_ptr<Buffer>> Borrowed;
  std::thread Worker;
};

} // namespace cajeta::xpu::rt
