// Tests that the bundle reader rejects every damaged or foreign input with the right message.
#include "RawBundle.h"
#include "SampleProgram.h"
#include "bundle/BundleReader.h"
#include "bundle/BundleWriter.h"
#include "bundle/ManifestJson.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>

using namespace cajeta::bundle;
using namespace cajeta::bundle::test;

namespace {

bool contains(const std::string& Haystack, const std::string& Needle) {
  return Haystack.find(Needle) != std::string::npos;
}

/// Reads exactly \p Size bytes from their own heap block, so a sanitizer sees any over-read.
BundleReadResult readExact(const uint8_t* Data, size_t Size) {
  std::unique_ptr<uint8_t[]> Copy(new uint8_t[Size ? Size : 1]);
  if (Size)
    std::memcpy(Copy.get(), Data, Size);
  return BundleReader::read(Copy.get(), Size);
}

std::string sampleManifest(const Program& P) {
  return manifestToJson(P).dump();
}

} // namespace

TEST(BundleCorruption, EveryTruncationIsRejected) {
  std::vector<uint8_t> Bytes = BundleWriter::write(sampleProgram());
  ASSERT_TRUE(BundleReader::read(Bytes.data(), Bytes.size()).Ok);
  for (size_t Len = 0; Len < Bytes.size(); ++Len) {
    BundleReadResult R = readExact(Bytes.data(), Len);
    ASSERT_FALSE(R.Ok) << "accepted a bundle cut to " << Len << " bytes";
    EXPECT_TRUE(R.Value.Kernels.empty() && R.Value.Payloads.empty());
    if (Len == 0)
      EXPECT_TRUE(contains(R.Error, "empty file")) << R.Error;
    else
      EXPECT_TRUE(contains(R.Error, "bundle truncated")) << Len << ": " << R.Error;
  }
}

TEST(BundleCorruption, TruncatedPayloadMessageNamesSectionAndTarget) {
  std::vector<uint8_t> Bytes = BundleWriter::write(sampleProgram());
  size_t Len = Bytes.size() - 10;
  BundleReadResult R = readExact(Bytes.data(), Len);
  ASSERT_FALSE(R.Ok);
  EXPECT_EQ(R.Error, "bundle truncated: section 2 (payload nvptx-sm_90) ends at byte " +
                         std::to_string(Bytes.size()) + " but file has " + std::to_string(Len) +
                         " bytes");
}

TEST(BundleCorruption, EverySingleByteCorruptionIsRejected) {
  Program P = sampleProgram();
  std::vector<uint8_t> Good = BundleWriter::write(P);
  const size_t TableEnd = format::HeaderSize + 3 * format::SectionEntrySize;
  const size_t ManifestEnd = TableEnd + format::loadU64(Good.data() + 24 + format::EntrySizeAt);
  const size_t CpuEnd = ManifestEnd + P.Payloads[0].Bytes.size();
  ASSERT_EQ(CpuEnd + P.Payloads[1].Bytes.size(), Good.size());

  for (uint8_t Mask : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xFF)}) {
    for (size_t At = 0; At < Good.size(); ++At) {
      std::vector<uint8_t> Bad = Good;
      Bad[At] ^= Mask;
      BundleReadResult R = readExact(Bad.data(), Bad.size());
      ASSERT_FALSE(R.Ok) << "accepted a bundle with byte " << At << " xor " << int(Mask);
      const std::string& E = R.Error;
      SCOPED_TRACE("byte " + std::to_string(At) + " xor " + std::to_string(Mask) + ": " + E);
      if (At < 4)
        EXPECT_TRUE(contains(E, "not a Cajeta bundle"));
      else if (At < 8)
        EXPECT_TRUE(contains(E, "bundle format version"));
      else if (At < 12)
        EXPECT_TRUE(contains(E, "bundle truncated: the section table") ||
                    contains(E, "section table checksum mismatch") || contains(E, "section count"));
      else if (At < 16)
        EXPECT_TRUE(contains(E, "reserved field is not zero"));
      else if (At < TableEnd)
        EXPECT_TRUE(contains(E, "bundle section table checksum mismatch"));
      else if (At < ManifestEnd)
        EXPECT_TRUE(contains(E, "checksum mismatch in section 0 (manifest)"));
      else if (At < CpuEnd)
        EXPECT_TRUE(contains(E, "checksum mismatch in section 1 (payload cpu-x86_64)"));
      else
        EXPECT_TRUE(contains(E, "checksum mismatch in section 2 (payload nvptx-sm_90)"));
    }
  }
}

