/* The stable C ABI of libcajeta_xpu: opaque handles, int status codes, a thread-local message. */
#ifndef CAJETA_XPU_H
#define CAJETA_XPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CAJETA_XPU_API __attribute__((visibility("default")))
#else
#define CAJETA_XPU_API
#endif

/* ---- Status codes: one per error class of the C++ API. ---------------------------------- */
typedef enum cajeta_xpu_status {
  CAJETA_XPU_SUCCESS = 0,
  CAJETA_XPU_ERROR = 1,                /* anything else: bad argument, I/O, no compiler, ... */
  CAJETA_XPU_COMPILE_ERROR = 2,        /* JIT compile failed; see cajeta_xpu_last_diagnostics */
  CAJETA_XPU_LAUNCH_ERROR = 3,         /* bad launch, or a kernel failure surfaced at sync */
  CAJETA_XPU_BORROW_ERROR = 4,         /* a buffer is borrowed by a kernel on another stream */
  CAJETA_XPU_OUT_OF_DEVICE_MEMORY = 5, /* allocation failed */
  CAJETA_XPU_BUNDLE_ERROR = 6,         /* malformed bundle, missing payload/symbol, ... */
  CAJETA_XPU_BACKEND_UNAVAILABLE = 7,  /* no (forced) backend with a device and a payload */
  CAJETA_XPU_DEADLINE_MISSED = 8,      /* a submission's window closed before it could start */
  CAJETA_XPU_NOT_FOUND = 9,            /* no kernel of that name, or no such source file */
  CAJETA_XPU_DEVICE_LOST = 10          /* the device was lost (reset, removed, driver failure): its
                                          buffers and pending work are gone; other devices go on */
} cajeta_xpu_status;

/* The message of the last failed call on this thread ("" if none). Valid until the next call
   into the library on this thread. Every function returning a status sets it on failure. */
CAJETA_XPU_API const char* cajeta_xpu_last_error(void);
/* The compiler's rendered diagnostics of the last CAJETA_XPU_COMPILE_ERROR on this thread. */
CAJETA_XPU_API const char* cajeta_xpu_last_diagnostics(void);

/* ---- Scalar types: the same order as the kernel language's primitives. ------------------ */
typedef enum cajeta_xpu_scalar_type {
  CAJETA_XPU_BOOL = 0,
  CAJETA_XPU_INT8,
  CAJETA_XPU_INT16,
  CAJETA_XPU_INT32,
  CAJETA_XPU_INT64,
  CAJETA_XPU_UINT8,
  CAJETA_XPU_UINT16,
  CAJETA_XPU_UINT32,
  CAJETA_XPU_UINT64,
  CAJETA_XPU_FLOAT16,
  CAJETA_XPU_FLOAT32,
  CAJETA_XPU_FLOAT64,
  CAJETA_XPU_BFLOAT16, /* float32's sign and exponent, 7 mantissa bits (xpu::bfloat16) */
  CAJETA_XPU_SCALAR_TYPE_MAX_ENUM = 0x7fffffff /* not a type: see CAJETA_XPU_AS_IMPL_MAX_ENUM */
} cajeta_xpu_scalar_type;

/* ---- Opaque handles. -------------------------------------------------------------------- */
typedef struct cajeta_xpu_device cajeta_xpu_device;   /* owned by the library, never freed */
typedef struct cajeta_xpu_buffer cajeta_xpu_buffer;   /* cajeta_xpu_buffer_destroy */
typedef struct cajeta_xpu_stream cajeta_xpu_stream;   /* cajeta_xpu_stream_destroy */
typedef struct cajeta_xpu_event cajeta_xpu_event;     /* cajeta_xpu_event_destroy */
typedef struct cajeta_xpu_program cajeta_xpu_program; /* reference counted: retain / release */
typedef struct cajeta_xpu_kernel cajeta_xpu_kernel;   /* owned by its program */

/* ---- Devices. --------------------------------------------------------------------------- */
/* Every device of every backend present. */
CAJETA_XPU_API size_t cajeta_xpu_device_count(void);
/* Why backend ("cuda", "hip", "vulkan") has no device in this process: its driver that would not
   load or initialise, no device, or not built yet. NULL when it has a device or is unknown. The
   string lives as long as the process. */
CAJETA_XPU_API const char* cajeta_xpu_backend_unavailable_reason(const char* backend);
CAJETA_XPU_API cajeta_xpu_device* cajeta_xpu_device_get(size_t index);
/* The dispatcher's pick (CUDA -> HIP -> Vulkan -> CPU; CAJETA_XPU_BACKEND forces one). */
CAJETA_XPU_API int cajeta_xpu_device_default(cajeta_xpu_device** out);
CAJETA_XPU_API const char* cajeta_xpu_device_name(const cajeta_xpu_device* device);
CAJETA_XPU_API const char* cajeta_xpu_device_backend(const cajeta_xpu_device* device); /* "cpu" */
CAJETA_XPU_API unsigned cajeta_xpu_device_compute_units(const cajeta_xpu_device* device);
CAJETA_XPU_API unsigned cajeta_xpu_device_max_workgroup_size(const cajeta_xpu_device* device);
/* Lanes per wave (Wave.width()) on the device; 0 where it has no wave operations. A CPU payload
   built for other CPU features than the host's may use another width: kernels always launch with
   their own code's width (a workgroup must be a multiple of it). */
