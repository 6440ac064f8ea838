// Loading a bundle: read and check it (and its signature, where keys are trusted), pick a
// device, load the payload, resolve each kernel.
#include "runtime/LoadedProgram.h"

#include "runtime/calibration/CalibrationSet.h"

#include "bundle/BundleReader.h"
#include "bundle/PayloadAbiCheck.h"
#include "runtime/Dispatcher.h"
#include "runtime/RuntimeError.h"
#include "runtime/TrustedKeys.h"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cajeta::xpu::rt {

std::shared_ptr<LoadedProgram> LoadedProgram::fromFile(const std::string& Path, BackendDevice* On) {
  std::vector<uint8_t> Bytes;
  bundle::BundleReadResult R = bundle::BundleReader::readFile(Path, &Bytes);
  if (!R.Ok)
    fail(CAJETA_XPU_BUNDLE_ERROR, R.Error); // it starts with the path
  // Before any payload is loaded: the CPU payload is native code that runs on load.
  TrustedKeys::check(Bytes.data(), Bytes.size(), R, Path);
  Bytes = {};
  return fromProgram(std::move(R.Value), Path, false, On);
}

std::shared_ptr<LoadedProgram> LoadedProgram::fromMemory(const void* Data, size_t Size,
                                                         const std::string& Origin,
                                                         BackendDevice* On, bool Verify) {
  if (!Data && Size)
    fail(CAJETA_XPU_BUNDLE_ERROR, fmt::format("bundle {}: null data of {} bytes", Origin, Size));
  bundle::BundleReadResult R =
      bundle::BundleReader::read(static_cast<const uint8_t*>(Data), Data ? Size : 0);
  if (!R.Ok)
    fail(CAJETA_XPU_BUNDLE_ERROR, fmt::format("bundle {}: {}", Origin, R.Error));
  if (Verify)
    TrustedKeys::check(static_cast<const uint8_t*>(Data), Size, R, Origin);
  return fromProgram(std::move(R.Value), Origin, false, On);
}

