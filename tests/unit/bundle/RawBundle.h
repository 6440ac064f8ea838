// Builds and edits raw bundle bytes for tests, keeping checksums valid where a test asks.
#pragma once

#include "bundle/BundleFormat.h"
#include "bundle/Hash.h"

#include <cstring>
#include <string>
#include <vector>

namespace cajeta::bundle::test {

struct RawSection {
  format::SectionKind Kind;
  std::vector<uint8_t> Bytes;
};

inline RawSection manifestSection(const std::string& Json) {
  return {format::SectionKind::Manifest, std::vector<uint8_t>(Json.begin(), Json.end())};
}

inline RawSection payloadSection(std::vector<uint8_t> Bytes) {
  return {format::SectionKind::Payload, std::move(Bytes)};
}

/// A well-formed bundle image of \p Sections, laid out back to back with valid checksums.
inline std::vector<uint8_t> assemble(const std::vector<RawSection>& Sections) {
  size_t TableEnd = format::HeaderSize + Sections.size() * format::SectionEntrySize;
  std::vector<uint8_t> Out(TableEnd, 0);
  std::memcpy(Out.data(), format::Magic, 4);
  format::storeU32(Out.data() + format::HeaderVersionAt, format::Version);
  format::storeU32(Out.data() + format::HeaderCountAt, uint32_t(Sections.size()));
  for (size_t I = 0; I < Sections.size(); ++I) {
    uint8_t* E = Out.data() + format::HeaderSize + I * format::SectionEntrySize;
    format::storeU32(E + format::EntryKindAt, uint32_t(Sections[I].Kind));
    format::storeU64(E + format::EntryOffsetAt, Out.size());
    format::storeU64(E + format::EntrySizeAt, Sections[I].Bytes.size());
    format::storeU64(E + format::EntryHashAt,
                     hash64(Sections[I].Bytes.data(), Sections[I].Bytes.size()));
    Out.insert(Out.end(), Sections[I].Bytes.begin(), Sections[I].Bytes.end());
  }
  format::storeU64(Out.data() + format::HeaderTableHashAt,
                   hash64(Out.data() + format::HeaderSize, TableEnd - format::HeaderSize));
  return Out;
}

inline uint8_t* entry(std::vector<uint8_t>& Bundle, size_t I) {
  return Bundle.data() + format::HeaderSize + I * format::SectionEntrySize;
}

/// Recomputes the section-table checksum after a test edited the table on purpose.
inline void resealTable(std::vector<uint8_t>& Bundle) {
  uint32_t Count = format::loadU32(Bundle.data() + format::HeaderCountAt);
  format::storeU64(Bundle.data() + format::HeaderTableHashAt,
                   hash64(Bundle.data() + format::HeaderSize, Count * format::SectionEntrySize));
}

/// Recomputes every in-bounds section's checksum and the table's, as someone editing a bundle on
/// purpose would, so that only a signature can tell.
inline void resealAll(std::vector<uint8_t>& Bundle) {
  if (Bundle.size() < format::HeaderSize)
    return;
  uint32_t Count = format::loadU32(Bundle.data() + format::HeaderCountAt);
  if (Count > format::MaxSections ||
      format::HeaderSize + uint64_t(Count) * format::SectionEntrySize > Bundle.size())
    return;
  for (uint32_t I = 0; I < Count; ++I) {
    uint8_t* E = entry(Bundle, I);
    uint64_t Offset = format::loadU64(E + format::EntryOffsetAt);
    uint64_t Size = format::loadU64(E + format::EntrySizeAt);
    if (Offset <= Bundle.size() && Size <= Bundle.size() - Offset)
      format::storeU64(E + format::EntryHashAt, hash64(Bundle.data() + Offset, size_t(Size)));
  }
  resealTable(Bundle);
}

} // namespace cajeta::bundle::test
