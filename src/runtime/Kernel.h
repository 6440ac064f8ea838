// A kernel of a loaded program: its precomputed argument layout, launch checks and enqueue.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"
#include "runtime/Backend.h"
#include "runtime/Command.h"

#include <memory>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class Buffer;
class LoadedProgram;
class Stream;
struct Submission;

class Kernel {
public:
  /// Entry is null for a kernel that has no code for the program's backend (its @Backend
  /// restriction excludes it, or the compiler could not build it for the payload's target:
  /// setMissingTarget): launching it fails with a message naming why.
  /// Footprint: what the loaded code needs (KernelFootprint::MaxThreads 0 when the kernel has
  /// no limit of its own).
  Kernel(const LoadedProgram& Program, const bundle::KernelInfo& Info, const void* Entry,
         KernelFootprint Footprint = {});

  const std::string& name() const { return Info.Name; }
  const LoadedProgram& program() const { return Program; }
  const bundle::KernelInfo& info() const { return Info; }
  const void* entry() const { return Entry; }
  /// The entry to run with these (marshalled) arguments and geometry: the run-once entry
  /// (TargetManifest::OnceSymbol) when the grid-stride loop's count is at most the launch's
  /// global size in x, else the step-at-a-time entry (StepSymbol) when the count exceeds the
  /// launch's work-items, else entry(). All compute the same. Where the once entry may run on
  /// any grid and the count exceeds the launch's global size in x, Geometry's grid is widened in
  /// x to cover the count and the once entry returned: each step one work-item, the steps
  /// contiguous across them (the grid-stride walk of a small grid strides through memory).
  /// Where the kernel has a quad entry and its count is at most the launch's global size in x,
  /// the grid is narrowed in x to ceil(count / 4) work-items and the quad entry returned
  /// (`CAJETA_GPU_QUADS=0` keeps the plain entry); a quad entry exact on any grid is also taken
  /// on the launch's own grid when the count is larger. Never for a group larger than the quad
  /// entry's code takes. Where the kernel has a TMA entry (TargetManifest::TmaSymbol), it is
  /// returned in place of entry() (`CAJETA_GPU_TMA=0` keeps the plain entry); the backend runs
  /// the plain code when the launch's tensor maps do not encode.
  const void* entryFor(const MarshalledArg* Args, LaunchGeometry& Geometry) const;
  /// Sets the step-at-a-time entry and the index of the scalar parameter that is its loop count.
  void setStepEntry(const void* E, uint32_t CountParam) {
    StepEntry = E;
    StepCountParam = CountParam;
  }
  /// AnyGrid: it may also run on a grid widened in x to the count (TargetManifest::OnceAnyGrid).
  void setOnceEntry(const void* E, bool AnyGrid = false) {
    OnceEntry = E;
    OnceAnyGrid = AnyGrid;
  }
  /// Sets the quad entry (TargetManifest::QuadSymbol), its count parameter (Signed: an int32,
  /// whose quads' indices must stay below 2^31), whether it is exact on any grid
  /// (TargetManifest::QuadAnyGrid) and the most work-items per group its code takes (its four
  /// copies may need more registers than the kernel; 0: no limit of its own).
  void setQuadEntry(const void* E, uint32_t CountParam, bool Signed, bool AnyGrid,
                    uint32_t MaxThreads) {
    QuadEntry = E;
    QuadCountParam = CountParam;
    QuadSigned = Signed;
    QuadAnyGrid = AnyGrid;
    QuadMaxThreads = MaxThreads;
  }
  /// Sets the TMA entry (BackendModule::tensorMapEntry), which stands in for entry().
  void setTmaEntry(const void* E) { TmaEntry = E; }
  const KernelFootprint& footprint() const { return Footprint; }