CAJETA_XPU_API unsigned cajeta_xpu_device_wave_width(const cajeta_xpu_device* device);
/* The matrix products the device's native tile tier multiplies, comma-separated
   "MxNxK:a:b:c:result" (component types f16, f32, s8, u8, s32, u32, ...): mma.sync's on CUDA
   sm_80+, the VK_KHR_cooperative_matrix list on Vulkan; "" where tiles are only portable (then
   CAJETA_XPU_CAP_COOPERATIVE_MATRIX is false). */
CAJETA_XPU_API const char* cajeta_xpu_device_matrix_shapes(const cajeta_xpu_device* device);
/* Nonzero when the device's code runs on the host's CPU cores: the cpu backend, or a CPU-type
   Vulkan device such as Mesa's lavapipe. */
CAJETA_XPU_API int cajeta_xpu_device_runs_on_host_cpu(const cajeta_xpu_device* device);
/* 1 when launches on two streams may run on the device at the same time (CUDA, the CPU, a
   Vulkan device with more than one compute queue); 0 when it runs them one after the other. */
CAJETA_XPU_API int cajeta_xpu_device_concurrent_streams(const cajeta_xpu_device* device);
/* The most iterations the device's driver lets one loop run before it silently ends the loop
   (Mesa's llvmpipe: 65,535); 0 where there is no such limit. */
CAJETA_XPU_API uint64_t cajeta_xpu_device_max_loop_iterations(const cajeta_xpu_device* device);
/* Reserves compute units for latency and frameBudget submissions: they run on those, every other
   submission on the rest, so neither waits behind the other's resident workgroups (CUDA: green
   contexts, units rounded up to the driver's partition size, at most half the device; the
   cpu backend: threads of their own beside its pool, at most half as many). The
   first latency-class submission reserves by itself, sized for one wave of its workgroups (or
   its compute-unit budget); this does it ahead, or remakes it at another size (0 releases it,
   and no submission makes one again until this is called). *reserved (may be null): the units
   reserved, 0 where the device cannot reserve (Vulkan, a single-thread CPU). CAJETA_XPU_ERROR
   naming the driver's answer when it refuses. */
CAJETA_XPU_API int cajeta_xpu_device_reserve(cajeta_xpu_device* device, unsigned units,
                                             unsigned* reserved);
/* The compute units reserved for latency-class submissions; 0 when none. */
CAJETA_XPU_API unsigned cajeta_xpu_device_reserved_compute_units(const cajeta_xpu_device* device);
/* Optional features; cajeta_xpu_device_supports answers per device from what its backend really
   offers (never "yes" for an emulation that is not there). */
typedef enum cajeta_xpu_capability {
  CAJETA_XPU_CAP_WAVE_OPS = 0,
  CAJETA_XPU_CAP_FLOAT16,
  CAJETA_XPU_CAP_FLOAT64,
  CAJETA_XPU_CAP_INT64_ATOMICS,
  CAJETA_XPU_CAP_FLOAT_ATOMICS,
  CAJETA_XPU_CAP_SHARED_MEMORY,
  CAJETA_XPU_CAP_DYNAMIC_SHARED_MEMORY,
  CAJETA_XPU_CAP_COOPERATIVE_MATRIX, /* tiles run natively (matrix instructions); they run
                                        everywhere */
  CAJETA_XPU_CAP_TEXTURES,
  CAJETA_XPU_CAP_RAY_QUERY,
  CAJETA_XPU_CAP_CORRECTLY_ROUNDED_FMA,   /* fma(a, b, c) rounded once, float32 and float64 */
  CAJETA_XPU_CAP_PRECISE_TRANSCENDENTALS, /* exp/log/pow/sin/cos/tanh within 2 ULP at full range and
                                             precision */
  CAJETA_XPU_CAP_FLOAT32_DENORMALS,       /* float32 subnormal inputs and results are kept, not
                                             flushed to zero (IEEE, as the language requires) */
  CAJETA_XPU_CAP_COUNT,                   /* not a capability: the number of them */
  CAJETA_XPU_CAP_MAX_ENUM = 0x7fffffff    /* not a capability: see CAJETA_XPU_AS_IMPL_MAX_ENUM */
} cajeta_xpu_capability;

/* 1 if the device offers the capability, 0 if not (or if either argument is invalid). */
CAJETA_XPU_API int cajeta_xpu_device_supports(const cajeta_xpu_device* device,
                                              cajeta_xpu_capability capability);
/* "wave-ops", "float16", ...; "" for a value outside the enum. */
CAJETA_XPU_API const char* cajeta_xpu_capability_name(cajeta_xpu_capability capability);
/* The most dynamic shared memory a launch on the device may ask for, in bytes. */
CAJETA_XPU_API uint64_t cajeta_xpu_device_max_dynamic_shared_bytes(const cajeta_xpu_device* device);
/* Bytes of buffer memory currently allocated on the device (released buffers excluded). */
CAJETA_XPU_API uint64_t cajeta_xpu_device_allocated_bytes(const cajeta_xpu_device* device);

/* ---- Streams and events. ---------------------------------------------------------------- */
/* A new in-order asynchronous queue on `device` (NULL: the default device). */
CAJETA_XPU_API int cajeta_xpu_stream_create(cajeta_xpu_device* device, cajeta_xpu_stream** out);
/* This thread's stream on the default device, owned by the library (do not destroy it). */
CAJETA_XPU_API int cajeta_xpu_stream_current(cajeta_xpu_stream** out);
/* Waits for the queued work, drains pending work first; errors not synced are dropped. */
CAJETA_XPU_API void cajeta_xpu_stream_destroy(cajeta_xpu_stream* stream);
/* Waits for all queued work, ends the borrows of its launches, and returns the first error the
   stream hit since the last sync (CAJETA_XPU_LAUNCH_ERROR for a failed kernel). */
