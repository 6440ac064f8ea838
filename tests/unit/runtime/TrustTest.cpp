// Trusted keys at load (docs/trust.md): without keys nothing changes; with keys (the variable or
// the C API) only bundles signed by one of them load, from a file or from memory; a broken key
// configuration refuses every load; the process's own JIT output and cache load unsigned, and
// the cache is left alone when others could write to it.
#include "TestProgram.h"

#include "bundle/BundleFormat.h"
#include "bundle/Hash.h"
#include "signing/BundleSigner.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace cajeta;
using namespace cajeta::xpu;
using namespace cajeta::xpu::test;
namespace fs = std::filesystem;

namespace {

std::string scratch(const std::string& Name) {
  std::string Dir = std::string(CAJETA_TEST_SCRATCH_DIR) + "/" + Name;
  fs::remove_all(Dir);
  fs::create_directories(Dir);
  return Dir;
}

void writeFile(const std::string& Path, const std::string& Text) {
  std::ofstream(Path, std::ios::binary) << Text;
}

void writeFile(const std::string& Path, const std::vector<uint8_t>& Bytes) {
  std::ofstream(Path, std::ios::binary)
      .write(reinterpret_cast<const char*>(Bytes.data()), std::streamsize(Bytes.size()));
}

/// A fresh key whose public half is written to Dir/Name.pub.
signing::PrivateKey keyIn(const std::string& Dir, const std::string& Name) {
  signing::PrivateKey Key;
  std::string Error;
  EXPECT_TRUE(signing::PrivateKey::generate(Key, Error)) << Error;
  writeFile(Dir + "/" + Name + ".pub", Key.publicKey().toPem());
  return Key;
}

std::vector<uint8_t> signedBy(const signing::PrivateKey& Key) {
  std::vector<uint8_t> Unsigned = testBundleBytes(), Signed;
  std::string Error;
  EXPECT_TRUE(signing::BundleSigner::sign(Unsigned.data(), Unsigned.size(), Key, Signed, Error))
      << Error;
  return Signed;
}

std::string loadMemoryError(const std::vector<uint8_t>& Bytes) {
  return messageOf<BundleError>([&] { Program::loadMemory(Bytes.data(), Bytes.size()); });
}

} // namespace

TEST(Trust, WithoutKeysBundlesLoadSignedOrNot) {
  EnvGuard Keys("CAJETA_XPU_TRUSTED_KEYS", nullptr);
  EXPECT_EQ(trustedKeyCount(), 0u);
  std::vector<uint8_t> Unsigned = testBundleBytes();
  expectSaxpyRuns(Program::loadMemory(Unsigned.data(), Unsigned.size()));
  std::string Dir = scratch("trust-none");
  std::vector<uint8_t> Signed = signedBy(keyIn(Dir, "k"));
  expectSaxpyRuns(Program::loadMemory(Signed.data(), Signed.size()));
}

TEST(Trust, WithKeysAnUnsignedBundleIsRefusedFromMemoryAndFromAFile) {
  std::string Dir = scratch("trust-unsigned");
  signing::PrivateKey Key = keyIn(Dir, "release");
  EnvGuard Keys("CAJETA_XPU_TRUSTED_KEYS", (Dir + "/release.pub").c_str());
  EXPECT_EQ(trustedKeyCount(), 1u);
  std::vector<uint8_t> Unsigned = testBundleBytes();
  std::string M = loadMemoryError(Unsigned);
  EXPECT_TRUE(contains(M, "bundle in memory (" + std::to_string(Unsigned.size()) +
                              " bytes) is not signed (this process loads only bundles signed by "
                              "a trusted key: " +
                              Key.publicKey().fingerprint() + ")"));
  EXPECT_TRUE(contains(M, "cajeta sign --key"));
  std::string Path = Dir + "/unsigned.cjx";
  writeFile(Path, Unsigned);
  EXPECT_TRUE(contains(messageOf<BundleError>([&] { Program::load(Path); }),
                       "bundle " + Path + " is not signed"));
}

TEST(Trust, WithKeysABundleSignedByATrustedKeyLoadsAndRuns) {
  std::string Dir = scratch("trust-signed");
  signing::PrivateKey Key = keyIn(Dir, "release");
  EnvGuard Keys("CAJETA_XPU_TRUSTED_KEYS", (Dir + "/release.pub").c_str());
  std::vector<uint8_t> Signed = signedBy(Key);
  expectSaxpyRuns(Program::loadMemory(Signed.data(), Signed.size()));
  std::string Path = Dir + "/signed.cjx";
  writeFile(Path, Signed);
  expectSaxpyRuns(Program::load(Path));
}

