// A bundle loaded on the device the dispatcher chose: its module and its kernels.
#pragma once

#include "runtime/Backend.h"
#include "runtime/Kernel.h"

#include <memory>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class LoadedProgram : public std::enable_shared_from_this<LoadedProgram> {
public:
  /// Each throws RuntimeError: bundle error for a bad bundle, payload or symbol; backend
  /// unavailable when no backend present can run it. Origin names the source in messages.
  /// With On set the program is loaded on that device (its backend's payload), else on the one
  /// the dispatcher picks. fromFile and fromMemory check the bundle's signature where keys are
  /// trusted (TrustedKeys), fromMemory not with Verify false: a bundle this process compiled
  /// itself (cajeta_xpu_program_load_compiled), trusted as the JIT's output is. fromProgram
  /// checks none: its callers (the JIT and its cache) hold trusted programs.
  static std::shared_ptr<LoadedProgram> fromFile(const std::string& Path,
                                                 BackendDevice* On = nullptr);
  static std::shared_ptr<LoadedProgram> fromMemory(const void* Data, size_t Size,
                                                   const std::string& Origin,
                                                   BackendDevice* On = nullptr, bool Verify = true);
  static std::shared_ptr<LoadedProgram> fromProgram(bundle::Program Desc, const std::string& Origin,
                                                    bool FromCache, BackendDevice* On = nullptr);

  const Kernel* findKernel(const std::string& Name) const;
  /// Throws RuntimeError (generic) listing the available kernels when Name is unknown.
  const Kernel& kernel(const std::string& Name) const;
  const std::vector<std::unique_ptr<Kernel>>& kernels() const { return Kernels; }
  BackendDevice& device() const { return *Device; }
  /// The bundle as loaded: its manifest and every payload (the host payload among them).
  const bundle::Program& description() const { return Desc; }
  bool fromCache() const { return FromCache; }

private:
  LoadedProgram() = default;

  bundle::Program Desc;
  BackendDevice* Device = nullptr;
  bool FromCache = false;
  std::unique_ptr<BackendModule> Module;
  std::vector<std::unique_ptr<Kernel>> Kernels; // destroyed before Module
};

} // namespace cajeta::xpu::rt
