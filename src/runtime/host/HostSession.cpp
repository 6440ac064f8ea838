// The host session's state and its failure reporter.
#include "runtime/host/HostSession.h"

#include "bundle/Manifest.h"
#include "cajeta/xpu/HostExceptions.hpp"
#include "cajeta/xpu/cajeta_host.h"
#include "runtime/Handles.h"
#include "runtime/LastError.h"
#include "runtime/Runtime.h"
#include "runtime/RuntimeError.h"
#include "runtime/Stream.h"

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cajeta::xpu::rt {

HostSession& HostSession::get() {
  // Never destroyed: host code may still run while static destructors do.
  static HostSession* The = new HostSession();
  return *The;
}

void HostSession::begin(const char* FileName, cajeta_xpu_program* P) {
  if (!P)
    throw RuntimeError(CAJETA_XPU_ERROR, "cajeta_host_begin: program must not be null");
  std::lock_guard<std::mutex> Guard(Lock);
  if (Program)
    throw RuntimeError(
        CAJETA_XPU_ERROR,
        fmt::format("cajeta_host_begin: a host session over '{}' is already active", File));
  cajeta_xpu_program_retain(P);
  Program = P;
  File = FileName && *FileName ? FileName : "<unknown>";
}

bool HostSession::end() {
  std::fflush(stdout);
  std::vector<void*> OwnArrays;
  std::vector<cajeta_xpu_buffer*> OwnBuffers;
  std::vector<cajeta_xpu_stream*> OwnStreams;
  std::vector<cajeta_xpu_event*> OwnEvents;
  std::vector<cajeta_xpu_accel*> OwnAccels;
  cajeta_xpu_program* OwnProgram;
  {
    std::lock_guard<std::mutex> Guard(Lock);
    OwnArrays.swap(Arrays);
    OwnBuffers.swap(Buffers);
    OwnStreams.swap(Streams);
    OwnEvents.swap(Events);
    OwnAccels.swap(Accels);
    Kernels.clear();
    OwnProgram = Program;
  }
  // Nothing may be in flight when the buffers and arrays go: sync every stream host code used.
  int FirstStatus = CAJETA_XPU_SUCCESS;
  std::string FirstMessage;
  auto Note = [&](int Status) {
    if (Status != CAJETA_XPU_SUCCESS && FirstStatus == CAJETA_XPU_SUCCESS) {
      FirstStatus = Status;
      FirstMessage = cajeta_xpu_last_error();
    }
  };
  if (OwnProgram) {
    cajeta_xpu_stream* Current = nullptr;
    cajeta_xpu_device* Device = cajeta_xpu_program_device(OwnProgram);
    Note(guarded([&] { Current = toHandle(&Runtime::get().currentStream(*fromHandle(Device))); }));
    if (Current)
      Note(cajeta_xpu_stream_sync(Current));
  }
  for (cajeta_xpu_stream* S : OwnStreams)
    Note(cajeta_xpu_stream_sync(S));
  for (cajeta_xpu_event* E : OwnEvents)
    cajeta_xpu_event_destroy(E);
  for (cajeta_xpu_buffer* B : OwnBuffers)
    cajeta_xpu_buffer_destroy(B);
  for (cajeta_xpu_accel* A : OwnAccels)
    cajeta_xpu_accel_destroy(A);
  for (cajeta_xpu_stream* S : OwnStreams)
    cajeta_xpu_stream_destroy(S);
  for (void* A : OwnArrays)
    std::free(A);
  std::fflush(stdout);
  bool Reported = false;
  if (pending()) {
    report(*Pending());
    Pending().reset();
    Reported = true;
  } else if (FirstStatus != CAJETA_XPU_SUCCESS) {
    report({0, exceptionName(FirstStatus), FirstMessage});
    Reported = true;
  }
  std::lock_guard<std::mutex> Guard(Lock);
  if (OwnProgram)
    cajeta_xpu_program_release(OwnProgram);
  Program = nullptr;
  File = "<unknown>";
  return Reported;
}

void HostSession::exitProcess(int Status) {
  std::fflush(stdout);
  std::fflush(stderr);
  // std::_Exit runs no static destructors (the runtime's worker threads may still be running),
  // so the trace that a destructor would write is written now.
  cajeta_xpu_trace_flush();
  std::_Exit(Status);
}

void HostSession::fail(uint32_t Line, const char* Exception, const std::string& Message) const {
  throw HostException{Line, Exception, Message};
}

void HostSession::report(const HostException& E) const {
  std::fflush(stdout);
  std::string Where = E.Line ? fmt::format("{}:{}", File, E.Line) : File;
  std::fprintf(stderr, "%s: error: %s: %s\n", Where.c_str(), E.Name.c_str(), E.Message.c_str());
  std::fflush(stderr);
}

std::optional<HostException>& HostSession::Pending() {
  thread_local std::optional<HostException> P;
  return P;
}

bool HostSession::pending() {
  return Pending().has_value();
}

void HostSession::setPending(HostException E) {
  if (!Pending()) // the first one wins: compiled code unwinds before raising another
    Pending() = std::move(E);
}

bool HostSession::catchPending(const char* Classes) {
  if (!Pending() || !Classes)
    return false;
  for (const std::string& Class : bundle::splitAttributeList(Classes))
    if (hostExceptionIsA(Pending()->Name.c_str(), Class.c_str())) {
      Caught() = std::move(Pending()->Message);
      Pending().reset();
      return true;
    }
  return false;
}

std::string& HostSession::Caught() {
  thread_local std::string C;
  return C;
}

const std::string& HostSession::caughtMessage() {
  return Caught();
}

void HostSession::failStatus(uint32_t Line, int Status) const {
  fail(Line, exceptionName(Status), cajeta_xpu_last_error());
}

// The exception a C ABI status stands for: the C++ API's typed error of that status
// (include/cajeta/xpu/Errors.hpp), by the spec's name where it has one.
//   CAJETA_XPU_LAUNCH_ERROR             XpuLaunchException (Errors.hpp: LaunchError)
//   CAJETA_XPU_DEADLINE_MISSED          DeadlineMissed (a LaunchError)
//   CAJETA_XPU_COMPILE_ERROR            CompileError
//   CAJETA_XPU_BORROW_ERROR             BorrowError
//   CAJETA_XPU_OUT_OF_DEVICE_MEMORY     OutOfDeviceMemory
//   CAJETA_XPU_BUNDLE_ERROR             BundleError
//   CAJETA_XPU_BACKEND_UNAVAILABLE      BackendUnavailable
//   CAJETA_XPU_NOT_FOUND                NotFound
//   CAJETA_XPU_DEVICE_LOST              DeviceLost
//   CAJETA_XPU_ERROR and anything else  XpuException (Errors.hpp: Error, the base of the others)
// Host code's own failures use Java's names: ArrayIndexOutOfBoundsException,
// NegativeArraySizeException, OutOfMemoryError (a host array), IllegalArgumentException (an
// array and a buffer of different lengths), NullPointerException, IllegalStateException (no
// session).
const char* HostSession::exceptionName(int Status) {
  switch (Status) {
  case CAJETA_XPU_LAUNCH_ERROR:
    return "XpuLaunchException";
  case CAJETA_XPU_DEADLINE_MISSED:
    return "DeadlineMissed";
  case CAJETA_XPU_COMPILE_ERROR:
    return "CompileError";
  case CAJETA_XPU_BORROW_ERROR:
    return "BorrowError";
  case CAJETA_XPU_OUT_OF_DEVICE_MEMORY:
    return "OutOfDeviceMemory";
  case CAJETA_XPU_BUNDLE_ERROR:
    return "BundleError";
  case CAJETA_XPU_BACKEND_UNAVAILABLE:
    return "BackendUnavailable";
  case CAJETA_XPU_NOT_FOUND:
    return "NotFound";
  case CAJETA_XPU_DEVICE_LOST:
    return "DeviceLost";
  default:
    return "XpuException";
  }
}

cajeta_xpu_program* HostSession::program(uint32_t Line) const {
  if (!Program)
    fail(Line, "IllegalStateException", "no host session (cajeta_host_begin was not called)");
  return Program;
}

cajeta_xpu_device* HostSession::device(uint32_t Line) const {
  return cajeta_xpu_program_device(program(Line));
}

cajeta_xpu_stream* HostSession::currentStream(uint32_t Line) const {
  cajeta_xpu_device* Device = device(Line);
  cajeta_xpu_stream* Current = nullptr;
  int Status =
      guarded([&] { Current = toHandle(&Runtime::get().currentStream(*fromHandle(Device))); });
  if (Status != CAJETA_XPU_SUCCESS)
    failStatus(Line, Status);
  return Current;
}

cajeta_xpu_kernel* HostSession::kernel(const char* Name, uint32_t Line) {
  if (!Name)
    fail(Line, "NullPointerException", "the kernel name is null");
  cajeta_xpu_program* P = program(Line);
  {
    std::lock_guard<std::mutex> Guard(Lock);
    if (auto It = Kernels.find(Name); It != Kernels.end())
      return It->second;
  }
  // The manifest names kernels as the compiler's Sema does, Class.method: the name host code
  // passes, looked up as it is.
  cajeta_xpu_kernel* K = nullptr;
  if (int Status = cajeta_xpu_program_kernel(P, Name, &K))
    failStatus(Line, Status);
  std::lock_guard<std::mutex> Guard(Lock);
  Kernels.emplace(Name, K);
  return K;
}

void* HostSession::newArray(int64_t Count, uint32_t ElementSize, uint32_t Line) {
  if (Count < 0)
    fail(Line, "NegativeArraySizeException", std::to_string(Count));
  constexpr size_t Header = CAJETA_HOST_ARRAY_DATA_OFFSET;
  size_t Limit = (SIZE_MAX - Header - 15) / (ElementSize ? ElementSize : 1);
  void* Array = nullptr;
  size_t Bytes = 0;
  if (uint64_t(Count) <= Limit) {
    Bytes = (Header + size_t(Count) * ElementSize + 15) & ~size_t(15);
    Array = std::aligned_alloc(16, Bytes);
  }
  if (!Array)
    fail(Line, "OutOfMemoryError",
         fmt::format("cannot allocate an array of {} elements of {} bytes", Count, ElementSize));
  std::memset(Array, 0, Bytes);
  std::memcpy(Array, &Count, sizeof(Count));
  std::lock_guard<std::mutex> Guard(Lock);
  Arrays.push_back(Array);
  return Array;
}

void HostSession::adopt(cajeta_xpu_buffer* Buffer) {
  std::lock_guard<std::mutex> Guard(Lock);
  Buffers.push_back(Buffer);
}

void HostSession::adopt(cajeta_xpu_stream* Stream) {
  std::lock_guard<std::mutex> Guard(Lock);
  Streams.push_back(Stream);
}

void HostSession::adopt(cajeta_xpu_accel* Accel) {
  std::lock_guard<std::mutex> Guard(Lock);
  Accels.push_back(Accel);
}

void HostSession::adopt(cajeta_xpu_event* Event) {
  std::lock_guard<std::mutex> Guard(Lock);
  Events.push_back(Event);
}

} // namespace cajeta::xpu::rt
