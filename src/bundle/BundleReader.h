// Reads and validates a .cjx bundle (see BundleFormat.h); rejects a bad one with a message.
#pragma once

#include "bundle/BundleSignature.h"
#include "bundle/Manifest.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cajeta::bundle {

struct BundleReadResult {
  bool Ok = false;
  std::string Error; // e.g. "bundle truncated: section 2 (payload cpu-x86_64) ends at byte 9000
                     // but file has 4096 bytes"
  Program Value;
  /// A signed bundle's signature section, read but not verified (src/signing verifies it).
  std::optional<SignatureBlock> Signature;
};

class BundleReader {
public:
  /// Parses the bundle in [Data, Data + Size). Checks the magic, the format version, the
  /// section count, every section's bounds (overflow-safe) and checksum, that the sections tile
  /// the file exactly, that there is exactly one manifest and that it parses and is valid, and
  /// that the payload sections match the manifest's list, and that a signature section, if any,
  /// is well formed and last. Never throws, never reads past Size.
  static BundleReadResult read(const uint8_t* Data, size_t Size);

  /// Reads the file at \p Path and parses it as read() does; every error names the path. With
  /// \p Bytes, the file's bytes are left there (to verify a signature over them).
  static BundleReadResult readFile(const std::string& Path, std::vector<uint8_t>* Bytes = nullptr);

  /// Whether [Data, Data + Size) starts with the bundle magic (nothing else is checked).
  static bool looksLikeBundle(const uint8_t* Data, size_t Size);
};

} // namespace cajeta::bundle
