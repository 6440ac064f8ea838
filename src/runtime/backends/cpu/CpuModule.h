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
  /// The payload's "wave_width" attribute: the SIMD width it was compiled for.
  uint32_t waveWidth() const override { return WaveWidth; }

private:
  CpuModule(int Fd, void* Handle, uint32_t WaveWidth)
      : Fd(Fd), Handle(Handle), WaveWidth(WaveWidth) {}

  // The fd stays open while the library is loaded so that its /proc/self/fd/N path, which the
  // dynamic loader matches by name, is never reused for another payload.
  int Fd;
  void* Handle;
  uint32_t WaveWidth;
};

} // namespace cajeta::xpu::rt
