// Signed bundles: sign and verify, the exact unsigned bytes a signature covers, every changed
// byte caught, wrong and missing signatures, and malformed signature sections refused by the
// reader with a message.
#include "bundle/BundleSignature.h"
#include "RawBundle.h"
#include "SampleProgram.h"
#include "bundle/BundleReader.h"
#include "bundle/BundleWriter.h"
#include "bundle/ManifestJson.h"
#include "signing/BundleSigner.h"
#include "signing/BundleVerifier.h"

#include <gtest/gtest.h>

using namespace cajeta::bundle;
using namespace cajeta::bundle::test;
using namespace cajeta::signing;

namespace {

bool contains(const std::string& Haystack, const std::string& Needle) {
  return Haystack.find(Needle) != std::string::npos;
}

PrivateKey newKey() {
  PrivateKey Key;
  std::string Error;
  EXPECT_TRUE(PrivateKey::generate(Key, Error)) << Error;
  return Key;
}

std::vector<uint8_t> signedCopy(const std::vector<uint8_t>& Bytes, const PrivateKey& Key) {
  std::vector<uint8_t> Out;
  std::string Error;
  EXPECT_TRUE(BundleSigner::sign(Bytes.data(), Bytes.size(), Key, Out, Error)) << Error;
  return Out;
}

Verification verify(const std::vector<uint8_t>& Bytes, const std::vector<PublicKey>& Trusted) {
  return BundleVerifier::verify(Bytes.data(), Bytes.size(), Trusted);
}

/// A signature section's bytes; Edit may spoil them.
std::vector<uint8_t> signatureBytes(void (*Edit)(std::vector<uint8_t>&) = nullptr) {
  SignatureBlock B;
  B.PublicKey.fill(7);
  B.Signature.fill(9);
  std::vector<uint8_t> Bytes = BundleSignature::encode(B);
  if (Edit)
    Edit(Bytes);
  return Bytes;
}

RawSection signatureSection(std::vector<uint8_t> Bytes) {
  return {format::SectionKind::Signature, std::move(Bytes)};
}

std::string readError(const std::vector<uint8_t>& Bytes) {
  BundleReadResult R = BundleReader::read(Bytes.data(), Bytes.size());
  EXPECT_FALSE(R.Ok);
  return R.Error;
}

std::string emptyManifest() {
  return manifestToJson(Program()).dump();
}

} // namespace

TEST(BundleSignature, SignVerifyRoundTrip) {
  PrivateKey Key = newKey();
  std::vector<uint8_t> Unsigned = BundleWriter::write(sampleProgram());
  std::vector<uint8_t> Signed = signedCopy(Unsigned, Key);
  EXPECT_EQ(Signed.size(), Unsigned.size() + format::SectionEntrySize + 112);

  BundleReadResult R = BundleReader::read(Signed.data(), Signed.size());
  ASSERT_TRUE(R.Ok) << R.Error;
  ASSERT_TRUE(R.Signature);
  EXPECT_EQ(R.Signature->PublicKey, Key.publicKey().raw());
  // What is signed is exactly the unsigned bundle, so the signature checks with any Ed25519
  // tool over the original file.
  EXPECT_EQ(BundleSignature::signedBytes(Signed.data(), Signed.size()), Unsigned);
  EXPECT_TRUE(Key.publicKey().verify(Unsigned.data(), Unsigned.size(), R.Signature->Signature));

  Verification V = verify(Signed, {Key.publicKey()});
  EXPECT_TRUE(V.trusted()) << V.Message;
  EXPECT_EQ(V.Fingerprint, Key.publicKey().fingerprint());
  EXPECT_EQ(V.Fingerprint.size(), 16u);
}

TEST(BundleSignature, TheReaderLoadsASignedBundleAsTheUnsignedOne) {
  std::vector<uint8_t> Unsigned = BundleWriter::write(sampleProgram());
  std::vector<uint8_t> Signed = signedCopy(Unsigned, newKey());
  BundleReadResult A = BundleReader::read(Unsigned.data(), Unsigned.size());
  BundleReadResult B = BundleReader::read(Signed.data(), Signed.size());
  ASSERT_TRUE(A.Ok && B.Ok) << A.Error << B.Error;
  EXPECT_FALSE(A.Signature);
  EXPECT_EQ(manifestToJson(A.Value), manifestToJson(B.Value));
  ASSERT_EQ(A.Value.Payloads.size(), B.Value.Payloads.size());
  for (size_t I = 0; I < A.Value.Payloads.size(); ++I)
    EXPECT_EQ(A.Value.Payloads[I].Bytes, B.Value.Payloads[I].Bytes);
}