CAJETA_XPU_API int cajeta_xpu_stream_sync(cajeta_xpu_stream* stream);
/* Ends the stream's open chain (consecutive submissions with one capture identity): its
   launches are issued now, as one unit, and the next submission with that identity starts a
   replay. Any other command on the stream, and sync, end it too. No chain open: nothing to do. */
CAJETA_XPU_API int cajeta_xpu_stream_end_chain(cajeta_xpu_stream* stream);
CAJETA_XPU_API int cajeta_xpu_stream_device(cajeta_xpu_stream* stream, cajeta_xpu_device** out);
/* A name used in messages: "stream 3", "stream 1 (current)". */
CAJETA_XPU_API const char* cajeta_xpu_stream_name(const cajeta_xpu_stream* stream);
/* Enqueues a marker; the event completes when the stream reaches it. */
CAJETA_XPU_API int cajeta_xpu_stream_record(cajeta_xpu_stream* stream, cajeta_xpu_event** out);
/* Work enqueued on `stream` after this call starts only once `event` has completed. */
CAJETA_XPU_API int cajeta_xpu_stream_wait(cajeta_xpu_stream* stream, cajeta_xpu_event* event);
CAJETA_XPU_API int cajeta_xpu_event_sync(cajeta_xpu_event* event);
/* 1 if completed, 0 if not. */
CAJETA_XPU_API int cajeta_xpu_event_done(const cajeta_xpu_event* event);
CAJETA_XPU_API void cajeta_xpu_event_destroy(cajeta_xpu_event* event);

/* ---- Buffers. --------------------------------------------------------------------------- */
/* `count` elements of `type` on `device` (NULL: the default device). CPU: 64-byte aligned. */
CAJETA_XPU_API int cajeta_xpu_buffer_create(cajeta_xpu_device* device, cajeta_xpu_scalar_type type,
                                            size_t count, cajeta_xpu_buffer** out);
/* Drops the handle; if a kernel still borrows the buffer, the memory goes when it completes. */
CAJETA_XPU_API void cajeta_xpu_buffer_destroy(cajeta_xpu_buffer* buffer);
CAJETA_XPU_API size_t cajeta_xpu_buffer_count(const cajeta_xpu_buffer* buffer);
CAJETA_XPU_API cajeta_xpu_scalar_type cajeta_xpu_buffer_type(const cajeta_xpu_buffer* buffer);
CAJETA_XPU_API cajeta_xpu_device* cajeta_xpu_buffer_device(const cajeta_xpu_buffer* buffer);
/* Copies `count` elements host -> buffer (write) or buffer -> host (read), starting at element 0,
   ordered on `stream` (NULL: the current stream). Blocking forms wait for the copy; the async
   forms return without waiting: write_async reads `src` before it returns (staged), read_async
   fills `dst` when the stream reaches the copy.
   A buffer borrowed by a kernel on another stream: CAJETA_XPU_BORROW_ERROR. */
CAJETA_XPU_API int cajeta_xpu_buffer_write(cajeta_xpu_buffer* buffer, cajeta_xpu_stream* stream,
                                           const void* src, size_t count);
CAJETA_XPU_API int cajeta_xpu_buffer_read(cajeta_xpu_buffer* buffer, cajeta_xpu_stream* stream,
                                          void* dst, size_t count);
CAJETA_XPU_API int cajeta_xpu_buffer_write_async(cajeta_xpu_buffer* buffer,
                                                 cajeta_xpu_stream* stream, const void* src,
                                                 size_t count);
CAJETA_XPU_API int cajeta_xpu_buffer_read_async(cajeta_xpu_buffer* buffer,
                                                cajeta_xpu_stream* stream, void* dst, size_t count);
/* New element count; keeps the first min(old, new) elements. Ordered on the current stream. */
CAJETA_XPU_API int cajeta_xpu_buffer_resize(cajeta_xpu_buffer* buffer, size_t count);

/* ---- Acceleration structures. ---------------------------------------------------------- */
/* A scene of triangles and/or axis-aligned boxes that kernels trace rays through (an
   AccelerationStructure parameter). It is built on the host into a software BVH held in a
   uint32 buffer of its device; every backend traverses that form. */
typedef struct cajeta_xpu_accel cajeta_xpu_accel; /* cajeta_xpu_accel_destroy */

typedef enum cajeta_xpu_as_impl {
  CAJETA_XPU_AS_IMPL_AUTO = 0,     /* the best the device offers: today the software BVH */
  CAJETA_XPU_AS_IMPL_NATIVE = 1,   /* the driver's BVH and hardware ray query (VK_KHR_ray_query) */
  CAJETA_XPU_AS_IMPL_SOFTWARE = 2, /* the portable software BVH */
  /* Not a value: makes every int a valid cajeta_xpu_as_impl in C++ too, so that the library can
     refuse what a C caller passes instead of its being undefined behaviour (as Vulkan's
     *_MAX_ENUM). */
  CAJETA_XPU_AS_IMPL_MAX_ENUM = 0x7fffffff
} cajeta_xpu_as_impl;

