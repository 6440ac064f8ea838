// Kernel launch: argument checks against the manifest, marshalling, borrowing and enqueue.
#include "runtime/Kernel.h"

#include "runtime/calibration/LaunchRecorder.h"

#include "runtime/Buffer.h"
#include "runtime/Handles.h"
#include "runtime/LoadedProgram.h"
#include "runtime/RuntimeError.h"
#include "runtime/Stream.h"
#include "runtime/scheduler/CoRunAdmission.h"
#include "runtime/scheduler/DispatchGate.h"
#include "runtime/scheduler/ResourceDescriptor.h"
#include "runtime/scheduler/Scheduler.h"
#include "runtime/scheduler/Submission.h"

#include "bundle/CpuKernelAbi.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cajeta::xpu::rt {

static uint64_t scalarMask(bundle::ScalarType T) {
  unsigned Bytes = bundle::scalarTypeSize(T);
  return Bytes >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * Bytes)) - 1;
}

static bool isIntegerType(uint32_t Type) {
  switch (Type) {
  case CAJETA_XPU_INT8:
  case CAJETA_XPU_INT16:
  case CAJETA_XPU_INT32:
  case CAJETA_XPU_INT64:
  case CAJETA_XPU_UINT8:
  case CAJETA_XPU_UINT16:
  case CAJETA_XPU_UINT32:
  case CAJETA_XPU_UINT64:
    return true;
  default:
    return false;
  }
}

/// An integer argument's value as the C++ side passed it: negative only for a signed type.
static __int128 integerValue(const cajeta_xpu_arg& A) {
  uint64_t B = A.value.bits;
  switch (A.type) {
  case CAJETA_XPU_INT8:
    return int8_t(B);
  case CAJETA_XPU_INT16:
    return int16_t(B);
  case CAJETA_XPU_INT32:
    return int32_t(B);
  case CAJETA_XPU_INT64:
    return int64_t(B);
  case CAJETA_XPU_UINT8:
    return uint8_t(B);
  case CAJETA_XPU_UINT16:
    return uint16_t(B);
  case CAJETA_XPU_UINT32:
    return uint32_t(B);
  default:
    return B;
  }
}

static bool isSignedInteger(bundle::ScalarType T) {
  return T == bundle::ScalarType::I8 || T == bundle::ScalarType::I16 ||
         T == bundle::ScalarType::I32 || T == bundle::ScalarType::I64;
}

/// Whether V is a value of the integer type T.
static bool fitsInteger(__int128 V, bundle::ScalarType T) {
  unsigned Bits = 8 * bundle::scalarTypeSize(T);
  bool Signed = isSignedInteger(T);
  __int128 Lo = Signed ? -(__int128(1) << (Bits - 1)) : 0;
  __int128 Hi = Signed ? (__int128(1) << (Bits - 1)) - 1 : (__int128(1) << Bits) - 1;
  return V >= Lo && V <= Hi;
}

static const char* cTypeName(uint32_t Type) {
  if (Type > uint32_t(bundle::ScalarType::BF16))
    return "an unknown scalar type";
  return bundle::scalarTypeName(static_cast<bundle::ScalarType>(Type));
}

static const char* cKindName(uint32_t Kind) {
  switch (Kind) {
  case CAJETA_XPU_ARG_BUFFER:
    return "a buffer";
  case CAJETA_XPU_ARG_SCALAR:
    return "a scalar";
  case CAJETA_XPU_ARG_POD:
    return "a POD";
  case CAJETA_XPU_ARG_FUNCTION:
    return "a device function";
  case CAJETA_XPU_ARG_ACCEL:
    return "an AccelerationStructure";
  default:
    return "an argument of unknown kind";
  }
}

Kernel::Kernel(const LoadedProgram& Program, const bundle::KernelInfo& Info, const void* Entry,
               KernelFootprint Footprint)
    : Program(Program), Info(Info), Entry(Entry), Footprint(Footprint) {
  Slots.reserve(Info.Params.size());
  for (size_t I = 0; I != Info.Params.size(); ++I) {
    const bundle::ParamInfo& P = Info.Params[I];
    Slot S{P.Kind, P.Type, scalarMask(P.Type), 0, P.Accel && P.Kind == bundle::ParamKind::Buffer};
    if (P.Kind == bundle::ParamKind::Pod) {
      size_t Align = std::max<size_t>(1, P.PodAlign);
      PodBytes = (PodBytes + Align - 1) / Align * Align;
      S.PodOffset = uint32_t(PodBytes);
      PodBytes += P.PodSize;
      PodSlots.push_back(I);
    }
    Slots.push_back(S);
  }
}

