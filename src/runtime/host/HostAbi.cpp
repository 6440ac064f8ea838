// The host-code support ABI (cajeta_host.h) over the runtime's C ABI and the host session.
#include "cajeta/xpu/cajeta_host.h"

#include "runtime/LastError.h"
#include "runtime/host/HostSession.h"
#include "runtime/host/JavaFormatter.h"
#include "runtime/host/JavaNumberFormat.h"

#include <fmt/format.h>

#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

using namespace cajeta::xpu::rt;
using cajeta::xpu::FormatSpec;

namespace {

HostSession& session() {
  return HostSession::get();
}

/// Runs the body of a C ABI entry: an exception it raises becomes this thread's pending one
/// (compiled host code checks cajeta_host_pending after the call and unwinds), and the entry
/// returns Default.
template <class Body, class R = std::invoke_result_t<Body>> R hostEntry(uint32_t Line, Body B) {
  try {
    return B();
  } catch (const HostException& E) {
    HostSession::setPending(E);
  } catch (const std::exception& E) {
    HostSession::setPending({Line, "XpuException", E.what()});
  }
  if constexpr (!std::is_void_v<R>)
    return R{};
}

int64_t arrayLength(const void* Array) {
  int64_t Length;
  std::memcpy(&Length, Array, sizeof(Length));
  return Length;
}

/// Host code's null references, reported as Java reports them.
template <class T> void requireObject(T* Object, const char* What, uint32_t Line) {
  if (!Object)
    session().fail(Line, "NullPointerException", fmt::format("the {} is null", What));
}

void check(int Status, uint32_t Line) {
  if (Status != CAJETA_XPU_SUCCESS)
    session().failStatus(Line, Status);
}

/// The array and the buffer of an upload or download: the buffer's element count, which the
/// array's length must equal.
size_t checkTransfer(cajeta_xpu_buffer* Buffer, const void* Array, bool Upload, uint32_t Line) {
  requireObject(Buffer, "buffer", Line);
  requireObject(Array, "array", Line);
  int64_t Length = arrayLength(Array);
  size_t Count = cajeta_xpu_buffer_count(Buffer);
  if (Length < 0 || uint64_t(Length) != Count)
    session().fail(Line, "IllegalArgumentException",
                   Upload
                       ? fmt::format("upload of an array of length {} into a buffer of length {}",
                                     Length, Count)
                       : fmt::format("download of a buffer of length {} into an array of length {}",
                                     Count, Length));
  return Count;
}

/// main's arguments (cajeta_host_set_args).
std::vector<std::string>& programArgs() {
  static std::vector<std::string> Args;
  return Args;
}

[[noreturn]] void numberFormat(const char* Text, uint32_t Line) {
  session().fail(Line, "NumberFormatException",
                 Text ? fmt::format("For input string: \"{}\"", Text) : "Cannot parse null string");
}

/// Integer.parseInt / Long.parseLong: an optional sign, then decimal digits, nothing else.
int64_t parseInteger(const char* Text, int64_t Min, int64_t Max, uint32_t Line) {
  if (!Text || !*Text)
    numberFormat(Text, Line);
  const char* P = Text;
  bool Negative = *P == '-';
  if (*P == '-' || *P == '+')
    ++P;
  if (!*P)
    numberFormat(Text, Line);
  __int128 V = 0;
  for (; *P; ++P) {
    if (*P < '0' || *P > '9')
      numberFormat(Text, Line);
    V = V * 10 + (*P - '0');
    if (V > (__int128)Max + 1)
      numberFormat(Text, Line);
  }
  V = Negative ? -V : V;
  if (V < Min || V > Max)
    numberFormat(Text, Line);
  return int64_t(V);
}

/// Float.parseFloat / Double.parseDouble: Java trims whitespace and takes decimal or hex
/// notation, NaN and Infinity, and an f/F/d/D suffix.
double parseFloating(const char* Text, bool Single, uint32_t Line) {
  if (!Text)
    numberFormat(Text, Line);
  std::string S = Text;
  size_t B = S.find_first_not_of(" \t\n\r\f\v"), E = S.find_last_not_of(" \t\n\r\f\v");
  if (B == std::string::npos)
    numberFormat(Text, Line);
  S = S.substr(B, E - B + 1);
  std::string Body = S;
  if (!Body.empty() && std::strchr("fFdD", Body.back()) &&
      Body.find("Infinity") == std::string::npos && Body.find("NaN") == std::string::npos)
    Body.pop_back();
  std::string Unsigned = Body.empty() || (Body[0] != '+' && Body[0] != '-') ? Body : Body.substr(1);
  if (Unsigned == "NaN")
    return std::nan("");
  if (Unsigned == "Infinity")
    return Body[0] == '-' ? -HUGE_VAL : HUGE_VAL;
  // Only digits, a point, an exponent and hex digits: strtod would also take "inf", "nan(...)".
  if (Unsigned.empty() ||
      Unsigned.find_first_not_of("0123456789.eExXpPabcdefABCDEF+-") != std::string::npos)
    numberFormat(Text, Line);
  char* End = nullptr;
  double V = Single ? double(std::strtof(Body.c_str(), &End)) : std::strtod(Body.c_str(), &End);
  if (End != Body.c_str() + Body.size())
    numberFormat(Text, Line);
  return V;
}

void print(const std::string& Text) {
  std::fwrite(Text.data(), 1, Text.size(), stdout);
}

} // namespace

