// The one place that resolves a tiered feature's implementation tier for a backend: the
// backend's best tier, the CAJETA_GPU_<FEATURE>_IMPL=native|software override, and the
// compiler note that names the choice (never silently).
#pragma once

#include <optional>
#include <string>

namespace cajeta::kir {

/// How a tiered feature is implemented on a backend (spec: ImplTier).
enum class ImplTier { Native, Portable };

/// Features whose implementation tier differs per backend (wave ops, cooperative matrices...).
enum class Feature { WaveOps, CooperativeMatrix, FloatAtomics };

struct TierChoice {
  ImplTier Tier = ImplTier::Portable;
  std::string Note; // "[wave-tiering] cuda: native (...)"
};

class TierSelection {
public:
  /// The environment variable of F: "CAJETA_GPU_WAVE_IMPL", ...
  static std::string overrideVariable(Feature F);
  /// The override the environment sets for F, if any. A value other than native / software
  /// (any case) sets Warning and counts as unset.
  static std::optional<ImplTier> overrideFor(Feature F, std::string& Warning);
  /// The tier F gets on Backend ("cpu", "cuda", "vulkan") whose best is Best; How names the
  /// native and the portable realisation for the note.
  static TierChoice choose(Feature F, const std::string& Backend, ImplTier Best,
                           std::optional<ImplTier> Override, const std::string& NativeHow,
                           const std::string& PortableHow, const std::string& WhyNotNative = "");
};

} // namespace cajeta::kir