std::string Kernel::argLabel(size_t Index) const {
  return fmt::format("argument {} ('{}')", Index + 1, Info.Params[Index].Name);
}

void Kernel::launchError(const std::string& Message) const {
  fail(CAJETA_XPU_LAUNCH_ERROR, fmt::format("{}: {}", Info.Name, Message));
}

void Kernel::checkGeometry(const BackendDevice& Device, const uint32_t Grid[3],
                           const uint32_t Block[3], uint32_t DynamicSharedBytes) const {
  if (DynamicSharedBytes && !Info.DynamicShared)
    launchError(fmt::format("asks for {} bytes of dynamic shared memory but the kernel has no "
                            "dynamic shared array",
                            DynamicSharedBytes));
  if (DynamicSharedBytes > Device.maxDynamicSharedBytes())
    launchError(fmt::format("asks for {} bytes of dynamic shared memory; the {} device '{}' allows "
                            "at most {} per workgroup",
                            DynamicSharedBytes, Device.backendName(), Device.name(),
                            Device.maxDynamicSharedBytes()));
  if (!Grid[0] || !Grid[1] || !Grid[2])
    launchError(fmt::format("grid ({}, {}, {}) has a zero dimension", Grid[0], Grid[1], Grid[2]));
  if (!Block[0] || !Block[1] || !Block[2])
    launchError(
        fmt::format("block ({}, {}, {}) has a zero dimension", Block[0], Block[1], Block[2]));
  uint64_t Items = uint64_t(Block[0]) * Block[1];
  if (Items > Device.maxWorkgroupSize() || Items * Block[2] > Device.maxWorkgroupSize())
    launchError(fmt::format("block ({}, {}, {}) has more work-items than the {} device '{}' "
                            "allows in a workgroup ({})",
                            Block[0], Block[1], Block[2], Device.backendName(), Device.name(),
                            Device.maxWorkgroupSize()));
  if (Footprint.MaxThreads && Items * Block[2] > Footprint.MaxThreads)
    launchError(fmt::format("block ({}, {}, {}) has {} work-items but the kernel's code allows at "
                            "most {} per workgroup on the {} device '{}' (max threads per block "
                            "of the loaded code: {} registers per thread, {} static shared bytes)",
                            Block[0], Block[1], Block[2], Items * Block[2], Footprint.MaxThreads,
                            Device.backendName(), Device.name(), Footprint.Registers,
                            Footprint.SharedBytes));
  if (Info.UsesWave && !Footprint.WaveWidth)
    launchError(fmt::format("uses wave operations, which the {} device '{}' lacks (capability "
                            "wave-ops)",
                            Device.backendName(), Device.name()));
  if (Footprint.WaveWidth && (Items * Block[2]) % Footprint.WaveWidth)
    launchError(fmt::format("uses wave operations, so its workgroup size must be a multiple of the "
                            "wave width {} on the {} device '{}'; block ({}, {}, {}) has {} "
                            "work-items",
                            Footprint.WaveWidth, Device.backendName(), Device.name(), Block[0],
                            Block[1], Block[2], Items * Block[2]));
  if (Footprint.WavesInRows && Footprint.WaveWidth && Block[0] % Footprint.WaveWidth)
    launchError(fmt::format("uses wave operations, and the {} device '{}' starts a wave at each "
                            "row of a workgroup, so the workgroup's x size must be a multiple of "
                            "the wave width {}; block ({}, {}, {}) has rows of {} (or compile with "
                            "CAJETA_GPU_WAVE_IMPL=software)",
                            Device.backendName(), Device.name(), Footprint.WaveWidth, Block[0],
                            Block[1], Block[2], Block[0]));
  uint64_t Groups = uint64_t(Grid[0]) * Grid[1];
  if (__builtin_mul_overflow(Groups, uint64_t(Grid[2]), &Groups))
    launchError(
        fmt::format("grid ({}, {}, {}) has more than 2^64 workgroups", Grid[0], Grid[1], Grid[2]));
}

