#include "compiler/lowering/llvm/NvptxSharedLayout.h"

#include "bundle/Manifest.h"

namespace cajeta::lowering {

uint64_t NvptxSharedLayout::bytesOf(const kir::SharedArray& SA) {
  const uint64_t Bytes = SA.Count * bundle::scalarTypeSize(SA.Elem);
  if (!SA.Swizzle128)
    return Bytes;
  const uint64_t Whole = SA.RowAtoms > 1 ? 1024u * SA.RowAtoms : 128u; // see RowAtoms
  return (Bytes + Whole - 1) / Whole * Whole;
}

uint64_t NvptxSharedLayout::alignmentOf(const kir::SharedArray& SA) {
  return SA.Swizzle128 ? 1024 : SA.BulkCopied ? 128 : 16;
}

NvptxSharedLayout::NvptxSharedLayout(const kir::Function& KF) {
  Offsets.assign(KF.SharedArrays.size(), -1);
  uint64_t Large = 0, All = 0;
  for (const kir::SharedArray& SA : KF.SharedArrays)
    if (SA.Count > 0) {
      All += bytesOf(SA);
      if (bytesOf(SA) >= PlacedMinimum)
        Large += bytesOf(SA);
    }
  if (Large <= PlacedThreshold && All <= StaticLimit)
    return;
  uint64_t At = 0;
  for (size_t I = 0; I < KF.SharedArrays.size(); ++I) {
    const kir::SharedArray& SA = KF.SharedArrays[I];
    if (SA.Count == 0 || bytesOf(SA) < PlacedMinimum)
      continue;
    const uint64_t Align = alignmentOf(SA);
    At = (At + Align - 1) / Align * Align;
    Offsets[I] = int64_t(At);
    At += bytesOf(SA);
  }
  Prefix = uint32_t((At + 1023) / 1024 * 1024);
}

} // namespace cajeta::lowering
