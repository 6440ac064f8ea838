// The keys this process trusts to sign bundles (docs/trust.md): the public-key PEM files named by
// CAJETA_XPU_TRUSTED_KEYS and those added through cajeta_xpu_trust_key_file. With none, bundles
// load as they always did; with any, every bundle loaded from a file or from memory must carry a
// valid signature by one of them.
#pragma once

#include "bundle/BundleReader.h"
#include "signing/PublicKey.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::xpu::rt {

class TrustedKeys {
public:
  /// Every trusted key now. The variable is read at each call and its files again whenever its
  /// value changed, so a test or a launcher may set it late. Throws RuntimeError
  /// (CAJETA_XPU_ERROR) naming the variable and the file when a named file cannot be read or
  /// holds no Ed25519 public key: a broken configuration refuses every load rather than none.
  static std::vector<signing::PublicKey> current();

  /// Trusts the key in the PEM file at \p Path for the rest of the process (keys are never
  /// removed). Throws RuntimeError (CAJETA_XPU_ERROR) when the file is no such key.
  static void addFile(const std::string& Path);

  /// Nothing when no key is trusted; else throws RuntimeError (CAJETA_XPU_BUNDLE_ERROR) unless
  /// the bundle [Data, Data + Size), which the reader accepted as \p Read, is signed by a trusted
  /// key. \p Origin names the bundle: "bundle <Origin> is not signed ...".
  static void check(const uint8_t* Data, size_t Size, const bundle::BundleReadResult& Read,
                    const std::string& Origin);
};

} // namespace cajeta::xpu::rt