/* cajeta_xpu_accel_desc.flags */
#define CAJETA_XPU_ACCEL_NON_OPAQUE_TRIANGLES 1u /* triangles are candidates a kernel confirms */
/* Build on the device, by kernels, a linear BVH over Morton codes (one primitive per leaf;
   max_leaf_size is not used): far faster to build than the default host binned-SAH tree, slower
   to trace (Embree's LOW build quality against its MEDIUM; OptiX's PREFER_FAST_BUILD). The same
   primitives are left out, and the same errors reported. */
#define CAJETA_XPU_ACCEL_FAST_BUILD 2u

typedef struct cajeta_xpu_accel_desc {
  const float* vertices;   /* xyz per vertex */
  size_t vertex_count;     /* vertices, not floats */
  const uint32_t* indices; /* three per triangle; NULL: triangle i is vertices 3i, 3i+1, 3i+2 */
  size_t triangle_count;
  const float* aabbs; /* min xyz, max xyz per box */
  size_t aabb_count;
  uint32_t flags;         /* CAJETA_XPU_ACCEL_* */
  uint32_t max_leaf_size; /* primitives per BVH leaf at most; 0: 4; at most 16 */
} cajeta_xpu_accel_desc;

/* Builds the scene of `desc` (read during the call only) on `device` (NULL: the default device)
   and uploads it, ordered on the device's current stream, waiting for the copy.
   CAJETA_GPU_AS_IMPL=native|software overrides `impl`; AUTO and SOFTWARE build the software
   BVH; NATIVE fails with CAJETA_XPU_BACKEND_UNAVAILABLE (no device here offers hardware ray
   query). A triangle or box with a NaN or infinite coordinate is left out of the scene (see
   cajeta_xpu_accel_skipped_count); an index out of range is an error naming the triangle. */
CAJETA_XPU_API int cajeta_xpu_accel_build(cajeta_xpu_device* device,
                                          const cajeta_xpu_accel_desc* desc,
                                          cajeta_xpu_as_impl impl, cajeta_xpu_accel** out);
/* Drops the handle; a kernel still borrowing the scene's buffer keeps it until it completes. */
CAJETA_XPU_API void cajeta_xpu_accel_destroy(cajeta_xpu_accel* accel);
/* The implementation built: CAJETA_XPU_AS_IMPL_SOFTWARE today. */
CAJETA_XPU_API cajeta_xpu_as_impl cajeta_xpu_accel_impl(const cajeta_xpu_accel* accel);
/* "auto", "native", "software"; "" for a value outside the enum. */
CAJETA_XPU_API const char* cajeta_xpu_as_impl_name(cajeta_xpu_as_impl impl);
CAJETA_XPU_API cajeta_xpu_device* cajeta_xpu_accel_device(const cajeta_xpu_accel* accel);
/* The description's triangles and boxes, and how many of them were left out. */
CAJETA_XPU_API size_t cajeta_xpu_accel_triangle_count(const cajeta_xpu_accel* accel);
CAJETA_XPU_API size_t cajeta_xpu_accel_aabb_count(const cajeta_xpu_accel* accel);
CAJETA_XPU_API size_t cajeta_xpu_accel_skipped_count(const cajeta_xpu_accel* accel);
/* BVH nodes (0 for an empty scene), bytes of the BVH, build time (without the upload) in
   milliseconds: the host's, or with CAJETA_XPU_ACCEL_FAST_BUILD the device kernels' until their
   completion. */
CAJETA_XPU_API size_t cajeta_xpu_accel_node_count(const cajeta_xpu_accel* accel);
CAJETA_XPU_API uint64_t cajeta_xpu_accel_bytes(const cajeta_xpu_accel* accel);
CAJETA_XPU_API double cajeta_xpu_accel_build_ms(const cajeta_xpu_accel* accel);
/* The uint32 buffer holding the BVH (layout: src/bundle/AccelLayout.h), owned by the accel: do
   not destroy it. A launch takes the accel as a CAJETA_XPU_ARG_ACCEL argument with this buffer
   as value.buffer. */
CAJETA_XPU_API cajeta_xpu_buffer* cajeta_xpu_accel_buffer(const cajeta_xpu_accel* accel);

/* ---- Scheduling. ------------------------------------------------------------------------ */
/* Launches and copies on different streams that touch the same buffer are ordered by what they
   do to it (a read waits for other streams' last write, a write for their last write and the
   reads since). bypass nonzero turns that off (the raw launch path, for A/B measurement); it
   starts on when CAJETA_XPU_SCHEDULER=bypass. Returns the previous setting. */
CAJETA_XPU_API int cajeta_xpu_scheduler_set_bypass(int bypass);
CAJETA_XPU_API int cajeta_xpu_scheduler_bypassed(void);
/* Whether latency-class submissions reserve compute units (cajeta_xpu_device_reserve) and the
   others keep off them; on unless CAJETA_XPU_RESERVATION=off at start. Off, latency-class
   submissions run on the whole device at the highest launch priority. Returns the previous
   setting. */
CAJETA_XPU_API int cajeta_xpu_scheduler_set_reservation(int on);
CAJETA_XPU_API int cajeta_xpu_scheduler_reserving(void);

/* Co-running admission: while a memory-bound and a compute-bound stream both have throughput
   work queued on a device that can confine launches to slices of its compute units (CUDA green
   contexts), the pair may share it on a slice and its complement. */
