// JIT cache entries: a bundle, and the key it was stored under.
#include "runtime/JitCacheEntry.h"

#include "bundle/BundleReader.h"

#include <utility>

namespace cajeta::xpu::rt {

JitCacheEntry parseJitCacheEntry(const uint8_t* Data, size_t Size, const std::string& Key) {
  JitCacheEntry E;
  bundle::BundleReadResult R = bundle::BundleReader::read(Data, Size);
  if (!R.Ok) {
    E.Corrupt = true;
    E.Error = std::move(R.Error);
    return E;
  }
  if (R.Value.CacheKey != Key) {
    E.Error = "it was stored under " +
              (R.Value.CacheKey.empty() ? std::string("no key") : "key " + R.Value.CacheKey) +
              ", not under its own name";
    return E;
  }
  E.Ok = true;
  E.Value = std::move(R.Value);
  return E;
}

std::string parseCacheCompilerVersion(const std::string& Text) {
  return Text.substr(0, Text.find('\n'));
}

} // namespace cajeta::xpu::rt