TEST(BundleSignature, ResigningReplacesTheSignature) {
  PrivateKey First = newKey(), Second = newKey();
  std::vector<uint8_t> Unsigned = BundleWriter::write(sampleProgram());
  std::vector<uint8_t> Once = signedCopy(Unsigned, First);
  std::vector<uint8_t> Twice = signedCopy(Once, Second);
  EXPECT_EQ(Twice.size(), Once.size());
  EXPECT_EQ(BundleSignature::signedBytes(Twice.data(), Twice.size()), Unsigned);
  EXPECT_TRUE(verify(Twice, {Second.publicKey()}).trusted());
  EXPECT_FALSE(verify(Twice, {First.publicKey()}).trusted());
}

TEST(BundleSignature, EveryChangedByteFailsVerification) {
  PrivateKey Key = newKey();
  std::vector<uint8_t> Unsigned = BundleWriter::write(sampleProgram());
  std::vector<uint8_t> Signed = signedCopy(Unsigned, Key);
  BundleReadResult R = BundleReader::read(Unsigned.data(), Unsigned.size());
  ASSERT_TRUE(R.Ok);
  // The payloads are the last sections before the signature; their bytes, with the checksums
  // made right again, are what only the signature protects.
  size_t PayloadBytes = 0;
  for (const Payload& P : R.Value.Payloads)
    PayloadBytes += P.Bytes.size();
  size_t PayloadsEnd = Signed.size() - 112, PayloadsBegin = PayloadsEnd - PayloadBytes;
  size_t BadSignatures = 0;
  for (size_t I = 0; I < Signed.size(); ++I) {
    std::vector<uint8_t> Changed = Signed;
    Changed[I] ^= 0x01;
    Verification V = verify(Changed, {Key.publicKey()});
    ASSERT_FALSE(V.trusted()) << "byte " << I << " changed, still verified";
    resealAll(Changed);
    if (Changed == Signed)
      continue; // a checksum byte: resealing put it back
    V = verify(Changed, {Key.publicKey()});
    ASSERT_FALSE(V.trusted()) << "byte " << I << " changed and checksums resealed, still verified";
    if (I >= PayloadsBegin && I < PayloadsEnd) {
      EXPECT_EQ(V.Result, Verification::Outcome::BadSignature) << "byte " << I << ": " << V.Message;
      BadSignatures += V.Result == Verification::Outcome::BadSignature;
    }
  }
  EXPECT_EQ(BadSignatures, PayloadBytes);
}

TEST(BundleSignature, WrongKeyIsRejected) {
  PrivateKey Signer = newKey(), Other = newKey();
  std::vector<uint8_t> Signed = signedCopy(BundleWriter::write(sampleProgram()), Signer);
  Verification V = verify(Signed, {Other.publicKey()});
  EXPECT_EQ(V.Result, Verification::Outcome::Untrusted);
  EXPECT_EQ(V.Message,
            "is signed by key " + Signer.publicKey().fingerprint() + ", which is not trusted");
  EXPECT_TRUE(verify(Signed, {Other.publicKey(), Signer.publicKey()}).trusted());
  EXPECT_FALSE(verify(Signed, {}).trusted());
}

TEST(BundleSignature, ASignatureMadeByAnotherKeyDoesNotVerify) {
  // The key in the section is the trusted one, the signature another key's.
  PrivateKey Trusted = newKey(), Forger = newKey();
  std::vector<uint8_t> Unsigned = BundleWriter::write(sampleProgram());
  SignatureBlock Block;
  Block.PublicKey = Trusted.publicKey().raw();
  std::string Error;
  ASSERT_TRUE(Forger.sign(Unsigned.data(), Unsigned.size(), Block.Signature, Error));
  std::vector<uint8_t> Forged = BundleSignature::append(Unsigned, Block);
  Verification V = verify(Forged, {Trusted.publicKey()});
  EXPECT_EQ(V.Result, Verification::Outcome::BadSignature);
  EXPECT_TRUE(contains(V.Message, "signature does not verify")) << V.Message;
}

TEST(BundleSignature, UnsignedBundleIsNotTrusted) {
  std::vector<uint8_t> Unsigned = BundleWriter::write(sampleProgram());
  Verification V = verify(Unsigned, {newKey().publicKey()});
  EXPECT_EQ(V.Result, Verification::Outcome::Unsigned);
  EXPECT_EQ(V.Message, "is not signed");
}

