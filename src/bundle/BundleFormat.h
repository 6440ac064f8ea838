// The on-disk layout of a .cjx bundle, shared by BundleWriter and BundleReader.
//
// All integers are little-endian. A bundle is, with no padding anywhere:
//   header (24 bytes):  "CJXB", u32 version (= 1), u32 section count, u32 reserved (= 0),
//                       u64 xxh3-64 of the section table
//   section table:      per section (32 bytes): u32 kind (1 = manifest JSON, 2 = payload),
//                       u32 reserved (= 0), u64 offset, u64 size, u64 xxh3-64 of its bytes
//   section bytes:      back to back, in table order, ending exactly at the end of the file.
// Exactly one section is the manifest; the payload sections appear in the order of the
// manifest's "payloads" array.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cajeta::bundle::format {

inline constexpr unsigned char Magic[4] = {'C', 'J', 'X', 'B'};
inline constexpr uint32_t Version = 1;
inline constexpr size_t HeaderSize = 24;
inline constexpr size_t SectionEntrySize = 32;
/// A sanity bound on the section count: one manifest plus up to 65535 payloads.
inline constexpr uint32_t MaxSections = 65536;

enum class SectionKind : uint32_t { Manifest = 1, Payload = 2 };

// Field offsets inside the header and inside one section-table entry.
inline constexpr size_t HeaderVersionAt = 4;
inline constexpr size_t HeaderCountAt = 8;
inline constexpr size_t HeaderReservedAt = 12;
inline constexpr size_t HeaderTableHashAt = 16;
inline constexpr size_t EntryKindAt = 0;
inline constexpr size_t EntryReservedAt = 4;
inline constexpr size_t EntryOffsetAt = 8;
inline constexpr size_t EntrySizeAt = 16;
inline constexpr size_t EntryHashAt = 24;

inline uint32_t loadU32(const uint8_t* P) {
  return uint32_t(P[0]) | uint32_t(P[1]) << 8 | uint32_t(P[2]) << 16 | uint32_t(P[3]) << 24;
}

inline uint64_t loadU64(const uint8_t* P) {
  return uint64_t(loadU32(P)) | uint64_t(loadU32(P + 4)) << 32;
}

inline void storeU32(uint8_t* P, uint32_t V) {
  for (unsigned I = 0; I < 4; ++I)
    P[I] = uint8_t(V >> (8 * I));
}

inline void storeU64(uint8_t* P, uint64_t V) {
  for (unsigned I = 0; I < 8; ++I)
    P[I] = uint8_t(V >> (8 * I));
}

} // namespace cajeta::bundle::format