void Kernel::marshalScalar(size_t I, const cajeta_xpu_arg& Got, MarshalledArg& Out) const {
  const Slot& Want = Slots[I];
  const char* WantType = bundle::scalarTypeName(Want.Type);
  if (Got.kind != CAJETA_XPU_ARG_SCALAR)
    launchError(fmt::format("{} expects {}, got {}", argLabel(I), WantType, cKindName(Got.kind)));
  Out.Length = 0;
  if (Got.type != uint32_t(Want.Type)) {
    // Between integer types, a value the parameter's type holds is taken as it is (a literal 4
    // for a uint32 parameter is an int on the C++ side); anything else is refused.
    bool Integers = isIntegerType(Got.type) && isIntegerType(uint32_t(Want.Type));
    if (!Integers)
      launchError(fmt::format("{} expects {}, got {}", argLabel(I), WantType, cTypeName(Got.type)));
    __int128 V = integerValue(Got);
    if (!fitsInteger(V, Want.Type))
      launchError(fmt::format(
          "{} expects {}; the {} value {} does not fit", argLabel(I), WantType, cTypeName(Got.type),
          V < 0 ? fmt::format("-{}", uint64_t(-V)) : fmt::format("{}", uint64_t(V))));
    Out.Bits = uint64_t(V) & Want.Mask;
    return;
  }
  Out.Bits = Want.Type == bundle::ScalarType::Bool ? uint64_t(Got.value.bits != 0)
                                                   : Got.value.bits & Want.Mask;
}

void Kernel::marshalPod(size_t I, const cajeta_xpu_arg& Got, uint8_t* PodBase,
                        MarshalledArg& Out) const {
  const bundle::ParamInfo& P = Info.Params[I];
  if (Got.kind != CAJETA_XPU_ARG_POD)
    launchError(fmt::format("{} expects the POD {}, got {}", argLabel(I), P.PodName,
                            Got.kind == CAJETA_XPU_ARG_SCALAR
                                ? fmt::format("a scalar {}", cTypeName(Got.type))
                                : std::string(cKindName(Got.kind))));
  if (Got.value.pod.size != P.PodSize)
    launchError(fmt::format("{} expects the POD {} of {} bytes, got {} bytes", argLabel(I),
                            P.PodName, P.PodSize, Got.value.pod.size));
  if (!Got.value.pod.data)
    launchError(fmt::format("{} is a null POD", argLabel(I)));
  std::memcpy(PodBase + Slots[I].PodOffset, Got.value.pod.data, P.PodSize);
  Out.Ptr = nullptr; // bound when the launch runs: a command's storage moves until then
  Out.Length = P.PodSize;
}

void Kernel::marshalFunction(size_t I, const cajeta_xpu_arg& Got, MarshalledArg& Out) const {
  const std::vector<std::string>& Table = Info.Params[I].FunctionTable;
  Out.Length = 0;
  if (Got.kind == CAJETA_XPU_ARG_SCALAR && Got.type == CAJETA_XPU_UINT32) {
    Out.Bits = Got.value.bits & 0xffffffffu; // a raw tag; out of range is the defined no-op
    return;
  }
  if (Got.kind != CAJETA_XPU_ARG_FUNCTION)
    launchError(fmt::format("{} expects a device function (one of: {}) or a uint32 tag, got {}",
                            argLabel(I), fmt::join(Table, ", "),
                            Got.kind == CAJETA_XPU_ARG_SCALAR
                                ? fmt::format("a scalar {}", cTypeName(Got.type))
                                : std::string(cKindName(Got.kind))));
  if (!Got.value.function)
    launchError(fmt::format("{} is a null device function name", argLabel(I)));
  for (size_t T = 0; T != Table.size(); ++T)
    if (Table[T] == Got.value.function) {
      Out.Bits = T;
      return;
    }
  launchError(fmt::format("{}: '{}' is not a device function this parameter can take (its "
                          "table: {})",
                          argLabel(I), Got.value.function,
                          Table.empty() ? std::string("empty")
                                        : fmt::format("{}", fmt::join(Table, ", "))));
}

