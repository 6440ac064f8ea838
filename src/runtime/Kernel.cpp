// Kernel launch: argument checks against the manifest, marshalling, borrowing and enqueue.
#include "runtime/Kernel.h"

#include "runtime/Buffer.h"
#include "runtime/Handles.h"
#include "runtime/LoadedProgram.h"
#include "runtime/RuntimeError.h"
#include "runtime/Stream.h"

#include <fmt/format.h>

namespace cajeta::xpu::rt {

static uint64_t scalarMask(bundle::ScalarType T) {
  unsigned Bytes = bundle::scalarTypeSize(T);
  return Bytes >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * Bytes)) - 1;
}

static const char* cTypeName(uint32_t Type) {
  if (Type > uint32_t(bundle::ScalarType::F64))
    return "an unknown scalar type";
  return bundle::scalarTypeName(static_cast<bundle::ScalarType>(Type));
}

Kernel::Kernel(const LoadedProgram& Program, const bundle::KernelInfo& Info, const void* Entry)
    : Program(Program), Info(Info), Entry(Entry) {
  Slots.reserve(Info.Params.size());
  for (const bundle::ParamInfo& P : Info.Params)
    Slots.push_back({P.Kind, P.Type, scalarMask(P.Type)});
}

std::string Kernel::argLabel(size_t Index) const {
  return fmt::format("argument {} ('{}')", Index + 1, Info.Params[Index].Name);
}

void Kernel::launchError(const std::string& Message) const {
  fail(CAJETA_XPU_LAUNCH_ERROR, fmt::format("{}: {}", Info.Name, Message));
}

void Kernel::checkGeometry(const BackendDevice& Device, const uint32_t Grid[3],
                           const uint32_t Block[3]) const {
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
  uint64_t Groups = uint64_t(Grid[0]) * Grid[1];
  if (__builtin_mul_overflow(Groups, uint64_t(Grid[2]), &Groups))
    launchError(
        fmt::format("grid ({}, {}, {}) has more than 2^64 workgroups", Grid[0], Grid[1], Grid[2]));
}

void Kernel::launch(Stream& S, const uint32_t Grid[3], const uint32_t Block[3],
                    const cajeta_xpu_arg* Args, size_t Count) const {
  BackendDevice& Device = Program.device();
  if (&S.device() != &Device)
    launchError(fmt::format("{} is on {} device '{}' but the program is loaded on {} device '{}'",
                            S.name(), S.device().backendName(), S.device().name(),
                            Device.backendName(), Device.name()));
  if (!Grid || !Block)
    launchError("grid and block must not be null");
  checkGeometry(Device, Grid, Block);
  if (Count != Slots.size())
    launchError(fmt::format("expects {} argument{}, got {}", Slots.size(),
                            Slots.size() == 1 ? "" : "s", Count));
  if (Count && !Args)
    launchError("the argument array is null");

  Command C;
  C.What = Command::Kind::Launch;
  C.Args.resize(Count);
  MarshalledArg* Out = C.Args.args();
  std::shared_ptr<Buffer>* Buffers = C.Args.buffers();
  for (size_t I = 0; I != Count; ++I) {
    const Slot& Want = Slots[I];
    const cajeta_xpu_arg& Got = Args[I];
    const char* WantType = bundle::scalarTypeName(Want.Type);
    if (Want.Kind == bundle::ParamKind::Buffer) {
      if (Got.kind != CAJETA_XPU_ARG_BUFFER)
        launchError(fmt::format("{} expects a buffer of {}, got a scalar {}", argLabel(I), WantType,
                                cTypeName(Got.type)));
      if (!Got.value.buffer || !Got.value.buffer->Impl)
        launchError(fmt::format("{} is a null buffer", argLabel(I)));
      const std::shared_ptr<Buffer>& Buf = Got.value.buffer->Impl;
      if (Buf->type() != Want.Type)
        launchError(fmt::format("{} expects a buffer of {}, got a buffer of {}", argLabel(I),
                                WantType, bundle::scalarTypeName(Buf->type())));
      if (&Buf->device() != &Device)
        launchError(fmt::format("{} is a buffer on {} device '{}', not on the launch's {} "
                                "device '{}'",
                                argLabel(I), Buf->device().backendName(), Buf->device().name(),
                                Device.backendName(), Device.name()));
      Buffers[I] = Buf;
      Out[I].Ptr = nullptr; // filled in when the launch runs
      Out[I].Length = 0;
      continue;
    }
    if (Got.kind != CAJETA_XPU_ARG_SCALAR)
      launchError(fmt::format("{} expects {}, got a buffer", argLabel(I), WantType));
    if (Got.type != uint32_t(Want.Type))
      launchError(fmt::format("{} expects {}, got {}", argLabel(I), WantType, cTypeName(Got.type)));
    Out[I].Bits = Want.Type == bundle::ScalarType::Bool ? uint64_t(Got.value.bits != 0)
                                                        : Got.value.bits & Want.Mask;
    Out[I].Length = 0;
  }
  for (int D = 0; D != 3; ++D) {
    C.Geometry.Grid[D] = Grid[D];
    C.Geometry.Block[D] = Block[D];
  }
  C.Target = this;
  C.Program = Program.shared_from_this();

  // Everything is checked: borrow the buffers, then enqueue.
  for (size_t I = 0; I != Count; ++I)
    if (Buffers[I] && Buffers[I]->borrow(S, Info.Name))
      S.noteBorrowed(Buffers[I]);
  S.enqueue(std::move(C));
}

std::string Kernel::describeFailure(const KernelFailure& Failure) const {
  std::string Which = Failure.Param < Info.Params.size()
                          ? fmt::format("buffer {}", argLabel(Failure.Param))
                          : fmt::format("buffer parameter #{}", Failure.Param + 1);
  return fmt::format("{}: index {} is out of range for {} of length {}", Info.Name, Failure.Index,
                     Which, Failure.Length);
}

} // namespace cajeta::xpu::rt