typedef enum cajeta_xpu_co_running {
  CAJETA_XPU_CORUN_OFF = 0,    /* every launch on the whole device */
  CAJETA_XPU_CORUN_AUTO = 1,   /* where the device's calibration predicts the pair finishes at
                                  least 5 % sooner than one after the other (the default) */
  CAJETA_XPU_CORUN_ALWAYS = 2, /* every complementary pair, at the best cut predicted (for A/B
                                  measurement; needs the calibration too) */
  CAJETA_XPU_CORUN_MAX_ENUM = 0x7fffffff
} cajeta_xpu_co_running;
/* Sets the mode (CAJETA_XPU_CORUN=off|auto|always at start); returns the previous one, or -1
   for a mode that does not exist (nothing changes). */
CAJETA_XPU_API int cajeta_xpu_scheduler_set_co_running(int mode);
CAJETA_XPU_API int cajeta_xpu_scheduler_co_running(void);
/* CAJETA_XPU_TRACE=out.json at start: every launch and copy is traced (Chrome trace / Perfetto
   JSON: one process per device, one thread per stream, an arrow where a command was ordered
   after another stream's). The file is written at exit; this writes it now. Without the variable:
   nothing to do (CAJETA_XPU_SUCCESS). CAJETA_XPU_ERROR when the file cannot be written. */
CAJETA_XPU_API int cajeta_xpu_trace_flush(void);

/* ---- Programs and kernels. -------------------------------------------------------------- */
typedef struct cajeta_xpu_compile_options {
  uint32_t size;    /* sizeof(cajeta_xpu_compile_options), set by the caller, so the struct can
                       grow; one that does not reach use_cache is refused */
  int check_bounds; /* nonzero: trap out-of-range buffer indices */
  const char* cpu;  /* CPU to compile for; NULL or "native" */
  int use_cache;    /* nonzero: use the on-disk JIT cache */
} cajeta_xpu_compile_options;

CAJETA_XPU_API int cajeta_xpu_program_load_file(const char* path, cajeta_xpu_program** out);
/* The same on a chosen device (its backend's payload); an error when the bundle has none. */
CAJETA_XPU_API int cajeta_xpu_program_load_file_on(const char* path, cajeta_xpu_device* device,
                                                   cajeta_xpu_program** out);
CAJETA_XPU_API int cajeta_xpu_program_load_memory(const void* data, size_t size,
                                                  cajeta_xpu_program** out);
/* A bundle this process's own compiler has just made from source (as `cajeta run k.cj` does with
   the compiler linked in): trusted as the JIT's output is, so it loads unsigned even where keys
   are trusted (cajeta_xpu_trust_key_file). Never for bytes read from a file or received from
   elsewhere: those go through cajeta_xpu_program_load_memory. */
CAJETA_XPU_API int cajeta_xpu_program_load_compiled(const void* data, size_t size,
                                                    cajeta_xpu_program** out);
/* JIT through libcajeta_compiler.so (CAJETA_COMPILER_LIB, else beside this library, else the
   loader's search path), cached on disk. options may be NULL (defaults: no bounds checks,
   native CPU, cache on). */
CAJETA_XPU_API int cajeta_xpu_program_compile_file(const char* path,
                                                   const cajeta_xpu_compile_options* options,
                                                   cajeta_xpu_program** out);
/* The same, loaded on a chosen device. */
CAJETA_XPU_API int cajeta_xpu_program_compile_file_on(const char* path,
                                                      const cajeta_xpu_compile_options* options,
                                                      cajeta_xpu_device* device,
                                                      cajeta_xpu_program** out);
CAJETA_XPU_API int cajeta_xpu_program_compile_source(const char* source, size_t length,
                                                     const char* file_name,
                                                     const cajeta_xpu_compile_options* options,
                                                     cajeta_xpu_program** out);
CAJETA_XPU_API void cajeta_xpu_program_retain(cajeta_xpu_program* program);
CAJETA_XPU_API void cajeta_xpu_program_release(cajeta_xpu_program* program);
CAJETA_XPU_API size_t cajeta_xpu_program_kernel_count(const cajeta_xpu_program* program);
CAJETA_XPU_API cajeta_xpu_kernel* cajeta_xpu_program_kernel_at(const cajeta_xpu_program* program,
                                                               size_t index);
/* By qualified name ("K.saxpy"); unknown: CAJETA_XPU_NOT_FOUND listing the available kernels. */
CAJETA_XPU_API int cajeta_xpu_program_kernel(const cajeta_xpu_program* program, const char* name,
                                             cajeta_xpu_kernel** out);
CAJETA_XPU_API cajeta_xpu_device* cajeta_xpu_program_device(const cajeta_xpu_program* program);
/* 1 if the program came from the JIT cache. */
CAJETA_XPU_API int cajeta_xpu_program_from_cache(const cajeta_xpu_program* program);
CAJETA_XPU_API const char* cajeta_xpu_kernel_name(const cajeta_xpu_kernel* kernel);
/* The implementation tier the loaded code of a kernel uses for its tiles ("tiles") or its wave
   ops ("waves"): "native" or "portable", "" where the kernel has none (or the feature is
   unknown). On Vulkan a tile kernel's tier follows the device: "native" where it lists every
   cooperative-matrix product the kernel multiplies. "wgmma": "native" where the code loaded
   (NVIDIA sm_90a) multiplies some tiles with wgmma, reading b from shared memory. */
CAJETA_XPU_API const char* cajeta_xpu_kernel_tier(const cajeta_xpu_kernel* kernel,
                                                  const char* feature);

