// Serializes a Program into the .cjx bundle format (see BundleFormat.h).
#pragma once

#include "bundle/Manifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace cajeta::bundle {

class BundleWriter {
public:
  /// The bundle bytes of \p P: header, section table, manifest JSON, one payload section per
  /// entry of P.Payloads (in order). Strings that are not valid UTF-8 are written with U+FFFD
  /// in place of the bad bytes (JSON requires UTF-8).
  static std::vector<uint8_t> write(const Program& P);

  /// write(), then the bytes read back by the loader's own reader (BundleReader::read: every
  /// section, checksum and manifest check), so a bundle the compiler hands out always loads.
  /// False with Error ("internal error: ...", naming the reader's complaint) otherwise.
  static bool writeChecked(const Program& P, std::vector<uint8_t>& Bytes, std::string& Error);

  /// Writes the bundle of \p P (writeChecked: it reads back) to \p Path atomically: a temporary
  /// file in the same directory, flushed, then renamed over \p Path. On failure returns false, sets
  /// \p Error (naming the path and the system's reason) and leaves no temporary file behind.
  static bool writeFile(const Program& P, const std::string& Path, std::string& Error);

  /// Writes bundle bytes made elsewhere (a signed bundle) to \p Path as writeFile does: a
  /// temporary file in the same directory, flushed, then renamed over \p Path.
  static bool writeBytes(const std::vector<uint8_t>& Bytes, const std::string& Path,
                         std::string& Error);
};

} // namespace cajeta::bundle
