// The on-disk layout of a .cjx bundle, shared by BundleWriter and BundleReader.
//
// All integers are little-endian. A bundle is, with no padding anywhere:
//   header (24 bytes):  "CJXB", u32 version (= 1), u32 section count, u32 reserved (= 0),
//                       u64 xxh3-64 of the section table
//   section table:      per section (32 bytes): u32 kind (1 = manifest JSON, 2 = payload,
//                       3 = signature), u32 reserved (= 0), u64 offset, u64 size, u64 xxh3-64 of
//                       its bytes
//   section bytes:      back to back, in table order, ending exactly at the end of the file.
// Exactly one section is the manifest; the payload sections appear in the order of the
// manifest's "payloads" array.
//
// A signed bundle is an unsigned one with one signature section appended: the header's count is
// one more, the other sections' offsets are 32 bytes later (one more table entry), the signature
// is the last table entry and its bytes are the last bytes of the file. Its bytes (112):
//   "CJXS", u32 version (= 1), u32 algorithm (1 = Ed25519), u32 reserved (= 0),
//   the signer's raw Ed25519 public key (32 bytes), the Ed25519 signature (64 bytes).
// What is signed is the whole unsigned bundle: the bytes this file had before the signature was
// appended, which the reader rebuilds exactly (count one less, offsets 32 less, table checksum
// recomputed, the signature's entry and bytes dropped). Every other byte of a signed file is
// then either rebuilt into the signed bytes or fixed by the layout above, so changing any byte
// fails the reader or the signature. Readers from before signatures refuse kind 3 by name.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cajeta::bundle::format {

inline constexpr unsigned char Magic[4] = {'C', 'J', 'X', 'B'};
inline constexpr uint32_t Version = 1;
inline constexpr size_t HeaderSize = 24;
inline constexpr size_t SectionEntrySize = 32;
/// Sanity bounds: up to 65535 payloads; sections are those, the manifest and a signature.
inline constexpr uint32_t MaxPayloads = 65535;
inline constexpr uint32_t MaxSections = MaxPayloads + 2;

enum class SectionKind : uint32_t { Manifest = 1, Payload = 2, Signature = 3 };

// The signature section (see above).
inline constexpr unsigned char SignatureMagic[4] = {'C', 'J', 'X', 'S'};
inline constexpr uint32_t SignatureVersion = 1;
inline constexpr uint32_t SignatureEd25519 = 1;
inline constexpr size_t SignatureVersionAt = 4;
inline constexpr size_t SignatureAlgorithmAt = 8;
inline constexpr size_t SignatureReservedAt = 12;
inline constexpr size_t SignatureKeyAt = 16;
inline constexpr size_t SignatureKeySize = 32;
inline constexpr size_t SignatureValueAt = 48;
inline constexpr size_t SignatureValueSize = 64;
inline constexpr size_t SignatureSectionSize = 112;

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