const std::shared_ptr<Buffer>& Kernel::bufferArg(size_t I, const cajeta_xpu_arg& Got) const {
  const Slot& Want = Slots[I];
  const char* WantType = bundle::scalarTypeName(Want.Type);
  auto What = [&] {
    if (Got.kind == CAJETA_XPU_ARG_SCALAR)
      return fmt::format("a scalar {}", cTypeName(Got.type));
    if (Got.kind == CAJETA_XPU_ARG_BUFFER && Got.value.buffer && Got.value.buffer->Impl)
      return fmt::format("a buffer of {}", bundle::scalarTypeName(Got.value.buffer->Impl->type()));
    return std::string(cKindName(Got.kind));
  };
  if (Want.Accel && Got.kind != CAJETA_XPU_ARG_ACCEL)
    launchError(fmt::format("{} expects an AccelerationStructure, got {}", argLabel(I), What()));
  if (!Want.Accel && Got.kind != CAJETA_XPU_ARG_BUFFER)
    launchError(fmt::format("{} expects a buffer of {}, got {}", argLabel(I), WantType, What()));
  if (!Got.value.buffer || !Got.value.buffer->Impl)
    launchError(fmt::format("{} is a null {}", argLabel(I),
                            Want.Accel ? "AccelerationStructure" : "buffer"));
  const std::shared_ptr<Buffer>& Buf = Got.value.buffer->Impl;
  if (Want.Accel) {
    // Only a built scene: a hand-made uint32 buffer would send the traversal anywhere.
    if (!Buf->isAccelerationStructure())
      launchError(fmt::format("{} expects an AccelerationStructure, got a buffer that is not the "
                              "buffer of one (pass cajeta_xpu_accel_buffer)",
                              argLabel(I)));
    return Buf;
  }
  if (Buf->type() != Want.Type)
    launchError(fmt::format("{} expects a buffer of {}, got a buffer of {}", argLabel(I), WantType,
                            bundle::scalarTypeName(Buf->type())));
  return Buf;
}

void Kernel::marshalArgs(const cajeta_xpu_arg* Args, size_t Count, MarshalledArg* Out,
                         uint8_t* PodBase, std::shared_ptr<Buffer>* Buffers) const {
  BackendDevice& Device = Program.device();
  for (size_t I = 0; I != Count; ++I) {
    const Slot& Want = Slots[I];
    const cajeta_xpu_arg& Got = Args[I];
    if (Want.Kind == bundle::ParamKind::Pod) {
      marshalPod(I, Got, PodBase, Out[I]);
      continue;
    }
    if (Want.Kind == bundle::ParamKind::Function) {
      marshalFunction(I, Got, Out[I]);
      continue;
    }
    if (Want.Kind == bundle::ParamKind::Buffer) {
      const std::shared_ptr<Buffer>& Buf = bufferArg(I, Got);
      if (&Buf->device() != &Device)
        launchError(fmt::format("{} is {} on {} device '{}', not on the launch's {} device '{}'",
                                argLabel(I), Want.Accel ? "an AccelerationStructure" : "a buffer",
                                Buf->device().backendName(), Buf->device().name(),
                                Device.backendName(), Device.name()));
      Buffers[I] = Buf;
      Out[I].Ptr = nullptr; // filled in when the launch runs
      Out[I].Length = 0;
      continue;
    }
    marshalScalar(I, Got, Out[I]);
  }
}

namespace {
constexpr size_t InlineCount = 12;     // arguments marshalled on the stack
constexpr size_t InlinePodBytes = 256; // POD bytes marshalled on the stack
constexpr size_t PodAlignment = 64;    // the most a POD may need (ManifestJson checks)
} // namespace

void Kernel::enqueueOn(Stream& S, const LaunchGeometry& Geometry, const cajeta_xpu_arg* Args,
                       size_t Count, const Submission& Sub) const {
  // Everything on the stack: a launch allocates nothing in the common case.
  std::array<MarshalledArg, InlineCount> SmallArgs;
  std::array<std::shared_ptr<Buffer>, InlineCount> SmallBuffers;
  alignas(PodAlignment) std::array<uint8_t, InlinePodBytes> SmallPods;
  std::vector<MarshalledArg> LargeArgs;
  std::vector<std::shared_ptr<Buffer>> LargeBuffers;
  std::vector<uint8_t> LargePods;
  MarshalledArg* Out = SmallArgs.data();
  std::shared_ptr<Buffer>* Buffers = SmallBuffers.data();
  uint8_t* Pods = SmallPods.data();
  if (Count > InlineCount) {
    LargeArgs.resize(Count);
    LargeBuffers.resize(Count);
    Out = LargeArgs.data();
    Buffers = LargeBuffers.data();
  }
  if (PodBytes > InlinePodBytes) {
    LargePods.resize(PodBytes + PodAlignment);
    auto Base = reinterpret_cast<uintptr_t>(LargePods.data());
    Pods = LargePods.data() + ((PodAlignment - Base % PodAlignment) % PodAlignment);
  }
  marshalArgs(Args, Count, Out, Pods, Buffers);
  for (size_t I : PodSlots)
    Out[I].Ptr = Pods + Slots[I].PodOffset;
  S.launch(*this, Program, Out, Buffers, Count, Geometry, Sub);
}

