// Tier resolution and the tiering note (TierSelection.h).
#include "compiler/kir/transforms/TierSelection.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace cajeta::kir {

namespace {

const char* featureKey(Feature F) {
  switch (F) {
  case Feature::WaveOps:
    return "WAVE";
  case Feature::CooperativeMatrix:
    return "COOPMATRIX";
  case Feature::FloatAtomics:
    return "FLOAT_ATOMICS";
  }
  return "UNKNOWN";
}

const char* noteTag(Feature F) {
  switch (F) {
  case Feature::WaveOps:
    return "[wave-tiering]";
  case Feature::CooperativeMatrix:
    return "[mma-tiering]";
  case Feature::FloatAtomics:
    return "[float-atomics-tiering]";
  }
  return "[tiering]";
}

} // namespace

std::string TierSelection::overrideVariable(Feature F) {
  return std::string("CAJETA_GPU_") + featureKey(F) + "_IMPL";
}

std::optional<ImplTier> TierSelection::overrideFor(Feature F, std::string& Warning) {
  std::string Name = overrideVariable(F);
  const char* Value = std::getenv(Name.c_str());
  if (!Value || !*Value)
    return std::nullopt;
  std::string V = Value;
  std::transform(V.begin(), V.end(), V.begin(), [](unsigned char C) { return std::tolower(C); });
  if (V == "native")
    return ImplTier::Native;
  if (V == "software" || V == "portable")
    return ImplTier::Portable;
  Warning = Name + "='" + Value + "' is neither 'native' nor 'software'; ignored";
  return std::nullopt;
}

TierChoice TierSelection::choose(Feature F, const std::string& Backend, ImplTier Best,
                                 std::optional<ImplTier> Override, const std::string& NativeHow,
                                 const std::string& PortableHow, const std::string& WhyNotNative) {
  TierChoice C;
  std::string Why;
  if (!Override) {
    C.Tier = Best;
    Why = Best == ImplTier::Native ? "the backend's own instructions"
          : WhyNotNative.empty()   ? "no native form here"
                                   : WhyNotNative;
  } else if (*Override == ImplTier::Portable) {
    C.Tier = ImplTier::Portable;
    Why = overrideVariable(F) + "=software";
  } else {
    C.Tier = Best;
    Why = Best == ImplTier::Native
              ? overrideVariable(F) + "=native"
              : overrideVariable(F) + "=native asked, but " + Backend + " has no native form";
  }
  C.Note = std::string(noteTag(F)) + " " + Backend + ": " +
           (C.Tier == ImplTier::Native ? "native (" + NativeHow + ")"
                                       : "portable (" + PortableHow + ")") +
           "; " + Why;
  return C;
}

} // namespace cajeta::kir
