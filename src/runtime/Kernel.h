// A kernel of a loaded program: its precomputed argument layout, launch checks and enqueue.
#pragma once

#include "cajeta/xpu/cajeta_xpu.h"
#include "runtime/Backend.h"

#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class LoadedProgram;
class Stream;

class Kernel {
public:
  Kernel(const LoadedProgram& Program, const bundle::KernelInfo& Info, const void* Entry);

  const std::string& name() const { return Info.Name; }
  const bundle::KernelInfo& info() const { return Info; }
  const void* entry() const { return Entry; }

  /// Checks arity, kinds, exact types, devices and geometry, then enqueues the launch on S and
  /// borrows its buffers until S is synced. Throws RuntimeError (launch error) before enqueuing.
  void launch(Stream& S, const uint32_t Grid[3], const uint32_t Block[3],
              const cajeta_xpu_arg* Args, size_t Count) const;

  /// The message for a kernel-reported failure (an out-of-range index).
  std::string describeFailure(const KernelFailure& Failure) const;

private:
  struct Slot {
    bundle::ParamKind Kind;
    bundle::ScalarType Type;
    uint64_t Mask; // the scalar's significant bits
  };

  std::string argLabel(size_t Index) const; // "argument 3 ('a')"
  void checkGeometry(const BackendDevice& Device, const uint32_t Grid[3],
                     const uint32_t Block[3]) const;
  [[noreturn]] void launchError(const std::string& Message) const;

  const LoadedProgram& Program;
  const bundle::KernelInfo& Info;
  const void* Entry;
  std::vector<Slot> Slots;
};

} // namespace cajeta::xpu::rt