TEST(BundleCorruption, NewerVersion) {
  std::vector<uint8_t> Bytes = BundleWriter::write(sampleProgram());
  format::storeU32(Bytes.data() + format::HeaderVersionAt, 7);
  BundleReadResult R = BundleReader::read(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Error, "bundle format version 7 is newer than this runtime supports (1)");
}

TEST(BundleCorruption, VersionZero) {
  std::vector<uint8_t> Bytes = BundleWriter::write(sampleProgram());
  format::storeU32(Bytes.data() + format::HeaderVersionAt, 0);
  BundleReadResult R = BundleReader::read(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_TRUE(contains(R.Error, "version 0 is invalid")) << R.Error;
}

TEST(BundleCorruption, EmptyFile) {
  BundleReadResult R = BundleReader::read(nullptr, 0);
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Error, "empty file: not a Cajeta bundle");
  EXPECT_FALSE(BundleReader::looksLikeBundle(nullptr, 0));
}

TEST(BundleCorruption, NullDataWithSize) {
  BundleReadResult R = BundleReader::read(nullptr, 100);
  EXPECT_FALSE(R.Ok);
  EXPECT_TRUE(contains(R.Error, "null pointer")) << R.Error;
}

TEST(BundleCorruption, NotABundle) {
  std::string Elf = "\x7f"
                    "ELF\x02\x01\x01";
  BundleReadResult R = BundleReader::read(reinterpret_cast<const uint8_t*>(Elf.data()), Elf.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_TRUE(contains(R.Error, "not a Cajeta bundle")) << R.Error;
  EXPECT_FALSE(
      BundleReader::looksLikeBundle(reinterpret_cast<const uint8_t*>(Elf.data()), Elf.size()));
  const uint8_t Short[] = {'C', 'J', 'X'};
  EXPECT_FALSE(BundleReader::looksLikeBundle(Short, sizeof(Short)));
}

TEST(BundleCorruption, RandomGarbage) {
  std::mt19937_64 Rng(20261129);
  for (int Round = 0; Round < 2000; ++Round) {
    size_t Size = Rng() % 600;
    std::vector<uint8_t> Bytes(Size);
    for (uint8_t& B : Bytes)
      B = uint8_t(Rng());
    // Half the rounds start with a valid header prefix so the deeper checks get exercised.
    if (Round % 2 && Size >= format::HeaderSize) {
      std::memcpy(Bytes.data(), format::Magic, 4);
      format::storeU32(Bytes.data() + format::HeaderVersionAt, 1);
      format::storeU32(Bytes.data() + format::HeaderCountAt, uint32_t(Rng() % 4 + 1));
      format::storeU32(Bytes.data() + format::HeaderReservedAt, 0);
      if (Size >= format::HeaderSize + format::SectionEntrySize)
        resealTable(Bytes);
    }
    BundleReadResult R = readExact(Bytes.data(), Bytes.size());
    EXPECT_FALSE(R.Ok) << "round " << Round;
    EXPECT_FALSE(R.Error.empty());
  }
}

TEST(BundleCorruption, SectionOffsetOverflow) {
  std::vector<uint8_t> Bytes = assemble({manifestSection(sampleManifest(Program()))});
  format::storeU64(entry(Bytes, 0) + format::EntryOffsetAt, UINT64_MAX - 7);
  format::storeU64(entry(Bytes, 0) + format::EntrySizeAt, 16);
  resealTable(Bytes);
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_TRUE(contains(R.Error, "bundle truncated: section 0 (manifest) ends past 2^64"))
      << R.Error;
}

TEST(BundleCorruption, SectionSizeOverflow) {
  std::vector<uint8_t> Bytes = assemble({manifestSection(sampleManifest(Program()))});
  format::storeU64(entry(Bytes, 0) + format::EntrySizeAt, UINT64_MAX);
  resealTable(Bytes);
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_TRUE(contains(R.Error, "bundle truncated: section 0 (manifest) ends past 2^64"))
      << R.Error;
}

TEST(BundleCorruption, SectionInsideTable) {
  std::vector<uint8_t> Bytes = assemble({manifestSection(sampleManifest(Program()))});
  format::storeU64(entry(Bytes, 0) + format::EntryOffsetAt, 0);
  resealTable(Bytes);
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_TRUE(contains(R.Error, "inside the header or section table")) << R.Error;
}

TEST(BundleCorruption, OverlappingSections) {
  Program P = sampleProgram();
  P.Payloads.resize(1);
  std::vector<uint8_t> Bytes =
      assemble({manifestSection(sampleManifest(P)), payloadSection(P.Payloads[0].Bytes)});
  // Point the payload section at the manifest's bytes, keeping its size and fixing its hash.
  uint64_t ManifestOffset = format::loadU64(entry(Bytes, 0) + format::EntryOffsetAt);
  format::storeU64(entry(Bytes, 1) + format::EntryOffsetAt, ManifestOffset);
  resealTable(Bytes);
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_TRUE(contains(R.Error, "overlaps")) << R.Error;
}

TEST(BundleCorruption, TrailingBytes) {
  std::vector<uint8_t> Bytes = BundleWriter::write(sampleProgram());
  Bytes.push_back(0);
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_TRUE(contains(R.Error, "1 byte after the last section")) << R.Error;
}

TEST(BundleCorruption, GapBetweenSections) {
  Program P = sampleProgram();
  P.Payloads.resize(1);
  std::vector<uint8_t> Bytes =
      assemble({manifestSection(sampleManifest(P)), payloadSection(P.Payloads[0].Bytes)});
  // Move the payload one byte later, with one inserted byte before it.
  uint64_t Offset = format::loadU64(entry(Bytes, 1) + format::EntryOffsetAt);
  Bytes.insert(Bytes.begin() + Offset, 0);
  format::storeU64(entry(Bytes, 1) + format::EntryOffsetAt, Offset + 1);
  resealTable(Bytes);
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_TRUE(contains(R.Error, "belong to no section")) << R.Error;
}

TEST(BundleCorruption, NoManifest) {
  std::vector<uint8_t> Bytes = assemble({payloadSection({1, 2, 3})});
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Error, "bundle has no manifest section");
}