namespace {

/// The units an energy launch runs on (RightSizing): 0 for the whole device. Only a grid of more
/// workgroups than the device has units needs the launch's class, which needs the device's
/// calibration record.
unsigned rightSize(const Kernel& K, const cajeta_xpu_arg* Args, const LaunchGeometry& Geometry) {
  BackendDevice& Device = K.program().device();
  uint64_t Groups = uint64_t(Geometry.Grid[0]) * Geometry.Grid[1] * Geometry.Grid[2];
  WorkClass Class = Groups > Device.computeUnits()
                        ? CoRunAdmission::of(Device).classify(K, Args, Geometry)
                        : WorkClass::Unknown;
  return rightSizedUnits(Groups, Device.computeUnits(), Device.sliceGranularity(), Class);
}

/// Latency and frameBudget submissions start ahead of waiting work and run on the device's
/// reserved compute units (made by the first of them); while a reservation exists the other
/// submissions keep off it. Bypassed, every launch is the raw one.
void placeByPolicy(const Kernel& K, const Stream& S, const cajeta_xpu_arg* Args,
                   const Submission& Sub, LaunchGeometry& Geometry) {
  BackendDevice& Device = K.program().device();
  if (Scheduler::bypassed())
    return;
  bool LatencyClass =
      Sub.Policy == CAJETA_XPU_POLICY_LATENCY || Sub.Policy == CAJETA_XPU_POLICY_FRAME_BUDGET;
  Geometry.Urgent = LatencyClass;
  if (!Scheduler::reserving() || Sub.CaptureId)
    return; // a chain is replayed whole on the device's primary stream
  using Part = LaunchGeometry::Part;
  if (LatencyClass) {
    Geometry.Partition = Part::Reserved;
    Geometry.ReserveUnits = Sub.ComputeUnits;
  } else if (Device.reservedComputeUnits()) {
    Geometry.Partition = Part::Remainder; // no slices beside a reservation
  } else if (Device.sliceGranularity()) {
    if (Sub.ComputeUnits && Sub.ComputeUnits < Device.computeUnits()) {
      Geometry.Partition = Part::Slice; // a throughput submission's budget
      Geometry.SliceUnits = Sub.ComputeUnits;
    } else if (!LaunchRecorder::active()) { // `cajeta calibrate` times launches alone
      if (Sub.Policy == CAJETA_XPU_POLICY_ENERGY)
        if (unsigned Units = rightSize(K, Args, Geometry)) {
          Geometry.Partition = Part::Slice;
          Geometry.SliceUnits = Units;
          return;
        }
      CoRunAdmission::of(Device).place(&S, K, Args, Geometry);
    }
  }
}

} // namespace

