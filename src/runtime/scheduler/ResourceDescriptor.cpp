// Resource descriptors (ResourceDescriptor.h).
#include "runtime/scheduler/ResourceDescriptor.h"

#include "bundle/CostExpr.h"
#include "runtime/Kernel.h"
#include "runtime/LoadedProgram.h"
#include "runtime/calibration/CalibrationSet.h"
#include "runtime/scheduler/CoRunPlanner.h"
#include "runtime/scheduler/Submission.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace cajeta::xpu::rt {

namespace {

/// A scalar argument's value as a number (the cost polynomials' variables).
std::optional<double> scalarValue(const cajeta_xpu_arg& A, bundle::ScalarType T) {
  if (A.kind != CAJETA_XPU_ARG_SCALAR)
    return std::nullopt;
  uint64_t Bits = A.value.bits;
  switch (T) {
  case bundle::ScalarType::Bool:
    return Bits ? 1.0 : 0.0;
  case bundle::ScalarType::I8:
    return double(int8_t(Bits));
  case bundle::ScalarType::I16:
    return double(int16_t(Bits));
  case bundle::ScalarType::I32:
    return double(int32_t(Bits));
  case bundle::ScalarType::I64:
    return double(int64_t(Bits));
  case bundle::ScalarType::U8:
    return double(uint8_t(Bits));
  case bundle::ScalarType::U16:
    return double(uint16_t(Bits));
  case bundle::ScalarType::U32:
    return double(uint32_t(Bits));
  case bundle::ScalarType::U64:
    return double(Bits);
  case bundle::ScalarType::F32: {
    float F;
    uint32_t Low = uint32_t(Bits);
    std::memcpy(&F, &Low, sizeof(F));
    return double(F);
  }
  case bundle::ScalarType::F64: {
    double D;
    std::memcpy(&D, &Bits, sizeof(D));
    return D;
  }
  case bundle::ScalarType::F16:
  case bundle::ScalarType::BF16:
    return std::nullopt; // no cost is written in a 16-bit float parameter
  }
  return std::nullopt;
}

class CostEvaluator {
public:
  CostEvaluator(const bundle::KernelInfo& Info, const cajeta_xpu_arg* Args, const LaunchGeometry& G)
      : Info(Info), Args(Args) {
    Groups = double(G.Grid[0]) * G.Grid[1] * G.Grid[2];
    Items = Groups * G.Block[0] * G.Block[1] * G.Block[2];
  }

  /// The polynomial's value, or -1 when it is unknown or names a variable with no value.
  double operator()(const bundle::CostExpr& E) const {
    std::optional<double> V =
        bundle::evaluateCost(E, [this](const std::string& Name) { return lookup(Name); });
    return V ? *V : -1;
  }

private:
  std::optional<double> lookup(const std::string& Name) const {
    if (Name == "items")
      return Items;
    if (Name == "groups")
      return Groups;
    for (size_t I = 0; I != Info.Params.size(); ++I)
      if (Info.Params[I].Name == Name && Info.Params[I].Kind == bundle::ParamKind::Scalar)
        return scalarValue(Args[I], Info.Params[I].Type);
    return std::nullopt;
  }

