// Signature sections, and the exact rewrite between a signed bundle and its unsigned bytes.
#include "bundle/BundleSignature.h"

#include "bundle/BundleFormat.h"
#include "bundle/Hash.h"

#include <cstring>

namespace cajeta::bundle {

namespace {

/// Copies the header and the first \p Entries table entries of \p From into \p To, moving each
/// entry's offset by \p Shift and setting the count and table checksum to match.
void rewriteTable(const uint8_t* From, uint8_t* To, uint32_t Entries, int64_t Shift) {
  std::memcpy(To, From, format::HeaderSize);
  for (uint32_t I = 0; I < Entries; ++I) {
    size_t At = format::HeaderSize + size_t(I) * format::SectionEntrySize;
    std::memcpy(To + At, From + At, format::SectionEntrySize);
    uint64_t Offset = format::loadU64(From + At + format::EntryOffsetAt);
    format::storeU64(To + At + format::EntryOffsetAt, uint64_t(int64_t(Offset) + Shift));
  }
  format::storeU32(To + format::HeaderCountAt, Entries);
}

void sealTable(uint8_t* Bundle, uint32_t Entries) {
  format::storeU64(Bundle + format::HeaderTableHashAt,
                   hash64(Bundle + format::HeaderSize, size_t(Entries) * format::SectionEntrySize));
}

} // namespace

bool BundleSignature::decode(const uint8_t* Data, size_t Size, SignatureBlock& Out,
                             std::string& Error) {
  if (Size != format::SignatureSectionSize) {
    Error = "it has " + std::to_string(Size) + " bytes, a signature section has " +
            std::to_string(format::SignatureSectionSize);
    return false;
  }
  if (std::memcmp(Data, format::SignatureMagic, sizeof(format::SignatureMagic)) != 0) {
    Error = "it does not start with the magic \"CJXS\"";
    return false;
  }
  uint32_t Version = format::loadU32(Data + format::SignatureVersionAt);
  if (Version != format::SignatureVersion) {
    Error = "its version " + std::to_string(Version) + " is not one this reader knows (1)";
    return false;
  }
  uint32_t Algorithm = format::loadU32(Data + format::SignatureAlgorithmAt);
  if (Algorithm != format::SignatureEd25519) {
    Error = "its algorithm " + std::to_string(Algorithm) +
            " is not one this reader knows (1 = Ed25519)";
    return false;
  }
  // Reserved bits must be zero so that a signed file has exactly one form.
  if (format::loadU32(Data + format::SignatureReservedAt) != 0) {
    Error = "its reserved field is not zero";
    return false;
  }
  std::memcpy(Out.PublicKey.data(), Data + format::SignatureKeyAt, format::SignatureKeySize);
  std::memcpy(Out.Signature.data(), Data + format::SignatureValueAt, format::SignatureValueSize);
  return true;
}

std::vector<uint8_t> BundleSignature::encode(const SignatureBlock& Block) {
  std::vector<uint8_t> Out(format::SignatureSectionSize, 0);
  std::memcpy(Out.data(), format::SignatureMagic, sizeof(format::SignatureMagic));
  format::storeU32(Out.data() + format::SignatureVersionAt, format::SignatureVersion);
  format::storeU32(Out.data() + format::SignatureAlgorithmAt, format::SignatureEd25519);
  std::memcpy(Out.data() + format::SignatureKeyAt, Block.PublicKey.data(),
              format::SignatureKeySize);
  std::memcpy(Out.data() + format::SignatureValueAt, Block.Signature.data(),
              format::SignatureValueSize);
  return Out;
}

std::vector<uint8_t> BundleSignature::signedBytes(const uint8_t* Data, size_t Size) {
  // The reader has checked the layout: the signature is the last entry and the last bytes, and
  // every other section starts after the table (so moving it 32 bytes earlier cannot wrap).
  uint32_t Count = format::loadU32(Data + format::HeaderCountAt);
  size_t SignedTableEnd = format::HeaderSize + size_t(Count) * format::SectionEntrySize;
  size_t Body = Size - format::SignatureSectionSize - SignedTableEnd;
  std::vector<uint8_t> Out(SignedTableEnd - format::SectionEntrySize + Body);
  rewriteTable(Data, Out.data(), Count - 1, -int64_t(format::SectionEntrySize));
  sealTable(Out.data(), Count - 1);
  std::memcpy(Out.data() + SignedTableEnd - format::SectionEntrySize, Data + SignedTableEnd, Body);
  return Out;
}

std::vector<uint8_t> BundleSignature::append(const std::vector<uint8_t>& Unsigned,
                                             const SignatureBlock& Block) {
  uint32_t Count = format::loadU32(Unsigned.data() + format::HeaderCountAt);
  size_t TableEnd = format::HeaderSize + size_t(Count) * format::SectionEntrySize;
  size_t Body = Unsigned.size() - TableEnd;
  std::vector<uint8_t> Section = encode(Block);
  std::vector<uint8_t> Out(Unsigned.size() + format::SectionEntrySize + Section.size(), 0);
  rewriteTable(Unsigned.data(), Out.data(), Count, int64_t(format::SectionEntrySize));
  uint8_t* Entry = Out.data() + TableEnd;
  uint64_t SectionAt = Unsigned.size() + format::SectionEntrySize;
  format::storeU32(Entry + format::EntryKindAt, uint32_t(format::SectionKind::Signature));
  format::storeU64(Entry + format::EntryOffsetAt, SectionAt);
  format::storeU64(Entry + format::EntrySizeAt, Section.size());
  format::storeU64(Entry + format::EntryHashAt, hash64(Section.data(), Section.size()));
  format::storeU32(Out.data() + format::HeaderCountAt, Count + 1);
  sealTable(Out.data(), Count + 1);
  std::memcpy(Out.data() + TableEnd + format::SectionEntrySize, Unsigned.data() + TableEnd, Body);
  std::memcpy(Out.data() + SectionAt, Section.data(), Section.size());
  return Out;
}

} // namespace cajeta::bundle