/* What a kernel's loaded code needs: read from the code object at load where the backend can
   (cuda: cuFuncGetAttribute NUM_REGS, LOCAL_SIZE_BYTES, SHARED_SIZE_BYTES, MAX_THREADS_PER_BLOCK),
   else the bundle manifest's figures. max_threads 0: no limit of the kernel's own (the device's
   workgroup limit applies); a launch whose block exceeds max_threads is a launch error. */
typedef struct cajeta_xpu_kernel_footprint {
  uint32_t registers;    /* per work-item */
  uint32_t local_bytes;  /* local (spill) memory per work-item */
  uint32_t shared_bytes; /* static shared memory per workgroup */
  uint32_t max_threads;  /* most work-items per workgroup the code allows */
} cajeta_xpu_kernel_footprint;
CAJETA_XPU_API int cajeta_xpu_kernel_footprint_get(const cajeta_xpu_kernel* kernel,
                                                   cajeta_xpu_kernel_footprint* out);

/* The directory the JIT cache uses now ($XDG_CACHE_HOME/cajeta, else $HOME/.cache/cajeta), or ""
   when neither is usable. Thread-local storage, valid until the next call on this thread. */
CAJETA_XPU_API const char* cajeta_xpu_jit_cache_dir(void);

/* ---- Trusted keys (docs/trust.md). ----------------------------------------------------- */
/* A bundle is code: its CPU payload is a native shared object that runs in this process. Where
   any key is trusted (the Ed25519 public-key PEM files named by CAJETA_XPU_TRUSTED_KEYS, colon-
   separated, and those added here), every bundle loaded from a file or from memory must carry a
   valid signature by one of them (`cajeta sign`), else the load fails with
   CAJETA_XPU_BUNDLE_ERROR saying why; a named file that cannot be read fails every load with
   CAJETA_XPU_ERROR. Programs this process JIT-compiles, and its JIT cache, are its own and load
   unsigned. With no key trusted, nothing is checked. */
/* Trusts the key in the PEM file at path for the rest of the process (keys are never removed).
   CAJETA_XPU_ERROR when the file cannot be read or holds no Ed25519 public key. */
CAJETA_XPU_API int cajeta_xpu_trust_key_file(const char* path);
/* How many keys are trusted now (the variable's and those added); 0: bundles load unsigned. */
CAJETA_XPU_API int cajeta_xpu_trusted_key_count(size_t* out);

/* ---- Launch. ---------------------------------------------------------------------------- */
typedef enum cajeta_xpu_arg_kind {
  CAJETA_XPU_ARG_BUFFER = 0,
  CAJETA_XPU_ARG_SCALAR = 1,
  CAJETA_XPU_ARG_POD = 2,      /* value.pod: a struct in the C layout of the kernel's POD class */
  CAJETA_XPU_ARG_FUNCTION = 3, /* value.function: a @Device static's qualified name */
  CAJETA_XPU_ARG_ACCEL = 4,    /* value.buffer: cajeta_xpu_accel_buffer of an acceleration
                                  structure, for an AccelerationStructure parameter */
  CAJETA_XPU_ARG_KIND_MAX_ENUM = 0x7fffffff /* not a kind: see CAJETA_XPU_AS_IMPL_MAX_ENUM */
} cajeta_xpu_arg_kind;

/* A Function parameter also accepts a CAJETA_XPU_UINT32 scalar: the tag itself (a tag outside
   the kernel's function table makes each call through it a no-op yielding zero). */
typedef struct cajeta_xpu_arg {
  uint32_t kind; /* cajeta_xpu_arg_kind */
  uint32_t type; /* cajeta_xpu_scalar_type of a scalar; ignored otherwise */
  union {
    cajeta_xpu_buffer* buffer;
    uint64_t bits; /* the scalar, little-endian in the low bytes (a float32's bits in 0..31) */
    struct {
      const void* data; /* copied at launch: need not outlive the call */
      size_t size;      /* must equal the POD's size in the manifest */
    } pod;
    const char* function; /* "Ops.square" */
  } value;
} cajeta_xpu_arg;

/* Checks arity, kinds and types against the kernel's manifest (an integer scalar of another
   integer type is taken when the parameter's type holds its value) and the geometry against
   the device, then enqueues the launch on `stream` and returns before it runs. Buffers passed
   are borrowed by the launch until `stream` is synced. */
CAJETA_XPU_API int cajeta_xpu_kernel_launch(cajeta_xpu_kernel* kernel, cajeta_xpu_stream* stream,
                                            const uint32_t grid[3], const uint32_t block[3],
                                            const cajeta_xpu_arg* args, size_t arg_count);
/* The same with the byte size of the kernel's dynamic shared array (`shared T[]`); a kernel
   without one takes 0, and no launch may exceed cajeta_xpu_device_max_dynamic_shared_bytes. */
CAJETA_XPU_API int cajeta_xpu_kernel_launch_shared(cajeta_xpu_kernel* kernel,
                                                   cajeta_xpu_stream* stream,
                                                   const uint32_t grid[3], const uint32_t block[3],
                                                   uint32_t dynamic_shared_bytes,
                                                   const cajeta_xpu_arg* args, size_t arg_count);

/* ---- Submissions (spec 17.8). ----------------------------------------------------------- */
/* Every launch is a submission; the plain launches above are submissions at the default policy
   on the given stream. */