  const bundle::KernelInfo& Info;
  const cajeta_xpu_arg* Args;
  double Groups = 0, Items = 0;
};

uint32_t accessOf(bundle::Access Mode, bool Accumulates) {
  if (Accumulates)
    return CAJETA_XPU_ACCESS_ACCUMULATE;
  switch (Mode) {
  case bundle::Access::Read:
    return CAJETA_XPU_ACCESS_READ;
  case bundle::Access::Write:
    return CAJETA_XPU_ACCESS_WRITE;
  default:
    return CAJETA_XPU_ACCESS_READ_WRITE;
  }
}

/// The arithmetic class against the device's ridge, from a calibration record already held or
/// stored (never measured here: a submit must not take seconds).
void classify(BackendDevice& Device, cajeta_xpu_resource_descriptor& Out) {
  Out.intensity = -1;
  Out.ridge = -1;
  Out.arithmetic_class = CAJETA_XPU_CLASS_UNKNOWN;
  double Bytes = Out.bytes_read + Out.bytes_written;
  if (Out.bytes_read >= 0 && Out.bytes_written >= 0 && Out.operations >= 0 && Bytes > 0)
    Out.intensity = Out.operations / Bytes;
  const CalibrationEntry* Known = CalibrationSet::get().known(Device);
  const CalibrationFact* Ridge = Known ? Known->Record.fact("ridge") : nullptr;
  if (!Ridge || !Ridge->Value)
    return;
  Out.ridge = *Ridge->Value;
  if (Out.intensity >= 0)
    Out.arithmetic_class =
        Out.intensity > Out.ridge ? CAJETA_XPU_CLASS_COMPUTE_BOUND : CAJETA_XPU_CLASS_MEMORY_BOUND;
  else if (Out.operations > 0 && Out.bytes_read == 0 && Out.bytes_written == 0)
    Out.arithmetic_class = CAJETA_XPU_CLASS_COMPUTE_BOUND; // moves nothing
}

/// Where the launch runs, as the device realises its placement (a backend that cannot confine
/// a launch runs it on the whole device).
void place(const BackendDevice& Device, const LaunchGeometry& G,
           cajeta_xpu_resource_descriptor& Out) {
  using Part = LaunchGeometry::Part;
  unsigned All = Device.computeUnits(), Reserved = Device.reservedComputeUnits();
  unsigned Step = Device.sliceGranularity();
  unsigned Slice = sliceSize(G.SliceUnits, Step);
  Out.placement = CAJETA_XPU_PLACEMENT_WHOLE;
  Out.compute_units = All;
  if (G.Partition == Part::Reserved && Reserved) {
    Out.placement = CAJETA_XPU_PLACEMENT_RESERVED;
    Out.compute_units = Reserved;
  } else if (G.Partition == Part::Remainder && Reserved) {
    Out.placement = CAJETA_XPU_PLACEMENT_REMAINDER;
    Out.compute_units = All - Reserved;
  } else if ((G.Partition == Part::Slice || G.Partition == Part::SliceComplement) && Slice &&
             Slice + Step <= All) {
    bool First = G.Partition == Part::Slice;
    Out.placement = First ? CAJETA_XPU_PLACEMENT_SLICE : CAJETA_XPU_PLACEMENT_SLICE_COMPLEMENT;
    Out.compute_units = First ? Slice : All - Slice;
  }
}

} // namespace

LaunchCost launchCost(const Kernel& K, const cajeta_xpu_arg* Args, const LaunchGeometry& Geometry) {
  const bundle::SchedulingManifest* Sched =
      K.manifest() && K.manifest()->Scheduling ? &*K.manifest()->Scheduling : nullptr;
  if (!Sched)
    return {};
  CostEvaluator Cost(K.info(), Args, Geometry);
  return {Cost(Sched->BytesRead), Cost(Sched->BytesWritten), Cost(Sched->Operations)};
}

void describeSubmission(const Kernel& K, const cajeta_xpu_arg* Args, size_t Count,
                        const LaunchGeometry& Geometry, const Submission& Sub,
                        std::vector<cajeta_xpu_buffer_access>& Storage,
                        cajeta_xpu_resource_descriptor& Out) {
  const bundle::KernelInfo& Info = K.info();
  const bundle::SchedulingManifest* Sched =
      K.manifest() && K.manifest()->Scheduling ? &*K.manifest()->Scheduling : nullptr;
  CostEvaluator Cost(Info, Args, Geometry);
  Storage.clear();
  for (size_t I = 0; I != Count && I != Info.Params.size(); ++I) {
    const bundle::ParamInfo& P = Info.Params[I];
    if (P.Kind != bundle::ParamKind::Buffer || P.Mode == bundle::Access::None)
      continue;
    const bundle::BufferSchedule* B = nullptr;
    if (Sched)
      for (const bundle::BufferSchedule& S : Sched->Buffers)
        if (S.Param == I)
          B = &S;
    cajeta_xpu_buffer_access A{};
    A.buffer = Args[I].value.buffer;
    A.param = uint32_t(I);
    A.access = accessOf(P.Mode, B && B->Accumulates);
    A.streaming = B && B->Streaming ? 1 : 0;
    A.bytes_read = B ? Cost(B->BytesRead) : -1;
    A.bytes_written = B ? Cost(B->BytesWritten) : -1;
    Storage.push_back(A);
  }
  const KernelFootprint& F = K.footprint();
  Out = cajeta_xpu_resource_descriptor{};
  Out.kernel = Info.Name.c_str();
  Out.classified = Sched ? 1 : 0;
  Out.policy = Sub.Policy;
  Out.footprint = {F.Registers, F.LocalBytes, F.SharedBytes, F.MaxThreads};
  Out.bytes_read = Sched ? Cost(Sched->BytesRead) : -1;
  Out.bytes_written = Sched ? Cost(Sched->BytesWritten) : -1;
  Out.operations = Sched ? Cost(Sched->Operations) : -1;
  Out.restartable = Sched && Sched->Restartable ? 1 : 0;
  Out.yield_points = Sched ? Sched->YieldPoints : 0;
  classify(K.program().device(), Out);
  place(K.program().device(), Geometry, Out);
  Out.access_count = Storage.size();
  Out.accesses = Storage.data();
}

} // namespace cajeta::xpu::rt