TEST(Trust, WithKeysABundleSignedByAnotherKeyIsRefused) {
  std::string Dir = scratch("trust-other");
  signing::PrivateKey Trusted = keyIn(Dir, "trusted"), Stranger = keyIn(Dir, "stranger");
  EnvGuard Keys("CAJETA_XPU_TRUSTED_KEYS", (Dir + "/trusted.pub").c_str());
  EXPECT_TRUE(contains(loadMemoryError(signedBy(Stranger)),
                       "is signed by key " + Stranger.publicKey().fingerprint() +
                           ", which is not trusted (this process loads only bundles signed by "
                           "a trusted key: " +
                           Trusted.publicKey().fingerprint() + ")"));
}

TEST(Trust, WithKeysAChangedSignedBundleIsRefused) {
  // Someone who changes the CPU payload and fixes every checksum still cannot fix the signature.
  std::string Dir = scratch("trust-changed");
  signing::PrivateKey Key = keyIn(Dir, "release");
  EnvGuard Keys("CAJETA_XPU_TRUSTED_KEYS", (Dir + "/release.pub").c_str());
  std::vector<uint8_t> Changed = signedBy(Key);
  namespace format = bundle::format;
  uint8_t* Payload = Changed.data() + format::HeaderSize + format::SectionEntrySize; // section 1
  uint64_t At = format::loadU64(Payload + format::EntryOffsetAt);
  uint64_t Size = format::loadU64(Payload + format::EntrySizeAt);
  Changed[At + Size / 2] ^= 0x40;
  format::storeU64(Payload + format::EntryHashAt, bundle::hash64(Changed.data() + At, Size));
  uint32_t Count = format::loadU32(Changed.data() + format::HeaderCountAt);
  format::storeU64(
      Changed.data() + format::HeaderTableHashAt,
      bundle::hash64(Changed.data() + format::HeaderSize, Count * format::SectionEntrySize));
  EXPECT_TRUE(contains(loadMemoryError(Changed), "but the signature does not verify"));
}

TEST(Trust, SeveralKeysAreColonSeparated) {
  std::string Dir = scratch("trust-several");
  signing::PrivateKey A = keyIn(Dir, "a"), B = keyIn(Dir, "b");
  std::string List = Dir + "/a.pub::" + Dir + "/b.pub:";
  EnvGuard Keys("CAJETA_XPU_TRUSTED_KEYS", List.c_str());
  EXPECT_EQ(trustedKeyCount(), 2u);
  std::vector<uint8_t> ByB = signedBy(B);
  EXPECT_NO_THROW(Program::loadMemory(ByB.data(), ByB.size()));
}

TEST(Trust, AKeyFileThatCannotBeReadFailsEveryLoad) {
  std::string Dir = scratch("trust-broken");
  signing::PrivateKey Key = keyIn(Dir, "good");
  std::vector<uint8_t> Signed = signedBy(Key);
  std::string List = Dir + "/good.pub:" + Dir + "/missing.pub";
  {
    EnvGuard Keys("CAJETA_XPU_TRUSTED_KEYS", List.c_str());
    std::string M = messageOf<Error>([&] { Program::loadMemory(Signed.data(), Signed.size()); });
    EXPECT_TRUE(contains(M, "CAJETA_XPU_TRUSTED_KEYS: cannot read public key '" + Dir +
                                "/missing.pub': No such file or directory; no bundle loads "
                                "until the trusted keys can be read"));
    EXPECT_THROW(trustedKeyCount(), Error);
  }
  // A private key where a public one belongs says so.
  writeFile(Dir + "/private.pub", Key.toPem());
  EnvGuard Keys("CAJETA_XPU_TRUSTED_KEYS", (Dir + "/private.pub").c_str());
  EXPECT_TRUE(contains(messageOf<Error>([&] { Program::loadMemory(Signed.data(), Signed.size()); }),
                       "holds a private key; trust its public half"));
}