std::shared_ptr<LoadedProgram> LoadedProgram::fromProgram(bundle::Program Desc,
                                                          const std::string& Origin, bool FromCache,
                                                          BackendDevice* On) {
  std::shared_ptr<LoadedProgram> P(new LoadedProgram());
  P->Desc = std::move(Desc);
  if (!P->Desc.Calibration.empty())
    CalibrationSet::get().addBuiltIn(P->Desc.Calibration, Origin);
  P->FromCache = FromCache;
  Dispatcher::Choice Pick =
      On ? Dispatcher::chooseOn(P->Desc, *On, Origin) : Dispatcher::choose(P->Desc, Origin);
  P->Device = Pick.Device;
  const std::string& Target = Pick.Payload->Target;
  // The manifests against the code they describe, before a driver sees the code.
  if (std::string Problem = bundle::PayloadAbiCheck::checkTarget(P->Desc, Target); !Problem.empty())
    fail(CAJETA_XPU_BUNDLE_ERROR, fmt::format("bundle {}: {}", Origin, Problem));
  P->Module = P->Device->loadModule(*Pick.Payload);
  std::vector<std::string> Unclassified; // kernels whose manifest has no scheduling section
  for (const bundle::KernelInfo& K : P->Desc.Kernels) {
    // The kernel's own manifest target where the payload names one (Backend::choosePayload).
    auto Own = Pick.Payload->Attributes.find(K.Name + "/manifest_target");
    auto It = K.Targets.find(Own != Pick.Payload->Attributes.end() ? Own->second : Target);
    bool Excluded = !K.Backends.empty() && std::find(K.Backends.begin(), K.Backends.end(),
                                                     P->Device->backendName()) == K.Backends.end();
    if (It == K.Targets.end() && Excluded) {
      // @Backend leaves it without code here: listed, but launching it names the restriction.
      P->Kernels.push_back(std::make_unique<Kernel>(*P, K, nullptr));
      continue;
    }
    if (It == K.Targets.end()) {
      // The compiler left it without code for this target (its tiles do not fit there, say),
      // and warned: the program's other kernels run, launching this one names the target.
      auto Missing = std::make_unique<Kernel>(*P, K, nullptr);
      Missing->setMissingTarget(Target);
      P->Kernels.push_back(std::move(Missing));
      continue;
    }
    // An entry the manifest names, which the payload must have.
    auto FindEntry = [&](const std::string& Symbol) {
      const void* Found = P->Module->findKernel(Symbol);
      if (!Found)
        fail(CAJETA_XPU_BUNDLE_ERROR,
             fmt::format("bundle {}: kernel '{}': symbol '{}' is missing from the {} payload",
                         Origin, K.Name, Symbol, Target));
      return Found;
    };
    const void* Entry = FindEntry(It->second.Symbol);
    if (std::string Problem = P->Module->checkKernel(It->second.Symbol, K); !Problem.empty())
      fail(CAJETA_XPU_BUNDLE_ERROR, fmt::format("bundle {}: {}", Origin, Problem));
    KernelFootprint Footprint;
    if (!P->Module->footprint(Entry, Footprint)) {
      Footprint.Registers = It->second.Registers;
      Footprint.LocalBytes = It->second.SpillBytes;
      Footprint.SharedBytes = It->second.StaticSharedBytes;
    }
    if (K.UsesWave) {
      Footprint.WaveWidth =
          P->Module->waveWidth() ? P->Module->waveWidth() : P->Device->waveWidth();
      // WaveWidth 0 (a device without wave ops): the program loads, and a launch of this
      // kernel fails naming the capability (Kernel::checkGeometry).
      // The portable tier's scratch arrays hold 1024 work-items (PortableWave::MaxGroupSize).
      if (It->second.WaveTier == "portable" &&
          (!Footprint.MaxThreads || Footprint.MaxThreads > 1024))
        Footprint.MaxThreads = 1024;
      // The native tier's waves are the device's: where it starts one at each row, a group's
      // rows must hold whole waves (Kernel::checkGeometry).
      Footprint.WavesInRows = It->second.WaveTier == "native" && !P->Device->wavesSpanRows();
      // The portable tile's scratch holds TileWaves waves per group.
      if (uint32_t Waves = It->second.TileWaves; Waves && Footprint.WaveWidth) {
        uint32_t Limit = Waves * Footprint.WaveWidth;
        if (!Footprint.MaxThreads || Footprint.MaxThreads > Limit)
          Footprint.MaxThreads = Limit;
      }
    }
    auto Made = std::make_unique<Kernel>(*P, K, Entry, Footprint);
    Made->setManifest(&It->second);
    if (!It->second.Scheduling)
      Unclassified.push_back(K.Name);
    if (const std::string& Steps = It->second.StepSymbol; !Steps.empty()) {
      int32_t Count = It->second.StepCountParam;
      if (Count < 0 || size_t(Count) >= K.Params.size() ||
          K.Params[Count].Kind != bundle::ParamKind::Scalar)
        fail(CAJETA_XPU_BUNDLE_ERROR,
             fmt::format("bundle {}: kernel '{}': stepCountParam {} is not a scalar parameter",
                         Origin, K.Name, Count));
      Made->setStepEntry(FindEntry(Steps), uint32_t(Count));
      if (const std::string& Once = It->second.OnceSymbol; !Once.empty())
        Made->setOnceEntry(FindEntry(Once), It->second.OnceAnyGrid);
    }
    if (const std::string& Quads = It->second.QuadSymbol; !Quads.empty()) {
      int32_t Count = It->second.QuadCountParam;
      if (Count < 0 || size_t(Count) >= K.Params.size() ||
          K.Params[Count].Kind != bundle::ParamKind::Scalar ||
          (K.Params[Count].Type != bundle::ScalarType::U32 &&
           K.Params[Count].Type != bundle::ScalarType::I32))
        fail(CAJETA_XPU_BUNDLE_ERROR,
             fmt::format("bundle {}: kernel '{}': quadCountParam {} is not a uint32 or int32 "
                         "parameter",
                         Origin, K.Name, Count));
      const void* QuadEntry = FindEntry(Quads);
      KernelFootprint QuadFootprint;
      uint32_t QuadMaxThreads =
          P->Module->footprint(QuadEntry, QuadFootprint) ? QuadFootprint.MaxThreads : 0;
      Made->setQuadEntry(QuadEntry, uint32_t(Count),
                         K.Params[Count].Type == bundle::ScalarType::I32, It->second.QuadAnyGrid,
                         QuadMaxThreads);
    }
    if (const std::string& Tma = It->second.TmaSymbol; !Tma.empty()) {
      // Where the backend has tensor maps (cuda); each launch holds the recipes to its arguments.
      const void* TmaKernel = FindEntry(Tma);
      if (const void* TmaEntry = P->Module->tensorMapEntry(TmaKernel, Entry, It->second.TensorMaps))
        Made->setTmaEntry(TmaEntry);
    }
    P->Kernels.push_back(std::move(Made));
  }
  if (!Unclassified.empty())
    std::fprintf(stderr,
                 "cajeta: note: bundle %s (compiler '%s'): %s %s no scheduling manifest for "
                 "target '%s'; %s as unclassified submissions\n",
                 Origin.c_str(), P->Desc.CompilerVersion.c_str(),
                 fmt::format("{}", fmt::join(Unclassified, ", ")).c_str(),
                 Unclassified.size() == 1 ? "has" : "have", Target.c_str(),
                 Unclassified.size() == 1 ? "it runs" : "they run");
  return P;
}

const Kernel* LoadedProgram::findKernel(const std::string& Name) const {
  for (const std::unique_ptr<Kernel>& K : Kernels)
    if (K->name() == Name)
      return K.get();
  return nullptr;
}

const Kernel& LoadedProgram::kernel(const std::string& Name) const {
  if (const Kernel* K = findKernel(Name))
    return *K;
  std::string Available;
  for (const std::unique_ptr<Kernel>& K : Kernels)
    Available += (Available.empty() ? "" : ", ") + K->name();
  fail(CAJETA_XPU_NOT_FOUND, fmt::format("no kernel '{}' in the program (available: {})", Name,
                                         Available.empty() ? "none" : Available));
}

} // namespace cajeta::xpu::rt
