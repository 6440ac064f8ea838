// A JIT cache entry: a bundle stored in the cache directory under its key (<key>.cjx) whose
// manifest records that key. Checking one is pure (bytes in, verdict out) so it can be fuzzed
// (tests/fuzz/JitCacheEntryFuzz.cpp) apart from the file system and the backends.
#pragma once

#include "bundle/Manifest.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace cajeta::xpu::rt {

struct JitCacheEntry {
  bool Ok = false;
  /// When !Ok: true if the bytes are not a valid bundle, false if they are one stored under
  /// another key (or none).
  bool Corrupt = false;
  /// When !Ok: the bundle reader's message, or "it was stored under key K, not under its own
  /// name" ("under no key" for a bundle without one).
  std::string Error;
  bundle::Program Value; // when Ok
};

/// Checks [Data, Data + Size) as the cache entry stored under Key. Never throws, never reads
/// past Size, touches no file.
JitCacheEntry parseJitCacheEntry(const uint8_t* Data, size_t Size, const std::string& Key);

/// The compiler version a cache directory's "compiler-version" file records: its first line.
std::string parseCacheCompilerVersion(const std::string& Text);

} // namespace cajeta::xpu::rt