TEST(BundleCorruption, TwoManifests) {
  std::string M = sampleManifest(Program());
  std::vector<uint8_t> Bytes = assemble({manifestSection(M), manifestSection(M)});
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Error, "bundle has more than one manifest section (sections 0 and 1)");
}

TEST(BundleCorruption, UnknownSectionKind) {
  std::vector<uint8_t> Bytes = assemble({manifestSection(sampleManifest(Program()))});
  format::storeU32(entry(Bytes, 0) + format::EntryKindAt, 9);
  resealTable(Bytes);
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_TRUE(contains(R.Error, "section 0 has unknown kind 9")) << R.Error;
}

TEST(BundleCorruption, ZeroSections) {
  std::vector<uint8_t> Bytes = assemble({});
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_TRUE(contains(R.Error, "section count is 0")) << R.Error;
}

TEST(BundleCorruption, ManifestNotJson) {
  std::vector<uint8_t> Bytes = assemble({manifestSection("{\"kernels\": [")});
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Error, "bundle manifest (section 0) is not valid JSON");
}

TEST(BundleCorruption, ManifestMissingField) {
  nlohmann::json J = manifestToJson(sampleProgram());
  J["kernels"][1]["params"][0].erase("type");
  std::vector<uint8_t> Bytes =
      assemble({manifestSection(J.dump()), payloadSection(sampleProgram().Payloads[0].Bytes),
                payloadSection(sampleProgram().Payloads[1].Bytes)});
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Error,
            "bundle manifest is invalid: manifest field 'kernels[1].params[0].type' is missing");
}

TEST(BundleCorruption, PayloadCountMismatch) {
  Program P = sampleProgram();
  std::vector<uint8_t> Bytes =
      assemble({manifestSection(sampleManifest(P)), payloadSection(P.Payloads[0].Bytes)});
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Error, "bundle manifest lists 2 payloads but the bundle has 1 payload section");
}

TEST(BundleCorruption, PayloadSizeMismatch) {
  Program P = sampleProgram();
  std::vector<uint8_t> Short = P.Payloads[1].Bytes;
  Short.pop_back();
  std::vector<uint8_t> Bytes =
      assemble({manifestSection(sampleManifest(P)), payloadSection(P.Payloads[0].Bytes),
                payloadSection(Short)});
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  EXPECT_EQ(R.Error, "bundle is inconsistent: the manifest says section 2 (payload nvptx-sm_90) "
                     "has " +
                         std::to_string(P.Payloads[1].Bytes.size()) +
                         " bytes but the section has " + std::to_string(Short.size()) + " bytes");
}

TEST(BundleCorruption, ManifestMayFollowPayloads) {
  // The format allows any section order; payloads keep their order among themselves.
  Program P = sampleProgram();
  std::vector<uint8_t> Bytes =
      assemble({payloadSection(P.Payloads[0].Bytes), manifestSection(sampleManifest(P)),
                payloadSection(P.Payloads[1].Bytes)});
  BundleReadResult R = readExact(Bytes.data(), Bytes.size());
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_EQ(R.Value.Payloads[0].Bytes, P.Payloads[0].Bytes);
  EXPECT_EQ(R.Value.Payloads[1].Bytes, P.Payloads[1].Bytes);
}
