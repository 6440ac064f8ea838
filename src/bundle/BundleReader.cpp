// Reads a .cjx bundle, checking every length, offset and checksum before trusting it.
#include "bundle/BundleReader.h"

#include "bundle/BundleFormat.h"
#include "bundle/Hash.h"
#include "bundle/ManifestJson.h"
#include "bundle/RegularFile.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace cajeta::bundle {

namespace {

struct Section {
  uint32_t Kind = 0;
  uint64_t Offset = 0;
  uint64_t Size = 0;
  uint64_t Hash = 0;
  size_t PayloadIndex = 0; // for payload sections: their position among the payloads
};

std::string hex64(uint64_t V) {
  char Buf[19];
  std::snprintf(Buf, sizeof(Buf), "0x%016llx", static_cast<unsigned long long>(V));
  return Buf;
}

std::string plural(uint64_t N, const char* Word) {
  return std::to_string(N) + " " + Word + (N == 1 ? "" : "s");
}

/// Validates one bundle image; the first problem found becomes the error.
class Parser {
public:
  Parser(const uint8_t* Data, size_t Size) : Data(Data), Size(Size) {}

  BundleReadResult run() {
    BundleReadResult R;
    R.Ok = parse(R.Value);
    if (!R.Ok) {
      R.Error = std::move(Error);
      R.Value = Program();
      return R;
    }
    R.Signature = Signature;
    return R;
  }

private:
  bool fail(std::string Message) {
    Error = std::move(Message);
    return false;
  }

  /// "section 2 (payload cpu-x86_64)" once the manifest is known, "section 2 (payload)" before.
  std::string describe(size_t I) const {
    const Section& S = Sections[I];
    std::string Name = "section " + std::to_string(I);
    if (S.Kind == uint32_t(format::SectionKind::Manifest))
      return Name + " (manifest)";
    if (S.Kind == uint32_t(format::SectionKind::Signature))
      return Name + " (signature)";
    if (S.Kind != uint32_t(format::SectionKind::Payload))
      return Name;
    if (Manifest && S.PayloadIndex < Manifest->Payloads.size())
      return Name + " (payload " + Manifest->Payloads[S.PayloadIndex].Target + ")";
    return Name + " (payload)";
  }

  bool parse(Program& Out) {
    // The manifest goes first so that later messages can name each payload's target.
    if (!checkHeader() || !readTable() || !checkBounds(*ManifestSection) ||
        !checkChecksum(*ManifestSection) || !parseManifest(Out))
      return false;
    for (size_t I = 0; I < Sections.size(); ++I)
      if (!checkBounds(I))
        return false;
    if (!checkTiling())
      return false;
    for (size_t I = 0; I < Sections.size(); ++I)
      if (!checkChecksum(I))
        return false;
    if (!readSignature())
      return false;
    attachPayloads(Out);
    return true;
  }

  bool checkHeader() {
    if (Size == 0)
      return fail("empty file: not a Cajeta bundle");
    size_t MagicBytes = std::min(Size, sizeof(format::Magic));
    if (std::memcmp(Data, format::Magic, MagicBytes) != 0)
      return fail("not a Cajeta bundle: the file does not start with the magic \"CJXB\"");
    if (Size < format::HeaderSize)
      return fail("bundle truncated: the header needs " + std::to_string(format::HeaderSize) +
                  " bytes but file has " + plural(Size, "byte"));
    uint32_t Version = format::loadU32(Data + format::HeaderVersionAt);
    if (Version > format::Version)
      return fail("bundle format version " + std::to_string(Version) +
                  " is newer than this runtime supports (" + std::to_string(format::Version) + ")");
    if (Version == 0)
      return fail("bundle format version 0 is invalid (this runtime supports 1)");
    if (format::loadU32(Data + format::HeaderReservedAt) != 0)
      return fail("bundle header is corrupt: its reserved field is not zero");
    Count = format::loadU32(Data + format::HeaderCountAt);
    if (Count == 0)
      return fail("bundle is corrupt: section count is 0 (a bundle needs a manifest section)");
    if (Count > format::MaxSections)
      return fail("bundle is corrupt: section count " + std::to_string(Count) +
                  " exceeds the limit of " + std::to_string(format::MaxSections));
    uint64_t TableEnd = format::HeaderSize + uint64_t(Count) * format::SectionEntrySize;
    if (TableEnd > Size)
      return fail("bundle truncated: the section table (" + plural(Count, "section") +
                  ") ends at byte " + std::to_string(TableEnd) + " but file has " +
                  plural(Size, "byte"));
    uint64_t Expected = format::loadU64(Data + format::HeaderTableHashAt);
    uint64_t Actual = hash64(Data + format::HeaderSize, TableEnd - format::HeaderSize);
    if (Expected != Actual)
      return fail("bundle section table checksum mismatch: header says " + hex64(Expected) +
                  ", table hashes to " + hex64(Actual));
    return true;
  }

