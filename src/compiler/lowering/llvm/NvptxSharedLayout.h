// Where a kernel's shared arrays live on NVIDIA. PTX takes at most 48 KiB of `.shared` arrays a
// kernel, yet a multi-stage GEMM wants its a and b stages in arrays of their own, four stages of
// which take 192 KiB. A kernel whose arrays of at least 1 KiB together pass 44 KiB gets them at
// the start of the dynamic window instead (the one `.extern .shared` array), in declaration
// order, each at its alignment (so do they where the small ones would take the whole past 48
// KiB); its dynamic array follows them, at a multiple of 1024 bytes.
// The launch adds their bytes (bundle::TargetManifest::DynamicSharedPrefix) to its own dynamic
// ones. Smaller arrays stay `.shared` (a TMA entry's barriers, 128 bytes: so that its layout is
// its plain entry's).
#pragma once

#include "compiler/kir/Kir.h"

#include <cstdint>
#include <vector>

namespace cajeta::lowering {

class NvptxSharedLayout {
public:
  /// The most bytes of `.shared` arrays a kernel may declare (PTX).
  static constexpr uint64_t StaticLimit = 48 * 1024;
  /// Arrays at least this large are placed in the dynamic window when together they pass
  /// PlacedThreshold.
  static constexpr uint64_t PlacedMinimum = 1024;
  static constexpr uint64_t PlacedThreshold = 44 * 1024;

  explicit NvptxSharedLayout(const kir::Function& KF);

  /// The bytes and alignment a static array takes (a swizzled one whole rows or blocks).
  static uint64_t bytesOf(const kir::SharedArray& SA);
  static uint64_t alignmentOf(const kir::SharedArray& SA);

  /// Whether static array Index lives in the dynamic window, and at which byte.
  bool placed(unsigned Index) const { return Index < Offsets.size() && Offsets[Index] >= 0; }
  uint64_t offsetOf(unsigned Index) const { return uint64_t(Offsets[Index]); }
  /// The bytes before the dynamic array (0 where no array is placed).
  uint32_t prefix() const { return Prefix; }

private:
  std::vector<int64_t> Offsets; // per array: its byte in the window, or -1
  uint32_t Prefix = 0;
};

} // namespace cajeta::lowering
