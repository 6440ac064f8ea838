/* The host-code support ABI: what compiled Cajeta host code (`cajeta run`, host methods of a
   Cajeta program) calls. Host code is compiled by LLVM; every operation on a runtime object
   (buffers, streams, events, kernel launches), every heap array and every print goes through one
   of these functions, built on the runtime's C ABI (cajeta_xpu.h).

   Exceptions: a function given a `line` that fails raises an exception of host code (its class
   is XpuLaunchException, OutOfDeviceMemory, ... as the runtime's typed error says;
   ArrayIndexOutOfBoundsException, NegativeArraySizeException, IllegalArgumentException for
   arrays; cajeta/xpu/HostExceptions.hpp lists them with their parents): the exception becomes
   this thread's pending one and the function returns a zero value. Compiled host code asks
   cajeta_host_pending() after every such call (and after every call of a host method) and
   unwinds to a catch clause that matches (cajeta_host_catch) or returns to its caller; one that
   reaches the entry point is reported by cajeta_host_end as `<file>:<line>: error: <Class>:
   <message>` on stderr, and the program's exit status is 1. */
#ifndef CAJETA_HOST_H
#define CAJETA_HOST_H

#include "cajeta/xpu/cajeta_xpu.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Session. ---------------------------------------------------------------------------- */
/* Starts a host session over `program` (retained until cajeta_host_end): its kernels are what
   cajeta_host_launch finds by name, its device is where buffers are allocated. `file` is the
   source file name failures print. Returns 0, or nonzero with cajeta_xpu_last_error set. */
CAJETA_XPU_API int cajeta_host_begin(const char* file, cajeta_xpu_program* program);
/* Ends the session: flushes stdout, syncs and destroys the streams host code created, destroys
   every buffer and event and frees every array it allocated, releases the program. Then
   reports the pending (uncaught) exception, or else a failure of work host code never synced.
   Returns 1 when it reported one (the program's exit status is then 1), else 0. */
CAJETA_XPU_API int32_t cajeta_host_end(void);
/* System.exit(status): flushes stdout and ends the process with `status`. */
CAJETA_XPU_API void cajeta_host_exit(int32_t status);

/* ---- Running a bundle's host code. ------------------------------------------------------- */
/* Runs the host code `cajeta build` put into `program`'s bundle (its "host" payload: the host
   methods compiled ahead of time), as `cajeta run prog.cjx` does: loads the payload from memory
   (refused when it was compiled for CPU features this machine lacks; its calls of this ABI bind
   to the loaded libcajeta_xpu.so), picks the entry point `entry` ("Class.method"; NULL for the
   bundle's default: main, or its only parameterless static method), begins a session over
   `program` naming `file` in failures (NULL: the source file the bundle was built from), runs
   the static initialiser and then, unless that raised, the entry point, and ends the session.
   *status is the program's exit status: the entry's int32 result (0 for void), or 1 when the
   end reported an uncaught exception. Returns 0 once the program ran, or nonzero with
   cajeta_xpu_last_error set and nothing run: CAJETA_XPU_BUNDLE_ERROR when the bundle has no host
   code or a bad one, CAJETA_XPU_NOT_FOUND when `entry` names no runnable host method (the message
   lists them), CAJETA_XPU_ERROR when there is no default entry point or a session is active.
   System.exit in the program ends the process. */
CAJETA_XPU_API int cajeta_host_run_program(cajeta_xpu_program* program, const char* entry,
                                           const char* file, int32_t* status);

/* ---- Command-line arguments and strings. ------------------------------------------------- */
/* The arguments main(String[] args) sees (copied; call before the entry point runs). */
CAJETA_XPU_API void cajeta_host_set_args(int32_t count, const char* const* args);
CAJETA_XPU_API int32_t cajeta_host_arg_count(void);
/* args[index]: ArrayIndexOutOfBoundsException outside [0, count). */
CAJETA_XPU_API const char* cajeta_host_arg(int32_t index, uint32_t line);
/* Integer.parseInt, Long.parseLong, Float.parseFloat, Double.parseDouble as Java reads them;
   NumberFormatException ("For input string: \"x\"") otherwise. */
CAJETA_XPU_API int32_t cajeta_host_parse_i32(const char* text, uint32_t line);
CAJETA_XPU_API int64_t cajeta_host_parse_i64(const char* text, uint32_t line);
CAJETA_XPU_API float cajeta_host_parse_f32(const char* text, uint32_t line);
CAJETA_XPU_API double cajeta_host_parse_f64(const char* text, uint32_t line);
/* s.length() (bytes of its UTF-8) and s.equals(t). */
CAJETA_XPU_API int32_t cajeta_host_string_length(const char* text);
CAJETA_XPU_API int32_t cajeta_host_string_equals(const char* a, const char* b);

/* ---- Exceptions. ------------------------------------------------------------------------- */
/* 1 when this thread has a pending exception (raised and not caught). */
CAJETA_XPU_API int32_t cajeta_host_pending(void);
/* catch (A | B e): when the pending exception is an A or a B (comma-separated class names; a
   descendant class matches its parent), catches it, makes it the caught exception and returns
   1; otherwise returns 0 and it stays pending. */
CAJETA_XPU_API int32_t cajeta_host_catch(const char* classes);
/* Prints e.getMessage() of the exception caught last. */
CAJETA_XPU_API void cajeta_host_print_caught(void);