TEST(Trust, TheProcesssOwnCompiledBundlesLoadUnsigned) {
  std::string Dir = scratch("trust-own");
  keyIn(Dir, "release");
  EnvGuard Keys("CAJETA_XPU_TRUSTED_KEYS", (Dir + "/release.pub").c_str());
  std::vector<uint8_t> Unsigned = testBundleBytes();
  cajeta_xpu_program* P = nullptr;
  EXPECT_NE(cajeta_xpu_program_load_memory(Unsigned.data(), Unsigned.size(), &P), 0);
  ASSERT_EQ(cajeta_xpu_program_load_compiled(Unsigned.data(), Unsigned.size(), &P), 0)
      << cajeta_xpu_last_error();
  cajeta_xpu_program_release(P);
}

TEST(Trust, JitOutputAndItsCacheAreTrustedAsTheUsersOwn) {
  std::string Dir = scratch("trust-jit");
  keyIn(Dir, "release");
  EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
  EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
  EnvGuard Keys("CAJETA_XPU_TRUSTED_KEYS", (Dir + "/release.pub").c_str());
  Program First = Program::compileSource("class K { /* trusted */ }", "trusted.cj");
  EXPECT_FALSE(First.fromCache());
  expectSaxpyRuns(First);
  Program Second = Program::compileSource("class K { /* trusted */ }", "trusted.cj");
  EXPECT_TRUE(Second.fromCache());
  expectSaxpyRuns(Second);
  // The runtime made the cache directory private to this user.
  struct stat St;
  ASSERT_EQ(::stat((Dir + "/cajeta").c_str(), &St), 0);
  EXPECT_EQ(St.st_mode & 0777, 0700u);
}

TEST(Trust, WithKeysACacheOthersCanWriteToIsNotUsed) {
  std::string Dir = scratch("trust-jit-shared");
  keyIn(Dir, "release");
  EnvGuard Lib("CAJETA_COMPILER_LIB", CAJETA_FAKE_COMPILER_PATH);
  EnvGuard Cache("XDG_CACHE_HOME", Dir.c_str());
  EXPECT_FALSE(Program::compileSource("class K { /* shared */ }", "shared.cj").fromCache());
  fs::permissions(Dir + "/cajeta", fs::perms::group_write | fs::perms::others_write,
                  fs::perm_options::add);
  // Without keys the cache is used as before.
  EXPECT_TRUE(Program::compileSource("class K { /* shared */ }", "shared.cj").fromCache());
  EnvGuard Keys("CAJETA_XPU_TRUSTED_KEYS", (Dir + "/release.pub").c_str());
  testing::internal::CaptureStderr();
  Program P = Program::compileSource("class K { /* shared */ }", "shared.cj");
  std::string Err = testing::internal::GetCapturedStderr();
  EXPECT_FALSE(P.fromCache());
  expectSaxpyRuns(P);
  EXPECT_TRUE(contains(Err, "cajeta: warning: the JIT cache is not usable ('" + Dir +
                                "/cajeta' is writable by other users (mode 0"));
  EXPECT_TRUE(contains(Err, "with bundle signatures enforced only a cache of this user's own"));
}

TEST(Trust, KeysAddedThroughTheApiStayForTheProcess) {
  // Added keys are never removed, so this runs in a child of its own.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  std::string Dir = scratch("trust-api");
  signing::PrivateKey Key = keyIn(Dir, "api");
  std::vector<uint8_t> Unsigned = testBundleBytes(), Signed = signedBy(Key);
  EnvGuard Keys("CAJETA_XPU_TRUSTED_KEYS", nullptr);
  auto Child = [&] {
    int Failures = 0;
    auto Check = [&](bool Ok, const char* What) {
      if (!Ok) {
        std::fprintf(stderr, "failed: %s\n", What);
        ++Failures;
      }
    };
    Check(trustedKeyCount() == 0, "no key at first");
    Check(cajeta_xpu_trust_key_file((Dir + "/missing.pub").c_str()) == CAJETA_XPU_ERROR,
          "a missing key file is an error");
    Check(contains(cajeta_xpu_last_error(), "cannot read public key"), "and says so");
    Check(trustedKeyCount() == 0, "still no key");
    trustKeyFile(Dir + "/api.pub");
    trustKeyFile(Dir + "/api.pub"); // the same key twice is one key
    Check(trustedKeyCount() == 1, "one key");
    Check(contains(loadMemoryError(Unsigned), "is not signed"), "unsigned refused");
    Check(loadMemoryError(Signed).empty(), "signed loads");
    std::exit(Failures ? 1 : 0);
  };
  EXPECT_EXIT(Child(), testing::ExitedWithCode(0), "");
}