  bool readTable() {
    size_t Payloads = 0;
    for (uint32_t I = 0; I < Count; ++I) {
      const uint8_t* E = Data + format::HeaderSize + size_t(I) * format::SectionEntrySize;
      Section S;
      S.Kind = format::loadU32(E + format::EntryKindAt);
      S.Offset = format::loadU64(E + format::EntryOffsetAt);
      S.Size = format::loadU64(E + format::EntrySizeAt);
      S.Hash = format::loadU64(E + format::EntryHashAt);
      if (format::loadU32(E + format::EntryReservedAt) != 0)
        return fail("bundle section table is corrupt: section " + std::to_string(I) +
                    " has a non-zero reserved field");
      if (S.Kind == uint32_t(format::SectionKind::Manifest)) {
        if (ManifestSection)
          return fail("bundle has more than one manifest section (sections " +
                      std::to_string(*ManifestSection) + " and " + std::to_string(I) + ")");
        ManifestSection = I;
      } else if (S.Kind == uint32_t(format::SectionKind::Payload)) {
        S.PayloadIndex = Payloads++;
        if (Payloads > format::MaxPayloads)
          return fail("bundle is corrupt: more than " + std::to_string(format::MaxPayloads) +
                      " payload sections");
      } else if (S.Kind == uint32_t(format::SectionKind::Signature)) {
        // Last in the table (and, checked in readSignature, in the file): a signed bundle is
        // its unsigned bytes plus this, so there is one way to lay it out.
        if (I + 1 != Count)
          return fail("bundle signature (section " + std::to_string(I) + " of " +
                      std::to_string(Count) + ") is not the last section");
        SignatureSection = I;
      } else {
        return fail("bundle section " + std::to_string(I) + " has unknown kind " +
                    std::to_string(S.Kind) +
                    " (expected 1 = manifest, 2 = payload or 3 = signature)");
      }
      Sections.push_back(S);
    }
    if (!ManifestSection)
      return fail("bundle has no manifest section");
    return true;
  }

  bool checkBounds(size_t I) {
    const Section& S = Sections[I];
    uint64_t TableEnd = format::HeaderSize + uint64_t(Count) * format::SectionEntrySize;
    if (S.Offset < TableEnd)
      return fail("bundle is corrupt: " + describe(I) + " starts at byte " +
                  std::to_string(S.Offset) +
                  ", inside the header or section table (which end at byte " +
                  std::to_string(TableEnd) + ")");
    // Overflow-safe form of Offset + Size > FileSize.
    if (S.Offset > Size || S.Size > Size - S.Offset) {
      std::string End = S.Size > UINT64_MAX - S.Offset
                            ? std::string("past 2^64")
                            : "at byte " + std::to_string(S.Offset + S.Size);
      return fail("bundle truncated: " + describe(I) + " ends " + End + " but file has " +
                  plural(Size, "byte"));
    }
    return true;
  }

  /// Sections must cover every byte after the table exactly once, so that no byte of the
  /// file escapes a checksum.
  bool checkTiling() {
    std::vector<size_t> Order(Sections.size());
    for (size_t I = 0; I < Order.size(); ++I)
      Order[I] = I;
    std::stable_sort(Order.begin(), Order.end(),
                     [&](size_t A, size_t B) { return Sections[A].Offset < Sections[B].Offset; });
    uint64_t Cursor = format::HeaderSize + uint64_t(Count) * format::SectionEntrySize;
    for (size_t I : Order) {
      const Section& S = Sections[I];
      if (S.Offset < Cursor)
        return fail("bundle is corrupt: " + describe(I) + " at byte " + std::to_string(S.Offset) +
                    " overlaps the section before it (which ends at byte " +
                    std::to_string(Cursor) + ")");
      if (S.Offset > Cursor)
        return fail("bundle is corrupt: bytes " + std::to_string(Cursor) + " to " +
                    std::to_string(S.Offset) + " belong to no section");
      Cursor = S.Offset + S.Size;
    }
    if (Cursor != Size)
      return fail("bundle is corrupt: " + plural(Size - Cursor, "byte") +
                  " after the last section (at byte " + std::to_string(Cursor) +
                  ") belong to no section");
    return true;
  }