typedef enum cajeta_xpu_policy {
  CAJETA_XPU_POLICY_THROUGHPUT = 0, /* the default */
  CAJETA_XPU_POLICY_LATENCY = 1,
  CAJETA_XPU_POLICY_FRAME_BUDGET = 2,
  CAJETA_XPU_POLICY_ENERGY = 3
} cajeta_xpu_policy;

typedef enum cajeta_xpu_protection {
  CAJETA_XPU_PROTECTION_NONE = 0,
  CAJETA_XPU_PROTECTION_ISOLATED = 1 /* no co-runner may share the device's compute units */
} cajeta_xpu_protection;

/* Nanoseconds of the monotonic clock that submission windows are given in (CLOCK_MONOTONIC,
   std::chrono::steady_clock on Linux). */
CAJETA_XPU_API uint64_t cajeta_xpu_now_ns(void);

typedef struct cajeta_xpu_submission {
  uint32_t size;             /* sizeof(cajeta_xpu_submission), so the struct can grow */
  uint32_t policy;           /* cajeta_xpu_policy */
  uint64_t earliest_ns;      /* the kernel starts no earlier (cajeta_xpu_now_ns clock); 0: now */
  uint64_t latest_ns;        /* it starts no later, or never: 0 for no deadline */
  uint32_t protection;       /* cajeta_xpu_protection */
  uint32_t compute_units;    /* the most compute units it may occupy; 0: the whole device */
  uint64_t capture_id;       /* nonzero: consecutive submissions with this id form a chain that is
                                recorded once and replayed */
  double energy_joules;      /* an energy budget; 0: none */
  cajeta_xpu_stream* stream; /* NULL: the calling thread's current stream */
} cajeta_xpu_submission;

/* What a submission touches, from the kernel's manifest bound to the buffers passed. */
typedef enum cajeta_xpu_access {
  CAJETA_XPU_ACCESS_READ = 1,
  CAJETA_XPU_ACCESS_WRITE = 2,
  CAJETA_XPU_ACCESS_READ_WRITE = 3,
  CAJETA_XPU_ACCESS_ACCUMULATE = 4 /* only atomic read-modify-writes: commutes with others */
} cajeta_xpu_access;

typedef struct cajeta_xpu_buffer_access {
  cajeta_xpu_buffer* buffer;
  uint32_t param;     /* the kernel parameter it was passed to (0-based) */
  uint32_t access;    /* cajeta_xpu_access */
  uint32_t streaming; /* 1: each element touched once at unit stride across work-items */
  double bytes_read;  /* -1: unknown */
  double bytes_written;
} cajeta_xpu_buffer_access;

/* The kernel's resource descriptor for one submission. The caller sets size; the library writes
   the fields that fit in it and no byte past it, so the struct can grow. */
typedef struct cajeta_xpu_resource_descriptor {
  uint32_t size;       /* sizeof(cajeta_xpu_resource_descriptor), set by the caller */
  const char* kernel;  /* qualified name, owned by the program */
  uint32_t classified; /* 0: the manifest has no scheduling section (an unclassified
                          submission; the costs are then -1) */
  uint32_t policy;     /* cajeta_xpu_policy */
  cajeta_xpu_kernel_footprint footprint;
  double bytes_read; /* the launch's cost expressions evaluated; -1: unknown */
  double bytes_written;
  double operations;
  uint32_t restartable;  /* 1: running it again from the start gives the same result */
  uint32_t yield_points; /* group-boundary yield points (barriers) */
  size_t access_count;
  const cajeta_xpu_buffer_access* accesses; /* valid until the next submit on this thread */
  /* The arithmetic class: operations per byte moved (read plus written) against the device's
     measured ridge (cajeta_xpu_device_calibration's "ridge"), taken from the record in memory
     or in the calibration store; a descriptor never measures. -1 / UNKNOWN where the costs are
     unknown or the device has no record yet. */
  double intensity;
  double ridge;
  uint32_t arithmetic_class; /* cajeta_xpu_arithmetic_class */
  /* Where the scheduler placed the launch (cajeta_xpu_placement) and on how many compute units
     (the device's count for the whole device). */
  uint32_t placement;
  uint32_t compute_units;
} cajeta_xpu_resource_descriptor;

typedef enum cajeta_xpu_placement {
  CAJETA_XPU_PLACEMENT_WHOLE = 0,            /* every compute unit */
  CAJETA_XPU_PLACEMENT_RESERVED = 1,         /* the units reserved for the latency class */
  CAJETA_XPU_PLACEMENT_REMAINDER = 2,        /* the units not reserved */
  CAJETA_XPU_PLACEMENT_SLICE = 3,            /* a slice: a co-running memory-bound launch, or a
                                                throughput submission's compute-unit budget */
  CAJETA_XPU_PLACEMENT_SLICE_COMPLEMENT = 4, /* the rest of a slice: a co-running
                                                compute-bound launch */
  CAJETA_XPU_PLACEMENT_MAX_ENUM = 0x7fffffff
} cajeta_xpu_placement;

typedef enum cajeta_xpu_arithmetic_class {
  CAJETA_XPU_CLASS_UNKNOWN = 0,
  CAJETA_XPU_CLASS_MEMORY_BOUND = 1,  /* intensity at or below the ridge */
  CAJETA_XPU_CLASS_COMPUTE_BOUND = 2, /* above it */
  CAJETA_XPU_CLASS_MAX_ENUM = 0x7fffffff
} cajeta_xpu_arithmetic_class;