/* ---- Heap arrays (`heap T[n]`). ------------------------------------------------------------ */
/* An array is a pointer to its header: the int64 element count at offset 0, the elements from
   offset CAJETA_HOST_ARRAY_DATA_OFFSET, zero-initialised and aligned to 16 bytes. Freed at
   cajeta_host_end. count < 0: NegativeArraySizeException. */
#define CAJETA_HOST_ARRAY_DATA_OFFSET 16
CAJETA_XPU_API void* cajeta_host_array_new(int64_t count, uint32_t element_size, uint32_t line);
/* a[index] with index outside [0, length): ArrayIndexOutOfBoundsException ("Index 5 out of
   bounds for length 4", as Java says). Raises it (always). */
CAJETA_XPU_API void cajeta_host_index_fail(int64_t index, int64_t length, uint32_t line);

/* ---- Device buffers (`heap KernelBuffer<T>(n)`). ------------------------------------------ */
/* `type` is a cajeta_xpu_scalar_type. count < 0: NegativeArraySizeException. */
CAJETA_XPU_API cajeta_xpu_buffer* cajeta_host_buffer_new(int64_t count, uint32_t type,
                                                         uint32_t line);
/* buf.upload(array) / buf.uploadAsync(array, stream) (stream NULL: the synchronous form). The
   array's element type is the buffer's (the compiler checks it); its length must equal the
   buffer's, else an IllegalArgumentException naming both lengths. */
CAJETA_XPU_API void cajeta_host_buffer_upload(cajeta_xpu_buffer* buffer, const void* array,
                                              cajeta_xpu_stream* stream, uint32_t line);
CAJETA_XPU_API void cajeta_host_buffer_download(cajeta_xpu_buffer* buffer, void* array,
                                                cajeta_xpu_stream* stream, uint32_t line);
/* buf.length(): the element count. */
CAJETA_XPU_API int64_t cajeta_host_buffer_length(const cajeta_xpu_buffer* buffer);

/* ---- Acceleration structures (`heap AccelerationStructure(vertices, indices)`). --------------- */
/* The software BVH over the triangles of `vertices` (a float32[]: x, y, z per vertex) and
   `indices` (an int32[]: three vertex indices per triangle) on the program's device, kept until
   cajeta_host_end. Returns the scene's buffer, which a launch passes as a CAJETA_XPU_ARG_ACCEL
   argument. A length that is not a multiple of 3 or an index out of range:
   IllegalArgumentException. */
CAJETA_XPU_API cajeta_xpu_buffer* cajeta_host_accel_new(const void* vertices, const void* indices,
                                                        uint32_t line);

/* ---- Streams and events. ----------------------------------------------------------------- */
CAJETA_XPU_API cajeta_xpu_stream* cajeta_host_stream_current(uint32_t line);
/* heap KernelStream(): a new stream on the program's device. */
CAJETA_XPU_API cajeta_xpu_stream* cajeta_host_stream_new(uint32_t line);
CAJETA_XPU_API void cajeta_host_stream_sync(cajeta_xpu_stream* stream, uint32_t line);
CAJETA_XPU_API cajeta_xpu_event* cajeta_host_stream_record(cajeta_xpu_stream* stream,
                                                           uint32_t line);
CAJETA_XPU_API void cajeta_host_stream_wait(cajeta_xpu_stream* stream, cajeta_xpu_event* event,
                                            uint32_t line);
CAJETA_XPU_API void cajeta_host_event_sync(cajeta_xpu_event* event, uint32_t line);

/* ---- Launch. ------------------------------------------------------------------------------ */
/* kernel.launch(stream, grid: [...], block: [...])(args): `kernel` is the kernel's qualified
   name ("K.saxpy"); geometry = {grid x, y, z, block x, y, z}. The arguments are checked by the
   runtime as cajeta_xpu_kernel_launch does. */
CAJETA_XPU_API void cajeta_host_launch(const char* kernel, cajeta_xpu_stream* stream,
                                       const uint32_t geometry[6], const cajeta_xpu_arg* args,
                                       uint32_t arg_count, uint32_t line);

/* ---- Queries. ----------------------------------------------------------------------------- */
/* Device.supports(Capability.X) on the program's device (a cajeta_xpu_capability): 1 or 0. */
CAJETA_XPU_API int32_t cajeta_host_supports(uint32_t capability);

/* ---- Printing (System.out.print / println). ------------------------------------------------ */
/* Numbers print as Java prints them: integers in decimal, float32 as Float.toString and float64
   as Double.toString (the shortest digits that read back to the same value; plain notation for
   1e-3 <= |x| < 1e7 with at least one digit after the point, else d.dddE[-]n; NaN, Infinity,
   -Infinity, -0.0), bool as true/false. */
CAJETA_XPU_API void cajeta_host_print_str(const char* text);
CAJETA_XPU_API void cajeta_host_print_i64(int64_t value);
CAJETA_XPU_API void cajeta_host_print_u64(uint64_t value);
CAJETA_XPU_API void cajeta_host_print_f32(float value);
CAJETA_XPU_API void cajeta_host_print_f64(double value);
CAJETA_XPU_API void cajeta_host_print_bool(int32_t value);
CAJETA_XPU_API void cajeta_host_print_newline(void);
/* System.out.printf's conversion `spec` (one Java format specifier, "%-8.3f", checked against the
   value's type by the compiler) of a value of cajeta_xpu_scalar_type `type` whose bits are
   `bits` (a signed integer sign-extended, an unsigned one zero-extended, a float's own bits),
   as java.util.Formatter renders it. */
CAJETA_XPU_API void cajeta_host_printf(const char* spec, uint32_t type, uint64_t bits);

#ifdef __cplusplus
}
#endif
#endif
