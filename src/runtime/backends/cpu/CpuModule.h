// A CPU payload (an ELF shared object) loaded from memory (SharedObject: memfd_create + dlopen).
#pragma once

#include "runtime/Backend.h"
#include "runtime/SharedObject.h"

namespace cajeta::xpu::rt {

class CpuModule : public BackendModule {
public:
  /// Throws RuntimeError (bundle error) naming what failed: format, CPU features, memfd, dlopen.
  static std::unique_ptr<CpuModule> load(const bundle::Payload& Payload);

  const void* findKernel(const std::string& Symbol) const override;
  /// The payload's record of Symbol's parameters (KernelAbiRecord.h) against K's manifest.
  std::string checkKernel(const std::string& Symbol, const bundle::KernelInfo& K) const override;
  /// The payload's "wave_width" attribute: the SIMD width it was compiled for.
  uint32_t waveWidth() const override { return WaveWidth; }

private:
  CpuModule(std::unique_ptr<SharedObject> Object, uint32_t WaveWidth)
      : Object(std::move(Object)), WaveWidth(WaveWidth) {}

  std::unique_ptr<SharedObject> Object;
  uint32_t WaveWidth;
};

} // namespace cajeta::xpu::rt