/* Launches as a submission: the checks of cajeta_xpu_kernel_launch_shared, then the window: a
   submission whose window has closed is refused (CAJETA_XPU_DEADLINE_MISSED) and never runs late;
   the window is checked again when the kernel is dispatched to the device, and a miss found then
   is reported by the stream's sync. out (may be NULL) receives the resource descriptor: set its
   size first (a size that does not reach `compute_units`, the first version's last field, is
   refused with CAJETA_XPU_LAUNCH_ERROR before anything runs). */
CAJETA_XPU_API int cajeta_xpu_kernel_submit(cajeta_xpu_kernel* kernel,
                                            const cajeta_xpu_submission* submission,
                                            const uint32_t grid[3], const uint32_t block[3],
                                            uint32_t dynamic_shared_bytes,
                                            const cajeta_xpu_arg* args, size_t arg_count,
                                            cajeta_xpu_resource_descriptor* out);

/* ---- Calibration (spec 17.8): what a device measures, not what it declares. ------------- */
typedef struct cajeta_xpu_calibration cajeta_xpu_calibration; /* owned by the library */

/* Called between the measurement's steps: the fraction done (0 to 1) and the next step. */
typedef void (*cajeta_xpu_progress_fn)(void* user, double fraction, const char* step);

/* The device's calibration record: in memory, else the store's when its key (device, driver,
   measuring code, power mode) is the live one and its checksum holds, else measured now (a few
   seconds) and stored where the store is writable. device NULL: the default device. With
   measure_anew nonzero the device is measured now whatever is held. progress may be NULL. */
CAJETA_XPU_API int cajeta_xpu_device_calibration(cajeta_xpu_device* device, int measure_anew,
                                                 cajeta_xpu_progress_fn progress, void* user,
                                                 const cajeta_xpu_calibration** out);
/* A kernel's record on its program's device: its solo measurements (`cajeta calibrate
   <program>`: launches, solo-seconds, achieved-bandwidth, achieved-flops, intensity), built into
   the bundle (`cajeta build --with-calibration`) or in the store. CAJETA_XPU_NOT_FOUND when
   there is none; never measures. */
CAJETA_XPU_API int cajeta_xpu_kernel_calibration(cajeta_xpu_kernel* kernel,
                                                 const cajeta_xpu_calibration** out);
/* The facts every record names, in order ("fp32-fma-flops", "copy-bandwidth", ...). */
CAJETA_XPU_API size_t cajeta_xpu_calibration_fact_count(const cajeta_xpu_calibration* c);
CAJETA_XPU_API const char* cajeta_xpu_calibration_fact_name(const cajeta_xpu_calibration* c,
                                                            size_t index);
/* A measured fact's value; CAJETA_XPU_NOT_FOUND for an absent fact (its reason in
   cajeta_xpu_last_error) or an unknown name. */
CAJETA_XPU_API int cajeta_xpu_calibration_fact(const cajeta_xpu_calibration* c, const char* name,
                                               double* value);
/* Its unit ("B/s"), why it is absent ("" when measured), how it was measured; NULL for an
   unknown name. */
CAJETA_XPU_API const char* cajeta_xpu_calibration_fact_unit(const cajeta_xpu_calibration* c,
                                                            const char* name);
CAJETA_XPU_API const char* cajeta_xpu_calibration_fact_absent(const cajeta_xpu_calibration* c,
                                                              const char* name);
CAJETA_XPU_API const char* cajeta_xpu_calibration_fact_note(const cajeta_xpu_calibration* c,
                                                            const char* name);
/* Where the record came from ("measured now, stored in the user cache ..."), the record as a
   store holds it (JSON with its key and checksum), and how long measuring took. */
CAJETA_XPU_API const char* cajeta_xpu_calibration_source(const cajeta_xpu_calibration* c);
CAJETA_XPU_API const char* cajeta_xpu_calibration_text(const cajeta_xpu_calibration* c);
CAJETA_XPU_API double cajeta_xpu_calibration_measuring_seconds(const cajeta_xpu_calibration* c);

/* Where records go between processes. The default serves records from the user cache
   ($XDG_CACHE_HOME/cajeta/calibration, else ~/.cache/cajeta/calibration; never /tmp) and keeps
   them in memory when it is not writable. A store of one's own: each callback returns 0 on
   success; load returns 1 when it has nothing under the digest and otherwise sets *text to a
   malloc'd string the runtime frees; a negative return is a failure of the store, which is then
   reported once (with last_error's text, where given) and disabled for the process. release,
   when not NULL, is called when the runtime drops the store. */
typedef struct cajeta_xpu_calibration_store {
  void* user;
  int (*load)(void* user, const char* digest, char** text);
  int (*store)(void* user, const char* digest, const char* text);
  int (*writable)(void* user); /* 1 writable, 0 read-only, negative: failed */
  const char* (*last_error)(void* user);
  void (*release)(void* user);
} cajeta_xpu_calibration_store;

/* Replaces the store (NULL: none; records stay in memory). Only before the first record is
   read: afterwards CAJETA_XPU_ERROR, the store in use stays, and the one given is released at
   once. The struct is copied. */
CAJETA_XPU_API int
cajeta_xpu_scheduler_set_calibration_store(const cajeta_xpu_calibration_store* store);
/* 1 when the store can keep records. */
CAJETA_XPU_API int cajeta_xpu_calibration_store_writable(void);

#ifdef __cplusplus
}
#endif
#endif
