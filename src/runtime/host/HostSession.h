// The state of a host session (cajeta_host.h): the program, the source file name, and what host
// code allocated through it; and the reporter of host code's uncaught exceptions.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace cajeta::xpu::rt {

/// An exception of host code (cajeta/xpu/HostExceptions.hpp names the classes): where it was
/// raised, its class and its message.
struct HostException {
  uint32_t Line = 0;
  std::string Name;
  std::string Message;
};

class HostSession {
public:
  /// The process's one session (idle until begin).
  static HostSession& get();

  /// Starts a session over Program (retained), naming File in failures. Throws RuntimeError
  /// (CAJETA_XPU_ERROR) when Program is null or a session is already active.
  void begin(const char* File, cajeta_xpu_program* Program);
  /// Flushes stdout, syncs the program device's current stream and the streams host code
  /// created, destroys those streams, every event and buffer, frees every array, releases the
  /// program. Then reports an exception still pending (uncaught), or else a failure the syncs
  /// found (work host code never synced, without a line). Returns whether it reported one.
  bool end();

  /// Raises host exception Exception at Line: throws HostException, which the C ABI entry
  /// (HostAbi.cpp) turns into this thread's pending exception; compiled host code then unwinds
  /// to a catch clause that matches it, or to the entry point, where end() reports it.
  [[noreturn]] void fail(uint32_t Line, const char* Exception, const std::string& Message) const;
  /// fail() for a C ABI status, with cajeta_xpu_last_error() as the message.
  [[noreturn]] void failStatus(uint32_t Line, int Status) const;

  /// This thread's pending exception (raised and not yet caught).
  static bool pending();
  static void setPending(HostException E);
  /// Catches the pending exception if it is one of Classes (comma-separated class names, with
  /// their descendants): it becomes the caught one and is no longer pending.
  static bool catchPending(const char* Classes);
  /// The message of the exception caught last (e.getMessage()).
  static const std::string& caughtMessage();
  /// Prints "<file>:<line>: error: <Exception>: <Message>" ("<file>: error: ..." for line 0) on
  /// stderr after flushing stdout.
  void report(const HostException& E) const;
  /// The host program's exception name for a C ABI status.
  static const char* exceptionName(int Status);
  /// Flushes stdout, stderr and the runtime's trace, then ends the process with Status.
  [[noreturn]] static void exitProcess(int Status);

  bool active() const { return Program != nullptr; }
  /// The session's program and its device; fail() (IllegalStateException) without a session.
  cajeta_xpu_program* program(uint32_t Line) const;
  cajeta_xpu_device* device(uint32_t Line) const;
  /// This thread's current stream on the program's device.
  cajeta_xpu_stream* currentStream(uint32_t Line) const;
  /// The kernel of that qualified name ("K.saxpy"), looked up once; fail() when unknown.
  cajeta_xpu_kernel* kernel(const char* Name, uint32_t Line);

  /// A zeroed array of Count elements behind its 16-byte header; fail() for a negative Count
  /// (NegativeArraySizeException) or when it cannot be allocated (OutOfMemoryError).
  void* newArray(int64_t Count, uint32_t ElementSize, uint32_t Line);
  /// Objects host code created, destroyed at end().
  void adopt(cajeta_xpu_buffer* Buffer);
  void adopt(cajeta_xpu_stream* Stream);
  void adopt(cajeta_xpu_event* Event);
  void adopt(cajeta_xpu_accel* Accel);

private:
  HostSession() = default;
  static std::optional<HostException>& Pending();
  static std::string& Caught();

  mutable std::mutex Lock; // the containers; File and Program change only in begin and end
  std::string File = "<unknown>";
  cajeta_xpu_program* Program = nullptr;
  std::vector<void*> Arrays;
  std::vector<cajeta_xpu_buffer*> Buffers;
  std::vector<cajeta_xpu_stream*> Streams;
  std::vector<cajeta_xpu_event*> Events;
  std::vector<cajeta_xpu_accel*> Accels;
  std::unordered_map<std::string, cajeta_xpu_kernel*> Kernels;
};

} // namespace cajeta::xpu::rt
