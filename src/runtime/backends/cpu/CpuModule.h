// A CPU payload (an ELF shared object) loaded from memory through memfd_create and dlopen.
#pragma once

#include "runtime/Backend.h"

namespace cajeta::xpu::rt {

class CpuModule : public BackendModule {
public:
  /// Throws RuntimeError (bundle error) naming what failed: format, CPU features, memfd, dlopen.
  static std::unique_ptr<CpuModule> load(const bundle::Payload& Payload);
  ~CpuModule() override;

  const void* findKernel(const std::string& Symbol) const override;

private:
  CpuModule(int Fd, void* Handle) : Fd(Fd), Handle(Handle) {}

  // The fd stays open while the library is loaded so that its /proc/self/fd/N path, which the
  // dynamic loader matches by name, is never reused for another payload.
  int Fd;
  void* Handle;
};

} // namespace cajeta::xpu::rt