void Kernel::launch(Stream& S, const uint32_t Grid[3], const uint32_t Block[3],
                    uint32_t DynamicSharedBytes, const cajeta_xpu_arg* Args, size_t Count,
                    const Submission& Sub, cajeta_xpu_resource_descriptor* Described,
                    std::vector<cajeta_xpu_buffer_access>* Accesses) const {
  BackendDevice& Device = Program.device();
  if (!Entry && !MissingTarget.empty())
    fail(CAJETA_XPU_LAUNCH_ERROR,
         fmt::format("{} has no code in its bundle for target '{}' ({} device '{}'): a kernel "
                     "that exceeds a target's limits gets none, and `cajeta build` warns which",
                     Info.Name, MissingTarget, Device.backendName(), Device.name()));
  if (!Entry)
    fail(CAJETA_XPU_LAUNCH_ERROR,
         fmt::format("{} is restricted to @Backend({}) and has no code for {}", Info.Name,
                     fmt::join(Info.Backends, ", "), Device.backendName()));
  if (&S.device() != &Device)
    launchError(fmt::format("{} is on {} device '{}' but the program is loaded on {} device '{}'",
                            S.name(), S.device().backendName(), S.device().name(),
                            Device.backendName(), Device.name()));
  if (!Grid || !Block)
    launchError("grid and block must not be null");
  checkGeometry(Device, Grid, Block, DynamicSharedBytes);
  // A swizzled dynamic array takes whole rows (TargetManifest::DynamicSharedGranule); every
  // device's limit is a multiple of them.
  if (uint32_t Granule = Manifest ? Manifest->DynamicSharedGranule : 0; Granule > 1)
    DynamicSharedBytes = (DynamicSharedBytes + Granule - 1) / Granule * Granule;
  // Static arrays the code keeps at the start of the dynamic shared memory come first.
  if (uint32_t Prefix = Manifest ? Manifest->DynamicSharedPrefix : 0) {
    if (uint64_t(Prefix) + DynamicSharedBytes > Device.maxDynamicSharedBytes())
      launchError(fmt::format("its {} bytes of static shared arrays and the launch's {} dynamic "
                              "ones pass the {} bytes a workgroup has on the {} device '{}'",
                              Prefix, DynamicSharedBytes, Device.maxDynamicSharedBytes(),
                              Device.backendName(), Device.name()));
    DynamicSharedBytes += Prefix;
  }
  if (Count != Slots.size())
    launchError(fmt::format("expects {} argument{}, got {}", Slots.size(),
                            Slots.size() == 1 ? "" : "s", Count));
  if (Count && !Args)
    launchError("the argument array is null");

  LaunchGeometry Geometry{
      {Grid[0], Grid[1], Grid[2]}, {Block[0], Block[1], Block[2]}, DynamicSharedBytes};
  Geometry.StaticSharedBytes = Footprint.SharedBytes;
  placeByPolicy(*this, S, Args, Sub, Geometry);
  // A chain member's window is checked when its chain is dispatched, all or nothing.
  if (Sub.LatestNs && !Sub.CaptureId)
    DispatchGate({Sub.EarliestNs, Sub.LatestNs}, Info.Name).refuseIfClosed("at submit");
  if (LaunchRecorder* Recorder = LaunchRecorder::active())
    Recorder->around(*this, S, Geometry, Args, Count, Sub,
                     [&] { enqueueOn(S, Geometry, Args, Count, Sub); });
  else
    enqueueOn(S, Geometry, Args, Count, Sub);
  if (Described && Accesses)
    describeSubmission(*this, Args, Count, Geometry, Sub, *Accesses, *Described);
}

namespace {

/// `CAJETA_GPU_QUADS=0` turns the quad entries off (for A/B measurements).
bool quadsWanted() {
  static const bool Wanted = [] {
    const char* V = std::getenv("CAJETA_GPU_QUADS");
    return !(V && std::string(V) == "0");
  }();
  return Wanted;
}

/// `CAJETA_GPU_TMA=0` turns the TMA entries off (for A/B measurements).
bool tmaWanted() {
  static const bool Wanted = [] {
    const char* V = std::getenv("CAJETA_GPU_TMA");
    return !(V && std::string(V) == "0");
  }();
  return Wanted;
}

} // namespace

const void* Kernel::entryFor(const MarshalledArg* Args, LaunchGeometry& G) const {
  const void* Chosen = codeEntryFor(Args, G);
  return Chosen == Entry && TmaEntry && tmaWanted() ? TmaEntry : Chosen;
}