TEST(BundleSignature, SigningAnInvalidBundleFails) {
  std::vector<uint8_t> Bytes = BundleWriter::write(sampleProgram());
  Bytes.pop_back();
  std::vector<uint8_t> Out;
  std::string Error;
  EXPECT_FALSE(BundleSigner::sign(Bytes.data(), Bytes.size(), newKey(), Out, Error));
  EXPECT_TRUE(contains(Error, "not a valid bundle: bundle truncated")) << Error;
}

TEST(BundleSignatureSection, WrongSizeIsMalformed) {
  std::vector<uint8_t> Bytes =
      assemble({manifestSection(emptyManifest()), signatureSection(std::vector<uint8_t>(50, 0))});
  EXPECT_EQ(readError(Bytes), "bundle signature (section 1) is malformed: it has 50 bytes, a "
                              "signature section has 112");
}

TEST(BundleSignatureSection, BadMagicVersionAlgorithmOrReservedIsMalformed) {
  auto Error = [](void (*Edit)(std::vector<uint8_t>&)) {
    return readError(
        assemble({manifestSection(emptyManifest()), signatureSection(signatureBytes(Edit))}));
  };
  EXPECT_EQ(Error([](std::vector<uint8_t>& B) { B[0] = 'X'; }),
            "bundle signature (section 1) is malformed: it does not start with the magic \"CJXS\"");
  EXPECT_EQ(Error([](std::vector<uint8_t>& B) { B[4] = 2; }),
            "bundle signature (section 1) is malformed: its version 2 is not one this reader "
            "knows (1)");
  EXPECT_EQ(Error([](std::vector<uint8_t>& B) { B[8] = 2; }),
            "bundle signature (section 1) is malformed: its algorithm 2 is not one this reader "
            "knows (1 = Ed25519)");
  EXPECT_EQ(Error([](std::vector<uint8_t>& B) { B[13] = 1; }),
            "bundle signature (section 1) is malformed: its reserved field is not zero");
  // Well formed: the reader takes it (whether it verifies is the verifier's business).
  std::vector<uint8_t> Good =
      assemble({manifestSection(emptyManifest()), signatureSection(signatureBytes())});
  BundleReadResult R = BundleReader::read(Good.data(), Good.size());
  ASSERT_TRUE(R.Ok) << R.Error;
  ASSERT_TRUE(R.Signature);
  EXPECT_EQ(R.Signature->PublicKey[0], 7);
  EXPECT_EQ(verify(Good, {newKey().publicKey()}).Result, Verification::Outcome::BadSignature);
}

TEST(BundleSignatureSection, MustBeTheLastSection) {
  EXPECT_EQ(
      readError(assemble({signatureSection(signatureBytes()), manifestSection(emptyManifest())})),
      "bundle signature (section 0 of 2) is not the last section");
  EXPECT_EQ(
      readError(assemble({manifestSection(emptyManifest()), signatureSection(signatureBytes()),
                          signatureSection(signatureBytes())})),
      "bundle signature (section 1 of 3) is not the last section");
}

TEST(BundleSignatureSection, ItsBytesMustBeTheLastOfTheFile) {
  // Table order manifest, signature; file order signature, manifest.
  std::string Manifest = emptyManifest();
  std::vector<uint8_t> Sig = signatureBytes();
  std::vector<uint8_t> Bytes = assemble({manifestSection(Manifest), signatureSection(Sig)});
  size_t TableEnd = format::HeaderSize + 2 * format::SectionEntrySize;
  Bytes.resize(TableEnd);
  Bytes.insert(Bytes.end(), Sig.begin(), Sig.end());
  Bytes.insert(Bytes.end(), Manifest.begin(), Manifest.end());
  format::storeU64(entry(Bytes, 0) + format::EntryOffsetAt, TableEnd + Sig.size());
  format::storeU64(entry(Bytes, 1) + format::EntryOffsetAt, TableEnd);
  resealTable(Bytes);
  EXPECT_EQ(readError(Bytes), "bundle signature (section 1) is malformed: its bytes are not the "
                              "last of the file");
}

TEST(BundleSignatureSection, ChecksumMismatchNamesTheSignature) {
  std::vector<uint8_t> Signed = signedCopy(BundleWriter::write(sampleProgram()), newKey());
  Signed[Signed.size() - 1] ^= 0x01;
  EXPECT_TRUE(contains(readError(Signed), "bundle checksum mismatch in section 3 (signature)"));
}