extern "C" {

// ---- Session ----------------------------------------------------------------------------

int cajeta_host_begin(const char* File, cajeta_xpu_program* Program) {
  return guarded([&] { session().begin(File, Program); });
}

int32_t cajeta_host_end(void) {
  return session().end() ? 1 : 0;
}

void cajeta_host_set_args(int32_t Count, const char* const* Args) {
  std::vector<std::string>& A = programArgs();
  A.clear();
  for (int32_t I = 0; I < Count && Args; ++I)
    A.push_back(Args[I] ? Args[I] : "");
}

int32_t cajeta_host_arg_count(void) {
  return int32_t(programArgs().size());
}

const char* cajeta_host_arg(int32_t Index, uint32_t Line) {
  return hostEntry(Line, [&]() -> const char* {
    const std::vector<std::string>& A = programArgs();
    if (Index < 0 || size_t(Index) >= A.size())
      session().fail(Line, "ArrayIndexOutOfBoundsException",
                     fmt::format("Index {} out of bounds for length {}", Index, A.size()));
    return A[size_t(Index)].c_str();
  });
}

int32_t cajeta_host_parse_i32(const char* Text, uint32_t Line) {
  return hostEntry(Line, [&] { return int32_t(parseInteger(Text, INT32_MIN, INT32_MAX, Line)); });
}

int64_t cajeta_host_parse_i64(const char* Text, uint32_t Line) {
  return hostEntry(Line, [&] { return parseInteger(Text, INT64_MIN, INT64_MAX, Line); });
}

float cajeta_host_parse_f32(const char* Text, uint32_t Line) {
  return hostEntry(Line, [&] { return float(parseFloating(Text, true, Line)); });
}

double cajeta_host_parse_f64(const char* Text, uint32_t Line) {
  return hostEntry(Line, [&] { return parseFloating(Text, false, Line); });
}

int32_t cajeta_host_string_length(const char* Text) {
  return Text ? int32_t(std::strlen(Text)) : 0;
}

int32_t cajeta_host_string_equals(const char* A, const char* B) {
  return A && B && std::strcmp(A, B) == 0 ? 1 : 0;
}

int32_t cajeta_host_pending(void) {
  return HostSession::pending() ? 1 : 0;
}

int32_t cajeta_host_catch(const char* Classes) {
  return HostSession::catchPending(Classes) ? 1 : 0;
}

void cajeta_host_print_caught(void) {
  print(HostSession::caughtMessage());
}

void cajeta_host_exit(int32_t Status) {
  HostSession::exitProcess(Status);
}

// ---- Heap arrays ------------------------------------------------------------------------

void* cajeta_host_array_new(int64_t Count, uint32_t ElementSize, uint32_t Line) {
  return hostEntry(Line, [&] { return session().newArray(Count, ElementSize, Line); });
}

void cajeta_host_index_fail(int64_t Index, int64_t Length, uint32_t Line) {
  hostEntry(Line, [&] {
    session().fail(Line, "ArrayIndexOutOfBoundsException",
                   fmt::format("Index {} out of bounds for length {}", Index, Length));
  });
}

// ---- Device buffers ---------------------------------------------------------------------

cajeta_xpu_buffer* cajeta_host_buffer_new(int64_t Count, uint32_t Type, uint32_t Line) {
  return hostEntry(Line, [&] {
    if (Count < 0)
      session().fail(Line, "NegativeArraySizeException", std::to_string(Count));
    cajeta_xpu_buffer* Buffer = nullptr;
    check(cajeta_xpu_buffer_create(session().device(Line), cajeta_xpu_scalar_type(Type),
                                   size_t(Count), &Buffer),
          Line);
    session().adopt(Buffer);
    return Buffer;
  });
}

cajeta_xpu_buffer* cajeta_host_accel_new(const void* Vertices, const void* Indices, uint32_t Line) {
  return hostEntry(Line, [&] {
    requireObject(Vertices, "vertices", Line);
    requireObject(Indices, "indices", Line);
    int64_t VertexFloats = arrayLength(Vertices), IndexCount = arrayLength(Indices);
    if (VertexFloats % 3 || IndexCount % 3)
      session().fail(Line, "IllegalArgumentException",
                     fmt::format("an AccelerationStructure takes x, y, z per vertex and three "
                                 "indices per triangle; got {} floats and {} indices",
                                 VertexFloats, IndexCount));
    const int32_t* Index = reinterpret_cast<const int32_t*>(static_cast<const char*>(Indices) +
                                                            CAJETA_HOST_ARRAY_DATA_OFFSET);
    for (int64_t I = 0; I < IndexCount; ++I)
      if (Index[I] < 0 || Index[I] >= VertexFloats / 3)
        session().fail(Line, "IllegalArgumentException",
                       fmt::format("triangle {}: index {} is out of range ({} vertices)", I / 3,
                                   Index[I], VertexFloats / 3));
    cajeta_xpu_accel_desc Desc{};
    Desc.vertices = reinterpret_cast<const float*>(static_cast<const char*>(Vertices) +
                                                   CAJETA_HOST_ARRAY_DATA_OFFSET);
    Desc.vertex_count = uint64_t(VertexFloats / 3);
    Desc.indices = reinterpret_cast<const uint32_t*>(Index);
    Desc.triangle_count = uint64_t(IndexCount / 3);
    cajeta_xpu_accel* Accel = nullptr;
    check(cajeta_xpu_accel_build(session().device(Line), &Desc, CAJETA_XPU_AS_IMPL_AUTO, &Accel),
          Line);
    session().adopt(Accel);
    return cajeta_xpu_accel_buffer(Accel);
  });
}

void cajeta_host_buffer_upload(cajeta_xpu_buffer* Buffer, const void* Array,
                               cajeta_xpu_stream* Stream, uint32_t Line) {
  hostEntry(Line, [&] {
    size_t Count = checkTransfer(Buffer, Array, true, Line);
    const void* Data = static_cast<const char*>(Array) + CAJETA_HOST_ARRAY_DATA_OFFSET;
    check(Stream ? cajeta_xpu_buffer_write_async(Buffer, Stream, Data, Count)
                 : cajeta_xpu_buffer_write(Buffer, nullptr, Data, Count),
          Line);
  });
}

void cajeta_host_buffer_download(cajeta_xpu_buffer* Buffer, void* Array, cajeta_xpu_stream* Stream,
                                 uint32_t Line) {
  hostEntry(Line, [&] {
    size_t Count = checkTransfer(Buffer, Array, false, Line);
    void* Data = static_cast<char*>(Array) + CAJETA_HOST_ARRAY_DATA_OFFSET;
    check(Stream ? cajeta_xpu_buffer_read_async(Buffer, Stream, Data, Count)
                 : cajeta_xpu_buffer_read(Buffer, nullptr, Data, Count),
          Line);
  });
}

int64_t cajeta_host_buffer_length(const cajeta_xpu_buffer* Buffer) {
  return int64_t(cajeta_xpu_buffer_count(Buffer));
}

// ---- Streams and events -----------------------------------------------------------------

cajeta_xpu_stream* cajeta_host_stream_current(uint32_t Line) {
  return hostEntry(Line, [&] { return session().currentStream(Line); });
}

cajeta_xpu_stream* cajeta_host_stream_new(uint32_t Line) {
  return hostEntry(Line, [&] {
    cajeta_xpu_stream* Stream = nullptr;
    check(cajeta_xpu_stream_create(session().device(Line), &Stream), Line);
    session().adopt(Stream);
    return Stream;
  });
}

void cajeta_host_stream_sync(cajeta_xpu_stream* Stream, uint32_t Line) {
  hostEntry(Line, [&] {
    requireObject(Stream, "stream", Line);
    check(cajeta_xpu_stream_sync(Stream), Line);
  });
}

cajeta_xpu_event* cajeta_host_stream_record(cajeta_xpu_stream* Stream, uint32_t Line) {
  return hostEntry(Line, [&] {
    requireObject(Stream, "stream", Line);
    cajeta_xpu_event* Event = nullptr;
    check(cajeta_xpu_stream_record(Stream, &Event), Line);
    session().adopt(Event);
    return Event;
  });
}

void cajeta_host_stream_wait(cajeta_xpu_stream* Stream, cajeta_xpu_event* Event, uint32_t Line) {
  hostEntry(Line, [&] {
    requireObject(Stream, "stream", Line);
    requireObject(Event, "event", Line);
    check(cajeta_xpu_stream_wait(Stream, Event), Line);
  });
}

void cajeta_host_event_sync(cajeta_xpu_event* Event, uint32_t Line) {
  hostEntry(Line, [&] {
    requireObject(Event, "event", Line);
    check(cajeta_xpu_event_sync(Event), Line);
  });
}

// ---- Launch -----------------------------------------------------------------------------

void cajeta_host_launch(const char* Kernel, cajeta_xpu_stream* Stream, const uint32_t Geometry[6],
                        const cajeta_xpu_arg* Args, uint32_t ArgCount, uint32_t Line) {
  hostEntry(Line, [&] {
    cajeta_xpu_kernel* K = session().kernel(Kernel, Line);
    requireObject(Geometry, "launch geometry", Line);
    cajeta_xpu_stream* On = Stream ? Stream : session().currentStream(Line);
    check(cajeta_xpu_kernel_launch(K, On, Geometry, Geometry + 3, Args, ArgCount), Line);
  });
}

// ---- Queries ----------------------------------------------------------------------------

int32_t cajeta_host_supports(uint32_t Capability) {
  if (Capability >= uint32_t(CAJETA_XPU_CAP_COUNT))
    return 0;
  // Without a session (no program yet): the default device, where a program would load.
  cajeta_xpu_device* Device = nullptr;
  if (session().active())
    Device = session().device(0);
  else if (cajeta_xpu_device_default(&Device) != CAJETA_XPU_SUCCESS)
    return 0;
  return cajeta_xpu_device_supports(Device, cajeta_xpu_capability(Capability)) ? 1 : 0;
}

// ---- Printing ---------------------------------------------------------------------------

void cajeta_host_print_str(const char* Text) {
  std::fputs(Text ? Text : "null", stdout);
}

void cajeta_host_print_i64(int64_t Value) {
  std::printf("%" PRId64, Value);
}

void cajeta_host_print_u64(uint64_t Value) {
  std::printf("%" PRIu64, Value);
}

void cajeta_host_print_f32(float Value) {
  print(JavaNumberFormat::formatFloat(Value));
}

void cajeta_host_print_f64(double Value) {
  print(JavaNumberFormat::formatDouble(Value));
}

void cajeta_host_print_bool(int32_t Value) {
  std::fputs(Value ? "true" : "false", stdout);
}

void cajeta_host_printf(const char* Spec, uint32_t Type, uint64_t Bits) {
  FormatSpec S;
  size_t At = 0;
  std::string Text = Spec ? Spec : "";
  if (!FormatSpec::parse(Text, At, S)) { // the compiler checked it; print it as written
    print(Text);
    return;
  }
  print(JavaFormatter::format(S, cajeta_xpu_scalar_type(Type), Bits));
}

void cajeta_host_print_newline(void) {
  std::fputc('\n', stdout);
}

} // extern "C"