const void* Kernel::codeEntryFor(const MarshalledArg* Args, LaunchGeometry& G) const {
  G.GroupShapeFree = Manifest && Manifest->GroupShapeFree;
  G.GroupLoops = Manifest && Manifest->GroupLoops;
  uint64_t GroupItems = uint64_t(G.Block[0]) * G.Block[1] * G.Block[2];
  if (QuadEntry && quadsWanted() && (!QuadMaxThreads || GroupItems <= QuadMaxThreads)) {
    // Four work-items per work-item where none past the launch's x had anything to do (the
    // guard's count is within it); the indices 4t + 3 then stay below 2^31 + 4 * block, and
    // below 2^31 where the count is signed (an int32 index of 2^31 would compare negative). A
    // negative signed count reads as more than 2^31 here: the plain entry.
    uint64_t Count = uint32_t(Args[QuadCountParam].Bits);
    uint64_t SizeX = uint64_t(G.Grid[0]) * G.Block[0];
    bool IndicesFit = !QuadSigned || Count + 4 * uint64_t(G.Block[0]) <= 0x80000000u;
    if (Count && Count <= SizeX && SizeX <= 0x7fffffffu && G.Block[0] && IndicesFit) {
      uint64_t Quads =
          (Count + bundle::TargetManifest::QuadWidth - 1) / bundle::TargetManifest::QuadWidth;
      G.Grid[0] = uint32_t((Quads + G.Block[0] - 1) / G.Block[0]);
      return QuadEntry;
    }
    // The grid-stride form on the launch's grid: quads 4 * SizeX apart, no index wrapping.
    if (QuadAnyGrid && Count > SizeX && Count + 4 * SizeX <= 0x100000000u)
      return QuadEntry;
    return Entry;
  }
  if (!StepEntry)
    return Entry;
  uint64_t Count = Args[StepCountParam].Bits;
  // One step or none per work-item: the loop strides by the grid's size in x (at most 2^31, so
  // no 32-bit index wraps past the count on its second step).
  uint64_t SizeX = uint64_t(G.Grid[0]) * G.Block[0];
  if (OnceEntry && Count <= SizeX && SizeX <= 0x7fffffffu)
    return OnceEntry;
  // Steps that depend on their index alone: as many work-items as steps, one step each. (A
  // signed count's sign bit makes it too large here: a negative count keeps the walk.)
  if (OnceEntry && OnceAnyGrid && Count > SizeX && G.Block[0] &&
      Count <= 0x7fffffffu - G.Block[0]) {
    G.Grid[0] = uint32_t((Count + G.Block[0] - 1) / G.Block[0]);
    return OnceEntry;
  }
  uint64_t Items = SizeX * G.Grid[1] * G.Grid[2] * G.Block[1] * G.Block[2];
  if (Count <= Items)
    return Entry;
  // For a count of 32 or 64 bits the step entry bounds a group's steps by its first work-item's
  // count and guards each with i < count: exact while no i can pass the top of the count's type
  // (count + the grid's size in x within it). A negative signed count has nothing to step. (A
  // narrower count keeps the break form, exact on any grid.)
  bundle::ScalarType T = Info.Params[StepCountParam].Type;
  unsigned Bits = 8 * bundle::scalarTypeSize(T);
  if (Bits < 32)
    return StepEntry;
  bool Signed = isSignedInteger(T);
  if (Signed && ((Count >> (Bits - 1)) & 1))
    return Entry;
  unsigned __int128 Top = (unsigned __int128)1 << (Signed ? Bits - 1 : Bits);
  return (unsigned __int128)Count + SizeX <= Top ? StepEntry : Entry;
}

std::string Kernel::describeFailure(const KernelFailure& Failure) const {
  if (Failure.DeadlineMissed && Failure.Index > 1) // a chain, dropped whole
    return fmt::format("{} (the first of a chain of {} launches: none was run)",
                       DispatchGate::missedMessage(Info.Name, Failure.MissedByNs, "at dispatch"),
                       Failure.Index);
  if (Failure.DeadlineMissed)
    return DispatchGate::missedMessage(Info.Name, Failure.MissedByNs, "at dispatch");
  if (Failure.Param & CAJETA_CPU_SHARED_PARAM_BIT) {
    uint32_t Array = Failure.Param & ~CAJETA_CPU_SHARED_PARAM_BIT;
    std::string Which = Array < Info.SharedArrays.size()
                            ? fmt::format("shared array '{}'", Info.SharedArrays[Array])
                            : fmt::format("shared array #{}", Array + 1);
    return fmt::format("{}: index {} is out of range for {} of length {}", Info.Name, Failure.Index,
                       Which, Failure.Length);
  }
  std::string Which = Failure.Param < Info.Params.size()
                          ? fmt::format("buffer {}", argLabel(Failure.Param))
                          : fmt::format("buffer parameter #{}", Failure.Param + 1);
  return fmt::format("{}: index {} is out of range for {} of length {}", Info.Name, Failure.Index,
                     Which, Failure.Length);
}

} // namespace cajeta::xpu::rt
