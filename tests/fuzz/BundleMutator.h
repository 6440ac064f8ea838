// A libFuzzer custom mutator for bundle inputs (BundleReaderFuzz, JitCacheEntryFuzz): every
// section and the section table carry an xxh3 checksum, which a mutated input almost never
// matches, so the reader would stop at the first checksum. After libFuzzer's own mutation this
// rewrites the checksums of whatever sections are in bounds, so that mutants reach the manifest,
// the tiling and the payload checks; one mutant in 8 keeps its checksums as they are.
#pragma once

#include "bundle/BundleFormat.h"
#include "bundle/BundleReader.h"
#include "bundle/Hash.h"

#include <cstddef>
#include <cstdint>

extern "C" size_t LLVMFuzzerMutate(uint8_t* Data, size_t Size, size_t MaxSize);

namespace cajeta::fuzz {

inline void fixBundleChecksums(uint8_t* Data, size_t Size) {
  namespace format = bundle::format;
  if (Size < format::HeaderSize || !bundle::BundleReader::looksLikeBundle(Data, Size))
    return;
  uint32_t Count = format::loadU32(Data + format::HeaderCountAt);
  if (Count == 0 || Count > format::MaxSections)
    return;
  uint64_t TableEnd = format::HeaderSize + uint64_t(Count) * format::SectionEntrySize;
  if (TableEnd > Size)
    return;
  for (uint32_t I = 0; I < Count; ++I) {
    uint8_t* E = Data + format::HeaderSize + size_t(I) * format::SectionEntrySize;
    uint64_t Offset = format::loadU64(E + format::EntryOffsetAt);
    uint64_t Bytes = format::loadU64(E + format::EntrySizeAt);
    if (Offset <= Size && Bytes <= Size - Offset)
      format::storeU64(E + format::EntryHashAt, bundle::hash64(Data + Offset, size_t(Bytes)));
  }
  format::storeU64(Data + format::HeaderTableHashAt,
                   bundle::hash64(Data + format::HeaderSize, TableEnd - format::HeaderSize));
}

} // namespace cajeta::fuzz

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* Data, size_t Size, size_t MaxSize,
                                          unsigned int Seed) {
  Size = LLVMFuzzerMutate(Data, Size, MaxSize);
  if (Seed % 8 != 0)
    cajeta::fuzz::fixBundleChecksums(Data, Size);
  return Size;
}