  /// Only after checkBounds(I) succeeded.
  bool checkChecksum(size_t I) {
    const Section& S = Sections[I];
    uint64_t Actual = hash64(Data + S.Offset, size_t(S.Size));
    if (Actual != S.Hash)
      return fail("bundle checksum mismatch in " + describe(I) + ": table says " + hex64(S.Hash) +
                  ", bytes hash to " + hex64(Actual));
    return true;
  }

  bool parseManifest(Program& Out) {
    const Section& S = Sections[*ManifestSection];
    const char* Begin = reinterpret_cast<const char*>(Data + S.Offset);
    nlohmann::json J = nlohmann::json::parse(Begin, Begin + S.Size, nullptr,
                                             /*allow_exceptions=*/false);
    if (J.is_discarded())
      return fail("bundle manifest (section " + std::to_string(*ManifestSection) +
                  ") is not valid JSON");
    std::string ManifestError;
    if (!manifestFromJson(J, Out, ManifestError))
      return fail("bundle manifest is invalid: " + ManifestError);
    size_t PayloadSections = Sections.size() - 1 - (SignatureSection ? 1 : 0);
    if (Out.Payloads.size() != PayloadSections)
      return fail("bundle manifest lists " + plural(Out.Payloads.size(), "payload") +
                  " but the bundle has " + plural(PayloadSections, "payload section"));
    Manifest = &Out;
    // manifestFromJson has validated each payloads[i].size as an unsigned integer.
    const nlohmann::json& Listed = J["payloads"];
    for (size_t I = 0; I < Sections.size(); ++I) {
      if (Sections[I].Kind != uint32_t(format::SectionKind::Payload))
        continue;
      uint64_t Declared = Listed[Sections[I].PayloadIndex]["size"].get<uint64_t>();
      if (Declared != Sections[I].Size)
        return fail("bundle is inconsistent: the manifest says " + describe(I) + " has " +
                    plural(Declared, "byte") + " but the section has " +
                    plural(Sections[I].Size, "byte"));
    }
    return true;
  }

  /// Only after the tiling and checksums are checked.
  bool readSignature() {
    if (!SignatureSection)
      return true;
    const Section& S = Sections[*SignatureSection];
    std::string Why;
    if (S.Offset + S.Size != Size)
      Why = "its bytes are not the last of the file";
    else if (SignatureBlock B; BundleSignature::decode(Data + S.Offset, size_t(S.Size), B, Why))
      Signature = B;
    if (!Signature)
      return fail("bundle signature (section " + std::to_string(*SignatureSection) +
                  ") is malformed: " + Why);
    return true;
  }

  void attachPayloads(Program& Out) {
    for (const Section& S : Sections) {
      if (S.Kind != uint32_t(format::SectionKind::Payload))
        continue;
      Out.Payloads[S.PayloadIndex].Bytes.assign(Data + S.Offset, Data + S.Offset + S.Size);
    }
  }

  const uint8_t* Data;
  size_t Size;
  uint32_t Count = 0;
  std::vector<Section> Sections;
  std::optional<size_t> ManifestSection;
  std::optional<size_t> SignatureSection;
  const Program* Manifest = nullptr;
  std::optional<SignatureBlock> Signature;
  std::string Error;
};

} // namespace

BundleReadResult BundleReader::read(const uint8_t* Data, size_t Size) {
  if (!Data && Size > 0) {
    BundleReadResult R;
    R.Error = "bundle data is a null pointer with size " + std::to_string(Size);
    return R;
  }
  try {
    return Parser(Data, Size).run();
  } catch (const std::exception& E) {
    BundleReadResult R;
    R.Error = std::string("bundle could not be read: ") + E.what();
    return R;
  }
}

BundleReadResult BundleReader::readFile(const std::string& Path, std::vector<uint8_t>* Kept) {
  BundleReadResult R;
  std::vector<uint8_t> Own;
  std::vector<uint8_t>& Bytes = Kept ? *Kept : Own;
  if (!readRegularFile(Path, "bundle", Bytes, R.Error))
    return R;
  R = read(Bytes.data(), Bytes.size());
  if (R.Ok)
    return R;
  R.Error = Path + ": " + R.Error;
  bool Source = Path.size() > 3 && Path.compare(Path.size() - 3, 3, ".cj") == 0;
  if (Source && !looksLikeBundle(Bytes.data(), Bytes.size()))
    R.Error += " (it looks like Cajeta source: compile it with `cajeta build " + Path +
               " -o <bundle>.cjx`, or load it with Program::compileFile)";
  return R;
}

bool BundleReader::looksLikeBundle(const uint8_t* Data, size_t Size) {
  return Data && Size >= sizeof(format::Magic) &&
         std::memcmp(Data, format::Magic, sizeof(format::Magic)) == 0;
}

} // namespace cajeta::bundle