  /// The manifest of the program's target (null for a kernel without code there).
  const bundle::TargetManifest* manifest() const { return Manifest; }
  void setManifest(const bundle::TargetManifest* M) { Manifest = M; }
  /// The payload target this kernel has no code for although its backend is not excluded (the
  /// compiler warned "no <target> code for kernel ..." when it built the bundle).
  void setMissingTarget(std::string Target) { MissingTarget = std::move(Target); }

  /// Checks arity, kinds, exact types, devices and geometry, then enqueues the launch on S as
  /// Sub (a missed deadline is thrown, nothing enqueued) and borrows its buffers until S is
  /// synced. Throws RuntimeError (launch error) before enqueuing. Described, when not null,
  /// receives the resource descriptor; its accesses live in Accesses.
  void launch(Stream& S, const uint32_t Grid[3], const uint32_t Block[3],
              uint32_t DynamicSharedBytes, const cajeta_xpu_arg* Args, size_t Count,
              const Submission& Sub, cajeta_xpu_resource_descriptor* Described = nullptr,
              std::vector<cajeta_xpu_buffer_access>* Accesses = nullptr) const;

  /// The message for a kernel-reported failure (an out-of-range index).
  std::string describeFailure(const KernelFailure& Failure) const;

private:
  struct Slot {
    bundle::ParamKind Kind;
    bundle::ScalarType Type;
    uint64_t Mask;      // the scalar's significant bits
    uint32_t PodOffset; // POD only: where its bytes go in the launch's POD storage
    bool Accel;         // a buffer that is an AccelerationStructure (ParamInfo::Accel)
  };

  std::string argLabel(size_t Index) const; // "argument 3 ('a')"
  void checkGeometry(const BackendDevice& Device, const uint32_t Grid[3], const uint32_t Block[3],
                     uint32_t DynamicSharedBytes) const;
  void marshalScalar(size_t I, const cajeta_xpu_arg& Got, MarshalledArg& Out) const;
  /// Copies the POD's bytes to PodBase + its offset; its pointer is bound by the caller.
  void marshalPod(size_t I, const cajeta_xpu_arg& Got, uint8_t* PodBase, MarshalledArg& Out) const;
  /// Checks and marshals every argument; a buffer's entry in Buffers is set and its pointer
  /// left for the stream to fill in.
  void marshalArgs(const cajeta_xpu_arg* Args, size_t Count, MarshalledArg* Out, uint8_t* PodBase,
                   std::shared_ptr<Buffer>* Buffers) const;
  /// Marshals the arguments in stack storage and hands the launch to S.
  void enqueueOn(Stream& S, const LaunchGeometry& Geometry, const cajeta_xpu_arg* Args,
                 size_t Count, const Submission& Sub) const;
  void marshalFunction(size_t I, const cajeta_xpu_arg& Got, MarshalledArg& Out) const;
  /// Checks a buffer or acceleration structure argument (the kind must match the parameter's)
  /// and returns its buffer.
  const std::shared_ptr<Buffer>& bufferArg(size_t I, const cajeta_xpu_arg& Got) const;
  [[noreturn]] void launchError(const std::string& Message) const;
  /// entryFor without the TMA entry.
  const void* codeEntryFor(const MarshalledArg* Args, LaunchGeometry& Geometry) const;

  const LoadedProgram& Program;
  const bundle::KernelInfo& Info;
  const void* Entry;
  const bundle::TargetManifest* Manifest = nullptr;
  std::string MissingTarget;
  const void* StepEntry = nullptr;
  const void* OnceEntry = nullptr;
  bool OnceAnyGrid = false;
  const void* QuadEntry = nullptr;
  uint32_t QuadCountParam = 0;
  bool QuadSigned = false;
  bool QuadAnyGrid = false;
  uint32_t QuadMaxThreads = 0;
  const void* TmaEntry = nullptr;
  uint32_t StepCountParam = 0;
  KernelFootprint Footprint;
  std::vector<Slot> Slots;
  std::vector<size_t> PodSlots; // indices of the POD parameters
  size_t PodBytes = 0;          // POD storage a launch needs
};

} // namespace cajeta::xpu::rt
