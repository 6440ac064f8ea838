// libFuzzer entry point for the JIT cache entry check (runtime/JitCacheEntry.h): the bytes of a
// <key>.cjx file in the cache directory, checked as the runtime checks them before loading.
// Each input is checked under the key it records (when it is a bundle) and under another key.
#include "runtime/JitCacheEntry.h"

#include "bundle/BundleReader.h"

#include "BundleMutator.h" // fixes the checksums of mutants

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace cajeta;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* Data, size_t Size) {
  bundle::BundleReadResult Bundle = bundle::BundleReader::read(Data, Size);
  const std::string Other = "00000000000000000000000000000000";
  const std::string Own = Bundle.Ok ? Bundle.Value.CacheKey : Other;
  xpu::rt::JitCacheEntry E = xpu::rt::parseJitCacheEntry(Data, Size, Own);
  // A verdict must agree with the bundle reader and say why it refuses.
  if (E.Ok != Bundle.Ok || (!E.Ok && E.Error.empty()) || E.Corrupt == Bundle.Ok)
    std::abort();
  if (E.Ok && E.Value.CacheKey != Own)
    std::abort();
  if (Bundle.Ok && Own != Other) {
    xpu::rt::JitCacheEntry Wrong = xpu::rt::parseJitCacheEntry(Data, Size, Other);
    if (Wrong.Ok || Wrong.Corrupt || Wrong.Error.find("not under its own name") == std::string::npos)
      std::abort();
  }
  // The cache directory's compiler-version file: its first line.
  std::string Version =
      xpu::rt::parseCacheCompilerVersion(std::string(reinterpret_cast<const char*>(Data), Size));
  if (Version.find('\n') != std::string::npos)
    std::abort();
  return 0;
}
