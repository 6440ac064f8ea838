// Trusted signing keys from the environment and the C API, and the check at every bundle load.
#include "runtime/TrustedKeys.h"

#include "runtime/RuntimeError.h"
#include "signing/BundleVerifier.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <mutex>
#include <optional>

namespace cajeta::xpu::rt {

namespace {

const char* const Variable = "CAJETA_XPU_TRUSTED_KEYS";

struct State {
  std::mutex Lock;
  std::vector<signing::PublicKey> Added;  // cajeta_xpu_trust_key_file
  std::optional<std::string> ParsedValue; // the variable's value Parsed came from
  std::vector<signing::PublicKey> Parsed; // its keys
};

State& state() {
  static State S;
  return S;
}

void addUnique(std::vector<signing::PublicKey>& Keys, const signing::PublicKey& K) {
  if (std::find(Keys.begin(), Keys.end(), K) == Keys.end())
    Keys.push_back(K);
}

/// The keys of the files in Value (colon-separated; empty entries are skipped).
std::vector<signing::PublicKey> parseVariable(const std::string& Value) {
  std::vector<signing::PublicKey> Keys;
  size_t Start = 0;
  while (Start <= Value.size()) {
    size_t End = Value.find(':', Start);
    if (End == std::string::npos)
      End = Value.size();
    std::string Path = Value.substr(Start, End - Start);
    Start = End + 1;
    if (Path.empty())
      continue;
    signing::PublicKey K;
    std::string Error;
    if (!signing::PublicKey::fromPemFile(Path, K, Error))
      fail(CAJETA_XPU_ERROR,
           fmt::format("{}: {}; no bundle loads until the trusted keys can be read", Variable,
                       Error));
    addUnique(Keys, K);
  }
  return Keys;
}

std::string fingerprints(const std::vector<signing::PublicKey>& Keys) {
  std::string Out;
  for (const signing::PublicKey& K : Keys)
    Out += (Out.empty() ? "" : ", ") + K.fingerprint();
  return Out;
}

} // namespace

std::vector<signing::PublicKey> TrustedKeys::current() {
  State& S = state();
  std::lock_guard<std::mutex> Guard(S.Lock);
  const char* Value = std::getenv(Variable);
  std::string Now = Value ? Value : "";
  if (S.ParsedValue != Now) {
    S.Parsed = parseVariable(Now); // a failure throws and leaves the old value to be retried
    S.ParsedValue = Now;
  }
  std::vector<signing::PublicKey> Keys = S.Parsed;
  for (const signing::PublicKey& K : S.Added)
    addUnique(Keys, K);
  return Keys;
}

void TrustedKeys::addFile(const std::string& Path) {
  signing::PublicKey K;
  std::string Error;
  if (!signing::PublicKey::fromPemFile(Path, K, Error))
    fail(CAJETA_XPU_ERROR, Error);
  State& S = state();
  std::lock_guard<std::mutex> Guard(S.Lock);
  addUnique(S.Added, K);
}

void TrustedKeys::check(const uint8_t* Data, size_t Size, const bundle::BundleReadResult& Read,
                        const std::string& Origin) {
  std::vector<signing::PublicKey> Keys = current();
  if (Keys.empty())
    return;
  signing::Verification V = signing::BundleVerifier::verify(Data, Size, Read, Keys);
  if (V.trusted())
    return;
  std::string Hint = V.Result == signing::Verification::Outcome::Unsigned
                         ? "; sign it with `cajeta sign --key KEY.key`"
                         : "";
  fail(CAJETA_XPU_BUNDLE_ERROR,
       fmt::format("bundle {} {} (this process loads only bundles signed by a trusted key: {}){}",
                   Origin, V.Message, fingerprints(Keys), Hint));
}

} // namespace cajeta::xpu::rt
