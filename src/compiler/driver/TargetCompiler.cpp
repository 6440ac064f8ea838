// The target list of the driver and what every target shares.
#include "compiler/driver/TargetCompiler.h"

#include "cajeta/compiler.h"

#include "compiler/driver/CpuTargetCompiler.h"
#include "compiler/driver/NvptxTargetCompiler.h"
#include "compiler/driver/SpirvTargetCompiler.h"

#include "compiler/kir/transforms/TileLowering.h"

#include <algorithm>
#include <sstream>

namespace cajeta::driver {

TargetCompiler::~TargetCompiler() = default;

std::unique_ptr<TargetCompiler> TargetCompiler::cpu() {
  return std::make_unique<CpuTargetCompiler>();
}

std::unique_ptr<TargetCompiler> TargetCompiler::nvptx(const std::string& Sm) {
  return std::make_unique<NvptxTargetCompiler>(Sm);
}

std::unique_ptr<TargetCompiler> TargetCompiler::spirv() {
  return std::make_unique<SpirvTargetCompiler>();
}

std::vector<std::unique_ptr<TargetCompiler>>
TargetCompiler::forBundle(const std::vector<std::string>& ExtraSms,
                          std::vector<std::string>& Skipped) {
  std::vector<std::unique_ptr<TargetCompiler>> Targets;
  Targets.push_back(cpu());
  // NVPTX: the built-in architectures, then those asked for (the JIT's devices); the runtime
  // loads the highest <= the device.
  std::vector<std::string> Sms;
  for (std::stringstream In(CAJETA_COMPILER_BUILTIN_GPU_ARCHS); In.good();) {
    std::string Sm;
    std::getline(In, Sm, ',');
    Sms.push_back(Sm);
  }
  for (const std::string& Sm : ExtraSms) {
    if (std::find(Sms.begin(), Sms.end(), Sm) != Sms.end())
      continue;
    std::string Why;
    if (!NvptxTargetCompiler::knowsArch(Sm, Why)) {
      Skipped.push_back("no PTX for " + Sm + " (" + Why +
                        "); its device JIT-compiles the nearest lower architecture's PTX");
      continue;
    }
    Sms.push_back(Sm);
  }
  for (const std::string& Sm : Sms)
    Targets.push_back(nvptx(Sm));
  Targets.push_back(spirv());
  return Targets;
}

bool TargetCompiler::nativeTilesFit(const kir::Module& M, const TargetOptions&,
                                    std::string& Why) const {
  return kir::TileLowering::fitsMmaSync(M, Why);
}

kir::TierChoice TargetCompiler::chooseTileTier(const kir::Module& M,
                                               std::optional<kir::ImplTier> Override,
                                               const TargetOptions& O) const {
  std::string Native = nativeTiles(O), Why;
  bool Fits = !Native.empty() && nativeTilesFit(M, O, Why);
  std::string Portable = portableTiles(), Demoted;
  if (!Native.empty() && !Fits)
    Demoted = "the whole program is demoted from " + Native + " because " + Why;
  std::string Backend = backend();
  if (name() != Backend)
    Backend += " (" + name() + ")";
  return kir::TierSelection::choose(kir::Feature::CooperativeMatrix, Backend,
                                    Fits ? kir::ImplTier::Native : kir::ImplTier::Portable,
                                    Override, Native, Portable, Demoted);
}

void TargetCompiler::reportFailure(Diagnostics& Diags, Stage Raiser, const std::string& What,
                                   const std::string& Error) {
  static const std::string Internal = "internal error: ";
  if (Error.rfind(Internal, 0) == 0)
    Diags.report(Severity::Internal, Raiser, What + Error.substr(Internal.size()));
  else
    Diags.report(Severity::Error, Raiser, What + Error);
}

} // namespace cajeta::driver
