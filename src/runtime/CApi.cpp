// The C ABI entry points: argument checks, handle conversion, exceptions to status codes.
#include "cajeta/xpu/cajeta_xpu.h"

#include "runtime/CacheDirectory.h"
#include "runtime/Dispatcher.h"
#include "runtime/Handles.h"
#include "runtime/JitCompiler.h"
#include "runtime/LastError.h"
#include "runtime/Runtime.h"
#include "runtime/Stream.h"
#include "runtime/TrustedKeys.h"
#include "runtime/scheduler/Scheduler.h"
#include "runtime/scheduler/Submission.h"
#include "runtime/scheduler/Trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

using namespace cajeta::xpu::rt;
namespace bundle = cajeta::bundle;

static_assert(CAJETA_XPU_FLOAT64 == int(bundle::ScalarType::F64));
static_assert(CAJETA_XPU_BFLOAT16 == int(bundle::ScalarType::BF16));
static_assert(CAJETA_XPU_FLOAT16 == int(bundle::ScalarType::F16));
static_assert(CAJETA_XPU_UINT8 == int(bundle::ScalarType::U8));

namespace {

template <class T> void require(T* Ptr, const char* What, const char* Fn) {
  if (!Ptr)
    fail(CAJETA_XPU_ERROR, fmt::format("{}: {} must not be null", Fn, What));
}

Stream& streamOrCurrent(cajeta_xpu_stream* S) {
  return S ? *fromHandle(S) : Runtime::get().currentStream();
}

BackendDevice& deviceOrDefault(cajeta_xpu_device* D) {
  return D ? *fromHandle(D) : Dispatcher::defaultDevice();
}

int copy(cajeta_xpu_buffer* Buf, cajeta_xpu_stream* S, const void* Src, void* Dst, size_t Count,
         bool Write, bool Blocking, const char* Fn) {
  return guarded([&] {
    require(Buf, "buffer", Fn);
    if (Count)
      require(Write ? Src : static_cast<const void*>(Dst), Write ? "src" : "dst", Fn);
    // Without a stream: this thread's current stream of the buffer's own device.
    Stream& On = S ? *fromHandle(S) : Runtime::get().currentStream(Buf->Impl->device());
    const char* Operation = Write ? "upload" : "download";
    if (Write && Buf->Impl->isAccelerationStructure())
      fail(CAJETA_XPU_ERROR, "upload: the buffer of an acceleration structure is read-only; "
                             "build a new AccelerationStructure instead");
    Buf->Impl->checkNotBorrowedElsewhere(On, Operation);
    if (&Buf->Impl->device() != &On.device())
      fail(CAJETA_XPU_ERROR,
           fmt::format("{}: the buffer is on {} device '{}' but {} is on '{}'", Operation,
                       Buf->Impl->device().backendName(), Buf->Impl->device().name(), On.name(),
                       On.device().name()));
    size_t Have = Buf->Impl->count();
    if (Count > Have)
      fail(CAJETA_XPU_ERROR,
           fmt::format("{} of {} elements into a buffer of {} elements", Operation, Count, Have));
    Command C;
    C.What = Write ? Command::Kind::Write : Command::Kind::Read;
    C.Buf = Buf->Impl;
    C.Src = Src;
    C.Dst = Dst;
    C.Count = Count;
    C.Staged = !Blocking;
    uint64_t Seq = On.enqueue(std::move(C));
    if (Blocking)
      On.waitFor(Seq);
  });
}

} // namespace

extern "C" {

const char* cajeta_xpu_last_error(void) {
  return lastError();
}
const char* cajeta_xpu_last_diagnostics(void) {
  return lastDiagnostics();
}

// ---- Devices ----------------------------------------------------------------------------

size_t cajeta_xpu_device_count(void) {
  return Runtime::get().devices().size();
}

const char* cajeta_xpu_backend_unavailable_reason(const char* Backend) {
  if (!Backend)
    return nullptr;
  // The reasons are fixed once the runtime exists; keep one stable copy of each.
  static std::mutex Mutex;
  static std::map<std::string, std::string> Kept;
  std::string Why = Runtime::get().unavailableReason(Backend);
  if (Why.empty())
    return nullptr;
  std::lock_guard<std::mutex> Lock(Mutex);
  return Kept.emplace(Backend, Why).first->second.c_str();
}

cajeta_xpu_device* cajeta_xpu_device_get(size_t Index) {
  std::vector<BackendDevice*> All = Runtime::get().devices();
  return Index < All.size() ? toHandle(All[Index]) : nullptr;
}

int cajeta_xpu_device_default(cajeta_xpu_device** Out) {
  return guarded([&] {
    require(Out, "out", __func__);
    *Out = toHandle(&Dispatcher::defaultDevice());
  });
}

const char* cajeta_xpu_device_name(const cajeta_xpu_device* D) {
  return D ? fromHandle(D)->name().c_str() : "";
}
const char* cajeta_xpu_device_backend(const cajeta_xpu_device* D) {
  return D ? fromHandle(D)->backendName() : "";
}
unsigned cajeta_xpu_device_compute_units(const cajeta_xpu_device* D) {
  return D ? fromHandle(D)->computeUnits() : 0;
}
int cajeta_xpu_device_reserve(cajeta_xpu_device* D, unsigned Units, unsigned* Reserved) {
  return guarded([&] {
    require(D, "device", __func__);
    unsigned Got = fromHandle(D)->reserve(Units);
    if (Reserved)
      *Reserved = Got;
  });
}
unsigned cajeta_xpu_device_reserved_compute_units(const cajeta_xpu_device* D) {
  return D ? fromHandle(D)->reservedComputeUnits() : 0;
}
int cajeta_xpu_device_supports(const cajeta_xpu_device* D, cajeta_xpu_capability Capability) {
  if (!D || unsigned(Capability) >= unsigned(CAJETA_XPU_CAP_COUNT))
    return 0;
  return fromHandle(D)->supports(Capability) ? 1 : 0;
}

const char* cajeta_xpu_capability_name(cajeta_xpu_capability Capability) {
  static const char* const Names[] = {"wave-ops",
                                      "float16",
                                      "float64",
                                      "int64-atomics",
                                      "float-atomics",
                                      "shared-memory",
                                      "dynamic-shared-memory",
                                      "cooperative-matrix",
                                      "textures",
                                      "ray-query",
                                      "correctly-rounded-fma",
                                      "precise-transcendentals",
                                      "float32-denormals"};
  static_assert(sizeof(Names) / sizeof(Names[0]) == CAJETA_XPU_CAP_COUNT);
  if (unsigned(Capability) >= unsigned(CAJETA_XPU_CAP_COUNT))
    return "";
  return Names[Capability];
}

uint64_t cajeta_xpu_device_max_dynamic_shared_bytes(const cajeta_xpu_device* D) {
  return D ? fromHandle(D)->maxDynamicSharedBytes() : 0;
}

unsigned cajeta_xpu_device_max_workgroup_size(const cajeta_xpu_device* D) {
  return D ? fromHandle(D)->maxWorkgroupSize() : 0;
}

uint64_t cajeta_xpu_device_max_loop_iterations(const cajeta_xpu_device* D) {
  return D ? fromHandle(D)->maxLoopIterations() : 0;
}

int cajeta_xpu_device_runs_on_host_cpu(const cajeta_xpu_device* D) {
  return D && fromHandle(D)->runsOnHostCpu() ? 1 : 0;
}
int cajeta_xpu_device_concurrent_streams(const cajeta_xpu_device* D) {
  return D && fromHandle(D)->concurrentStreams() ? 1 : 0;
}
unsigned cajeta_xpu_device_wave_width(const cajeta_xpu_device* D) {
  return D ? fromHandle(D)->waveWidth() : 0;
}
const char* cajeta_xpu_device_matrix_shapes(const cajeta_xpu_device* D) {
  return D ? fromHandle(D)->matrixShapes().c_str() : "";
}
uint64_t cajeta_xpu_device_allocated_bytes(const cajeta_xpu_device* D) {
  return D ? fromHandle(D)->allocatedBytes() : 0;
}

// ---- Streams and events -----------------------------------------------------------------

int cajeta_xpu_stream_create(cajeta_xpu_device* D, cajeta_xpu_stream** Out) {
  return guarded([&] {
    require(Out, "out", __func__);
    *Out = toHandle(new Stream(deviceOrDefault(D), Stream::nextName()));
  });
}

int cajeta_xpu_stream_current(cajeta_xpu_stream** Out) {
  return guarded([&] {
    require(Out, "out", __func__);
    *Out = toHandle(&Runtime::get().currentStream());
  });
}

void cajeta_xpu_stream_destroy(cajeta_xpu_stream* S) {
  delete fromHandle(S);
}

int cajeta_xpu_stream_sync(cajeta_xpu_stream* S) {
  return guarded([&] {
    require(S, "stream", __func__);
    fromHandle(S)->sync();
  });
}

int cajeta_xpu_stream_end_chain(cajeta_xpu_stream* S) {
  return guarded([&] {
    require(S, "stream", __func__);
    fromHandle(S)->endChain();
  });
}

int cajeta_xpu_stream_device(cajeta_xpu_stream* S, cajeta_xpu_device** Out) {
  return guarded([&] {
    require(S, "stream", __func__);
    require(Out, "out", __func__);
    *Out = toHandle(&fromHandle(S)->device());
  });
}

const char* cajeta_xpu_stream_name(const cajeta_xpu_stream* S) {
  return S ? fromHandle(S)->name().c_str() : "";
}

int cajeta_xpu_stream_record(cajeta_xpu_stream* S, cajeta_xpu_event** Out) {
  return guarded([&] {
    require(S, "stream", __func__);
    require(Out, "out", __func__);
    auto Ev = std::make_shared<Event>();
    Command C;
    C.What = Command::Kind::Signal;
    C.Ev = Ev;
    fromHandle(S)->enqueue(std::move(C));
    *Out = new cajeta_xpu_event{std::move(Ev)};
  });
}

int cajeta_xpu_stream_wait(cajeta_xpu_stream* S, cajeta_xpu_event* E) {
  return guarded([&] {
    require(S, "stream", __func__);
    require(E, "event", __func__);
    Command C;
    C.What = Command::Kind::Wait;
    C.Ev = E->Impl;
    fromHandle(S)->enqueue(std::move(C));
  });
}

int cajeta_xpu_event_sync(cajeta_xpu_event* E) {
  return guarded([&] {
    require(E, "event", __func__);
    E->Impl->wait();
  });
}

int cajeta_xpu_event_done(const cajeta_xpu_event* E) {
  return E && E->Impl->done() ? 1 : 0;
}

void cajeta_xpu_event_destroy(cajeta_xpu_event* E) {
  delete E;
}

// ---- Buffers ----------------------------------------------------------------------------

int cajeta_xpu_buffer_create(cajeta_xpu_device* D, cajeta_xpu_scalar_type Type, size_t Count,
                             cajeta_xpu_buffer** Out) {
  return guarded([&] {
    require(Out, "out", __func__);
    if (unsigned(Type) > unsigned(CAJETA_XPU_BFLOAT16))
      fail(CAJETA_XPU_ERROR, fmt::format("{}: unknown element type {}", __func__, int(Type)));
    auto Buf = std::make_shared<Buffer>(deviceOrDefault(D), bundle::ScalarType(Type), Count);
    *Out = new cajeta_xpu_buffer{std::move(Buf)};
  });
}

void cajeta_xpu_buffer_destroy(cajeta_xpu_buffer* B) {
  delete B;
}

size_t cajeta_xpu_buffer_count(const cajeta_xpu_buffer* B) {
  return B ? B->Impl->count() : 0;
}

cajeta_xpu_scalar_type cajeta_xpu_buffer_type(const cajeta_xpu_buffer* B) {
  return B ? cajeta_xpu_scalar_type(B->Impl->type()) : CAJETA_XPU_BOOL;
}

cajeta_xpu_device* cajeta_xpu_buffer_device(const cajeta_xpu_buffer* B) {
  return B ? toHandle(&B->Impl->device()) : nullptr;
}

int cajeta_xpu_buffer_write(cajeta_xpu_buffer* B, cajeta_xpu_stream* S, const void* Src,
                            size_t Count) {
  return copy(B, S, Src, nullptr, Count, true, true, __func__);
}
int cajeta_xpu_buffer_read(cajeta_xpu_buffer* B, cajeta_xpu_stream* S, void* Dst, size_t Count) {
  return copy(B, S, nullptr, Dst, Count, false, true, __func__);
}
int cajeta_xpu_buffer_write_async(cajeta_xpu_buffer* B, cajeta_xpu_stream* S, const void* Src,
                                  size_t Count) {
  return copy(B, S, Src, nullptr, Count, true, false, __func__);
}
int cajeta_xpu_buffer_read_async(cajeta_xpu_buffer* B, cajeta_xpu_stream* S, void* Dst,
                                 size_t Count) {
  return copy(B, S, nullptr, Dst, Count, false, false, __func__);
}

int cajeta_xpu_buffer_resize(cajeta_xpu_buffer* B, size_t Count) {
  return guarded([&] {
    require(B, "buffer", __func__);
    if (B->Impl->isAccelerationStructure())
      fail(CAJETA_XPU_ERROR, "resize: the buffer of an acceleration structure is read-only; "
                             "build a new AccelerationStructure instead");
    Stream& On = Runtime::get().currentStream(B->Impl->device());
    B->Impl->checkNotBorrowedElsewhere(On, "resize");
    B->Impl->resize(Count, On);
  });
}

// ---- Scheduling -------------------------------------------------------------------------

int cajeta_xpu_scheduler_set_bypass(int Bypass) {
  return Scheduler::setBypass(Bypass != 0) ? 1 : 0;
}

int cajeta_xpu_scheduler_bypassed(void) {
  return Scheduler::bypassed() ? 1 : 0;
}

int cajeta_xpu_scheduler_set_reservation(int On) {
  return Scheduler::setReserving(On != 0) ? 1 : 0;
}

int cajeta_xpu_scheduler_reserving(void) {
  return Scheduler::reserving() ? 1 : 0;
}

int cajeta_xpu_scheduler_set_co_running(int Mode) {
  if (Mode < CAJETA_XPU_CORUN_OFF || Mode > CAJETA_XPU_CORUN_ALWAYS)
    return -1;
  return Scheduler::setCoRunning(Mode);
}

int cajeta_xpu_scheduler_co_running(void) {
  return Scheduler::coRunning();
}

int cajeta_xpu_trace_flush(void) {
  return guarded([&] {
    Trace* T = Trace::active();
    if (T && !T->flush())
      fail(CAJETA_XPU_ERROR, "cannot write the trace file named by CAJETA_XPU_TRACE");
  });
}

// ---- Programs and kernels ---------------------------------------------------------------

static JitOptions jitOptions(const cajeta_xpu_compile_options* O) {
  JitOptions J;
  if (!O)
    return J;
  // The fields up to `use_cache` are the first version; a larger size comes from a newer header.
  if (O->size < offsetof(cajeta_xpu_compile_options, use_cache) + sizeof(O->use_cache))
    fail(CAJETA_XPU_ERROR, fmt::format("compile options: size {} is too small: set it to "
                                       "sizeof(cajeta_xpu_compile_options) ({})",
                                       O->size, sizeof(cajeta_xpu_compile_options)));
  J.CheckBounds = O->check_bounds != 0;
  J.Cpu = O->cpu && *O->cpu ? O->cpu : "native";
  J.UseCache = O->use_cache != 0;
  return J;
}

static void publish(std::shared_ptr<LoadedProgram> P, cajeta_xpu_program** Out) {
  auto* H = new cajeta_xpu_program();
  H->Impl = std::move(P);
  *Out = H;
}

int cajeta_xpu_program_load_file(const char* Path, cajeta_xpu_program** Out) {
  return guarded([&] {
    require(Path, "path", __func__);
    require(Out, "out", __func__);
    publish(LoadedProgram::fromFile(Path), Out);
  });
}

int cajeta_xpu_program_load_file_on(const char* Path, cajeta_xpu_device* D,
                                    cajeta_xpu_program** Out) {
  return guarded([&] {
    require(Path, "path", __func__);
    require(D, "device", __func__);
    require(Out, "out", __func__);
    publish(LoadedProgram::fromFile(Path, fromHandle(D)), Out);
  });
}

int cajeta_xpu_program_compile_file_on(const char* Path, const cajeta_xpu_compile_options* O,
                                       cajeta_xpu_device* D, cajeta_xpu_program** Out) {
  return guarded([&] {
    require(Path, "path", __func__);
    require(D, "device", __func__);
    require(Out, "out", __func__);
    JitOptions J = jitOptions(O);
    J.Device = fromHandle(D);
    publish(JitCompiler::compileFile(Path, J), Out);
  });
}

int cajeta_xpu_program_load_memory(const void* Data, size_t Size, cajeta_xpu_program** Out) {
  return guarded([&] {
    require(Out, "out", __func__);
    publish(LoadedProgram::fromMemory(Data, Size, fmt::format("in memory ({} bytes)", Size)), Out);
  });
}

int cajeta_xpu_program_load_compiled(const void* Data, size_t Size, cajeta_xpu_program** Out) {
  return guarded([&] {
    require(Out, "out", __func__);
    publish(LoadedProgram::fromMemory(Data, Size,
                                      fmt::format("compiled in this process ({} bytes)", Size),
                                      nullptr, /*Verify=*/false),
            Out);
  });
}

int cajeta_xpu_program_compile_file(const char* Path, const cajeta_xpu_compile_options* O,
                                    cajeta_xpu_program** Out) {
  return guarded([&] {
    require(Path, "path", __func__);
    require(Out, "out", __func__);
    publish(JitCompiler::compileFile(Path, jitOptions(O)), Out);
  });
}

int cajeta_xpu_program_compile_source(const char* Source, size_t Length, const char* FileName,
                                      const cajeta_xpu_compile_options* O,
                                      cajeta_xpu_program** Out) {
  return guarded([&] {
    if (Length)
      require(Source, "source", __func__);
    require(Out, "out", __func__);
    std::string Text = Length ? std::string(Source, Length) : std::string();
    publish(JitCompiler::compile(Text, FileName ? FileName : "<source>", jitOptions(O)), Out);
  });
}

void cajeta_xpu_program_retain(cajeta_xpu_program* P) {
  if (P)
    P->Refs.fetch_add(1, std::memory_order_relaxed);
}

void cajeta_xpu_program_release(cajeta_xpu_program* P) {
  if (P && P->Refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
    delete P;
}

size_t cajeta_xpu_program_kernel_count(const cajeta_xpu_program* P) {
  return P ? P->Impl->kernels().size() : 0;
}

cajeta_xpu_kernel* cajeta_xpu_program_kernel_at(const cajeta_xpu_program* P, size_t Index) {
  if (!P || Index >= P->Impl->kernels().size())
    return nullptr;
  return toHandle(P->Impl->kernels()[Index].get());
}

int cajeta_xpu_program_kernel(const cajeta_xpu_program* P, const char* Name,
                              cajeta_xpu_kernel** Out) {
  return guarded([&] {
    require(P, "program", __func__);
    require(Name, "name", __func__);
    require(Out, "out", __func__);
    *Out = toHandle(&P->Impl->kernel(Name));
  });
}

cajeta_xpu_device* cajeta_xpu_program_device(const cajeta_xpu_program* P) {
  return P ? toHandle(&P->Impl->device()) : nullptr;
}

int cajeta_xpu_program_from_cache(const cajeta_xpu_program* P) {
  return P && P->Impl->fromCache() ? 1 : 0;
}

const char* cajeta_xpu_kernel_name(const cajeta_xpu_kernel* K) {
  return K ? fromHandle(K)->name().c_str() : "";
}

const char* cajeta_xpu_kernel_tier(const cajeta_xpu_kernel* K, const char* Feature) {
  const bundle::TargetManifest* M = K ? fromHandle(K)->manifest() : nullptr;
  if (!M || !Feature)
    return "";
  if (std::string_view(Feature) == "tiles")
    return M->TileTier.c_str();
  if (std::string_view(Feature) == "waves")
    return M->WaveTier.c_str();
  if (std::string_view(Feature) == "wgmma") // the sm_90a products (TargetManifest::TileWgmma)
    return M->TileWgmma ? "native" : "";
  return "";
}

int cajeta_xpu_kernel_footprint_get(const cajeta_xpu_kernel* K, cajeta_xpu_kernel_footprint* Out) {
  return guarded([&] {
    require(K, "kernel", __func__);
    require(Out, "out", __func__);
    const KernelFootprint& F = fromHandle(K)->footprint();
    *Out = cajeta_xpu_kernel_footprint{F.Registers, F.LocalBytes, F.SharedBytes, F.MaxThreads};
  });
}

int cajeta_xpu_trust_key_file(const char* Path) {
  return guarded([&] {
    require(Path, "path", __func__);
    TrustedKeys::addFile(Path);
  });
}

int cajeta_xpu_trusted_key_count(size_t* Out) {
  return guarded([&] {
    require(Out, "out", __func__);
    *Out = TrustedKeys::current().size();
  });
}

const char* cajeta_xpu_jit_cache_dir(void) {
  thread_local std::string Dir;
  Dir = jitCacheDirectory();
  return Dir.c_str();
}

// ---- Launch -----------------------------------------------------------------------------

int cajeta_xpu_kernel_launch(cajeta_xpu_kernel* K, cajeta_xpu_stream* S, const uint32_t Grid[3],
                             const uint32_t Block[3], const cajeta_xpu_arg* Args, size_t Count) {
  return guarded([&] {
    require(K, "kernel", __func__);
    fromHandle(K)->launch(streamOrCurrent(S), Grid, Block, 0, Args, Count, Submission{});
  });
}

int cajeta_xpu_kernel_launch_shared(cajeta_xpu_kernel* K, cajeta_xpu_stream* S,
                                    const uint32_t Grid[3], const uint32_t Block[3],
                                    uint32_t DynamicSharedBytes, const cajeta_xpu_arg* Args,
                                    size_t Count) {
  return guarded([&] {
    require(K, "kernel", __func__);
    fromHandle(K)->launch(streamOrCurrent(S), Grid, Block, DynamicSharedBytes, Args, Count,
                          Submission{});
  });
}

uint64_t cajeta_xpu_now_ns(void) {
  return monotonicNowNs();
}

int cajeta_xpu_kernel_submit(cajeta_xpu_kernel* K, const cajeta_xpu_submission* Sub,
                             const uint32_t Grid[3], const uint32_t Block[3],
                             uint32_t DynamicSharedBytes, const cajeta_xpu_arg* Args, size_t Count,
                             cajeta_xpu_resource_descriptor* Out) {
  return guarded([&] {
    require(K, "kernel", __func__);
    require(Sub, "submission", __func__);
    const Kernel& Impl = *fromHandle(K);
    Stream& S = streamOrCurrent(Sub->size >= sizeof(cajeta_xpu_submission) ? Sub->stream : nullptr);
    Submission Checked = Submission::fromC(*Sub, S.device(), Impl.name().c_str());
    // The fields up to `compute_units` are the first version; a larger size comes from a newer
    // header, a smaller one gets no byte past it.
    const uint32_t OutSize = Out ? Out->size : 0;
    if (Out && OutSize < offsetof(cajeta_xpu_resource_descriptor, compute_units) +
                             sizeof(Out->compute_units))
      fail(CAJETA_XPU_LAUNCH_ERROR,
           fmt::format("cajeta_xpu_kernel_submit: the resource descriptor's size {} is too small: "
                       "set it to sizeof(cajeta_xpu_resource_descriptor) ({})",
                       OutSize, sizeof(cajeta_xpu_resource_descriptor)));
    thread_local std::vector<cajeta_xpu_buffer_access> Accesses;
    cajeta_xpu_resource_descriptor Described{};
    Impl.launch(S, Grid, Block, DynamicSharedBytes, Args, Count, Checked,
                Out ? &Described : nullptr, &Accesses);
    if (Out) {
      Described.size = OutSize;
      std::memcpy(Out, &Described, std::min<size_t>(OutSize, sizeof(Described)));
    }
  });
}

} // extern "C"
